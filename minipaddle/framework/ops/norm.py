"""Normalization ops: batch_norm, layer_norm, group_norm (instance_norm is group_norm with one channel a group).

Each op is fused: one kernel computes the statistics, normalizes and applies the per-channel
scale and bias, and also returns the statistics (Paddle's SavedMean / SavedVariance outputs) so
the backward pass does not compute them again. The variance is two-pass, mean((x - mean)^2),
never E[x^2] - E[x]^2, which loses every digit when |mean| >> std.

All three ops share one gradient. With x_hat = (x - mean) * inv_std over the reduced elements
(n of them) and g = dout * scale:

    dx     = inv_std * (g - mean(g) - x_hat * mean(g * x_hat))
    dscale = sum(dout * x_hat)        dbias = sum(dout)      (over all but the channel axis)

A plain backward runs it as one fused op (`batch_norm_grad`, ...: numba loops by default, numpy
beside them). Under `create_graph=True` the same formula runs as minipaddle ops, recomputing the
statistics from x, so grads of grads (of any order) are exact.
"""
from __future__ import annotations

import math

import numpy as np

from ..thread_modes import modes
from ..dispatch import dispatch
from ..errors import invalid_argument
from ..registry import LazyKernel, MetaTensor, add_kernel, register_op
from .common import require_dtype

NORM_FLOATS = ("float32", "float64")
CHANNEL_FIRST = ("NC", "NCL", "NCHW", "NCDHW")
CHANNEL_LAST = ("NLC", "NHWC", "NDHWC")


# ---- shapes and checks ---------------------------------------------------------------------------
def channel_last(data_format: str) -> bool:
    return data_format in CHANNEL_LAST


def channels_view(shape: tuple, is_channel_last: bool) -> tuple[int, int, int]:
    """x as (A, C, B): statistics per channel C reduce over A and B (batch and spatial dims)."""
    if is_channel_last:
        return math.prod(shape[:-1]), shape[-1], 1
    return shape[0], shape[1], math.prod(shape[2:])


def _check_float(op: str, x, others: dict) -> None:
    require_dtype(op, "x", x, "f", "float32 or float64")
    for name, t in others.items():
        if t.dtype != x.dtype:
            raise invalid_argument(op, f"{name} has dtype {t.dtype} but x has dtype {x.dtype}; expected the same.",
                                   hint=f"cast {name} with .astype('{x.dtype}').")


def _check_vector(op: str, name: str, t, size: int, what: str) -> None:
    if size == -1 or -1 in t.shape:  # unknown in a static Program
        return
    if tuple(t.shape) != (size,):
        raise invalid_argument(op, f"{name} has shape {list(t.shape)}, expected [{size}] ({what}).")


# ---- the shared gradient, written with ops (for create_graph=True) ---------------------------------
def normalize_grad_with_ops(x, g, axes: list, epsilon: float):
    """dx of normalize(x) over `axes` for the incoming g = dout * scale, and x_hat, as ops."""
    from .reduction import mean
    from .elementwise import rsqrt
    mu = mean(x, axes, keepdim=True)
    xc = x - mu
    inv_std = rsqrt(mean(xc * xc, axes, keepdim=True) + epsilon)
    x_hat = xc * inv_std
    dx = inv_std * (g - mean(g, axes, keepdim=True) - x_hat * mean(g * x_hat, axes, keepdim=True))
    return dx, x_hat


def _vector_as(v, ndim: int, axis: int):
    """A per-channel vector reshaped to broadcast along `axis` of an ndim-D tensor."""
    from .manipulation import reshape
    shape = [1] * ndim
    shape[axis] = -1
    return reshape(v, shape)


# ---- batch_norm ----------------------------------------------------------------------------------
def batch_norm_meta(x, scale, bias, mean, variance, epsilon=1e-5, data_format="NCHW", use_global_stats=False,
                    is_test=False):
    _check_float("batch_norm", x, {"weight": scale, "bias": bias, "running_mean": mean, "running_var": variance})
    if not 2 <= len(x.shape) <= 5:
        raise invalid_argument("batch_norm", f"x has shape {list(x.shape)}, expected a 2-D to 5-D tensor "
                                             "[N, C, ...] (or [N, ..., C] when channel-last).")
    if data_format not in CHANNEL_FIRST + CHANNEL_LAST:
        raise invalid_argument("batch_norm", f"data_format {data_format!r} is not one of "
                                             f"{list(CHANNEL_FIRST + CHANNEL_LAST)}.")
    c = tuple(x.shape)[-1] if channel_last(data_format) else x.shape[1]  # (a tuple: a device array's shape may not)
    if not (use_global_stats or is_test) and 0 in x.shape:
        raise invalid_argument("batch_norm", f"x of shape {list(x.shape)} is empty; batch statistics need at least "
                                             "one value per channel.", hint="in eval mode the running stats are used.")
    what = f"the channels of x, shape {list(x.shape)}, data_format {data_format}"
    for name, t in (("weight", scale), ("bias", bias), ("running_mean", mean), ("running_var", variance)):
        _check_vector("batch_norm", name, t, c, what)
    stat = MetaTensor((c,), x.dtype)
    return MetaTensor(x.shape, x.dtype), stat, stat


