"""batch_norm, layer_norm and group_norm on the GPU, forward and backward: compositions of GPU reductions and
elementwise kernels.

No CUDA code of their own: each function reads as the formula of framework/ops/norm.py, written with
the GPU's mean, var and sum (two-pass variance: mean((x - mean)^2)) and its broadcasting elementwise
kernels. batch_norm sees x as (A, C, B) -- statistics per channel C over A and B --, layer_norm as
(rows, k), statistics per row, and group_norm as (N, groups, D), statistics per sample and group.
With x_hat = (x - mean) * inv_std and g = dout * scale,

    dx = inv_std * (g - mean(g) - x_hat * mean(g * x_hat))     dscale = sum(dout * x_hat)    dbias = sum(dout)

The reductions accumulate float32 in float32 (the CPU's numba loops use float64), so results agree
to float32 rounding. Every function has the CPU kernel's signature and takes and returns
C-contiguous device arrays.
"""
from __future__ import annotations

import math

import numpy as np

from ...ops.norm import channel_last, channels_view
from . import elementwise as E
from . import reduction as R
from .strided import full, reshaped, scalar_of


def _inv_std(variance, epsilon: float):
    """1 / sqrt(variance + epsilon)."""
    return E.rsqrt(E.scale(variance, 1.0, epsilon))


def _per_channel(v, channels: int):
    """A (C,) vector as (C, 1): it broadcasts along the channel axis of an (A, C, B) array."""
    return reshaped(v, (channels, 1))


# ---- batch_norm ----------------------------------------------------------------------------------
def batch_norm(x, scale, bias, mean, variance, epsilon=1e-5, data_format="NCHW", use_global_stats=False,
               is_test=False):
    """out = (x - mean) * (scale * inv_std) + bias per channel; and the mean and (biased) variance used."""
    view = channels_view(tuple(x.shape), channel_last(data_format))
    x3 = reshaped(x, view)
    if use_global_stats or is_test:
        mu, var = E.assign(mean), E.assign(variance)  # copies: the running stats may change in place later
    else:
        mu = R.mean(x3, (0, 2), False)
        var = R.var(x3, (0, 2), False, False)
    channels = view[1]
    k = E.multiply(scale, _inv_std(var, epsilon))
    centered = E.subtract(x3, _per_channel(mu, channels))  # centred first, so a large mean cancels exactly
    out = E.add(E.multiply(centered, _per_channel(k, channels)), _per_channel(bias, channels))
    return reshaped(out, tuple(x.shape)), mu, var


def batch_norm_grad(x, scale, saved_mean, saved_variance, dout, epsilon=1e-5, data_format="NCHW",
                    use_global_stats=False, is_test=False):
    view = channels_view(tuple(x.shape), channel_last(data_format))
    x3, d3 = reshaped(x, view), reshaped(dout, view)
    channels = view[1]
    inv_std = _inv_std(saved_variance, epsilon)
    x_hat = E.multiply(E.subtract(x3, _per_channel(saved_mean, channels)), _per_channel(inv_std, channels))
    dbias = R.sum(d3, (0, 2), False)
    dscale = R.sum(E.multiply(d3, x_hat), (0, 2), False)
    k = _per_channel(E.multiply(scale, inv_std), channels)
    if use_global_stats or is_test:  # the statistics are constants: the op is affine in x
        dx = E.multiply(d3, k)
    else:
        n = view[0] * view[2]
        mean_d = _per_channel(E.scale(dbias, 1.0 / n), channels)
        mean_dx = _per_channel(E.scale(dscale, 1.0 / n), channels)
        dx = E.multiply(k, E.subtract(E.subtract(d3, mean_d), E.multiply(x_hat, mean_dx)))
    return reshaped(dx, tuple(x.shape)), dscale, dbias


def batch_norm_update(mean, variance, saved_mean, saved_variance, momentum=0.9, is_test=False):
    """running = momentum * running + (1 - momentum) * batch; is_test: the statistics stay as they are."""
    if is_test:
        return E.assign(mean), E.assign(variance)
    new_mean = E.add(E.scale(mean, momentum), E.scale(saved_mean, 1.0 - momentum))
    new_var = E.add(E.scale(variance, momentum), E.scale(saved_variance, 1.0 - momentum))
    return new_mean, new_var


# ---- layer_norm ----------------------------------------------------------------------------------
def _rows(x, begin_norm_axis: int):
    shape = tuple(x.shape)
    return reshaped(x, (math.prod(shape[:begin_norm_axis]), math.prod(shape[begin_norm_axis:])))


