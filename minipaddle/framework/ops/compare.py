"""Comparisons and logic: equal, less_than, ..., logical_and/or/xor/not, isnan/isinf/isfinite,
allclose, any, all.

They return bool tensors and have no gradient (their outputs are never differentiable).
"""
from __future__ import annotations

import numpy as np

from ..dispatch import dispatch
from ..registry import MetaTensor, add_kernel, register_op
from ..tensor import Tensor
from .common import ALL, FLOATS, as_tensor, binary_operands, broadcast_shape, require_dtype, same_dtype
from .reduction import _axes, _np_axis, reduced_shape

BOOL = np.dtype(bool)


def equal_meta(x, y) -> MetaTensor:
    same_dtype("equal", x, y)
    return MetaTensor(broadcast_shape("equal", x.shape, y.shape), BOOL)


def not_equal_meta(x, y) -> MetaTensor:
    same_dtype("not_equal", x, y)
    return MetaTensor(broadcast_shape("not_equal", x.shape, y.shape), BOOL)


def less_than_meta(x, y) -> MetaTensor:
    same_dtype("less_than", x, y)
    return MetaTensor(broadcast_shape("less_than", x.shape, y.shape), BOOL)


def less_equal_meta(x, y) -> MetaTensor:
    same_dtype("less_equal", x, y)
    return MetaTensor(broadcast_shape("less_equal", x.shape, y.shape), BOOL)


def greater_than_meta(x, y) -> MetaTensor:
    same_dtype("greater_than", x, y)
    return MetaTensor(broadcast_shape("greater_than", x.shape, y.shape), BOOL)


def greater_equal_meta(x, y) -> MetaTensor:
    same_dtype("greater_equal", x, y)
    return MetaTensor(broadcast_shape("greater_equal", x.shape, y.shape), BOOL)


EQUAL = register_op("equal", inputs=("x", "y"), infer_meta=equal_meta)
NOT_EQUAL = register_op("not_equal", inputs=("x", "y"), infer_meta=not_equal_meta)
LESS_THAN = register_op("less_than", inputs=("x", "y"), infer_meta=less_than_meta)
LESS_EQUAL = register_op("less_equal", inputs=("x", "y"), infer_meta=less_equal_meta)
GREATER_THAN = register_op("greater_than", inputs=("x", "y"), infer_meta=greater_than_meta)
GREATER_EQUAL = register_op("greater_equal", inputs=("x", "y"), infer_meta=greater_equal_meta)
add_kernel("equal", "cpu", ALL, np.equal, name="numpy")
add_kernel("not_equal", "cpu", ALL, np.not_equal, name="numpy")
add_kernel("less_than", "cpu", ALL, np.less, name="numpy")
add_kernel("less_equal", "cpu", ALL, np.less_equal, name="numpy")
add_kernel("greater_than", "cpu", ALL, np.greater, name="numpy")
add_kernel("greater_equal", "cpu", ALL, np.greater_equal, name="numpy")


def equal(x, y, name=None) -> Tensor:
    """x == y, elementwise, with broadcasting: a bool tensor."""
    x, y = binary_operands("equal", x, y)
    return dispatch(EQUAL, (x, y))


def not_equal(x, y, name=None) -> Tensor:
    """x != y, elementwise, with broadcasting: a bool tensor."""
    x, y = binary_operands("not_equal", x, y)
    return dispatch(NOT_EQUAL, (x, y))


def less_than(x, y, name=None) -> Tensor:
    """x < y, elementwise, with broadcasting: a bool tensor."""
    x, y = binary_operands("less_than", x, y)
    return dispatch(LESS_THAN, (x, y))


def less_equal(x, y, name=None) -> Tensor:
    """x <= y, elementwise, with broadcasting: a bool tensor."""
    x, y = binary_operands("less_equal", x, y)
    return dispatch(LESS_EQUAL, (x, y))


def greater_than(x, y, name=None) -> Tensor:
    """x > y, elementwise, with broadcasting: a bool tensor."""
    x, y = binary_operands("greater_than", x, y)
    return dispatch(GREATER_THAN, (x, y))