def _channel_moments(x3: np.ndarray):
    """Per-channel mean and (biased) variance of an (A, C, B) array, and x - mean.

    Summing 1e5 float32 values near 1e4 loses the mean's last digits, so the sums run over
    x - pilot (pilot: each channel's first value), which is on the scale of the spread, not of
    the mean. einsum does the channel sums ~3x faster than x.sum(axis=(0, 2))."""
    n = x3.shape[0] * x3.shape[2]
    pilot = x3[0, :, 0].copy() if n else np.zeros(x3.shape[1], x3.dtype)
    centered = x3 - pilot[:, None]
    shift = np.einsum("acb->c", centered) / n
    centered -= shift[:, None]
    var = np.einsum("acb,acb->c", centered, centered) / n
    return pilot + shift, var, centered


def batch_norm_kernel(x, scale, bias, mean, variance, epsilon=1e-5, data_format="NCHW", use_global_stats=False,
                      is_test=False):
    x3 = x.reshape(channels_view(x.shape, channel_last(data_format)))
    if use_global_stats or is_test:
        mu, var = mean.copy(), variance.copy()  # copies: the running stats may change in place later
        centered = x3 - mu[:, None]
    else:
        mu, var, centered = _channel_moments(x3)
    # (x - mean) * k + bias, in the one buffer; x * k + (bias - mean * k) would cancel when |mean| >> std
    centered *= (scale / np.sqrt(var + epsilon))[:, None]
    centered += bias[:, None]
    return centered.reshape(x.shape), mu, var


def batch_norm_grad_kernel(x, scale, saved_mean, saved_variance, dout, epsilon=1e-5, data_format="NCHW",
                           use_global_stats=False, is_test=False):
    view = channels_view(x.shape, channel_last(data_format))
    x3, d3 = x.reshape(view), dout.reshape(view)
    inv_std = 1.0 / np.sqrt(saved_variance + epsilon)
    x_hat = (x3 - saved_mean[:, None]) * inv_std[:, None]
    dbias = np.einsum("acb->c", d3)
    dscale = np.einsum("acb,acb->c", d3, x_hat)
    k = (scale * inv_std)[:, None]
    if use_global_stats or is_test:  # the statistics are constants: the op is affine in x
        dx = d3 * k
    else:
        n = view[0] * view[2]
        dx = k * (d3 - (dbias / n)[:, None] - x_hat * (dscale / n)[:, None])
    return dx.reshape(x.shape), dscale, dbias


def batch_norm_grad(node, dout, dmean=None, dvariance=None):
    if not modes.grad_enabled:  # a plain backward: one fused kernel
        return dispatch(BATCH_NORM_GRAD, (node.x, node.scale, node.saved_mean, node.saved_variance, dout),
                        node.attrs)
    x, scale, last = node.x, node.scale, channel_last(node.data_format)
    from .manipulation import reshape
    from .reduction import sum
    view = list(channels_view(tuple(x.shape), last))
    x3, d3 = reshape(x, view), reshape(dout, view)
    if node.use_global_stats or node.is_test:  # normalized by the running stats, saved as constants
        from .elementwise import rsqrt
        inv_std = rsqrt(node.saved_variance.detach() + node.epsilon)
        x_hat = (x3 - _vector_as(node.saved_mean.detach(), 3, 1)) * _vector_as(inv_std, 3, 1)
        dx = d3 * _vector_as(scale * inv_std, 3, 1)
    else:
        dx, x_hat = normalize_grad_with_ops(x3, d3 * _vector_as(scale, 3, 1), [0, 2], node.epsilon)
    return reshape(dx, x.shape), sum(d3 * x_hat, axis=[0, 2]), sum(d3, axis=[0, 2])


