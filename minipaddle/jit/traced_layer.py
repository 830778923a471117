"""TracedLayer: record one call of a Layer as a static Program (Paddle's older dygraph-to-static path).

Tracing runs the layer once eagerly (for its outputs) and once under `program_guard` on data
variables shaped like the example inputs. Python control flow is frozen at what the example
took, so this suits models without data-dependent branches; use `@paddle.jit.to_static` for those.

    outs, traced = paddle.jit.TracedLayer.trace(model, inputs=[x])
    traced([x])                                   # runs the Program (with the layer's own parameters)
    print(traced.program)
    traced.save_inference_model("out/model")      # the static format: jit.load / load_inference_model read it
"""
from __future__ import annotations

from ..framework.errors import invalid_argument
from ..framework.static.program import Program
from ..framework.tensor import Tensor
from ..nn.layer.layers import Layer
from .input_spec import InputSpec
from .io import Traced, _arg_names, _check_path, _write_model, trace_program
from .run_program import run_program

__all__ = ["TracedLayer"]


def _as_list(api: str, inputs) -> list[Tensor]:
    items = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
    for i, t in enumerate(items):
        if not isinstance(t, Tensor):
            raise invalid_argument(api, f"inputs[{i}] is a {type(t).__name__}, expected a Tensor.",
                                   hint="pass paddle.to_tensor(...) values.")
    return items


def _indices(api: str, what: str, picks, count: int) -> list[int]:
    if picks is None:
        return list(range(count))
    picks = list(picks) if isinstance(picks, (list, tuple)) else [picks]
    for p in picks:
        if isinstance(p, bool) or not isinstance(p, int) or not 0 <= p < count:
            raise invalid_argument(api, f"{what} holds {p!r}; expected indices in [0, {count}).")
    return picks


class TracedLayer:
    """A Layer's Program recorded from one call; build it with `TracedLayer.trace(layer, inputs)`."""

    def __init__(self, layer: Layer, traced: Traced) -> None:
        self._layer = layer
        self._traced = traced

    @staticmethod
    def trace(layer: Layer, inputs) -> tuple[object, "TracedLayer"]:
        """(the layer's eager outputs on `inputs`, a TracedLayer holding the recorded Program)."""
        api = "TracedLayer.trace"
        if not isinstance(layer, Layer):
            raise invalid_argument(api, f"layer must be an nn.Layer, got {type(layer).__name__}.")
        tensors = _as_list(api, inputs)
        outs = layer(*tensors)
        specs = [InputSpec.from_tensor(t) for t in tensors]
        names = _arg_names(layer.forward, len(specs))
        traced = trace_program(api, layer, specs, layer, names=names)
        return outs, TracedLayer(layer, traced)

    @property
    def program(self) -> Program:
        return self._traced.program

    def __call__(self, inputs) -> list[Tensor]:
        """Run the recorded Program on `inputs` with the layer's current parameters; a list of outputs."""
        tensors = _as_list("TracedLayer", inputs)
        t = self._traced
        if len(tensors) != len(t.feed_names):
            raise invalid_argument("TracedLayer", f"got {len(tensors)} inputs, the traced program takes "
                                                  f"{len(t.feed_names)} ({t.feed_names}).")
        return run_program(t.program, t.feed_names, tensors, t.fetch_names, t.values)

    def set_strategy(self, build_strategy=None, exec_strategy=None) -> None:
        """Accepted for Paddle compatibility: the Executor here has no strategies to set."""

    def save_inference_model(self, path: str, feed=None, fetch=None, **kwargs) -> None:
        """Write the Program (pruned to the `fetch` outputs, fed by the `feed` inputs: lists of indices)
        and its parameters in the static format (<path>.json + <path>.pdiparams, structured names inside)."""
        api = "TracedLayer.save_inference_model"
        _check_path(api, path)
        t = self._traced
        feeds = [t.feed_names[i] for i in _indices(api, "feed", feed, len(t.feed_names))]
        fetches = [t.fetch_names[i] for i in _indices(api, "fetch", fetch, len(t.fetch_names))]
        structure = "single" if len(fetches) == 1 else "list"
        _write_model(api, path, Traced(t.program, feeds, fetches, structure, t.values, t.structured), None)
