"""Elementwise math on a sparse tensor's stored values: the pattern stays, the values change.

Each function maps f over `values()` only, so f(0) is taken to be 0 where nothing is stored (true
for every function here; Paddle's paddle.sparse offers exactly the zero-preserving ones). Where the
dense op exists in minipaddle (sin, tanh, sqrt, ...) it is called on the values; asin, atan, sinh,
... have no dense op yet, so one small registered op, `sparse_values_math`, computes them from a
table: the numpy function and the derivative written in minipaddle ops (so grads of grads work).
"""
from __future__ import annotations

import math

import numpy as np

from ..framework.creation import to_tensor
from ..framework.dispatch import dispatch
from ..framework.errors import invalid_argument, invalid_type
from ..framework.ops import elementwise as E
from ..framework.ops.compare import isnan as dense_isnan
from ..framework.ops.indexing import gather
from ..framework.ops.manipulation import reshape
from ..framework.registry import add_kernel, new_meta, register_op
from ..framework.tensor import Tensor
from .conversion import csr_entry_rows, linear_keys
from .tensor import SparseCsrTensor, SparseTensor

# name -> (numpy function, d f(x) / dx written in minipaddle ops)
VALUES_MATH = {
    "asin": (np.arcsin, lambda x: E.rsqrt(1.0 - x * x)),
    "asinh": (np.arcsinh, lambda x: E.rsqrt(x * x + 1.0)),
    "atan": (np.arctan, lambda x: E.reciprocal(x * x + 1.0)),
    "atanh": (np.arctanh, lambda x: E.reciprocal(1.0 - x * x)),
    "tan": (np.tan, lambda x: E.reciprocal(E.square(E.cos(x)))),
    "sinh": (np.sinh, lambda x: (E.exp(x) + E.exp(-x)) * 0.5),
    "expm1": (np.expm1, lambda x: E.exp(x)),
}


def values_math_meta(x, func=""):
    if func not in VALUES_MATH:
        raise invalid_argument("sparse_values_math", f"func must be one of {sorted(VALUES_MATH)}, got {func!r}.")
    return new_meta(x.shape, x.dtype)


def values_math_grad(node, dout):
    return dout * VALUES_MATH[node.func][1](node.x)


def values_math_kernel(x, func=""):
    return VALUES_MATH[func][0](x)


SPARSE_VALUES_MATH = register_op("sparse_values_math", inputs=("x",), attrs={"func": (str, "")},
                                 infer_meta=values_math_meta, backward=values_math_grad, save=("x",),
                                 doc="f(values) for the zero-preserving f in sparse/unary.py's VALUES_MATH.")
add_kernel("sparse_values_math", "cpu", ("float32", "float64"), values_math_kernel, name="numpy")


def _map_values(op: str, x, fn) -> SparseTensor:
    if not isinstance(x, SparseTensor):
        raise invalid_type(f"sparse.{op}", f"x must be a sparse tensor, got {type(x).__name__}.",
                           hint=f"use paddle.{op} for a dense tensor.")
    return x._with_values(fn(x.values()))


def _math(x: Tensor, func: str) -> Tensor:
    return dispatch(SPARSE_VALUES_MATH, (x,), {"func": func})


def abs(x, name=None):  # noqa: A001 - Paddle's name
    return _map_values("abs", x, E.abs)


def neg(x, name=None):
    return _map_values("neg", x, E.neg)


def sin(x, name=None):
    return _map_values("sin", x, E.sin)


def tanh(x, name=None):
    return _map_values("tanh", x, E.tanh)


def sqrt(x, name=None):
    return _map_values("sqrt", x, E.sqrt)


def square(x, name=None):
    return _map_values("square", x, E.square)


def log1p(x, name=None):
    return _map_values("log1p", x, E.log1p)


def asin(x, name=None):
    return _map_values("asin", x, lambda v: _math(v, "asin"))


def asinh(x, name=None):
    return _map_values("asinh", x, lambda v: _math(v, "asinh"))


def atan(x, name=None):
    return _map_values("atan", x, lambda v: _math(v, "atan"))


def atanh(x, name=None):
    return _map_values("atanh", x, lambda v: _math(v, "atanh"))


def tan(x, name=None):
    return _map_values("tan", x, lambda v: _math(v, "tan"))


def sinh(x, name=None):
    return _map_values("sinh", x, lambda v: _math(v, "sinh"))


def expm1(x, name=None):
    return _map_values("expm1", x, lambda v: _math(v, "expm1"))


def deg2rad(x, name=None):
    return _map_values("deg2rad", x, lambda v: v * (math.pi / 180.0))


def rad2deg(x, name=None):
    return _map_values("rad2deg", x, lambda v: v * (180.0 / math.pi))


def pow(x, factor: float, name=None):  # noqa: A001 - Paddle's name
    """values ** factor (factor a number)."""
    return _map_values("pow", x, lambda v: E.pow(v, factor))


def isnan(x, name=None):
    """A bool sparse tensor on x's pattern: which stored values are NaN."""
    return _map_values("isnan", x, dense_isnan)


def cast(x, index_dtype=None, value_dtype=None, name=None):
    """x with its index tensors cast to `index_dtype` and its values to `value_dtype` (None: unchanged)."""
    out = _map_values("cast", x, lambda v: v if value_dtype is None else E.cast(v, value_dtype))
    if index_dtype is None:
        return out
    if isinstance(out, SparseCsrTensor):
        out._crows, out._cols = E.cast(out._crows, index_dtype), E.cast(out._cols, index_dtype)
    else:
        out._indices = E.cast(out._indices, index_dtype)
    return out


def mask_as(x: Tensor, mask, name=None):
    """The entries of dense x at the positions `mask` (sparse) stores, with mask's layout and pattern."""
    if not isinstance(mask, SparseTensor) or list(x.shape) != mask.shape:
        raise invalid_argument("mask_as", f"mask must be a sparse tensor of x's shape {list(x.shape)}, got "
                                          f"{type(mask).__name__} of shape {list(mask.shape)}.")
    if isinstance(mask, SparseCsrTensor):
        matrix, rows = csr_entry_rows(mask.crows().numpy(), mask.shape)
        index = np.stack(([matrix] if mask.ndim == 3 else []) + [rows, mask.cols().numpy()])
        sparse_dim = mask.ndim
    else:
        index, sparse_dim = mask.indices().numpy(), mask.sparse_dim
    sparse_shape = mask.shape[:sparse_dim]
    flat = reshape(x, [int(np.prod(sparse_shape))] + mask.shape[sparse_dim:])
    return mask._with_values(gather(flat, to_tensor(linear_keys(index, sparse_shape))))
