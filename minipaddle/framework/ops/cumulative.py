"""Running products and running log-sum-exps: cumprod, logcumsumexp (cumsum lives with the reductions).

    paddle.cumprod(paddle.to_tensor([1., 2., 3.]), dim=0)        # [1., 2., 6.]
    paddle.logcumsumexp(paddle.to_tensor([0., 0.]))              # [0., log 2]

logcumsumexp's gradient is written with minipaddle ops in log space (so it neither overflows nor
divides), cumprod's runs its own `cumprod_grad` op, which stays exact where x has zeros (the
textbook `reverse_cumsum(dout * out) / x` divides by them).
"""
from __future__ import annotations

import numpy as np

from ..dispatch import dispatch
from ..errors import invalid_argument, unimplemented
from ..registry import MetaTensor, add_kernel, register_op
from ..tensor import Tensor
from .common import FLOATS, NUMERIC, as_tensor, normalize_axis


def _scan_meta(op: str, x, axis) -> MetaTensor:
    if x.dtype.kind == "b":
        raise invalid_argument(op, "argument 'x' has dtype bool, expected a number dtype.",
                               hint="cast it first, e.g. x.astype('int64').")
    if axis is None:   # Paddle flattens first
        size = -1 if -1 in x.shape else int(np.prod(x.shape, dtype=np.int64))
        return MetaTensor((size,), x.dtype)
    return MetaTensor(x.shape, x.dtype)


def _flat_axis(x: np.ndarray, axis):
    return (x.reshape(-1), 0) if axis is None else (x, axis)


def _axis_arg(op: str, x: Tensor, axis):
    return None if axis is None else normalize_axis(op, axis, x._data.ndim)


# ---- cumprod -----------------------------------------------------------------------------------
def cumprod_meta(x, axis=None) -> MetaTensor:
    return _scan_meta("cumprod", x, axis)


def cumprod_kernel(x, axis=None):
    x, axis = _flat_axis(x, axis)
    if x.ndim == 0:
        return x.copy()
    return np.cumprod(x, axis=axis, dtype=x.dtype)


def cumprod_backward(node, dout):
    return dispatch(CUMPROD_GRAD, (node.x, dout), {"axis": node.axis})


def cumprod_grad_meta(x, dout, axis=None) -> MetaTensor:
    return MetaTensor(x.shape, x.dtype)


def cumprod_grad_kernel(x, dout, axis=None):
    """dx[i] = sum_{j >= i} dout[j] * prod_{k <= j, k != i} x[k], without dividing by x[i].

    With before[i] = prod_{k < i} x[k] and the reverse scan r[i] = dout[i] + x[i+1] * r[i+1],
    dx[i] = before[i] * r[i]: two passes along the axis, exact where x has zeros.
    """
    shape = x.shape
    x, axis = _flat_axis(x, axis)
    if x.ndim == 0:
        return np.array(dout, dtype=x.dtype).reshape(shape)
    xm = np.moveaxis(x, axis, 0)
    dm = np.moveaxis(dout.reshape(x.shape), axis, 0)
    before = np.ones_like(xm)
    before[1:] = np.cumprod(xm[:-1], axis=0)
    r = np.empty_like(dm)
    r[-1] = dm[-1]
    for i in range(len(xm) - 2, -1, -1):
        r[i] = dm[i] + xm[i + 1] * r[i + 1]
    return np.moveaxis(before * r, 0, axis).reshape(shape)


def cumprod_grad_backward(node, ddx):
    raise unimplemented("cumprod", "the gradient of cumprod's gradient (double grad) is not implemented.",
                        hint="first-order gradients of cumprod work; use create_graph=False.")


CUMPROD = register_op("cumprod", inputs=("x",), infer_meta=cumprod_meta, backward=cumprod_backward,
                      attrs={"axis": (int, None)}, save=("x",))
