"""conv3d, conv3d_transpose and conv3d_grad_filter on the GPU: vol2col + the GPU matmul, col2vol for the way back.

conv.py's plan with one more spatial dim. The columns are laid out per image, so the batched GPU
matmul writes NCDHW directly:

    cols[n, (c, a, b, e), (z, y, x)] = x[n, c, z*sd - pf + a*dd, y*sh - pt + b*dh, x*sw - pl + e*dw]  (0 in padding)

    conv3d(x, w)              out[n, g]  = w[g] @ cols[n, g]
    conv3d_transpose(y, w)    cols[n, g] = w[g]^T @ y[n, g];  out = col2vol(cols)
    conv3d_grad_filter(x, dy) dw[g]      = sum over n of dy[n, g] @ cols[n, g]^T

Group g owns consecutive rows of cols, so a group is a reshape. `vol2col` runs one thread per element
of cols; `col2vol` one thread per column element, adding it onto its input position with
`cuda.atomic.add`, because overlapping windows send several columns to the same position.
Paddings are (front, back, top, bottom, left, right), as framework/ops/conv3d.py's.
"""
from __future__ import annotations

import numpy as np
from numba import cuda

from . import reduction as R
from .composed import chosen_matmul
from .launch import THREADS, blocks_for, flat, launch
from .strided import zeros


