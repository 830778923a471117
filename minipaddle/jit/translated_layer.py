"""TranslatedLayer: what `paddle.jit.load` returns -- an nn.Layer that runs a loaded Program in dygraph.

Its parameters are ordinary Parameters made from the saved `.pdiparams`, registered under the
original model's structured names (`fc1.weight`), so `parameters()`, `state_dict()` and an
optimizer all work; `forward` runs the Program with `run_program`, so gradients flow through
the loaded graph into them and the model can be fine-tuned:

    model = paddle.jit.load("out/mnist")
    opt = paddle.optimizer.Adam(parameters=model.parameters())
    loss = F.cross_entropy(model(images), labels); loss.backward(); opt.step()

Like any Layer (and Paddle's TranslatedLayer) it starts in train mode. `model.eval()` runs the
inference program that was saved; `model.train()` runs the training variant when the model
behaves differently while training (dropout, batch norm), else the same program. Buffers (batch
norm's `_mean` / `_variance`) are registered as buffers; a training call updates them in place.
Each other saved @to_static method is a method of it (`model.infer(x)`), running its own Program
over the same parameters.
"""
from __future__ import annotations

import numpy as np

from ..framework.errors import invalid_argument
from ..framework.parameter import Parameter, unique_name
from ..framework.static.program import Program
from ..framework.tensor import Tensor
from ..nn.layer.layers import Layer
from .run_program import run_program

__all__ = ["TranslatedLayer"]


class _Holder(Layer):
    """A plain Layer that only holds parameters, so structured names nest as in the saved model."""

    def forward(self, *inputs):
        raise invalid_argument("TranslatedLayer", "this sub-layer only holds loaded parameters; call the "
                                                  "TranslatedLayer itself.")


class TranslatedLayer(Layer):
    """A loaded Program as a Layer: `layer(*inputs)` runs it, `parameters()` are trainable."""

    def __init__(self, infer_program: Program, feed_names: list[str], fetch_names: list[str], values: dict,
                 persistables: dict | None = None, train: tuple[Program, list[str]] | None = None,
                 output_structure: str = "single") -> None:
        super().__init__()
        d = self.__dict__
        d["_infer_program"] = infer_program
        d["_train_program"], d["_train_fetch_names"] = train if train is not None else (None, None)
        d["_feed_names"] = list(feed_names)
        d["_fetch_names"] = list(fetch_names)
        d["_output_structure"] = output_structure
        d["_persistables"] = {}
        d["_methods"] = {}
        persistables = persistables or {}
        for var_name, array in values.items():
            info = persistables.get(var_name, {})
            self._attach(var_name, _owned(array), info.get("structured_name") or var_name,
                         info.get("kind", "parameter"), bool(info.get("trainable", True)))

    def _add_method(self, name: str, program: Program, feed_names: list[str], fetch_names: list[str],
                    values: dict, persistables: dict, output_structure: str) -> None:
        """Another saved @to_static method (`model.infer(x)`): its own Program over the same parameters
        where both read a variable, so fine-tuning through one shows in the other."""
        if name in self.__dict__ or name in ("forward", "program") or hasattr(type(self), name):
            raise invalid_argument("jit.load", f"the saved method name {name!r} clashes with TranslatedLayer's own.")
        for var_name, array in values.items():
            if var_name not in self._persistables:
                info = persistables.get(var_name, {})
                self._attach(var_name, _owned(array), info.get("structured_name") or var_name,
                             info.get("kind", "parameter"), bool(info.get("trainable", True)))
        method = _SavedMethod(self, name, program, feed_names, fetch_names, output_structure)
        self._methods[name] = method
        self.__dict__[name] = method

    def _attach(self, var_name: str, array: np.ndarray, structured: str, kind: str, trainable: bool) -> None:
        """Register the value under its structured name ('0.weight' -> sublayer '0', parameter 'weight')."""
        *path, leaf = structured.split(".")
        owner: Layer = self
        for part in path:
            child = owner._sub_layers.get(part)
            if child is None:
                child = owner.add_sublayer(part, _Holder())
            owner = child
        if kind == "buffer":
            value = Tensor._wrap(array)
            owner.register_buffer(leaf, value)
        else:
            # a fresh name: the same file loaded twice, or beside a new model, must not share parameters
            value = Parameter(array, name=unique_name(var_name), trainable=trainable)
            owner.add_parameter(leaf, value)
        self._persistables[var_name] = value

    # ---- running ------------------------------------------------------------------------------
    def forward(self, *inputs):
        if len(inputs) != len(self._feed_names):
            raise invalid_argument("TranslatedLayer", f"got {len(inputs)} inputs, the loaded model takes "
                                                      f"{len(self._feed_names)} ({self._feed_names}).")
        if self.training and self._train_program is not None:
            program, fetch_names = self._train_program, self._train_fetch_names
        else:
            program, fetch_names = self._infer_program, self._fetch_names
        return _run(self, program, self._feed_names, inputs, fetch_names, self._output_structure)

    def program(self, method_name: str = "forward") -> Program:
        """The Program `forward` (or a saved method) runs now (forward's training variant in train mode,
        if the model has one)."""
        if method_name in self._methods:
            return self._methods[method_name].program
        if method_name != "forward":
            raise invalid_argument("TranslatedLayer.program", f"the loaded model has "
                                                              f"{['forward'] + sorted(self._methods)}, got "
                                                              f"{method_name!r}.")
        if self.training and self._train_program is not None:
            return self._train_program
        return self._infer_program

    @property
    def input_names(self) -> list[str]:
        return list(self._feed_names)

    @property
    def output_names(self) -> list[str]:
        return list(self._fetch_names)

    def extra_repr(self) -> str:
        return f"inputs={self._feed_names}, outputs={self._fetch_names}"