CUMPROD_GRAD = register_op("cumprod_grad", inputs=("x", "dout"), infer_meta=cumprod_grad_meta,
                           backward=cumprod_grad_backward, attrs={"axis": (int, None)})
add_kernel("cumprod", "cpu", NUMERIC, cumprod_kernel, name="numpy")
add_kernel("cumprod_grad", "cpu", FLOATS, cumprod_grad_kernel, name="numpy")


def cumprod(x, dim=None, dtype=None, name=None) -> Tensor:
    """Running product along `dim` (None: of the flattened x); `dtype` casts x first."""
    from .elementwise import cast
    x = as_tensor("cumprod", "x", x)
    if dtype is not None:
        x = cast(x, dtype)
    return dispatch(CUMPROD, (x,), {"axis": _axis_arg("cumprod", x, dim)})


# ---- logcumsumexp ----------------------------------------------------------------------------
def logcumsumexp_meta(x, axis=None, reverse=False) -> MetaTensor:
    if x.dtype.kind != "f":
        raise invalid_argument("logcumsumexp", f"argument 'x' has dtype {x.dtype}, expected a floating dtype.")
    return _scan_meta("logcumsumexp", x, axis)


def logcumsumexp_kernel(x, axis=None, reverse=False):
    """log(exp(x[0]) + ... + exp(x[i])) by numpy's logaddexp scan: stable, and -inf stays -inf."""
    x, axis = _flat_axis(x, axis)
    if x.ndim == 0:
        return x.copy()
    if reverse:
        return np.ascontiguousarray(np.flip(np.logaddexp.accumulate(np.flip(x, axis), axis=axis), axis))
    return np.logaddexp.accumulate(x, axis=axis)


def logcumsumexp_backward(node, dout):
    """dx[j] = sum_{i >= j} dout[i] * exp(x[j] - out[i]), summed in log space from the other end,
    split into dout's positive and negative parts (the log of a negative number does not exist).

    Where a part is 0 its log is a very negative *finite* number, and log() only ever sees positive
    values (`where` feeds it 1 elsewhere): so second derivatives never meet inf - inf.
    """
    from ..creation import full_like, ones_like
    from .elementwise import exp, log, where
    from .manipulation import reshape
    x, out = node.x, node.out
    if node.axis is None:
        x = reshape(x, [-1])
    attrs = {"axis": node.axis if node.axis is not None else 0, "reverse": not node.reverse}
    log_zero = full_like(dout, float(np.finfo(dout._data.dtype).min) / 4)
    one = ones_like(dout)
    parts = []
    for mask, magnitude in ((dout > 0, dout), (dout < 0, -dout)):
        log_part = where(mask, log(where(mask, magnitude, one)), log_zero)
        parts.append(exp(x + dispatch(LOGCUMSUMEXP, (log_part - out,), attrs)))
    dx = parts[0] - parts[1]
    return reshape(dx, list(node.input_metas[0][0])) if node.axis is None else dx


LOGCUMSUMEXP = register_op("logcumsumexp", inputs=("x",), infer_meta=logcumsumexp_meta,
                           backward=logcumsumexp_backward, attrs={"axis": (int, None), "reverse": (bool, False)},
                           save=("x", "out"))
add_kernel("logcumsumexp", "cpu", FLOATS, logcumsumexp_kernel, name="numpy")


def logcumsumexp(x, axis=None, dtype=None, name=None) -> Tensor:
    """log(cumsum(exp(x))) along `axis` (None: of the flattened x), computed without overflow.
    Integer x is computed in float32, as in Paddle."""
    from .elementwise import cast
    x = as_tensor("logcumsumexp", "x", x)
    if dtype is not None:
        x = cast(x, dtype)
    elif x._data.dtype.kind in "iub":
        x = cast(x, "float32")
    return dispatch(LOGCUMSUMEXP, (x,), {"axis": _axis_arg("logcumsumexp", x, axis), "reverse": False})


__all__ = ["cumprod", "logcumsumexp"]
TENSOR_METHODS = list(__all__)
