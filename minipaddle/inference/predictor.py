"""paddle.inference's Predictor: run a saved inference model through handles, as deployment code does.

    predictor = paddle.inference.create_predictor(config)
    x = predictor.get_input_handle(predictor.get_input_names()[0])
    x.reshape([1, 784]); x.copy_from_cpu(image)              # numpy in
    predictor.run()
    y = predictor.get_output_handle(predictor.get_output_names()[0]).copy_to_cpu()   # numpy out

The Predictor reads the model's two files once (every check of static.load_inference_model), keeps
its parameters in a Scope of its own (two predictors never share state) and runs the Program with
the static Executor -- the same kernels as everything else. Outputs are named `fetch_name_0`, ... as
in Paddle 3.
"""
from __future__ import annotations

import numpy as np

from ..framework.errors import invalid_argument, precondition_not_met
from ..framework.static import io as static_io
from ..framework.static.executor import Executor, Scope
from ..framework.tensor import Tensor
from .config import Config, DataType

__all__ = ["Predictor", "InferTensor", "create_predictor"]

_DATA_TYPES = {np.dtype(k): getattr(DataType, v) for k, v in (
    ("float32", "FLOAT32"), ("int64", "INT64"), ("int32", "INT32"), ("uint8", "UINT8"), ("int8", "INT8"),
    ("float16", "FLOAT16"), ("bool", "BOOL"), ("float64", "FLOAT64"))}


class InferTensor:
    """An input or output of a Predictor (Paddle's PaddleInferTensor): numpy in, numpy out."""

    def __init__(self, predictor: "Predictor", name: str, var, is_input: bool) -> None:
        self._predictor, self._name, self._var, self._is_input = predictor, name, var, is_input
        self._shape: list[int] | None = None

    def reshape(self, shape) -> None:
        """Declare the shape of the next input (copy_from_cpu must then match it)."""
        if not self._is_input:
            raise invalid_argument("InferTensor.reshape", f"{self._name!r} is an output; only inputs are reshaped.")
        if not isinstance(shape, (list, tuple)) or not all(isinstance(d, (int, np.integer)) and d >= 0 for d in shape):
            raise invalid_argument("InferTensor.reshape", f"shape must be a list of sizes >= 0, got {shape!r}.")
        self._shape = [int(d) for d in shape]

    def copy_from_cpu(self, data) -> None:
        if not self._is_input:
            raise invalid_argument("InferTensor.copy_from_cpu", f"{self._name!r} is an output of the model.")
        if not isinstance(data, np.ndarray):
            raise invalid_argument("InferTensor.copy_from_cpu", f"expected a numpy array for {self._name!r}, got "
                                                                f"{type(data).__name__}.")
        if self._shape is not None and list(data.shape) != self._shape:
            raise invalid_argument("InferTensor.copy_from_cpu", f"{self._name!r} was reshaped to {self._shape}, "
                                                                f"the data has shape {list(data.shape)}.")
        self._predictor._inputs[self._name] = np.array(data, order="C")   # a copy, as Paddle's

    def share_external_data(self, tensor) -> None:
        self.copy_from_cpu(tensor.numpy() if isinstance(tensor, Tensor) else np.asarray(tensor))

    def copy_to_cpu(self) -> np.ndarray:
        if self._is_input:
            value = self._predictor._inputs.get(self._name)
        else:
            value = self._predictor._outputs.get(self._name)
        if value is None:
            raise precondition_not_met("InferTensor.copy_to_cpu", f"{self._name!r} holds no data yet.",
                                       hint="call predictor.run() first." if not self._is_input else
                                            "copy_from_cpu(...) fills an input.")
        return np.array(value)

    def shape(self) -> list[int]:
        source = self._predictor._inputs if self._is_input else self._predictor._outputs
        if self._name in source:
            return list(source[self._name].shape)
        return list(self._shape) if self._shape is not None else list(self._var._data.shape)

    def type(self) -> DataType:
        return _DATA_TYPES.get(np.dtype(self._var._data.dtype), DataType.FLOAT32)

    def lod(self) -> list:
        return []

    def set_lod(self, lod) -> None:
        pass  # level-of-detail (ragged) tensors are not part of this build; dense data only

    def __repr__(self) -> str:
        return f"InferTensor({self._name!r}, {'input' if self._is_input else 'output'}, shape={self.shape()})"


