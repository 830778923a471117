"""Tensor: a numpy array plus what autograd needs (stop_gradient, grad, the node that made it).

A Tensor's storage is `_data`: a numpy ndarray on the CPU, a numba device array on the GPU
(framework/gpu.py); its place is read off that type. Everything else has a class-level
default so that wrapping a kernel's result costs two attribute writes. Math methods
and operators (`x + y`, `x.sum()`) are attached from the op library in
`framework/ops/tensor_methods.py`, as Paddle patches its own Tensor class.
"""
from __future__ import annotations

import itertools
import weakref

import numpy as np

from .autograd import engine as _engine
from .autograd import node as _node_module
from .autograd.engine import grad_edge, run_backward
from .autograd.node import HookHandle, VersionCounter
from .dtype import BFLOAT16_NP, to_paddle_dtype
from .errors import invalid_argument, precondition_not_met
from .place import CPUPlace, Place, place_of
from .registry import DEVICE_ARRAY_TYPES

_names = itertools.count()


class Tensor:
    """A multi-dimensional array that can record the ops applied to it for autograd."""

    # Defaults every Tensor starts with; instances only store what differs.
    stop_gradient = True
    persistable = False
    _grad = None
    _node = None            # the GradNode whose output this is (None: a leaf)
    _out_index = 0          # which output of _node
    _base = None            # the tensor whose storage this view shares
    _counter = None         # VersionCounter, made when first saved for backward
    _accum = None           # AccumulateGrad node of a leaf, made on first use
    _retains_grad = False   # retain_grads() was called (a non-leaf keeps its gradient)
    _name = None

    __array_ufunc__ = None  # numpy defers `ndarray + Tensor` to Tensor.__radd__

    @staticmethod
    def _wrap(data: np.ndarray) -> "Tensor":
        t = object.__new__(Tensor)
        t._data = data
        return t

    # ---- metadata --------------------------------------------------------------------
    @property
    def shape(self) -> list[int]:
        return list(self._data.shape)

    @property
    def dtype(self):
        return to_paddle_dtype(self._data.dtype)

    @property
    def place(self) -> Place:
        return CPUPlace() if type(self._data) is np.ndarray else place_of(self._data)

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def dim(self) -> int:
        return self._data.ndim

    @property
    def size(self) -> int:
        return int(self._data.size)

    def numel(self) -> "Tensor":
        """The number of elements, as Paddle gives it: a 0-D int64 Tensor (`int(x.numel())` for a Python int)."""
        from .creation import numel   # creation imports this module
        return numel(self)

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise invalid_argument("len", "a 0-D tensor has no length.")
        return self._data.shape[0]

    @property
    def name(self) -> str:
        if self._name is None:
            self._name = f"generated_tensor_{next(_names)}"
        return self._name

    @name.setter
    def name(self, value: str) -> None:
        self._name = value

    @property
    def is_leaf(self) -> bool:
        return self._node is None

    @property
    def grad_fn(self):
        return self._node

    @property
    def inplace_version(self) -> int:
        root = self if self._base is None else self._base
        return 0 if root._counter is None else root._counter.value

    # ---- data out ----------------------------------------------------------------------
    def numpy(self) -> np.ndarray:
        """The values as a numpy array: this tensor's own storage on the CPU, a host copy from the GPU."""
        data = self._data
        if type(data) is np.ndarray or type(data) not in DEVICE_ARRAY_TYPES:
            return data
        return data.copy_to_host()

    def __array__(self, dtype=None, copy=None):
        data = self.numpy()
        return data if dtype is None else data.astype(dtype)

    def item(self, *index):
        data = self.numpy()
        if index:
            return data.item(*index)
        if data.size != 1:
            raise invalid_argument("item", f"the tensor has {data.size} elements, expected exactly 1.",
                                   hint="pass an index, e.g. x.item(0), or use x.numpy().")
        return data.item()

    def tolist(self):
        return self.numpy().tolist()

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iu":
            raise invalid_argument("__index__", f"got a {self._data.dtype} tensor, expected an integer one.")
        return int(self.item())

    def __bool__(self) -> bool:
        if self._data.size != 1:
            raise invalid_argument("bool", f"the truth value of a tensor with {self._data.size} elements is "
                                           "ambiguous.", hint="use paddle.any(x) or paddle.all(x).")
        return bool(self.item())

    def __hash__(self) -> int:
        return id(self)

    # ---- autograd ----------------------------------------------------------------------
    @property
    def grad(self):
        return self._grad

    @grad.setter
    def grad(self, value) -> None:
        self._grad = value

    def value(self) -> "Tensor":
        """The tensor itself (Paddle's `param.value()`, from when parameters wrapped their tensor)."""
        return self

    def gradient(self) -> np.ndarray | None:
        """The gradient as a numpy array (a copy), or None before backward: Paddle's older spelling of
        `x.grad.numpy()`."""
        return None if self._grad is None else np.array(self._grad.numpy())

    def clear_grad(self, set_to_zero: bool = True) -> None:
        """Paddle semantics: the stored gradient reads as zeros, and the next backward replaces it rather
        than adding into it (set_to_zero=False: drop it). See ClearedGrad."""
        if self._grad is None:
            return
        grad = self._grad
        if set_to_zero and grad._node is None:
            grad._bump_version()  # anything saved from the old values must notice
            if type(grad) is ZeroedGrad:
                return
            if type(grad.__dict__["_data"]) is np.ndarray:
                grad.__class__ = ZeroedGrad  # zeroed when read; the next backward replaces it whole
            else:  # a device array: zeroed now
                grad._data[...] = 0
                grad.__class__ = ClearedGrad
        else:
            self._grad = None

    clear_gradient = clear_grad

    def backward(self, grad_tensor: "Tensor | None" = None, retain_graph: bool = False) -> None:
        """Accumulate d(self)/d(leaf) into every leaf's `.grad` (grad_tensor defaults to ones)."""
        if grad_tensor is not None and not isinstance(grad_tensor, Tensor):
            grad_tensor = Tensor._wrap(np.asarray(grad_tensor, dtype=self._data.dtype))
        run_backward([self], [grad_tensor], retain_graph=retain_graph, create_graph=False)

    def retain_grads(self) -> None:
        """Keep this non-leaf tensor's gradient in `.grad` after backward (each backward replaces it, as
        in Paddle); a leaf keeps its own anyway, and a tensor that stops gradient gets none."""
        if self._node is None or self.stop_gradient or self._retains_grad:
            return
        self._retains_grad = True
        ref = weakref.ref(self)

        def keep(grad):
            tensor = ref()
            if tensor is not None:
                kept = grad.detach()
                kept.stop_gradient = False
                tensor._grad = kept
        self.register_hook(keep)

    def register_hook(self, hook) -> HookHandle:
        """Call `hook(grad)` when this tensor's gradient is computed; a returned Tensor replaces it."""
        if not callable(hook):
            raise invalid_argument("register_hook", f"got {type(hook).__name__}, expected a callable.")
        edge = grad_edge(self)
        if edge is None:
            raise invalid_argument("register_hook", "the tensor has stop_gradient=True, so it never gets a "
                                                    "gradient.", hint="set x.stop_gradient = False first.")
        node, index = edge
        return node.add_hook(index, hook)

    def detach(self) -> "Tensor":
        """A tensor sharing this storage, cut from the graph (stop_gradient=True)."""
        t = Tensor._wrap(self._data)
        t._base = self if self._base is None else self._base
        return t

    def detach_(self) -> "Tensor":
        self._node = None
        self.stop_gradient = True
        return self

    # ---- in-place plumbing -----------------------------------------------------------
    def _bump_version(self) -> None:
        root = self if self._base is None else self._base
        if root._counter is None:
            root._counter = VersionCounter()
        root._counter.value += 1

    def _check_inplace(self, op: str) -> None:
        from .thread_modes import modes
        base = self._base
        if (modes.grad_enabled and base is not None and self._node is not None  # a view in the graph,
                and base._node is None and not base.stop_gradient):            # not detach()
            raise precondition_not_met(
                op, f"'{self.name}' is a view of a leaf tensor that needs grad (stop_gradient=False); "
                    "changing it in place would change the leaf.",
                hint="do it under `with paddle.no_grad():`, or on a clone().")
        if modes.grad_enabled and self._node is None and not self.stop_gradient:  # Paddle: InvalidArgument
            raise invalid_argument(
                op, f"'{self.name}' is a leaf tensor that needs grad (stop_gradient=False), such as a parameter "
                    "or its .grad; changing it in place would lose the values its gradient depends on.",
                hint="do it under `with paddle.no_grad():`, or on a clone().")
        if not self._data.flags.writeable:
            raise invalid_argument(op, "the tensor's storage is read-only.", hint="clone() it first.")

    def _assign_result(self, result: "Tensor", op: str) -> "Tensor":
        """Write `result` (computed out of place) into self; self takes over its grad history."""
        if result._data.shape != self._data.shape:
            raise invalid_argument(op, f"the result has shape {list(result._data.shape)} but the tensor "
                                       f"changed in place has shape {list(self._data.shape)}.",
                                   hint="in-place ops cannot broadcast the tensor they change.")
        self._data[...] = result._data
        self._take_history(result)
        return self

    def _take_history(self, result: "Tensor") -> None:
        """After an in-place write: bump the version; in the graph, self now stands for `result`."""
        self._bump_version()
        if result._node is not None:
            self._node = result._node
            self._out_index = result._out_index
            self.stop_gradient = False

    def set_value(self, value) -> "Tensor":
        """Overwrite the values (same shape) without recording a gradient, as Paddle does."""
        data = value._data if isinstance(value, Tensor) else np.asarray(value)
        if tuple(data.shape) != self._data.shape:
            raise invalid_argument("set_value", f"got shape {list(data.shape)}, expected {self.shape}.")
        self._data[...] = data.astype(self._data.dtype, copy=False)
        self._bump_version()
        return self

    # ---- display ---------------------------------------------------------------------
    def __repr__(self) -> str:
        data = self.numpy()
        options = {}
        if data.dtype.kind == "c":  # Paddle's style: (1.00000000+2.00000000j), aligned to the widest
            options["formatter"] = {"complexfloat": _complex_formatter(data)}
        elif data.dtype == BFLOAT16_NP:  # printed by value, as float32 prints (numpy rounds it to 6 digits)
            data = data.astype(np.float32)
        body = np.array2string(data, separator=", ", prefix=" " * 7, precision=8,
                               threshold=1000, edgeitems=3, **options)
        return (f"Tensor(shape={self.shape}, dtype={self.dtype}, place={self.place}, "
                f"stop_gradient={self.stop_gradient},\n       {body})")

    __str__ = __repr__


