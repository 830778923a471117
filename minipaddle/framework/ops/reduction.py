"""Reductions: sum, mean, max, min, prod, argmax, argmin, cumsum, logsumexp, var, std, norm,
softmax, log_softmax.

A reduction's gradient spreads `dout` back over the reduced axes: reshape it so the
reduced axes have size 1, then broadcast to the input's shape.
"""
from __future__ import annotations

import numpy as np

from ..dispatch import dispatch
from ..errors import invalid_argument
from ..registry import MetaTensor, add_kernel, register_op
from ..tensor import Tensor
from .common import NUMERIC, as_tensor, dtype_of, normalize_axes


def reduced_shape(shape: tuple, axes: tuple | None, keepdim: bool) -> tuple:
    if axes is None:
        axes = tuple(range(len(shape)))
    if keepdim:
        return tuple(1 if i in axes else n for i, n in enumerate(shape))
    return tuple(n for i, n in enumerate(shape) if i not in axes)


def expand_reduced(dout: Tensor, input_shape: tuple, axes: tuple | None, keepdim: bool) -> Tensor:
    """Bring a reduction's output gradient back to the input's shape."""
    from .manipulation import broadcast_to, reshape
    if not keepdim:
        dout = reshape(dout, list(reduced_shape(input_shape, axes, True)))
    return broadcast_to(dout, list(input_shape))


def sum_meta(x, axis=None, keepdim=False, dtype=None) -> MetaTensor:
    out_dtype = dtype if dtype is not None else x.dtype
    if dtype is None and x.dtype.kind in "bi":  # Paddle sums bool/int32 into int64
        out_dtype = np.dtype("int64")
    return MetaTensor(reduced_shape(x.shape, axis, keepdim), out_dtype)


def sum_grad(node, dout):
    return expand_reduced(dout, node.input_metas[0][0], node.axis, node.keepdim)


def sum_kernel(x, axis=None, keepdim=False, dtype=None):
    out_dtype = dtype
    if dtype is None and x.dtype.kind in "bi":
        out_dtype = np.int64
    return np.sum(x, axis=axis, keepdims=keepdim, dtype=out_dtype)


SUM = register_op("sum", inputs=("x",), infer_meta=sum_meta, backward=sum_grad,
                  attrs={"axis": (tuple, None), "keepdim": (bool, False), "dtype": (np.dtype, None)})
add_kernel("sum", "cpu", NUMERIC + ("bool",), sum_kernel, name="numpy")


def sum(x, axis=None, dtype=None, keepdim=False, name=None) -> Tensor:  # noqa: A001
    """Sum over `axis` (None or [] for all axes)."""
    x = as_tensor("sum", "x", x)
    axes = _axes("sum", axis, x._data.ndim)
    return dispatch(SUM, (x,), {"axis": axes, "keepdim": bool(keepdim),
                                "dtype": None if dtype is None else dtype_of("sum", dtype)})


def _axes(op: str, axis, ndim: int):
    if isinstance(axis, (list, tuple)) and len(axis) == 0:
        return None
    if axis is not None and not isinstance(axis, (int, np.integer, list, tuple, Tensor)):
        raise invalid_argument(op, f"axis must be None, an int or a list of ints, got {type(axis).__name__}.")
    return normalize_axes(op, axis, ndim)


__all__ = ["sum"]
TENSOR_METHODS = ["sum"]
