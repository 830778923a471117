"""numba CPU kernels for layer_norm and batch_norm: plain loops, sums accumulated in float64.

numpy's reductions are slow on many short rows (layer_norm over the last 12 values of a
[64, 16, 12, 12] tensor takes ~2 ms; these loops take a tenth of that) and its channel sums over
axes (0, 2) run in float32. Each kernel walks memory in order: layer_norm row by row, batch_norm
over its (A, C, B) view with the channel in the middle. The wrappers take and return the same
arrays as the numpy kernels in framework/ops/norm.py, which stay there to read and compare.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

# Sums may be reassociated (so the loops vectorize) but NaN and inf keep their meaning.
_FAST = {"reassoc", "contract"}


# ---- layer_norm: one row at a time -----------------------------------------------------------------
@njit(cache=True, error_model="numpy", fastmath=_FAST)
def layer_norm_rows(x, scale, bias, epsilon, out, mean, variance):
    """out[r] = (x[r] - mean) / sqrt(var + eps) * scale + bias for each row r of a (rows, k) array."""
    rows, k = x.shape
    for r in range(rows):
        total = 0.0
        for j in range(k):
            total += x[r, j]
        mu = total / k
        squares = 0.0
        for j in range(k):
            d = x[r, j] - mu
            squares += d * d
        var = squares / k
        inv_std = 1.0 / np.sqrt(var + epsilon)
        for j in range(k):
            out[r, j] = (x[r, j] - mu) * inv_std * scale[j] + bias[j]
        mean[r] = mu
        variance[r] = var


@njit(cache=True, error_model="numpy", fastmath=_FAST)
def layer_norm_grad_rows(x, scale, mean, variance, dout, epsilon, dx, dscale, dbias):
    """dx per row (the shared formula in ops/norm.py); dscale, dbias summed over rows (float64, zeroed)."""
    rows, k = x.shape
    for r in range(rows):
        mu = mean[r]
        inv_std = 1.0 / np.sqrt(variance[r] + epsilon)
        sum_g = 0.0
        sum_g_xhat = 0.0
        for j in range(k):
            x_hat = (x[r, j] - mu) * inv_std
            g = dout[r, j] * scale[j]
            sum_g += g
            sum_g_xhat += g * x_hat
            dscale[j] += dout[r, j] * x_hat
            dbias[j] += dout[r, j]
        mean_g = sum_g / k
        mean_g_xhat = sum_g_xhat / k
        for j in range(k):
            x_hat = (x[r, j] - mu) * inv_std
            dx[r, j] = inv_std * (dout[r, j] * scale[j] - mean_g - x_hat * mean_g_xhat)


def _rows(x: np.ndarray, begin_norm_axis: int) -> np.ndarray:
    return np.ascontiguousarray(x).reshape(math.prod(x.shape[:begin_norm_axis]), -1)


def layer_norm_numba(x, scale, bias, epsilon=1e-5, begin_norm_axis=1):
    x2 = _rows(x, begin_norm_axis)
    out = np.empty_like(x2)
    mean = np.empty(x2.shape[0], x.dtype)
    variance = np.empty(x2.shape[0], x.dtype)
    if x2.size:
        layer_norm_rows(x2, scale, bias, epsilon, out, mean, variance)
    else:
        mean.fill(np.nan)
        variance.fill(np.nan)
    return out.reshape(x.shape), mean, variance


def layer_norm_grad_numba(x, scale, saved_mean, saved_variance, dout, epsilon=1e-5, begin_norm_axis=1):
    x2, d2 = _rows(x, begin_norm_axis), _rows(dout, begin_norm_axis)
    dx = np.empty_like(x2)
    dscale = np.zeros(x2.shape[1])
    dbias = np.zeros(x2.shape[1])
    if x2.size:
        layer_norm_grad_rows(x2, scale, saved_mean, saved_variance, d2, epsilon, dx, dscale, dbias)
    return dx.reshape(x.shape), dscale.astype(x.dtype), dbias.astype(x.dtype)


# ---- batch_norm: per channel of an (A, C, B) view ----------------------------------------------------
# Channel-first data (B > 1) is summed run by run along b; channel-last data (B == 1) row by row,
# so that the innermost loop always walks contiguous memory and vectorizes.
@njit(cache=True, error_model="numpy", fastmath=_FAST)
def channel_moments(x3, mean, variance):
    """Per-channel mean and biased variance (two passes, float64 sums) of an (A, C, B) array."""
    a_size, channels, b_size = x3.shape
    n = a_size * b_size
    sums = np.zeros(channels)
    squares = np.zeros(channels)
    for a in range(a_size):
        if b_size == 1:
            for c in range(channels):
                sums[c] += x3[a, c, 0]
            continue
        for c in range(channels):
            total = 0.0
            for b in range(b_size):
                total += x3[a, c, b]
            sums[c] += total
    mu = sums / n
    for a in range(a_size):
        if b_size == 1:
            for c in range(channels):
                d = x3[a, c, 0] - mu[c]
                squares[c] += d * d
            continue
        for c in range(channels):
            total = 0.0
            for b in range(b_size):
                d = x3[a, c, b] - mu[c]
                total += d * d
            squares[c] += total
    for c in range(channels):
        mean[c] = mu[c]
        variance[c] = squares[c] / n


@njit(cache=True, fastmath=_FAST)
def channel_affine(x3, mean, k, bias, out):
    """out = (x - mean[c]) * k[c] + bias[c]: centred first, so a large mean cancels exactly."""
    a_size, channels, b_size = x3.shape
    for a in range(a_size):
        if b_size == 1:
            for c in range(channels):
                out[a, c, 0] = (x3[a, c, 0] - mean[c]) * k[c] + bias[c]
            continue
        for c in range(channels):
            mu = mean[c]
            kc = k[c]
            bc = bias[c]
            for b in range(b_size):
                out[a, c, b] = (x3[a, c, b] - mu) * kc + bc


@njit(cache=True, fastmath=_FAST)
def batch_norm_grad_channels(x3, d3, mean, inv_std, k, use_global_stats, dx, dscale, dbias):
    """dscale, dbias (float64, zeroed) summed per channel, then dx from them."""
    a_size, channels, b_size = x3.shape
    n = a_size * b_size
    for a in range(a_size):
        if b_size == 1:
            for c in range(channels):
                d = d3[a, c, 0]
                dbias[c] += d
                dscale[c] += d * (x3[a, c, 0] - mean[c]) * inv_std[c]
            continue
        for c in range(channels):
            mu = mean[c]
            s_d = 0.0
            s_dx = 0.0
            for b in range(b_size):
                d = d3[a, c, b]
                s_d += d
                s_dx += d * (x3[a, c, b] - mu)
            dbias[c] += s_d
            dscale[c] += s_dx * inv_std[c]
    mean_d = np.zeros(channels) if use_global_stats else dbias / n
    mean_dx = np.zeros(channels) if use_global_stats else dscale / n
    for a in range(a_size):
        if b_size == 1:
            for c in range(channels):
                x_hat = (x3[a, c, 0] - mean[c]) * inv_std[c]
                dx[a, c, 0] = k[c] * (d3[a, c, 0] - mean_d[c] - x_hat * mean_dx[c])
            continue
        for c in range(channels):
            mu = mean[c]
            iv = inv_std[c]
            kc = k[c]
            for b in range(b_size):
                x_hat = (x3[a, c, b] - mu) * iv
                dx[a, c, b] = kc * (d3[a, c, b] - mean_d[c] - x_hat * mean_dx[c])


def _channels(x: np.ndarray, data_format: str) -> np.ndarray:
    if data_format in ("NLC", "NHWC", "NDHWC"):
        return np.ascontiguousarray(x).reshape(-1, x.shape[-1], 1)
    return np.ascontiguousarray(x).reshape(x.shape[0], x.shape[1], -1)


def batch_norm_numba(x, scale, bias, mean, variance, epsilon=1e-5, data_format="NCHW", use_global_stats=False,
                     is_test=False):
    x3 = _channels(x, data_format)
    if use_global_stats or is_test:  # is_test: a static Program's inference clone
        mu, var = mean.astype(np.float64), variance.astype(np.float64)
    else:  # float64 statistics centre x before they are rounded to x's dtype for the outputs
        mu, var = np.empty(x3.shape[1]), np.empty(x3.shape[1])
        channel_moments(x3, mu, var)
    out = np.empty_like(x3)
    channel_affine(x3, mu, scale / np.sqrt(var + epsilon), bias, out)
    return out.reshape(x.shape), mu.astype(x.dtype), var.astype(x.dtype)


def batch_norm_grad_numba(x, scale, saved_mean, saved_variance, dout, epsilon=1e-5, data_format="NCHW",
                          use_global_stats=False, is_test=False):
    x3, d3 = _channels(x, data_format), _channels(dout, data_format)
    inv_std = 1.0 / np.sqrt(saved_variance + epsilon)
    dx = np.empty_like(x3)
    dscale = np.zeros(x3.shape[1])
    dbias = np.zeros(x3.shape[1])
    batch_norm_grad_channels(x3, d3, saved_mean, inv_std, scale * inv_std, use_global_stats or is_test, dx, dscale,
                             dbias)
    return dx.reshape(x.shape), dscale.astype(x.dtype), dbias.astype(x.dtype)
