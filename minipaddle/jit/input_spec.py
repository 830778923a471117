"""InputSpec: the signature of one model input (shape with -1 for any size, dtype, name).

`paddle.jit.to_static(input_spec=[...])` and `paddle.jit.save(..., input_spec=[...])` build a
Program from specs instead of real tensors: each spec becomes a `static.data` variable.

    >>> from minipaddle.static import InputSpec
    >>> InputSpec([None, 784], "float32", "x")
    InputSpec(shape=(-1, 784), dtype=paddle.float32, name=x, stop_gradient=False)
"""
from __future__ import annotations

import numpy as np

from ..framework.dtype import DType, convert_dtype, to_paddle_dtype
from ..framework.errors import invalid_argument
from ..framework.tensor import Tensor

__all__ = ["InputSpec"]


def _verify_shape(shape) -> tuple[int, ...]:
    if isinstance(shape, (list, tuple)):
        dims = list(shape)
    elif isinstance(shape, np.ndarray) or hasattr(shape, "__iter__"):
        dims = list(shape)
    else:
        raise invalid_argument("InputSpec", f"shape must be a list or tuple of ints, got {type(shape).__name__} "
                                            f"{shape!r}.", hint="e.g. InputSpec([None, 784], 'float32').")
    out = []
    for i, d in enumerate(dims):
        if d is None:
            out.append(-1)  # None: any size, stored as Paddle's -1
            continue
        if isinstance(d, (bool, np.bool_)) or not isinstance(d, (int, np.integer)):
            raise invalid_argument("InputSpec", f"shape[{i}] should be an int or None, got "
                                                f"{type(d).__name__} {d!r}.")
        if d < -1:
            raise invalid_argument("InputSpec", f"shape[{i}] is {d}; a dim is a size >= 0, or -1/None for any size.")
        out.append(int(d))
    return tuple(out)


class InputSpec:
    """`InputSpec(shape, dtype='float32', name=None, stop_gradient=False)`: one input's signature."""

    def __init__(self, shape, dtype="float32", name: str | None = None, stop_gradient: bool = False) -> None:
        self.shape = _verify_shape(shape)
        self.dtype: DType = to_paddle_dtype(convert_dtype(dtype))
        if name is not None and not isinstance(name, str):
            raise invalid_argument("InputSpec", f"name must be a str or None, got {type(name).__name__}.")
        self.name = name
        self.stop_gradient = bool(stop_gradient)

    @classmethod
    def from_tensor(cls, tensor, name: str | None = None) -> "InputSpec":
        """The spec of `tensor` (its shape, dtype and, without `name`, its name)."""
        if not isinstance(tensor, Tensor):
            raise invalid_argument("InputSpec.from_tensor", f"expected a Tensor, got {type(tensor).__name__}.",
                                   hint="use InputSpec.from_numpy for an ndarray.")
        return cls(tensor.shape, tensor.dtype, name or tensor.name)

    @classmethod
    def from_numpy(cls, ndarray, name: str | None = None) -> "InputSpec":
        """The spec of a numpy array (its shape and dtype)."""
        if not isinstance(ndarray, np.ndarray):
            raise invalid_argument("InputSpec.from_numpy", f"expected a numpy.ndarray, got {type(ndarray).__name__}.")
        return cls(ndarray.shape, ndarray.dtype, name)

    def batch(self, batch_size) -> "InputSpec":
        """Prepend a batch dim (in place, like Paddle; returns self): [784] -> [batch_size, 784]."""
        if isinstance(batch_size, (list, tuple)):
            if len(batch_size) != 1:
                raise invalid_argument("InputSpec.batch", f"batch_size {list(batch_size)} should hold exactly one "
                                                          "value.")
            batch_size = batch_size[0]
        if batch_size is not None and (isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer))):
            raise invalid_argument("InputSpec.batch", f"batch_size should be an int, got "
                                                      f"{type(batch_size).__name__} {batch_size!r}.")
        self.shape = _verify_shape([batch_size, *self.shape])
        return self

    def unbatch(self) -> "InputSpec":
        """Drop the leading (batch) dim, in place; returns self."""
        if len(self.shape) == 0:
            raise invalid_argument("InputSpec.unbatch", "a 0-D InputSpec has no batch dim to remove.")
        self.shape = self.shape[1:]
        return self

    @property
    def np_dtype(self) -> np.dtype:
        return self.dtype.np_dtype

    def _to_dict(self) -> dict:
        return {"shape": list(self.shape), "dtype": self.dtype.name, "name": self.name,
                "stop_gradient": self.stop_gradient}

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(shape={self.shape}, dtype={self.dtype}, name={self.name}, "
                f"stop_gradient={self.stop_gradient})")

    def __hash__(self) -> int:
        # as in Paddle, the name is left out: two specs differing only by name share a Program
        return hash((self.shape, self.dtype, self.stop_gradient))

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and all(
            getattr(self, a) == getattr(other, a) for a in ("shape", "dtype", "name", "stop_gradient"))

    def __ne__(self, other: object) -> bool:
        return not self == other
