"""Pooling on the CPU: numba loops over the windows of each (image, channel) plane.

Every pooling op -- max or average, fixed windows or adaptive ones -- reads windows described by
four small index arrays computed once in Python (framework/ops/pooling.py, `pool_windows`):

    output row y reads input rows [h_start[y], h_end[y]),  output column x reads [w_start[x], w_end[x])

already clipped to the input, so padding is never materialized: a padded position simply is not
in the window (max pooling ignores it; average pooling divides by `divisor[y, x]`, which counts it
or not as `exclusive` says). The loops see x as (planes, H, W), one plane per (image, channel).

Max pooling also writes `mask`: the flat index h * W + w of each maximum inside its plane (Paddle's
`return_mask`), which is all its backward needs: dx[plane, mask] += dout.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ...ops.pooling import avg_divisor, pool_out_hw, pool_windows


@njit(cache=True)
def max_pool_planes(x, out, mask, h_start, h_end, w_start, w_end):
    """out/mask (P, OH, OW): the max of each window of x (P, H, W) and where it is. A NaN wins."""
    planes, _, width = x.shape
    for p in range(planes):
        for y in range(out.shape[1]):
            for xo in range(out.shape[2]):
                h0, w0 = h_start[y], w_start[xo]
                best = x[p, h0, w0]
                where = h0 * width + w0
                for h in range(h0, h_end[y]):
                    for w in range(w0, w_end[xo]):
                        v = x[p, h, w]
                        if v > best or (v != v and best == best):  # v != v: v is NaN, and NaN propagates
                            best = v
                            where = h * width + w
                out[p, y, xo] = best
                mask[p, y, xo] = where


@njit(cache=True)
def max_pool_grad_planes(dout, mask, dx):
    """dx (P, H*W), zeroed by the caller: each gradient goes back to the max it came from."""
    planes, size = dout.shape
    for p in range(planes):
        for k in range(size):
            dx[p, mask[p, k]] += dout[p, k]


@njit(cache=True)
def avg_pool_planes(x, out, h_start, h_end, w_start, w_end, divisor):
    """out (P, OH, OW): the sum of each window of x (P, H, W) over divisor[y, x]."""
    for p in range(x.shape[0]):
        for y in range(out.shape[1]):
            for xo in range(out.shape[2]):
                total = 0.0
                for h in range(h_start[y], h_end[y]):
                    for w in range(w_start[xo], w_end[xo]):
                        total += x[p, h, w]
                out[p, y, xo] = total / divisor[y, xo]


@njit(cache=True)
def avg_pool_grad_planes(dout, dx, h_start, h_end, w_start, w_end, divisor):
    """dx (P, H, W), zeroed by the caller: each window gets its output's gradient / divisor."""
    for p in range(dout.shape[0]):
        for y in range(dout.shape[1]):
            for xo in range(dout.shape[2]):
                g = dout[p, y, xo] / divisor[y, xo]
                for h in range(h_start[y], h_end[y]):
                    for w in range(w_start[xo], w_end[xo]):
                        dx[p, h, w] += g


# ---- the kernels the registry calls (attrs as in framework/ops/pooling.py) ---------------------
def _planes(x: np.ndarray) -> np.ndarray:
    n, c, h, w = x.shape
    return np.ascontiguousarray(x).reshape(n * c, h, w)


def _windows(in_hw, out_hw, kernel_size, strides, paddings, adaptive):
    hs, he = pool_windows(in_hw[0], out_hw[0], kernel_size[0], strides[0], paddings[0], adaptive)
    ws, we = pool_windows(in_hw[1], out_hw[1], kernel_size[1], strides[1], paddings[2], adaptive)
    return hs, he, ws, we


def _max_pool(x, out_hw, windows):
    n, c = x.shape[:2]
    out = np.empty((n * c,) + tuple(out_hw), x.dtype)
    mask = np.empty((n * c,) + tuple(out_hw), np.int32)
    if out.size:
        max_pool_planes(_planes(x), out, mask, *windows)
    return out.reshape(n, c, *out_hw), mask.reshape(n, c, *out_hw)