# ---- the kernels -----------------------------------------------------------------------------------
@cuda.jit(device=True)
def _source(i, channels, size, kernel, stride, pad, dilation, out):
    """Where element i of cols (N, C*kd*kh*kw, od*oh*ow) reads x (N, C, D, H, W): its flat index, or -1 in
    the padding. size, kernel, stride, pad (front, top, left), dilation and out are (depth, height, width)."""
    length = out[0] * out[1] * out[2]
    taps = kernel[0] * kernel[1] * kernel[2]
    column = i % length
    row = (i // length) % (channels * taps)
    n = i // (length * channels * taps)
    c = row // taps
    # the output position (oz, oy, ox) and the tap (a, b, e), last dim fastest
    ox = column % out[2]
    oy = (column // out[2]) % out[1]
    oz = column // (out[2] * out[1])
    e = row % kernel[2]
    b = (row // kernel[2]) % kernel[1]
    a = (row // (kernel[2] * kernel[1])) % kernel[0]
    z = oz * stride[0] - pad[0] + a * dilation[0]
    y = oy * stride[1] - pad[1] + b * dilation[1]
    x = ox * stride[2] - pad[2] + e * dilation[2]
    if z < 0 or z >= size[0] or y < 0 or y >= size[1] or x < 0 or x >= size[2]:
        return -1
    return (((n * channels + c) * size[0] + z) * size[1] + y) * size[2] + x


@cuda.jit(cache=True)
def _vol2col(x, cols, channels, size, kernel, stride, pad, dilation, out, zero):
    for i in range(cuda.grid(1), cols.size, cuda.gridsize(1)):
        src = _source(i, channels, size, kernel, stride, pad, dilation, out)
        cols[i] = x[src] if src >= 0 else zero


@cuda.jit(cache=True)
def _col2vol(cols, x, channels, size, kernel, stride, pad, dilation, out):
    # x zeroed by the caller; overlapping windows add onto one position: atomically
    for i in range(cuda.grid(1), cols.size, cuda.gridsize(1)):
        dst = _source(i, channels, size, kernel, stride, pad, dilation, out)
        if dst >= 0:
            cuda.atomic.add(x, dst, cols[i])


# ---- geometry and the two copies -----------------------------------------------------------------
def _out_sizes(sizes, kernel, strides, paddings, dilations) -> tuple:
    return tuple((int(sizes[i]) + int(paddings[2 * i]) + int(paddings[2 * i + 1])
                  - (int(dilations[i]) * (int(kernel[i]) - 1) + 1)) // int(strides[i]) + 1 for i in range(3))


def _geometry(kernel, strides, paddings, dilations) -> tuple:
    """(kernel, stride, pad, dilation) as int64 triples, the padding before each dim only (the padding after
    shapes the output)."""
    return (tuple(int(k) for k in kernel), tuple(int(s) for s in strides),
            (int(paddings[0]), int(paddings[2]), int(paddings[4])), tuple(int(d) for d in dilations))


def vol2col(x, kernel, strides, paddings, dilations):
    """cols (N, C*kd*kh*kw, OD*OH*OW) of x (N, C, D, H, W), and (OD, OH, OW)."""
    n, c = int(x.shape[0]), int(x.shape[1])
    size = tuple(int(s) for s in x.shape[2:])
    out = _out_sizes(size, kernel, strides, paddings, dilations)
    taps = int(np.prod([int(k) for k in kernel]))
    cols = cuda.device_array((n, c * taps, out[0] * out[1] * out[2]), x.dtype)
    if cols.size:
        launch(_vol2col, blocks_for(cols.size), THREADS, flat(x, x.size), flat(cols, cols.size), c, size,
               *_geometry(kernel, strides, paddings, dilations), out, x.dtype.type(0))
    return cols, out


def col2vol(cols, shape: tuple, kernel, strides, paddings, dilations, out: tuple):
    """x of `shape` (N, C, D, H, W): every element of cols (N, C*kd*kh*kw, od*oh*ow) added back onto where
    vol2col read it."""
    x = zeros(shape, cols.dtype)
    if cols.size:
        launch(_col2vol, blocks_for(cols.size), THREADS, flat(cols, cols.size), flat(x, x.size), int(shape[1]),
               tuple(int(s) for s in shape[2:]), *_geometry(kernel, strides, paddings, dilations), tuple(out))
    return x


# ---- the kernels the registry calls (attrs as in framework/ops/conv3d.py) ----------------------------
def conv3d(x, weight, strides=(1, 1, 1), paddings=(0,) * 6, dilations=(1, 1, 1), groups=1):
    """out (N, OC, OD, OH, OW) = weight (OC, C/G, kd, kh, kw) convolved with x (N, C, D, H, W)."""
    n = int(x.shape[0])
    oc, cg = int(weight.shape[0]), int(weight.shape[1])
    kernel = tuple(int(k) for k in weight.shape[2:])
    cols, out = vol2col(x, kernel, strides, paddings, dilations)
    rows = cg * kernel[0] * kernel[1] * kernel[2]
    w = weight.reshape(groups, oc // groups, rows)
    result = chosen_matmul(w, cols.reshape(n, groups, rows, int(cols.shape[2])))   # (N, G, OC/G, L): NCDHW already
    return result.reshape((n, oc) + out)


def conv3d_transpose(x, weight, strides=(1, 1, 1), paddings=(0,) * 6, dilations=(1, 1, 1), groups=1,
                     output_size=(1, 1, 1)):
    """The adjoint of conv3d: x (N, C, D, H, W) on conv3d's output grid, weight (C, OC/G, kd, kh, kw)
    -> out (N, OC, *output_size), each input value spread over its kernel window."""
    n, c = int(x.shape[0]), int(x.shape[1])
    grid = tuple(int(s) for s in x.shape[2:])
    ocg = int(weight.shape[1])
    kernel = tuple(int(k) for k in weight.shape[2:])
    taps = kernel[0] * kernel[1] * kernel[2]
    length = grid[0] * grid[1] * grid[2]
    w = weight.reshape(groups, c // groups, ocg * taps)
    cols = chosen_matmul(w, x.reshape(n, groups, c // groups, length), transpose_x=True)  # (N, G, OC/G*taps, L)
    shape = (n, ocg * groups) + tuple(int(s) for s in output_size)
    return col2vol(cols.reshape(n, groups * ocg * taps, length), shape, kernel, strides, paddings, dilations, grid)


def conv3d_grad_filter(x, dout, strides=(1, 1, 1), paddings=(0,) * 6, dilations=(1, 1, 1), groups=1,
                       filter_size=(1, 1, 1)):
    """d(conv3d)/d(weight): dout (N, OC, OD, OH, OW) times the windows of x -> (OC, C/G, kd, kh, kw)."""
    n, c = int(x.shape[0]), int(x.shape[1])
    oc = int(dout.shape[1])
    kernel = tuple(int(k) for k in filter_size)
    cols, out = vol2col(x, kernel, strides, paddings, dilations)
    length = out[0] * out[1] * out[2]
    cgk = (c // groups) * kernel[0] * kernel[1] * kernel[2]
    d = dout.reshape(n, groups, oc // groups, length)
    per_image = chosen_matmul(d, cols.reshape(n, groups, cgk, length), transpose_y=True)  # (N, G, OC/G, C/G*taps)
    return R.sum(per_image, (0,), False).reshape((oc, c // groups) + kernel)