def _grad_meta(x, scale, *rest, **attrs):
    return MetaTensor(x.shape, x.dtype), MetaTensor(scale.shape, scale.dtype), MetaTensor(scale.shape, scale.dtype)


# is_test: set only in static Programs (Paddle's attr), so clone(for_test=True) switches a training
# batch_norm to the running statistics
_BN_ATTRS = {"epsilon": (float, 1e-5), "data_format": (str, "NCHW"), "use_global_stats": (bool, False),
             "is_test": (bool, False)}
BATCH_NORM = register_op(
    "batch_norm", inputs=("x", "scale", "bias", "mean", "variance"),
    outputs=("out", "saved_mean", "saved_variance"), infer_meta=batch_norm_meta, backward=batch_norm_grad,
    attrs=_BN_ATTRS, save=("x", "scale", "saved_mean", "saved_variance"), differentiable_inputs=(0, 1, 2),
    doc="Normalize each channel by its batch statistics (or the running ones when use_global_stats).")
BATCH_NORM_GRAD = register_op(
    "batch_norm_grad", inputs=("x", "scale", "saved_mean", "saved_variance", "out_grad"),
    outputs=("x_grad", "scale_grad", "bias_grad"), infer_meta=_grad_meta, attrs=_BN_ATTRS,
    doc="batch_norm's fused backward for a plain backward pass (create_graph=True runs it as ops).")
add_kernel("batch_norm", "cpu", NORM_FLOATS, batch_norm_kernel, name="numpy")
add_kernel("batch_norm_grad", "cpu", NORM_FLOATS, batch_norm_grad_kernel, name="numpy")


# ---- the running statistics' update, as an op (static Programs) -------------------------------------
def batch_norm_update_meta(mean, variance, saved_mean, saved_variance, momentum=0.9, is_test=False):
    for name, t in (("variance", variance), ("saved_mean", saved_mean), ("saved_variance", saved_variance)):
        if tuple(t.shape) != tuple(mean.shape) or np.dtype(t.dtype) != np.dtype(mean.dtype):
            raise invalid_argument("batch_norm_update", f"{name} is {np.dtype(t.dtype)}{list(t.shape)}, expected "
                                                        f"{np.dtype(mean.dtype)}{list(mean.shape)} like mean.")
    return MetaTensor(mean.shape, mean.dtype), MetaTensor(variance.shape, variance.dtype)


def batch_norm_update_kernel(mean, variance, saved_mean, saved_variance, momentum=0.9, is_test=False):
    """running = momentum * running + (1 - momentum) * batch, in the order eager batch_norm updates in place
    (so both give the same bits); is_test (a for_test clone): the statistics stay as they are."""
    if is_test:
        return mean.copy(), variance.copy()
    new_mean = mean * momentum
    new_mean += (1.0 - momentum) * saved_mean
    new_var = variance * momentum
    new_var += (1.0 - momentum) * saved_variance
    return new_mean, new_var


BATCH_NORM_UPDATE = register_op(
    "batch_norm_update", inputs=("mean", "variance", "saved_mean", "saved_variance"),
    outputs=("mean_out", "variance_out"), infer_meta=batch_norm_update_meta,
    attrs={"momentum": (float, 0.9), "is_test": (bool, False)},
    doc="The running statistics after a training batch_norm (a static Program writes them into Mean / Variance, "
        "Paddle's MeanOut / VarianceOut).")
add_kernel("batch_norm_update", "cpu", NORM_FLOATS, batch_norm_update_kernel, name="numpy")


# ---- layer_norm ----------------------------------------------------------------------------------
def layer_norm_meta(x, scale, bias, epsilon=1e-5, begin_norm_axis=1):
    _check_float("layer_norm", x, {"weight": scale, "bias": bias})
    ndim = len(x.shape)
    if not 0 <= begin_norm_axis < max(ndim, 1):
        raise invalid_argument("layer_norm", f"begin_norm_axis {begin_norm_axis} is out of range for x of shape "
                                             f"{list(x.shape)}; expected 0 <= begin_norm_axis < {ndim}.")
    rows, cols = x.shape[:begin_norm_axis], x.shape[begin_norm_axis:]
    k = -1 if -1 in cols else math.prod(cols)
    what = f"the product of normalized_shape {list(cols)}"
    _check_vector("layer_norm", "weight", scale, k, what)
    _check_vector("layer_norm", "bias", bias, k, what)
    stat = MetaTensor((-1 if -1 in rows else math.prod(rows),), x.dtype)
    return MetaTensor(x.shape, x.dtype), stat, stat


