"""conv2d, conv2d_transpose and conv2d_grad_filter on the GPU: im2col + the GPU matmul, col2im for the way back.

The same plan as the CPU's kernels/cpu/im2col.py, with the columns laid out per image so that the
batched GPU matmul writes NCHW directly (no transpose afterwards):

    cols[n, (c, i, j), (y, x)] = x[n, c, y*sh - pt + i*dh, x*sw - pl + j*dw]     (0 in the padding)

    conv2d(x, w)              out[n, g]  = w[g] @ cols[n, g]                   batch (N, G) x (G,)
    conv2d_transpose(y, w)    cols[n, g] = w[g]^T @ y[n, g];  out = col2im(cols)
    conv2d_grad_filter(x, dy) dw[g]      = sum over n of dy[n, g] @ cols[n, g]^T

Group g owns channels [g*C/G, (g+1)*C/G), which are consecutive rows of cols, so a group is a
reshape: cols (N, G, C/G*kh*kw, L). `im2col` runs one thread per element of cols; `col2im` one
thread per column element, adding it onto its input position with `cuda.atomic.add`, because
overlapping windows (stride < kernel) send several columns to the same position.

The matmul is the kernel the registry (or the autotuner) chose for the dtype, as composed.py's.
Every function has the CPU kernel's signature and takes and returns C-contiguous device arrays.
"""
from __future__ import annotations

from numba import cuda

from . import reduction as R
from .composed import chosen_matmul
from .launch import THREADS, blocks_for, flat, launch
from .strided import zeros