def _owned(array: np.ndarray) -> np.ndarray:
    """The loaded array itself when it is a fresh writable C array (what jit.load reads: one copy in
    memory, not two), else a copy."""
    array = np.asarray(array)
    return array if array.flags.writeable and array.flags.c_contiguous else np.array(array)


class _SavedMethod:
    """A loaded @to_static method other than forward: `model.infer(x)` runs its Program."""

    def __init__(self, layer: TranslatedLayer, name: str, program: Program, feed_names: list[str],
                 fetch_names: list[str], output_structure: str) -> None:
        self.layer, self.__name__, self.program = layer, name, program
        self.feed_names, self.fetch_names, self.output_structure = list(feed_names), list(fetch_names), output_structure

    def __call__(self, *inputs):
        return _run(self.layer, self.program, self.feed_names, inputs, self.fetch_names, self.output_structure,
                    self.__name__)

    def __repr__(self) -> str:
        return f"<saved method {self.__name__}: inputs={self.feed_names}, outputs={self.fetch_names}>"


def _run(layer: TranslatedLayer, program: Program, feed_names: list[str], inputs: tuple, fetch_names: list[str],
         structure: str, name: str = "forward"):
    if len(inputs) != len(feed_names):
        raise invalid_argument(f"TranslatedLayer.{name}", f"got {len(inputs)} inputs, the loaded {name} takes "
                                                          f"{len(feed_names)} ({feed_names}).")
    tensors = [x if isinstance(x, Tensor) else _to_tensor(x) for x in inputs]
    outs = run_program(program, feed_names, tensors, fetch_names, layer._persistables)
    if structure == "single":
        return outs[0]
    return tuple(outs) if structure == "tuple" else list(outs)


def _to_tensor(value) -> Tensor:
    if isinstance(value, np.ndarray):
        return Tensor._wrap(value)
    raise invalid_argument("TranslatedLayer", f"an input is a {type(value).__name__}, expected a Tensor "
                                              "(or a numpy array).")
