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
from .reduction import _np_axis

BOOL = np.dtype(bool)


def _compare_meta_for(name: str):
    def compare_meta(x, y) -> MetaTensor:
        same_dtype(name, x, y)
        return MetaTensor(broadcast_shape(name, x.shape, y.shape), BOOL)
    compare_meta.__qualname__ = f"{name}_meta"
    return compare_meta


def _binary(name: str, numpy_fn, dtypes=ALL):
    op = register_op(name, inputs=("x", "y"), infer_meta=_compare_meta_for(name))
    add_kernel(name, "cpu", dtypes, numpy_fn, name="numpy")

    def api(x, y, name=None) -> Tensor:
        x, y = binary_operands(op.name, x, y)
        return dispatch(op, (x, y))
    api.__name__ = api.__qualname__ = name
    return op, api


EQUAL, equal = _binary("equal", np.equal)
NOT_EQUAL, not_equal = _binary("not_equal", np.not_equal)
LESS_THAN, less_than = _binary("less_than", np.less)
LESS_EQUAL, less_equal = _binary("less_equal", np.less_equal)
GREATER_THAN, greater_than = _binary("greater_than", np.greater)
GREATER_EQUAL, greater_equal = _binary("greater_equal", np.greater_equal)


def _logical(name: str, numpy_fn):
    """Logical ops accept any dtype (non-zero is True) and return bool, as in Paddle."""
    def logical_meta(x, y) -> MetaTensor:
        return MetaTensor(broadcast_shape(name, x.shape, y.shape), BOOL)
    logical_meta.__qualname__ = f"{name}_meta"
    op = register_op(name, inputs=("x", "y"), infer_meta=logical_meta)

    def kernel(x, y):
        return numpy_fn(x.astype(bool, copy=False), y.astype(bool, copy=False))
    kernel.__name__ = kernel.__qualname__ = f"{name}_kernel"
    add_kernel(name, "cpu", ALL, kernel, name="numpy")

    def api(x, y, out=None, name=None) -> Tensor:
        x = as_tensor(op.name, "x", x)
        y = as_tensor(op.name, "y", y)
        return dispatch(op, (x, y))
    api.__name__ = api.__qualname__ = name
    return op, api


def _bitwise(name: str, numpy_fn):
    """Bitwise ops on int and bool tensors; `&`, `|`, `^`, `~` mean these, as in Paddle."""
    def bitwise_meta(x, y) -> MetaTensor:
        same_dtype(name, x, y)
        require_dtype(name, "x", x, "biu", "a bool or integer dtype")
        return MetaTensor(broadcast_shape(name, x.shape, y.shape), x.dtype)
    bitwise_meta.__qualname__ = f"{name}_meta"
    op = register_op(name, inputs=("x", "y"), infer_meta=bitwise_meta)
    add_kernel(name, "cpu", INT_AND_BOOL, numpy_fn, name="numpy")

    def api(x, y, out=None, name=None) -> Tensor:
        x, y = binary_operands(op.name, x, y)
        return dispatch(op, (x, y))
    api.__name__ = api.__qualname__ = name
    return op, api


INT_AND_BOOL = ("bool", "int8", "uint8", "int16", "int32", "int64")
BITWISE_AND, bitwise_and = _bitwise("bitwise_and", np.bitwise_and)
BITWISE_OR, bitwise_or = _bitwise("bitwise_or", np.bitwise_or)
BITWISE_XOR, bitwise_xor = _bitwise("bitwise_xor", np.bitwise_xor)


def _bitwise_not_meta(x) -> MetaTensor:
    require_dtype("bitwise_not", "x", x, "biu", "a bool or integer dtype")
    return MetaTensor(x.shape, x.dtype)


BITWISE_NOT = register_op("bitwise_not", inputs=("x",), infer_meta=_bitwise_not_meta)
add_kernel("bitwise_not", "cpu", INT_AND_BOOL, np.invert, name="numpy")


def bitwise_not(x, out=None, name=None) -> Tensor:
    return dispatch(BITWISE_NOT, (as_tensor("bitwise_not", "x", x),))


LOGICAL_AND, logical_and = _logical("logical_and", np.logical_and)
LOGICAL_OR, logical_or = _logical("logical_or", np.logical_or)
LOGICAL_XOR, logical_xor = _logical("logical_xor", np.logical_xor)


def _predicate(name: str, numpy_fn, dtypes=ALL, float_only=False):
    def predicate_meta(x) -> MetaTensor:
        if float_only:
            require_dtype(name, "x", x, "fiub", "a numeric dtype")
        return MetaTensor(x.shape, BOOL)
    predicate_meta.__qualname__ = f"{name}_meta"
    op = register_op(name, inputs=("x",), infer_meta=predicate_meta)
    add_kernel(name, "cpu", dtypes, numpy_fn, name="numpy")

    def api(x, name=None) -> Tensor:
        return dispatch(op, (as_tensor(op.name, "x", x),))
    api.__name__ = api.__qualname__ = name
    return op, api


def _logical_not_kernel(x):
    return np.logical_not(x.astype(bool, copy=False))


def _all_false(x):
    return np.zeros(x.shape, bool)


LOGICAL_NOT, logical_not = _predicate("logical_not", _logical_not_kernel)
ISNAN, isnan = _predicate("isnan", np.isnan, FLOATS, float_only=True)
ISINF, isinf = _predicate("isinf", np.isinf, FLOATS, float_only=True)
ISFINITE, isfinite = _predicate("isfinite", np.isfinite, FLOATS, float_only=True)
for _name in ("isnan", "isinf"):  # integers are never NaN or Inf
    add_kernel(_name, "cpu", ("int32", "int64", "bool"), _all_false, name="numpy")
add_kernel("isfinite", "cpu", ("int32", "int64", "bool"), lambda x: np.ones(x.shape, bool), name="numpy")


def _reduce_bool_meta_for(name: str):
    def reduce_bool_meta(x, axis=None, keepdim=False) -> MetaTensor:
        from .reduction import reduced_shape
        return MetaTensor(reduced_shape(x.shape, axis, keepdim), BOOL)
    reduce_bool_meta.__qualname__ = f"{name}_meta"
    return reduce_bool_meta


def _any_kernel(x, axis=None, keepdim=False):
    return np.any(x, axis=_np_axis(x, axis), keepdims=keepdim)


def _all_kernel(x, axis=None, keepdim=False):
    return np.all(x, axis=_np_axis(x, axis), keepdims=keepdim)


ANY = register_op("any", inputs=("x",), infer_meta=_reduce_bool_meta_for("any"),
                  attrs={"axis": (tuple, None), "keepdim": (bool, False)})
ALL_OP = register_op("all", inputs=("x",), infer_meta=_reduce_bool_meta_for("all"),
                     attrs={"axis": (tuple, None), "keepdim": (bool, False)})
add_kernel("any", "cpu", ALL, _any_kernel, name="numpy")
add_kernel("all", "cpu", ALL, _all_kernel, name="numpy")


def any(x, axis=None, keepdim=False, name=None) -> Tensor:  # noqa: A001
    from .reduction import _axes
    x = as_tensor("any", "x", x)
    return dispatch(ANY, (x,), {"axis": _axes("any", axis, x._data.ndim), "keepdim": bool(keepdim)})


def all(x, axis=None, keepdim=False, name=None) -> Tensor:  # noqa: A001
    from .reduction import _axes
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