# ---- the kernels -----------------------------------------------------------------------------------
@cuda.jit(device=True)
def _source(i, channels, height, width, kh, kw, sh, sw, pt, pl, dh, dw, oh, ow):
    """Where element i of cols (N, C*kh*kw, oh*ow) reads x (N, C, H, W): its flat index, or -1 in the padding."""
    xo = i % ow
    yo = (i // ow) % oh
    row = (i // (ow * oh)) % (channels * kh * kw)
    n = i // (ow * oh * channels * kh * kw)
    j = row % kw
    k = (row // kw) % kh
    c = row // (kh * kw)
    h = yo * sh - pt + k * dh
    w = xo * sw - pl + j * dw
    if h < 0 or h >= height or w < 0 or w >= width:
        return -1
    return ((n * channels + c) * height + h) * width + w


@cuda.jit(cache=True)
def _im2col(x, cols, channels, height, width, kh, kw, sh, sw, pt, pl, dh, dw, oh, ow, zero):
    for i in range(cuda.grid(1), cols.size, cuda.gridsize(1)):
        src = _source(i, channels, height, width, kh, kw, sh, sw, pt, pl, dh, dw, oh, ow)
        cols[i] = x[src] if src >= 0 else zero


@cuda.jit(cache=True)
def _col2im(cols, x, channels, height, width, kh, kw, sh, sw, pt, pl, dh, dw, oh, ow):
    # x zeroed by the caller; overlapping windows add onto one position: atomically
    for i in range(cuda.grid(1), cols.size, cuda.gridsize(1)):
        dst = _source(i, channels, height, width, kh, kw, sh, sw, pt, pl, dh, dw, oh, ow)
        if dst >= 0:
            cuda.atomic.add(x, dst, cols[i])


# ---- geometry and the two copies -----------------------------------------------------------------
def _out_size(size: int, k: int, s: int, before: int, after: int, d: int) -> int:
    return (size + before + after - (d * (k - 1) + 1)) // s + 1


def _geometry(kh: int, kw: int, strides, paddings, dilations) -> tuple:
    """(kh, kw, sh, sw, pt, pl, dh, dw): what the kernels need (bottom/right padding only shapes the output)."""
    return (int(kh), int(kw), int(strides[0]), int(strides[1]), int(paddings[0]), int(paddings[2]),
            int(dilations[0]), int(dilations[1]))


def im2col(x, kh: int, kw: int, strides, paddings, dilations):
    """cols (N, C*kh*kw, OH*OW) of x (N, C, H, W), and (OH, OW)."""
    n, c, h, w = (int(s) for s in x.shape)
    oh = _out_size(h, kh, strides[0], paddings[0], paddings[1], dilations[0])
    ow = _out_size(w, kw, strides[1], paddings[2], paddings[3], dilations[1])
    cols = cuda.device_array((n, c * kh * kw, oh * ow), x.dtype)
    if cols.size:
        launch(_im2col, blocks_for(cols.size), THREADS, flat(x, x.size), flat(cols, cols.size), c, h, w,
               *_geometry(kh, kw, strides, paddings, dilations), oh, ow, x.dtype.type(0))
    return cols, oh, ow


def col2im(cols, shape: tuple, kh: int, kw: int, strides, paddings, dilations, oh: int, ow: int):
    """x of `shape` (N, C, H, W): every element of cols (N, C*kh*kw, oh*ow) added back onto where im2col read it."""
    x = zeros(shape, cols.dtype)
    if cols.size:
        n, c, h, w = shape
        launch(_col2im, blocks_for(cols.size), THREADS, flat(cols, cols.size), flat(x, x.size), c, h, w,
               *_geometry(kh, kw, strides, paddings, dilations), oh, ow)
    return x


# ---- the kernels the registry calls (attrs as in framework/ops/conv.py) ------------------------------
def conv2d(x, weight, strides=(1, 1), paddings=(0, 0, 0, 0), dilations=(1, 1), groups=1):
    """out (N, OC, OH, OW) = weight (OC, C/G, kh, kw) convolved with x (N, C, H, W)."""
    n = int(x.shape[0])
    oc, cg, kh, kw = (int(s) for s in weight.shape)
    cols, oh, ow = im2col(x, kh, kw, strides, paddings, dilations)
    w = weight.reshape(groups, oc // groups, cg * kh * kw)
    out = chosen_matmul(w, cols.reshape(n, groups, cg * kh * kw, oh * ow))   # (N, G, OC/G, L): NCHW already
    return out.reshape(n, oc, oh, ow)


def conv2d_transpose(x, weight, strides=(1, 1), paddings=(0, 0, 0, 0), dilations=(1, 1), groups=1,
                     output_size=(1, 1)):
    """The adjoint of conv2d: x (N, C, H, W) on conv2d's output grid, weight (C, OC/G, kh, kw)
    -> out (N, OC, *output_size), each input value spread over its kernel window."""
    n, c, h, w_in = (int(s) for s in x.shape)
    _, ocg, kh, kw = (int(s) for s in weight.shape)
    w = weight.reshape(groups, c // groups, ocg * kh * kw)
    cols = chosen_matmul(w, x.reshape(n, groups, c // groups, h * w_in), transpose_x=True)  # (N, G, OC/G*kh*kw, H*W)
    shape = (n, ocg * groups, int(output_size[0]), int(output_size[1]))
    return col2im(cols.reshape(n, groups * ocg * kh * kw, h * w_in), shape, kh, kw, strides, paddings,
                  dilations, h, w_in)


def conv2d_grad_filter(x, dout, strides=(1, 1), paddings=(0, 0, 0, 0), dilations=(1, 1), groups=1,
                       filter_size=(1, 1)):
    """d(conv2d)/d(weight): dout (N, OC, OH, OW) times the windows of x -> (OC, C/G, kh, kw)."""
    n, c = int(x.shape[0]), int(x.shape[1])
    oc = int(dout.shape[1])
    kh, kw = int(filter_size[0]), int(filter_size[1])
    cols, oh, ow = im2col(x, kh, kw, strides, paddings, dilations)
    cgk = (c // groups) * kh * kw
    d = dout.reshape(n, groups, oc // groups, oh * ow)
    per_image = chosen_matmul(d, cols.reshape(n, groups, cgk, oh * ow), transpose_y=True)  # (N, G, OC/G, C/G*kh*kw)
    return R.sum(per_image, (0,), False).reshape(oc, c // groups, kh, kw)
