"""Pooling on the GPU: max_pool2d, avg_pool2d, their adaptive forms and their gradients, one thread per output.

The windows are the CPU kernels' (framework/ops/pooling.py, `pool_windows`): four small index arrays,

    output row y reads input rows [h_start[y], h_end[y]),  output column x reads [w_start[x], w_end[x])

already clipped to the input, so padding is never read, and the divisor of each average (`avg_divisor`)
counts the padding or not as `exclusive` says. They are copied to the device once per geometry.

Each thread of the forward kernels computes one output element over its window. The gradients run
one thread per output gradient too, adding it onto the input positions it came from with
`cuda.atomic.add`: overlapping windows (stride < kernel) share input positions, and so may two
windows' maxima. x is seen as (planes, H, W), one plane per (image, channel); the mask is Paddle's,
the flat index h * W + w of each window's first maximum (a NaN wins), as int32.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
from numba import cuda

from ...ops.pooling import MASK_DTYPE, avg_divisor, pool_out_hw, pool_windows
from .launch import THREADS, blocks_for, flat, launch
from .strided import zeros


# ---- the kernels -----------------------------------------------------------------------------------
@cuda.jit(cache=True)
def _max_pool(x, out, mask, height, width, oh, ow, h_start, h_end, w_start, w_end):
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        xo = i % ow
        y = (i // ow) % oh
        plane = i // (ow * oh) * height * width
        h0, w0 = h_start[y], w_start[xo]
        best = x[plane + h0 * width + w0]
        where = h0 * width + w0
        for h in range(h0, h_end[y]):
            for w in range(w0, w_end[xo]):
                v = x[plane + h * width + w]
                if v > best or (v != v and best == best):  # v != v: v is NaN, and NaN propagates
                    best = v
                    where = h * width + w
        out[i] = best
        mask[i] = where


@cuda.jit(cache=True)
def _max_pool_grad(dout, mask, dx, plane_in, plane_out):
    # dx zeroed by the caller; two windows may share their max: atomically
    for i in range(cuda.grid(1), dout.size, cuda.gridsize(1)):
        cuda.atomic.add(dx, i // plane_out * plane_in + mask[i], dout[i])


@cuda.jit(cache=True)
def _avg_pool(x, out, height, width, oh, ow, h_start, h_end, w_start, w_end, divisor):
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        xo = i % ow
        y = (i // ow) % oh
        plane = i // (ow * oh) * height * width
        total = 0.0
        for h in range(h_start[y], h_end[y]):
            for w in range(w_start[xo], w_end[xo]):
                total += x[plane + h * width + w]
        out[i] = total / divisor[y * ow + xo]


@cuda.jit(cache=True)
def _avg_pool_grad(dout, dx, height, width, oh, ow, h_start, h_end, w_start, w_end, divisor):
    # dx zeroed by the caller; overlapping windows share input positions: atomically
    for i in range(cuda.grid(1), dout.size, cuda.gridsize(1)):
        xo = i % ow
        y = (i // ow) % oh
        plane = i // (ow * oh) * height * width
        g = dout[i] / divisor[y * ow + xo]  # atomic.add rounds it to dx's dtype
        for h in range(h_start[y], h_end[y]):
            for w in range(w_start[xo], w_end[xo]):
                cuda.atomic.add(dx, plane + h * width + w, g)


# ---- windows on the device -----------------------------------------------------------------------
@lru_cache(maxsize=256)
def _device_windows(in_hw: tuple, out_hw: tuple, kernel_size: tuple, strides: tuple, paddings: tuple,
                    adaptive: bool) -> tuple:
    """(h_start, h_end, w_start, w_end) as int64 device arrays; cached: a network pools the same shapes each step."""
    hs, he = pool_windows(in_hw[0], out_hw[0], kernel_size[0], strides[0], paddings[0], adaptive)
    ws, we = pool_windows(in_hw[1], out_hw[1], kernel_size[1], strides[1], paddings[2], adaptive)
    return tuple(cuda.to_device(np.ascontiguousarray(a, np.int64)) for a in (hs, he, ws, we))


@lru_cache(maxsize=256)
def _device_divisor(in_hw: tuple, out_hw: tuple, kernel_size: tuple, strides: tuple, paddings: tuple,
                    adaptive: bool, exclusive: bool, divisor: float):
    """avg_divisor's (OH*OW) divisors on the device, float64 as on the CPU (a divisor= need not be an integer)."""
    hs, he = pool_windows(in_hw[0], out_hw[0], kernel_size[0], strides[0], paddings[0], adaptive)
    ws, we = pool_windows(in_hw[1], out_hw[1], kernel_size[1], strides[1], paddings[2], adaptive)
    host = avg_divisor((hs, he, ws, we), kernel_size, exclusive, divisor)
    return cuda.to_device(np.ascontiguousarray(host.reshape(-1), np.float64))