def layer_norm(x, scale, bias, epsilon=1e-5, begin_norm_axis=1):
    """out = (x - mean) * inv_std * scale + bias over each row (the dims from begin_norm_axis on)."""
    x2 = _rows(x, begin_norm_axis)
    rows = int(x2.shape[0])
    if x2.size == 0:  # no values to average: the statistics are NaN, as on the CPU
        nan = scalar_of(x.dtype, np.nan)
        return full(tuple(x.shape), 0, x.dtype), full((rows,), nan, x.dtype), full((rows,), nan, x.dtype)
    mu = R.mean(x2, (1,), True)
    var = R.var(x2, (1,), True, False)
    x_hat = E.multiply(E.subtract(x2, mu), _inv_std(var, epsilon))
    out = E.add(E.multiply(x_hat, scale), bias)
    return reshaped(out, tuple(x.shape)), reshaped(mu, (rows,)), reshaped(var, (rows,))


def layer_norm_grad(x, scale, saved_mean, saved_variance, dout, epsilon=1e-5, begin_norm_axis=1):
    x2, d2 = _rows(x, begin_norm_axis), _rows(dout, begin_norm_axis)
    rows = int(x2.shape[0])
    inv_std = _inv_std(reshaped(saved_variance, (rows, 1)), epsilon)
    x_hat = E.multiply(E.subtract(x2, reshaped(saved_mean, (rows, 1))), inv_std)
    g = E.multiply(d2, scale)
    mean_g = R.mean(g, (1,), True)
    mean_g_xhat = R.mean(E.multiply(g, x_hat), (1,), True)
    dx = E.multiply(inv_std, E.subtract(E.subtract(g, mean_g), E.multiply(x_hat, mean_g_xhat)))
    dscale = R.sum(E.multiply(d2, x_hat), (0,), False)
    dbias = R.sum(d2, (0,), False)
    return reshaped(dx, tuple(x.shape)), dscale, dbias


# ---- group_norm (channel-first; instance_norm is group_norm with one channel a group) -------------------
def _groups(x, groups: int):
    """x (N, C, ...) as (N, groups, the rest): statistics per sample and group."""
    n = int(x.shape[0])
    return reshaped(x, (n, groups, int(x.size) // (n * groups)))


def _channels(x, channels: int):
    """x (N, C, ...) -- or the same values grouped, (N, groups, D) -- as (N, C, the rest): a (C, 1) vector
    broadcasts along C."""
    n = int(x.shape[0])
    return reshaped(x, (n, channels, int(x.size) // (n * channels)))


def group_norm(x, scale, bias, epsilon=1e-5, groups=1):
    """out = (x - mean) * inv_std over each group of channels of each sample, then scale and bias per channel."""
    channels = int(x.shape[1])
    x3 = _groups(x, groups)
    mu = R.mean(x3, (2,), True)
    var = R.var(x3, (2,), True, False)
    x_hat = _channels(E.multiply(E.subtract(x3, mu), _inv_std(var, epsilon)), channels)
    out = E.add(E.multiply(x_hat, _per_channel(scale, channels)), _per_channel(bias, channels))
    stats = (int(x.shape[0]), groups)
    return reshaped(out, tuple(x.shape)), reshaped(mu, stats), reshaped(var, stats)


def group_norm_grad(x, scale, saved_mean, saved_variance, dout, epsilon=1e-5, groups=1):
    n, channels = int(x.shape[0]), int(x.shape[1])
    inv_std = _inv_std(reshaped(saved_variance, (n, groups, 1)), epsilon)
    x_hat = E.multiply(E.subtract(_groups(x, groups), reshaped(saved_mean, (n, groups, 1))), inv_std)
    d_channels = _channels(dout, channels)
    g = _groups(E.multiply(d_channels, _per_channel(scale, channels)), groups)
    mean_g = R.mean(g, (2,), True)
    mean_g_xhat = R.mean(E.multiply(g, x_hat), (2,), True)
    dx = E.multiply(inv_std, E.subtract(E.subtract(g, mean_g), E.multiply(x_hat, mean_g_xhat)))
    dscale = R.sum(E.multiply(d_channels, _channels(x_hat, channels)), (0, 2), False)
    return reshaped(dx, tuple(x.shape)), dscale, R.sum(d_channels, (0, 2), False)
