"""3-D pooling on the GPU: max_pool3d, avg_pool3d and their gradients on NCDHW, one thread per output.

The windows are the CPU kernels' (kernels/cpu/pooling3d.py): output (z, y, x) reads input
(z*sd - pf + a, y*sh - pt + b, x*sw - pl + e) for the taps (a, b, e) of the kernel, and each thread
walks its window clipped to the input, in the CPU's tap order, so padding is never read:

    max  the first strictly larger value wins (the running max starts at -inf and its index at 0, as
         on the CPU: a NaN never wins), and the mask holds its flat index d*H*W + h*W + w, int32;
    avg  the window's sum over its divisor: `divisor` if given, else kd*kh*kw (exclusive=False) or
         the number of positions inside the input (exclusive=True).

The gradients add onto the input with `cuda.atomic.add`: overlapping windows share input positions.
max_pool3d_grad is max_pool2d_grad's kernel with each (image, channel) volume seen as one row, since
a 3-D mask is a flat index into that volume.
"""
from __future__ import annotations

import math

from numba import cuda

from .launch import THREADS, blocks_for, flat, launch
from .pooling import max_pool2d_grad
from .strided import zeros


# ---- the kernels -----------------------------------------------------------------------------------
@cuda.jit(device=True)
def _window(i, size, kernel, stride, pad, out):
    """Output element i's (plane offset, the window's start and end along d, h, w, clipped to the input,
    and the number of its positions inside the input)."""
    x = i % out[2]
    y = (i // out[2]) % out[1]
    z = (i // (out[2] * out[1])) % out[0]
    plane = i // (out[2] * out[1] * out[0]) * size[0] * size[1] * size[2]
    d0 = z * stride[0] - pad[0]
    h0 = y * stride[1] - pad[1]
    w0 = x * stride[2] - pad[2]
    # conditionals, not min/max: without a GPU, cuda.compile_ptx (the offline check) cannot type builtin min/max
    d1 = d0 + kernel[0] if d0 + kernel[0] < size[0] else size[0]
    h1 = h0 + kernel[1] if h0 + kernel[1] < size[1] else size[1]
    w1 = w0 + kernel[2] if w0 + kernel[2] < size[2] else size[2]
    d0 = d0 if d0 > 0 else 0
    h0 = h0 if h0 > 0 else 0
    w0 = w0 if w0 > 0 else 0
    inside = (d1 - d0) * (h1 - h0) * (w1 - w0)
    return plane, d0, d1, h0, h1, w0, w1, inside


@cuda.jit(device=True)
def _divisor(kernel, inside, exclusive, divisor):
    if divisor != 0.0:
        return divisor
    if exclusive:
        return float(inside)
    return float(kernel[0] * kernel[1] * kernel[2])


@cuda.jit(cache=True)
def _max_pool(x, out, mask, size, kernel, stride, pad, out_size, lowest):
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        plane, d0, d1, h0, h1, w0, w1, _ = _window(i, size, kernel, stride, pad, out_size)
        best = lowest
        where = 0
        for d in range(d0, d1):
            for h in range(h0, h1):
                for w in range(w0, w1):
                    at = (d * size[1] + h) * size[2] + w
                    v = x[plane + at]
                    if v > best:
                        best = v
                        where = at
        out[i] = best
        mask[i] = where


@cuda.jit(cache=True)
def _avg_pool(x, out, size, kernel, stride, pad, out_size, exclusive, divisor):
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        plane, d0, d1, h0, h1, w0, w1, inside = _window(i, size, kernel, stride, pad, out_size)
        total = x[plane] * 0  # in x's dtype, as the CPU sums
        for d in range(d0, d1):
            for h in range(h0, h1):
                for w in range(w0, w1):
                    total += x[plane + (d * size[1] + h) * size[2] + w]
        out[i] = total / _divisor(kernel, inside, exclusive, divisor)


@cuda.jit(cache=True)
def _avg_pool_grad(dout, dx, size, kernel, stride, pad, out_size, exclusive, divisor):
    # dx zeroed by the caller; overlapping windows share input positions: atomically
    for i in range(cuda.grid(1), dout.size, cuda.gridsize(1)):
        plane, d0, d1, h0, h1, w0, w1, inside = _window(i, size, kernel, stride, pad, out_size)
        share = dout[i] / _divisor(kernel, inside, exclusive, divisor)
        for d in range(d0, d1):
            for h in range(h0, h1):
                for w in range(w0, w1):
                    cuda.atomic.add(dx, plane + (d * size[1] + h) * size[2] + w, share)


# ---- geometry ------------------------------------------------------------------------------------
def _out_sizes(sizes, kernel_size, strides, paddings, ceil_mode) -> tuple:
    """The CPU kernels' output sizes: floor (or ceil) of (padded - kernel) / stride, plus one."""
    out = []
    for i in range(3):
        padded = int(sizes[i]) + int(paddings[2 * i]) + int(paddings[2 * i + 1])
        out.append((padded - int(kernel_size[i]) + (int(strides[i]) - 1 if ceil_mode else 0)) // int(strides[i]) + 1)
    return tuple(out)


def _geometry(kernel_size, strides, paddings) -> tuple:
    """(kernel, stride, pad before each dim) as int triples."""
    return (tuple(int(k) for k in kernel_size), tuple(int(s) for s in strides),
            (int(paddings[0]), int(paddings[2]), int(paddings[4])))


def _sizes(shape) -> tuple:
    return tuple(int(s) for s in shape[2:])


# ---- the kernels the registry calls (attrs as in framework/ops/pooling3d.py) -----------------------
def max_pool3d(x, kernel_size=(1, 1, 1), strides=(1, 1, 1), paddings=(0,) * 6, ceil_mode=False):
    """(out, mask) of max pooling x (N, C, D, H, W); the mask is each max's flat index in its volume, int32."""
    size = _sizes(x.shape)
    out_size = _out_sizes(size, kernel_size, strides, paddings, ceil_mode)
    shape = (int(x.shape[0]), int(x.shape[1])) + out_size
    out = cuda.device_array(shape, x.dtype)
    mask = cuda.device_array(shape, "int32")
    if out.size:
        launch(_max_pool, blocks_for(out.size), THREADS, flat(x, x.size), flat(out, out.size), flat(mask, mask.size),
               size, *_geometry(kernel_size, strides, paddings), out_size, x.dtype.type(-math.inf))
    return out, mask


def max_pool3d_grad(dout, mask, input_size=(1, 1, 1)):
    """Every gradient added at its window's max: max_pool2d_grad on (N, C, 1, OD*OH*OW) rows of one
    (D*H*W)-wide volume, where a 3-D mask is already the flat index."""
    n, c = int(dout.shape[0]), int(dout.shape[1])
    volume = int(input_size[0]) * int(input_size[1]) * int(input_size[2])
    rows = (n, c, 1, int(dout.size) // max(n * c, 1))
    dx = max_pool2d_grad(dout.reshape(rows), mask.reshape(rows), input_size=(1, volume))
    return dx.reshape((n, c) + tuple(int(s) for s in input_size))


def avg_pool3d(x, kernel_size=(1, 1, 1), strides=(1, 1, 1), paddings=(0,) * 6, ceil_mode=False, exclusive=True,
               divisor=0.0):
    """Average pooling of x (N, C, D, H, W): each window's sum over its divisor."""
    size = _sizes(x.shape)
    out_size = _out_sizes(size, kernel_size, strides, paddings, ceil_mode)
    out = cuda.device_array((int(x.shape[0]), int(x.shape[1])) + out_size, x.dtype)
    if out.size:
        launch(_avg_pool, blocks_for(out.size), THREADS, flat(x, x.size), flat(out, out.size), size,
               *_geometry(kernel_size, strides, paddings), out_size, bool(exclusive), float(divisor))
    return out


def avg_pool3d_grad(dout, kernel_size=(1, 1, 1), strides=(1, 1, 1), paddings=(0,) * 6, ceil_mode=False,
                    exclusive=True, divisor=0.0, input_size=(1, 1, 1)):
    """avg_pool3d's adjoint: each gradient over its divisor, spread over its window."""
    size = tuple(int(s) for s in input_size)
    dx = zeros((int(dout.shape[0]), int(dout.shape[1])) + size, dout.dtype)
    if dout.size:
        launch(_avg_pool_grad, blocks_for(dout.size), THREADS, flat(dout, dout.size), flat(dx, dx.size), size,
               *_geometry(kernel_size, strides, paddings), _sizes(dout.shape), bool(exclusive), float(divisor))
    return dx