def _hw(shape) -> tuple:
    return int(shape[2]), int(shape[3])


def _geometry(kernel_size, strides, paddings) -> tuple:
    return tuple(int(k) for k in kernel_size), tuple(int(s) for s in strides), tuple(int(p) for p in paddings)


# ---- max pooling ---------------------------------------------------------------------------------
def _max_pool2d(x, out_hw: tuple, windows: tuple):
    n, c, h, w = (int(s) for s in x.shape)
    out = cuda.device_array((n, c) + out_hw, x.dtype)
    mask = cuda.device_array((n, c) + out_hw, MASK_DTYPE)
    if out.size:
        launch(_max_pool, blocks_for(out.size), THREADS, flat(x, x.size), flat(out, out.size),
               flat(mask, mask.size), h, w, out_hw[0], out_hw[1], *windows)
    return out, mask


def max_pool2d(x, kernel_size=(1, 1), strides=(1, 1), paddings=(0, 0, 0, 0), ceil_mode=False):
    kernel_size, strides, paddings = _geometry(kernel_size, strides, paddings)
    out_hw = pool_out_hw("max_pool2d", _hw(x.shape), kernel_size, strides, paddings, ceil_mode)
    return _max_pool2d(x, out_hw, _device_windows(_hw(x.shape), out_hw, kernel_size, strides, paddings, False))


def adaptive_max_pool2d(x, output_size=(1, 1)):
    out_hw = tuple(int(s) for s in output_size)
    return _max_pool2d(x, out_hw, _device_windows(_hw(x.shape), out_hw, (0, 0), (0, 0), (0, 0, 0, 0), True))


def max_pool2d_grad(dout, mask, input_size=(1, 1)):
    n, c, oh, ow = (int(s) for s in dout.shape)
    dx = zeros((n, c, int(input_size[0]), int(input_size[1])), dout.dtype)
    if dout.size:
        launch(_max_pool_grad, blocks_for(dout.size), THREADS, flat(dout, dout.size), flat(mask, mask.size),
               flat(dx, dx.size), int(input_size[0]) * int(input_size[1]), oh * ow)
    return dx


# ---- average pooling -----------------------------------------------------------------------------
def _avg_pool2d(x, out_hw: tuple, windows: tuple, divisor):
    n, c, h, w = (int(s) for s in x.shape)
    out = cuda.device_array((n, c) + out_hw, x.dtype)
    if out.size:
        launch(_avg_pool, blocks_for(out.size), THREADS, flat(x, x.size), flat(out, out.size), h, w,
               out_hw[0], out_hw[1], *windows, divisor)
    return out


def avg_pool2d(x, kernel_size=(1, 1), strides=(1, 1), paddings=(0, 0, 0, 0), ceil_mode=False,
               exclusive=True, divisor=0.0):
    kernel_size, strides, paddings = _geometry(kernel_size, strides, paddings)
    in_hw = _hw(x.shape)
    out_hw = pool_out_hw("avg_pool2d", in_hw, kernel_size, strides, paddings, ceil_mode)
    geometry = (in_hw, out_hw, kernel_size, strides, paddings, False)
    return _avg_pool2d(x, out_hw, _device_windows(*geometry),
                       _device_divisor(*geometry, bool(exclusive), float(divisor)))


def adaptive_avg_pool2d(x, output_size=(1, 1)):
    geometry = (_hw(x.shape), tuple(int(s) for s in output_size), (0, 0), (0, 0), (0, 0, 0, 0), True)
    return _avg_pool2d(x, geometry[1], _device_windows(*geometry),
                       _device_divisor(*geometry, True, 0.0))


def avg_pool2d_grad(dout, kernel_size=(1, 1), strides=(1, 1), paddings=(0, 0, 0, 0), ceil_mode=False,
                    exclusive=True, divisor=0.0, adaptive=False, input_size=(1, 1)):
    n, c, oh, ow = (int(s) for s in dout.shape)
    kernel_size, strides, paddings = _geometry(kernel_size, strides, paddings)
    in_hw = tuple(int(s) for s in input_size)
    geometry = (in_hw, (oh, ow), kernel_size, strides, paddings, bool(adaptive))
    div = _device_divisor(*geometry, bool(exclusive or adaptive), 0.0 if adaptive else float(divisor))
    dx = zeros((n, c) + in_hw, dout.dtype)
    if dout.size:
        launch(_avg_pool_grad, blocks_for(dout.size), THREADS, flat(dout, dout.size), flat(dx, dx.size),
               in_hw[0], in_hw[1], oh, ow, *_device_windows(*geometry), div)
    return dx