def max_pool2d_kernel(x, kernel_size=(1, 1), strides=(1, 1), paddings=(0, 0, 0, 0), ceil_mode=False):
    out_hw = pool_out_hw("max_pool2d", x.shape[2:], kernel_size, strides, paddings, ceil_mode)
    return _max_pool(x, out_hw, _windows(x.shape[2:], out_hw, kernel_size, strides, paddings, False))


def pool2d_kernel(x, kernel_size=(1, 1), strides=(1, 1), paddings=(0, 0, 0, 0), ceil_mode=False):
    """pool2d (max pooling without a mask) by the general loops: max_pool2d_kernel's out."""
    return max_pool2d_kernel(x, kernel_size, strides, paddings, ceil_mode)[0]


def pool2d_grad_kernel(x, dout, kernel_size=(1, 1), strides=(1, 1), paddings=(0, 0, 0, 0), ceil_mode=False):
    """pool2d_grad by the general loops: the mask made again from x, then max_pool2d_grad_kernel."""
    _, mask = max_pool2d_kernel(x, kernel_size, strides, paddings, ceil_mode)
    return max_pool2d_grad_kernel(dout, mask, x.shape[2:])


def adaptive_max_pool2d_kernel(x, output_size=(1, 1)):
    return _max_pool(x, output_size, _windows(x.shape[2:], output_size, (0, 0), (0, 0), (0, 0, 0, 0), True))


def max_pool2d_grad_kernel(dout, mask, input_size=(1, 1)):
    n, c = dout.shape[:2]
    dx = np.zeros((n * c, input_size[0] * input_size[1]), dout.dtype)
    max_pool_grad_planes(np.ascontiguousarray(dout).reshape(n * c, -1),
                         np.ascontiguousarray(mask).reshape(n * c, -1), dx)
    return dx.reshape(n, c, *input_size)


def _avg_pool(x, out_hw, windows, divisor):
    n, c = x.shape[:2]
    out = np.empty((n * c,) + tuple(out_hw), x.dtype)
    if out.size:
        avg_pool_planes(_planes(x), out, *windows, divisor)
    return out.reshape(n, c, *out_hw)


def avg_pool2d_kernel(x, kernel_size=(1, 1), strides=(1, 1), paddings=(0, 0, 0, 0), ceil_mode=False,
                      exclusive=True, divisor=0.0):
    out_hw = pool_out_hw("avg_pool2d", x.shape[2:], kernel_size, strides, paddings, ceil_mode)
    windows = _windows(x.shape[2:], out_hw, kernel_size, strides, paddings, False)
    return _avg_pool(x, out_hw, windows, avg_divisor(windows, kernel_size, exclusive, divisor))


def adaptive_avg_pool2d_kernel(x, output_size=(1, 1)):
    windows = _windows(x.shape[2:], output_size, (0, 0), (0, 0), (0, 0, 0, 0), True)
    return _avg_pool(x, output_size, windows, avg_divisor(windows, (0, 0), True, 0.0))


def avg_pool2d_grad_kernel(dout, kernel_size=(1, 1), strides=(1, 1), paddings=(0, 0, 0, 0), ceil_mode=False,
                           exclusive=True, divisor=0.0, adaptive=False, input_size=(1, 1)):
    n, c, oh, ow = dout.shape
    windows = _windows(input_size, (oh, ow), kernel_size, strides, paddings, adaptive)
    div = avg_divisor(windows, kernel_size, exclusive or adaptive, 0.0 if adaptive else divisor)
    dx = np.zeros((n * c,) + tuple(input_size), dout.dtype)
    if dout.size:
        avg_pool_grad_planes(np.ascontiguousarray(dout).reshape(n * c, oh, ow), dx, *windows, div)
    return dx.reshape(n, c, *input_size)