def greater_equal(x, y, name=None) -> Tensor:
    """x >= y, elementwise, with broadcasting: a bool tensor."""
    x, y = binary_operands("greater_equal", x, y)
    return dispatch(GREATER_EQUAL, (x, y))


# Logical ops accept any dtype (non-zero is True) and return bool, as in Paddle.
def logical_and_meta(x, y) -> MetaTensor:
    return MetaTensor(broadcast_shape("logical_and", x.shape, y.shape), BOOL)


def logical_or_meta(x, y) -> MetaTensor:
    return MetaTensor(broadcast_shape("logical_or", x.shape, y.shape), BOOL)


def logical_xor_meta(x, y) -> MetaTensor:
    return MetaTensor(broadcast_shape("logical_xor", x.shape, y.shape), BOOL)


def logical_and_kernel(x, y):
    return np.logical_and(x.astype(bool, copy=False), y.astype(bool, copy=False))


def logical_or_kernel(x, y):
    return np.logical_or(x.astype(bool, copy=False), y.astype(bool, copy=False))


def logical_xor_kernel(x, y):
    return np.logical_xor(x.astype(bool, copy=False), y.astype(bool, copy=False))


LOGICAL_AND = register_op("logical_and", inputs=("x", "y"), infer_meta=logical_and_meta)
LOGICAL_OR = register_op("logical_or", inputs=("x", "y"), infer_meta=logical_or_meta)
LOGICAL_XOR = register_op("logical_xor", inputs=("x", "y"), infer_meta=logical_xor_meta)
add_kernel("logical_and", "cpu", ALL, logical_and_kernel, name="numpy")
add_kernel("logical_or", "cpu", ALL, logical_or_kernel, name="numpy")
add_kernel("logical_xor", "cpu", ALL, logical_xor_kernel, name="numpy")


def logical_and(x, y, out=None, name=None) -> Tensor:
    """x and y, elementwise: a bool tensor (non-zero counts as True)."""
    x = as_tensor("logical_and", "x", x)
    y = as_tensor("logical_and", "y", y)
    return dispatch(LOGICAL_AND, (x, y))


def logical_or(x, y, out=None, name=None) -> Tensor:
    """x or y, elementwise: a bool tensor (non-zero counts as True)."""
    x = as_tensor("logical_or", "x", x)
    y = as_tensor("logical_or", "y", y)
    return dispatch(LOGICAL_OR, (x, y))


def logical_xor(x, y, out=None, name=None) -> Tensor:
    """x xor y, elementwise: a bool tensor (non-zero counts as True)."""
    x = as_tensor("logical_xor", "x", x)
    y = as_tensor("logical_xor", "y", y)
    return dispatch(LOGICAL_XOR, (x, y))


# Bitwise ops on int and bool tensors; `&`, `|`, `^`, `~` mean these, as in Paddle.
INT_AND_BOOL = ("bool", "int8", "uint8", "int16", "int32", "int64")


def bitwise_and_meta(x, y) -> MetaTensor:
    same_dtype("bitwise_and", x, y)
    require_dtype("bitwise_and", "x", x, "biu", "a bool or integer dtype")
    return MetaTensor(broadcast_shape("bitwise_and", x.shape, y.shape), x.dtype)


def bitwise_or_meta(x, y) -> MetaTensor:
    same_dtype("bitwise_or", x, y)
    require_dtype("bitwise_or", "x", x, "biu", "a bool or integer dtype")
    return MetaTensor(broadcast_shape("bitwise_or", x.shape, y.shape), x.dtype)


def bitwise_xor_meta(x, y) -> MetaTensor:
    same_dtype("bitwise_xor", x, y)
    require_dtype("bitwise_xor", "x", x, "biu", "a bool or integer dtype")
    return MetaTensor(broadcast_shape("bitwise_xor", x.shape, y.shape), x.dtype)


