"""softmax and log_softmax along one axis: numpy kernels (the default) and numba row kernels.

Both subtract the max along the axis before exp, so no finite input overflows; a row holding +inf
or NaN, or only -inf, comes out all NaN, as in Paddle and PyTorch (see _shifted). Their gradients
are written with ops on the saved output: softmax: out * (dout - sum(dout * out)); log_softmax:
dout - exp(out) * sum(dout).
"""
from __future__ import annotations

import numpy as np

from ..dispatch import dispatch
from ..registry import LazyKernel, MetaTensor, add_kernel, register_op
from ..tensor import Tensor
from .common import FLOATS, as_tensor, normalize_axis, require_dtype
from .reduction import FLOAT_ONLY, sum


def softmax_meta(x, axis=-1) -> MetaTensor:
    require_dtype("softmax", "x", x, "f", FLOAT_ONLY)
    return MetaTensor(x.shape, x.dtype)


def log_softmax_meta(x, axis=-1) -> MetaTensor:
    require_dtype("log_softmax", "x", x, "f", FLOAT_ONLY)
    return MetaTensor(x.shape, x.dtype)


def softmax_grad(node, dout):
    out = node.out
    return out * (dout - sum(dout * out, axis=node.axis, keepdim=True))


def log_softmax_grad(node, dout):
    from .elementwise import exp
    return dout - exp(node.out) * sum(dout, axis=node.axis, keepdim=True)


def _shifted(x, axis):
    """x minus its max along `axis` (0-D: axis None), so exp never overflows.

    The rule for non-finite rows, Paddle's and PyTorch's: a row holding +inf or NaN gives NaN in
    every entry (inf - inf is NaN, and the row's sum carries it), and so does a row of only -inf
    (0 / 0). A -inf max is not subtracted, which leaves exp(-inf) = 0 for that row's entries."""
    axis = None if x.ndim == 0 else axis
    m = np.max(x, axis=axis, keepdims=True, initial=-np.inf)
    with np.errstate(invalid="ignore"):
        return x - np.where(m == -np.inf, 0, m), axis


def softmax_kernel(x, axis=-1):
    shifted, axis = _shifted(x, axis)
    e = np.exp(shifted)
    with np.errstate(invalid="ignore"):  # the all -inf row: 0 / 0 is its NaN
        return e / np.sum(e, axis=axis, keepdims=True)


def log_softmax_kernel(x, axis=-1):
    shifted, axis = _shifted(x, axis)
    with np.errstate(divide="ignore", invalid="ignore"):
        return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


SOFTMAX = register_op("softmax", inputs=("x",), infer_meta=softmax_meta,
                      backward=softmax_grad, save=("out",), attrs={"axis": (int, -1)})
LOG_SOFTMAX = register_op("log_softmax", inputs=("x",), infer_meta=log_softmax_meta,
                          backward=log_softmax_grad, save=("out",), attrs={"axis": (int, -1)})
add_kernel("softmax", "cpu", FLOATS, softmax_kernel, name="numpy", priority=1)
add_kernel("log_softmax", "cpu", FLOATS, log_softmax_kernel, name="numpy", priority=1)


def softmax(x, axis=-1, dtype=None, name=None) -> Tensor:
    """exp(x) / sum(exp(x)) along `axis`, computed stably; `dtype` casts x first."""
    x = _softmax_input("softmax", x, dtype)
    return dispatch(SOFTMAX, (x,), {"axis": normalize_axis("softmax", axis, x._data.ndim)})


def log_softmax(x, axis=-1, dtype=None, name=None) -> Tensor:
    """log(softmax(x)) along `axis`, computed stably; `dtype` casts x first."""
    x = _softmax_input("log_softmax", x, dtype)
    return dispatch(LOG_SOFTMAX, (x,), {"axis": normalize_axis("log_softmax", axis, x._data.ndim)})


def _softmax_input(op: str, x, dtype) -> Tensor:
    from .elementwise import cast
    x = as_tensor(op, "x", x)
    return x if dtype is None else cast(x, dtype)


# numba row kernels beside numpy's (kernels/cpu/softmax.py), imported and compiled on first use
add_kernel("softmax", "cpu", ("float32", "float64"),
           LazyKernel("minipaddle.framework.kernels.cpu.softmax:softmax_numba"), name="numba")
add_kernel("log_softmax", "cpu", ("float32", "float64"),
           LazyKernel("minipaddle.framework.kernels.cpu.softmax:log_softmax_numba"), name="numba")


__all__ = ["softmax", "log_softmax"]
TENSOR_METHODS: list[str] = []  # Paddle has no Tensor.softmax method