def _rows(x: np.ndarray, begin_norm_axis: int) -> np.ndarray:
    return x.reshape(math.prod(x.shape[:begin_norm_axis]), math.prod(x.shape[begin_norm_axis:]))


def layer_norm_kernel(x, scale, bias, epsilon=1e-5, begin_norm_axis=1):
    x2 = _rows(x, begin_norm_axis)
    mu = x2.mean(axis=1)
    centered = x2 - mu[:, None]
    var = np.mean(centered * centered, axis=1)
    centered *= (1.0 / np.sqrt(var + epsilon))[:, None]   # now x_hat, in the same buffer
    out = centered * scale + bias
    return out.reshape(x.shape), mu, var


def layer_norm_grad_kernel(x, scale, saved_mean, saved_variance, dout, epsilon=1e-5, begin_norm_axis=1):
    x2, d2 = _rows(x, begin_norm_axis), _rows(dout, begin_norm_axis)
    inv_std = (1.0 / np.sqrt(saved_variance + epsilon))[:, None]
    x_hat = (x2 - saved_mean[:, None]) * inv_std
    g = d2 * scale
    dx = inv_std * (g - g.mean(axis=1, keepdims=True) - x_hat * np.mean(g * x_hat, axis=1, keepdims=True))
    return dx.reshape(x.shape), (d2 * x_hat).sum(axis=0), d2.sum(axis=0)


def layer_norm_grad(node, dout, dmean=None, dvariance=None):
    if not modes.grad_enabled:
        return dispatch(LAYER_NORM_GRAD, (node.x, node.scale, node.saved_mean, node.saved_variance, dout),
                        node.attrs)
    from .manipulation import reshape
    from .reduction import sum
    x, shape, begin = node.x, node.x.shape, node.begin_norm_axis
    rows = [math.prod(shape[:begin]), math.prod(shape[begin:])]
    x2, d2 = reshape(x, rows), reshape(dout, rows)
    dx, x_hat = normalize_grad_with_ops(x2, d2 * node.scale, [1], node.epsilon)
    return reshape(dx, shape), sum(d2 * x_hat, axis=0), sum(d2, axis=0)


_LN_ATTRS = {"epsilon": (float, 1e-5), "begin_norm_axis": (int, 1)}
LAYER_NORM = register_op(
    "layer_norm", inputs=("x", "scale", "bias"), outputs=("out", "saved_mean", "saved_variance"),
    infer_meta=layer_norm_meta, backward=layer_norm_grad, attrs=_LN_ATTRS,
    save=("x", "scale", "saved_mean", "saved_variance"),
    doc="Normalize over the dims from begin_norm_axis on, then scale and shift (weights flattened).")
LAYER_NORM_GRAD = register_op(
    "layer_norm_grad", inputs=("x", "scale", "saved_mean", "saved_variance", "out_grad"),
    outputs=("x_grad", "scale_grad", "bias_grad"), infer_meta=_grad_meta, attrs=_LN_ATTRS,
    doc="layer_norm's fused backward for a plain backward pass (create_graph=True runs it as ops).")
add_kernel("layer_norm", "cpu", NORM_FLOATS, layer_norm_kernel, name="numpy")
add_kernel("layer_norm_grad", "cpu", NORM_FLOATS, layer_norm_grad_kernel, name="numpy")


# ---- group_norm (channel-first) ------------------------------------------------------------------
def group_norm_meta(x, scale, bias, epsilon=1e-5, groups=1):
    _check_float("group_norm", x, {"weight": scale, "bias": bias})
    if len(x.shape) < 2:
        raise invalid_argument("group_norm", f"x has shape {list(x.shape)}, expected at least 2-D [N, C, ...].")
    c = x.shape[1]
    if groups < 1 or (c != -1 and c % groups):
        raise invalid_argument("group_norm", f"x has {c} channels, which num_groups={groups} does not divide.",
                               hint="num_groups must be a positive divisor of the channel count.")
    _check_vector("group_norm", "weight", scale, c, f"the channels of x, shape {list(x.shape)}")
    _check_vector("group_norm", "bias", bias, c, f"the channels of x, shape {list(x.shape)}")
    stat = MetaTensor((x.shape[0], groups), x.dtype)
    return MetaTensor(x.shape, x.dtype), stat, stat