BITWISE_AND = register_op("bitwise_and", inputs=("x", "y"), infer_meta=bitwise_and_meta)
BITWISE_OR = register_op("bitwise_or", inputs=("x", "y"), infer_meta=bitwise_or_meta)
BITWISE_XOR = register_op("bitwise_xor", inputs=("x", "y"), infer_meta=bitwise_xor_meta)
add_kernel("bitwise_and", "cpu", INT_AND_BOOL, np.bitwise_and, name="numpy")
add_kernel("bitwise_or", "cpu", INT_AND_BOOL, np.bitwise_or, name="numpy")
add_kernel("bitwise_xor", "cpu", INT_AND_BOOL, np.bitwise_xor, name="numpy")


def bitwise_and(x, y, out=None, name=None) -> Tensor:
    """x & y, elementwise, on bool or integer tensors."""
    x, y = binary_operands("bitwise_and", x, y)
    return dispatch(BITWISE_AND, (x, y))


def bitwise_or(x, y, out=None, name=None) -> Tensor:
    """x | y, elementwise, on bool or integer tensors."""
    x, y = binary_operands("bitwise_or", x, y)
    return dispatch(BITWISE_OR, (x, y))


def bitwise_xor(x, y, out=None, name=None) -> Tensor:
    """x ^ y, elementwise, on bool or integer tensors."""
    x, y = binary_operands("bitwise_xor", x, y)
    return dispatch(BITWISE_XOR, (x, y))


def _bitwise_not_meta(x) -> MetaTensor:
    require_dtype("bitwise_not", "x", x, "biu", "a bool or integer dtype")
    return MetaTensor(x.shape, x.dtype)


BITWISE_NOT = register_op("bitwise_not", inputs=("x",), infer_meta=_bitwise_not_meta)
add_kernel("bitwise_not", "cpu", INT_AND_BOOL, np.invert, name="numpy")


def bitwise_not(x, out=None, name=None) -> Tensor:
    return dispatch(BITWISE_NOT, (as_tensor("bitwise_not", "x", x),))


def logical_not_meta(x) -> MetaTensor:
    return MetaTensor(x.shape, BOOL)


def isnan_meta(x) -> MetaTensor:
    require_dtype("isnan", "x", x, "fiub", "a numeric dtype")
    return MetaTensor(x.shape, BOOL)


def isinf_meta(x) -> MetaTensor:
    require_dtype("isinf", "x", x, "fiub", "a numeric dtype")
    return MetaTensor(x.shape, BOOL)


def isfinite_meta(x) -> MetaTensor:
    require_dtype("isfinite", "x", x, "fiub", "a numeric dtype")
    return MetaTensor(x.shape, BOOL)


def logical_not_kernel(x):
    return np.logical_not(x.astype(bool, copy=False))


def _all_false(x):
    return np.zeros(x.shape, bool)


def _all_true(x):
    return np.ones(x.shape, bool)


LOGICAL_NOT = register_op("logical_not", inputs=("x",), infer_meta=logical_not_meta)
ISNAN = register_op("isnan", inputs=("x",), infer_meta=isnan_meta)
ISINF = register_op("isinf", inputs=("x",), infer_meta=isinf_meta)
ISFINITE = register_op("isfinite", inputs=("x",), infer_meta=isfinite_meta)
add_kernel("logical_not", "cpu", ALL, logical_not_kernel, name="numpy")
add_kernel("isnan", "cpu", FLOATS, np.isnan, name="numpy")
add_kernel("isinf", "cpu", FLOATS, np.isinf, name="numpy")
add_kernel("isfinite", "cpu", FLOATS, np.isfinite, name="numpy")
# integers are never NaN or Inf
add_kernel("isnan", "cpu", ("int32", "int64", "bool"), _all_false, name="numpy")
add_kernel("isinf", "cpu", ("int32", "int64", "bool"), _all_false, name="numpy")
add_kernel("isfinite", "cpu", ("int32", "int64", "bool"), _all_true, name="numpy")


def logical_not(x, out=None, name=None) -> Tensor:
    """not x, elementwise: a bool tensor (non-zero counts as True)."""
    return dispatch(LOGICAL_NOT, (as_tensor("logical_not", "x", x),))