class Predictor:
    """A loaded inference model ready to run: see the module docstring."""

    def __init__(self, config: Config) -> None:
        if not isinstance(config, Config):
            raise invalid_argument("create_predictor", f"expected a paddle.inference.Config, got "
                                                       f"{type(config).__name__}.")
        self._config = config
        model_file, params_file = config._files()
        api = "create_predictor"
        program, meta, values = static_io.read_inference_files(api, "", model_file, params_file)
        gb = program.global_block()
        feeds, fetches = meta.get("feed"), meta.get("fetch")
        if not isinstance(feeds, list) or not isinstance(fetches, list) or not all(
                isinstance(n, str) and n in gb.vars for n in feeds + fetches):
            raise invalid_argument(api, f"{model_file!r} names feeds/fetches its program lacks; the file is "
                                        "corrupted.")
        self._program, self._feed_names, self._fetch_vars = program, list(feeds), list(fetches)
        self._output_names = [f"fetch_name_{i}" for i in range(len(fetches))]
        self._scope = Scope()
        for name, value in values.items():
            self._scope._set(name, value)
        self._executor = Executor()
        self._inputs: dict[str, np.ndarray] = {}
        self._outputs: dict[str, np.ndarray] = {}

    def get_input_names(self) -> list[str]:
        return list(self._feed_names)

    def get_output_names(self) -> list[str]:
        return list(self._output_names)

    def get_input_handle(self, name: str) -> InferTensor:
        if name not in self._feed_names:
            raise precondition_not_met("Predictor.get_input_handle", f"the model has no input {name!r}.",
                                       hint=f"its inputs: {self._feed_names}.")
        return InferTensor(self, name, self._program.global_block().vars[name], True)

    def get_output_handle(self, name: str) -> InferTensor:
        if name not in self._output_names:
            raise precondition_not_met("Predictor.get_output_handle", f"the model has no output {name!r}.",
                                       hint=f"its outputs: {self._output_names}.")
        var = self._program.global_block().vars[self._fetch_vars[self._output_names.index(name)]]
        return InferTensor(self, name, var, False)

    def run(self, inputs: list | None = None):
        """Run on what the input handles hold (returns None); or `run([tensors])`, which returns the
        outputs as Tensors, as Paddle 3's newer form does."""
        if inputs is not None:
            if not isinstance(inputs, (list, tuple)) or len(inputs) != len(self._feed_names):
                raise invalid_argument("Predictor.run", f"expected a list of {len(self._feed_names)} input(s) "
                                                        f"({self._feed_names}), got {inputs!r:.80}.")
            for name, value in zip(self._feed_names, inputs):
                array = value.numpy() if isinstance(value, Tensor) else value
                self.get_input_handle(name).copy_from_cpu(np.asarray(array))
        missing = [n for n in self._feed_names if n not in self._inputs]
        if missing:
            raise precondition_not_met("Predictor.run", f"input(s) {missing} have no data.",
                                       hint="predictor.get_input_handle(name).copy_from_cpu(array) first.")
        outs = self._executor.run(self._program, feed=dict(self._inputs), fetch_list=self._fetch_vars,
                                  scope=self._scope)
        self._outputs = dict(zip(self._output_names, outs))
        if inputs is not None:
            return [Tensor._wrap(np.array(o)) for o in outs]
        return None

    def clone(self) -> "Predictor":
        """Another Predictor over the same model (its own inputs and outputs)."""
        return Predictor(self._config)

    def clear_intermediate_tensor(self) -> None:
        self._outputs = {}

    def try_shrink_memory(self) -> int:
        return 0

    def __repr__(self) -> str:
        return f"Predictor(inputs={self._feed_names}, outputs={self._output_names})"


def create_predictor(config: Config) -> Predictor:
    """`paddle.inference.create_predictor(config)`: load the model the Config names and get it ready to run."""
    return Predictor(config)