def _groups_view(x: np.ndarray, groups: int) -> np.ndarray:
    return x.reshape(x.shape[0], groups, math.prod(x.shape[1:]) // groups)


def group_norm_kernel(x, scale, bias, epsilon=1e-5, groups=1):
    x3 = _groups_view(x, groups)
    mu = x3.mean(axis=2)
    centered = x3 - mu[..., None]
    var = np.mean(centered * centered, axis=2)
    centered *= (1.0 / np.sqrt(var + epsilon))[..., None]
    x_hat = centered.reshape(x.shape[0], x.shape[1], -1)   # per channel now, for the scale and bias
    out = x_hat * scale[:, None] + bias[:, None]
    return out.reshape(x.shape), mu, var


def group_norm_grad_kernel(x, scale, saved_mean, saved_variance, dout, epsilon=1e-5, groups=1):
    n, c = x.shape[:2]
    inv_std = (1.0 / np.sqrt(saved_variance + epsilon))[..., None]
    x_hat = (_groups_view(x, groups) - saved_mean[..., None]) * inv_std           # (N, G, D)
    d_channels = dout.reshape(n, c, -1)
    g = _groups_view(d_channels * scale[:, None], groups)
    dx = inv_std * (g - g.mean(axis=2, keepdims=True) - x_hat * np.mean(g * x_hat, axis=2, keepdims=True))
    dscale = (d_channels * x_hat.reshape(n, c, -1)).sum(axis=(0, 2))
    return dx.reshape(x.shape), dscale, d_channels.sum(axis=(0, 2))


def group_norm_grad(node, dout, dmean=None, dvariance=None):
    if not modes.grad_enabled:
        return dispatch(GROUP_NORM_GRAD, (node.x, node.scale, node.saved_mean, node.saved_variance, dout),
                        node.attrs)
    from .manipulation import reshape
    from .reduction import sum
    x, shape, groups = node.x, node.x.shape, node.groups
    n, c = shape[:2]
    channels, grouped = [n, c, -1], [n, groups, -1]
    d3 = reshape(dout, channels)
    g = reshape(d3 * _vector_as(node.scale, 3, 1), grouped)
    dx, x_hat = normalize_grad_with_ops(reshape(x, grouped), g, [2], node.epsilon)
    return reshape(dx, shape), sum(d3 * reshape(x_hat, channels), axis=[0, 2]), sum(d3, axis=[0, 2])


_GN_ATTRS = {"epsilon": (float, 1e-5), "groups": (int, 1)}
GROUP_NORM = register_op(
    "group_norm", inputs=("x", "scale", "bias"), outputs=("out", "saved_mean", "saved_variance"),
    infer_meta=group_norm_meta, backward=group_norm_grad, attrs=_GN_ATTRS,
    save=("x", "scale", "saved_mean", "saved_variance"),
    doc="Normalize each group of channels of each sample (channel-first x), then scale and shift per channel.")
GROUP_NORM_GRAD = register_op(
    "group_norm_grad", inputs=("x", "scale", "saved_mean", "saved_variance", "out_grad"),
    outputs=("x_grad", "scale_grad", "bias_grad"), infer_meta=_grad_meta, attrs=_GN_ATTRS,
    doc="group_norm's fused backward for a plain backward pass (create_graph=True runs it as ops).")
add_kernel("group_norm", "cpu", NORM_FLOATS, group_norm_kernel, name="numpy")
add_kernel("group_norm_grad", "cpu", NORM_FLOATS, group_norm_grad_kernel, name="numpy")


# numba loops (kernels/cpu/norm.py), compiled on first use: 3-10x faster than numpy here, above all on
# short rows and channel sums, so they are the default; the numpy kernels above stay to read and compare.
add_kernel("batch_norm", "cpu", NORM_FLOATS,
           LazyKernel("minipaddle.framework.kernels.cpu.norm:batch_norm_numba"), name="numba", priority=1)
add_kernel("batch_norm_grad", "cpu", NORM_FLOATS,
           LazyKernel("minipaddle.framework.kernels.cpu.norm:batch_norm_grad_numba"), name="numba", priority=1)
add_kernel("layer_norm", "cpu", NORM_FLOATS,
           LazyKernel("minipaddle.framework.kernels.cpu.norm:layer_norm_numba"), name="numba", priority=1)
add_kernel("layer_norm_grad", "cpu", NORM_FLOATS,
           LazyKernel("minipaddle.framework.kernels.cpu.norm:layer_norm_grad_numba"), name="numba", priority=1)


__all__ = ["BATCH_NORM", "BATCH_NORM_UPDATE", "LAYER_NORM", "GROUP_NORM", "channel_last", "channels_view",
           "CHANNEL_FIRST", "CHANNEL_LAST"]