def isnan(x, name=None) -> Tensor:
    """True where x is NaN."""
    return dispatch(ISNAN, (as_tensor("isnan", "x", x),))


def isinf(x, name=None) -> Tensor:
    """True where x is +inf or -inf."""
    return dispatch(ISINF, (as_tensor("isinf", "x", x),))


def isfinite(x, name=None) -> Tensor:
    """True where x is neither NaN nor infinite."""
    return dispatch(ISFINITE, (as_tensor("isfinite", "x", x),))


def any_meta(x, axis=None, keepdim=False) -> MetaTensor:
    return MetaTensor(reduced_shape(x.shape, axis, keepdim), BOOL)


def all_meta(x, axis=None, keepdim=False) -> MetaTensor:
    return MetaTensor(reduced_shape(x.shape, axis, keepdim), BOOL)


def _any_kernel(x, axis=None, keepdim=False):
    return np.any(x, axis=_np_axis(x, axis), keepdims=keepdim)


def _all_kernel(x, axis=None, keepdim=False):
    return np.all(x, axis=_np_axis(x, axis), keepdims=keepdim)


ANY = register_op("any", inputs=("x",), infer_meta=any_meta,
                  attrs={"axis": (tuple, None), "keepdim": (bool, False)})
ALL_OP = register_op("all", inputs=("x",), infer_meta=all_meta,
                     attrs={"axis": (tuple, None), "keepdim": (bool, False)})
add_kernel("any", "cpu", ALL, _any_kernel, name="numpy")
add_kernel("all", "cpu", ALL, _all_kernel, name="numpy")


def any(x, axis=None, keepdim=False, name=None) -> Tensor:  # noqa: A001
    x = as_tensor("any", "x", x)
    return dispatch(ANY, (x,), {"axis": _axes("any", axis, x._data.ndim), "keepdim": bool(keepdim)})


def all(x, axis=None, keepdim=False, name=None) -> Tensor:  # noqa: A001
    x = as_tensor("all", "x", x)
    return dispatch(ALL_OP, (x,), {"axis": _axes("all", axis, x._data.ndim), "keepdim": bool(keepdim)})


def _isclose_meta(x, y, rtol=1e-05, atol=1e-08, equal_nan=False) -> MetaTensor:
    same_dtype("isclose", x, y)
    return MetaTensor(broadcast_shape("isclose", x.shape, y.shape), BOOL)


def _isclose_kernel(x, y, rtol=1e-05, atol=1e-08, equal_nan=False):
    return np.isclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan)


ISCLOSE = register_op("isclose", inputs=("x", "y"), infer_meta=_isclose_meta,
                      attrs={"rtol": (float, 1e-05), "atol": (float, 1e-08), "equal_nan": (bool, False)})
add_kernel("isclose", "cpu", FLOATS + ("int32", "int64"), _isclose_kernel, name="numpy")


def isclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None) -> Tensor:
    """|x - y| <= atol + rtol * |y|, elementwise."""
    x, y = binary_operands("isclose", x, y)
    return dispatch(ISCLOSE, (x, y), {"rtol": float(rtol), "atol": float(atol), "equal_nan": bool(equal_nan)})


def allclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None) -> Tensor:
    """True when every element of x is close to y (a 0-D bool tensor)."""
    x, y = binary_operands("allclose", x, y)
    broadcast_shape("allclose", x._data.shape, y._data.shape)  # errors name the op the user called
    return all(isclose(x, y, rtol, atol, equal_nan))


def equal_all(x, y, name=None) -> Tensor:
    x, y = binary_operands("equal_all", x, y)
    return Tensor._wrap(np.array(x._data.shape == y._data.shape and bool(np.all(x._data == y._data))))


__all__ = ["equal", "not_equal", "less_than", "less_equal", "greater_than", "greater_equal",
           "logical_and", "logical_or", "logical_xor", "logical_not", "isnan", "isinf", "isfinite",
           "any", "all", "allclose", "isclose", "equal_all", "bitwise_and", "bitwise_or", "bitwise_xor",
           "bitwise_not"]
TENSOR_METHODS = list(__all__)
