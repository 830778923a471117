"""paddle.inference: run a saved inference model the way deployment code does (Config, Predictor).

    config = paddle.inference.Config("out/mnist.json", "out/mnist.pdiparams")
    predictor = paddle.inference.create_predictor(config)
    handle = predictor.get_input_handle(predictor.get_input_names()[0])
    handle.copy_from_cpu(images)
    predictor.run()
    logits = predictor.get_output_handle(predictor.get_output_names()[0]).copy_to_cpu()

`config.py` holds the Config (Paddle's engine options are accepted and recorded; on this CPU-only
build they do not change how the Program runs, and `Config.summary()` says so); `predictor.py` runs
the saved Program with the static Executor.
"""
from __future__ import annotations

from .config import Config, DataType, PlaceType, PrecisionType
from .predictor import InferTensor, Predictor, create_predictor

__all__ = ["Config", "Predictor", "InferTensor", "create_predictor", "PrecisionType", "PlaceType", "DataType",
           "get_version", "convert_to_mixed_precision"]


def get_version() -> str:
    from .. import __version__
    return f"minipaddle {__version__} (CPU; numpy + numba kernels)"


def convert_to_mixed_precision(*args, **kwargs) -> None:
    from ..framework.errors import unimplemented
    raise unimplemented("inference.convert_to_mixed_precision", "this build runs saved models in the precision "
                                                                 "they were saved in.")