class ClearedGrad(Tensor):
    """A `.grad` that clear_grad(set_to_zero=True) cleared: it reads as zeros (or what the user wrote
    into it since), and the next backward gives the parameter a new grad Tensor instead of adding into
    this one -- Paddle's semantics (a grad held from before the clear keeps its values; a gradient
    added into by hand after the clear is replaced, not added to)."""


class ZeroedGrad(ClearedGrad):
    """A ClearedGrad whose zeros are not in memory yet.

    Zeroing a gradient and adding the next one into it are two passes over every parameter's worth of
    memory per step (ResNet-18: 45 MB each). So clearing only marks the grad; anything that reads it --
    p.grad, numpy(), an op, the optimizer -- finds zeros, filled on that first read (it becomes a
    ClearedGrad). The next backward's gradient array becomes the parameter's new grad when nothing
    else holds it (engine._accumulate_leaf), so usually the zeros are never written at all."""

    @property
    def _data(self):
        data = self.__dict__["_data"]
        data[...] = 0
        self.__class__ = ClearedGrad
        return data

    @_data.setter
    def _data(self, value) -> None:
        self.__dict__["_data"] = value
        self.__class__ = ClearedGrad


def _complex_formatter(data: np.ndarray):
    """numpy's formatter for one complex element, padded to the widest element of `data`."""
    def text(z) -> str:
        return f"({z.real:.8f}{z.imag:+.8f}j)"
    width = max((len(text(z)) for z in data.reshape(-1)[:2000]), default=0)
    return lambda z: text(z).rjust(width)


_engine.Tensor = Tensor
_engine.CLEARED_GRADS = (ClearedGrad, ZeroedGrad)
_node_module.Tensor = Tensor
