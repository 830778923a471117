"""Convolution on the CPU as im2col + one BLAS matrix product (and col2im for the way back).

A 2-D convolution slides a (C, kh, kw) window over the padded input. `im2col` copies every
window into one column of a matrix, so the whole convolution becomes one matrix product:

    cols[(c, i, j), (n, y, x)] = x[n, c, y*sh - pt + i*dh, x*sw - pl + j*dw]   (0 outside x)
    out[o, (n, y, x)]          = sum over (c, i, j) of weight[o, (c, i, j)] * cols[(c, i, j), (n, y, x)]

`col2im` is its adjoint: it adds every column back onto the window it came from. With these two
and numpy's matmul (OpenBLAS's sgemm/dgemm for float32/float64) the three kernels are:

    conv2d(x, w)              = w @ im2col(x)                       (forward)
    conv2d_transpose(y, w)    = col2im(w^T @ y)                     (= the input grad of conv2d)
    conv2d_grad_filter(x, dy) = dy @ im2col(x)^T                    (= the weight grad of conv2d)

The columns of all N images sit side by side (`cols` is (C*kh*kw, N*OH*OW)), so each group is
a single large GEMM rather than N small ones. Groups split the rows of `cols` and `w`: group g
multiplies its (OC/G, C/G*kh*kw) block of `w` with its (C/G*kh*kw, N*L) block of `cols`.

The loops are numba `@njit(cache=True)` functions at module level (compiled on first use, then
loaded from numba's on-disk cache). They run on one thread on purpose: BLAS already uses every
core for the product, and numba's OpenMP threads spinning after a `prange` loop fight OpenBLAS's
threads for the cores (measured on 2 cores: im2col then the GEMM ran ~6x slower with `prange`).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
from numba import njit


@njit(cache=True)
def _valid_range(out_len, stride, offset, size):
    """The outputs o in [lo, hi) whose input index o*stride + offset lies inside [0, size)."""
    lo = max(0, (-offset + stride - 1) // stride)
    hi = min(out_len, (size - offset + stride - 1) // stride)
    return lo, max(lo, hi)


# The loops index flat views with unsigned (uint64) offsets: a signed index makes numba test
# "negative? wrap around" on every access, which also stops LLVM from vectorizing the loop
# (measured: 0.54 ms vs 0.13 ms to copy 921,600 floats in rows). Signed arithmetic is done
# first; a value is made unsigned only once it is known to be >= 0.
@njit(cache=True, inline="always")
def _im2col_row(x, dst, row, row_stride, image_stride, kh, kw, sh, sw, pt, pl, dh, dw, oh, ow):
    """Row `row` = (channel, tap i, tap j) of every image's columns, written into the flat dst at
    row * row_stride + n * image_stride: (N, C*kh*kw, L) per image or (C*kh*kw, N*L) batch-wide.

    Row by row, across the images, is the faster order (measured: 0.26 ms vs 0.44 ms image by
    image for LeNet's 64x6x14x14): the row's geometry is worked out once for the whole batch.
    """
    n_img, channels, height, width = x.shape
    src = x.reshape(-1)
    u_sw = np.uint64(sw)
    c = row // (kh * kw)
    i = (row // kw) % kh
    j = row % kw
    y_lo, y_hi = _valid_range(oh, sh, i * dh - pt, height)
    x_lo, x_hi = _valid_range(ow, sw, j * dw - pl, width)
    for n in range(n_img):
        for y in range(oh):
            start = np.uint64(row * row_stride + n * image_stride + y * ow)
            if y < y_lo or y >= y_hi:  # the whole output row reads padding
                for k in range(np.uint64(ow)):
                    dst[start + k] = 0
                continue
            for k in range(np.uint64(x_lo)):
                dst[start + k] = 0
            first = np.uint64(((n * channels + c) * height + y * sh - pt + i * dh) * width
                              + x_lo * sw - pl + j * dw)
            inside = start + np.uint64(x_lo)
            for k in range(np.uint64(x_hi - x_lo)):  # the hot loop: no bounds tests, vectorized
                dst[inside + k] = src[first + k * u_sw]
            for k in range(np.uint64(x_hi), np.uint64(ow)):
                dst[start + k] = 0


@njit(cache=True)
def im2col(x, cols, kh, kw, sh, sw, pt, pl, dh, dw, oh, ow):
    """Fill cols (C*kh*kw, N*oh*ow) with the windows of x (N, C, H, W); padding reads as 0."""
    plane = oh * ow
    for row in range(cols.shape[0]):  # one row: one (channel, kernel tap) pair
        _im2col_row(x, cols.reshape(-1), row, x.shape[0] * plane, plane, kh, kw, sh, sw, pt, pl, dh, dw, oh, ow)


@njit(cache=True)
def col2im(cols, x, kh, kw, sh, sw, pt, pl, dh, dw, oh, ow):
    """x (N, C, H, W), zeroed by the caller, += every column of cols added back onto its window."""
    n_img, channels, height, width = x.shape
    src = cols.reshape(-1)
    dst = x.reshape(-1)
    plane = oh * ow
    u_sw = np.uint64(sw)
    for row in range(channels * kh * kw):
        c = row // (kh * kw)
        i = (row // kw) % kh
        j = row % kw
        y_lo, y_hi = _valid_range(oh, sh, i * dh - pt, height)
        x_lo, x_hi = _valid_range(ow, sw, j * dw - pl, width)
        for n in range(n_img):
            for y in range(y_lo, y_hi):  # output rows that read padding send nothing back
                inside = np.uint64((row * n_img + n) * plane + y * ow + x_lo)
                first = np.uint64(((n * channels + c) * height + y * sh - pt + i * dh) * width
                                  + x_lo * sw - pl + j * dw)
                for k in range(np.uint64(x_hi - x_lo)):
                    dst[first + k * u_sw] += src[inside + k]


# ---- small feature maps: im2col as one gather per row ---------------------------------------------
# On a small map (ResNet's 4x4 .. 1x1 stages) each output row of `_im2col_row` is one to four
# elements long, and the loop's bookkeeping per (row, image, output row) costs more than the copy
# (measured, 32x256x2x2, 3x3 pad 1: 1.6 ms for 0.3M elements). Padding x once, channels first, makes
# every row of cols the same gather: cols[(c, t), m] = xp[c, offsets[t] + bases[m]], where t = (i, j)
# is the tap and m = (n, y, x) the output position -- one flat loop of N*OH*OW per row.
GATHER_MAX_WIDTH = 8  # output rows shorter than this take the gather


@njit(cache=True)
def im2col_gather(xp, cols, offsets, bases):
    """cols (C*K, M) = xp (C, N*Hp*Wp, padded, channels first) read at offsets[t] + bases[m]."""
    taps = offsets.shape[0]
    for c in range(xp.shape[0]):
        src = xp[c]
        for t in range(taps):
            dst = cols[c * taps + t]
            first = offsets[t]
            for m in range(bases.shape[0]):
                dst[m] = src[first + bases[m]]


@lru_cache(maxsize=256)
def _gather_tables(n: int, hp: int, wp: int, kh: int, kw: int, sh: int, sw: int, dh: int, dw: int,
                   oh: int, ow: int) -> tuple[np.ndarray, np.ndarray]:
    """(offsets (kh*kw,), bases (n*oh*ow,)) into a padded channel of n images of hp x wp, unsigned."""
    i, j = np.divmod(np.arange(kh * kw, dtype=np.uint64), np.uint64(kw))
    offsets = i * np.uint64(dh * wp) + j * np.uint64(dw)
    image, y, x = np.unravel_index(np.arange(n * oh * ow), (n, oh, ow))
    bases = (image * (hp * wp) + y * (sh * wp) + x * sw).astype(np.uint64)
    offsets.flags.writeable = bases.flags.writeable = False  # cached: shared by every call
    return offsets, bases


@njit(cache=True)
def col2im_scatter(cols, xp, offsets, bases):
    """xp (C, N*Hp*Wp), zeroed, += every column of cols (C*K, M) at offsets[t] + bases[m]: im2col_gather's adjoint."""
    taps = offsets.shape[0]
    for c in range(xp.shape[0]):
        dst = xp[c]
        for t in range(taps):
            src = cols[c * taps + t]
            first = offsets[t]
            for m in range(bases.shape[0]):
                dst[first + bases[m]] += src[m]


def _padded_size(size: int, out: int, k: int, s: int, before: int, after: int, d: int) -> int:
    return max(size + before + after, (out - 1) * s + (k - 1) * d + 1)


def _im2col_by_gather(x: np.ndarray, kh: int, kw: int, strides, paddings, dilations, oh: int, ow: int):
    n, c, h, w = x.shape
    pt, pb, pl, pr = paddings
    hp = _padded_size(h, oh, kh, strides[0], pt, pb, dilations[0])
    wp = _padded_size(w, ow, kw, strides[1], pl, pr, dilations[1])
    xp = np.zeros((c, n, hp, wp), x.dtype)
    xp[:, :, pt:pt + h, pl:pl + w] = x.transpose(1, 0, 2, 3)
    offsets, bases = _gather_tables(n, hp, wp, kh, kw, strides[0], strides[1], dilations[0], dilations[1], oh, ow)
    cols = np.empty((c * kh * kw, n * oh * ow), x.dtype)
    im2col_gather(xp.reshape(c, -1), cols, offsets, bases)
    return cols


def conv_out_size(size: int, k: int, s: int, pad_before: int, pad_after: int, d: int) -> int:
    """The number of window positions along one spatial dim."""
    return (size + pad_before + pad_after - (d * (k - 1) + 1)) // s + 1


def _geometry(strides, paddings, dilations):
    """(sh, sw, pt, pl, dh, dw): what the loops need (bottom/right padding only shapes the output)."""
    sh, sw = strides
    pt, _, pl, _ = paddings
    dh, dw = dilations
    return sh, sw, pt, pl, dh, dw


def _im2col(x: np.ndarray, kh: int, kw: int, strides, paddings, dilations) -> tuple[np.ndarray, int, int]:
    n, c, h, w = x.shape
    oh = conv_out_size(h, kh, strides[0], paddings[0], paddings[1], dilations[0])
    ow = conv_out_size(w, kw, strides[1], paddings[2], paddings[3], dilations[1])
    if ow < GATHER_MAX_WIDTH:
        return _im2col_by_gather(x, kh, kw, strides, paddings, dilations, oh, ow), oh, ow
    cols = np.empty((c * kh * kw, n * oh * ow), x.dtype)
    sh, sw, pt, pl, dh, dw = _geometry(strides, paddings, dilations)
    im2col(np.ascontiguousarray(x), cols, kh, kw, sh, sw, pt, pl, dh, dw, oh, ow)
    return cols, oh, ow


def _channels_first(a: np.ndarray) -> np.ndarray:
    """(N, C, H, W) -> (C, N*H*W): the layout whose rows line up with the columns of `cols`."""
    n, c = a.shape[:2]
    return np.ascontiguousarray(a.reshape(n, c, -1).transpose(1, 0, 2)).reshape(c, -1)


def _batch_first(a: np.ndarray, n: int, oh: int, ow: int) -> np.ndarray:
    """(C, N*OH*OW) -> (N, C, OH, OW), contiguous."""
    c = a.shape[0]
    return np.ascontiguousarray(a.reshape(c, n, oh, ow).transpose(1, 0, 2, 3))


def conv2d_im2col(x: np.ndarray, weight: np.ndarray, strides=(1, 1), paddings=(0, 0, 0, 0),
                  dilations=(1, 1), groups: int = 1) -> np.ndarray:
    """out (N, OC, OH, OW) = weight (OC, C/G, kh, kw) convolved with x (N, C, H, W)."""
    n = x.shape[0]
    oc, cg, kh, kw = weight.shape
    cols, oh, ow = _im2col(x, kh, kw, strides, paddings, dilations)
    w = weight.reshape(groups, oc // groups, cg * kh * kw)
    out = np.matmul(w, cols.reshape(groups, cg * kh * kw, -1))  # (G, OC/G, N*L): one GEMM per group
    return _batch_first(out.reshape(oc, -1), n, oh, ow)


def conv2d_transpose_col2im(x: np.ndarray, weight: np.ndarray, strides=(1, 1), paddings=(0, 0, 0, 0),
                            dilations=(1, 1), groups: int = 1, output_size=(1, 1)) -> np.ndarray:
    """The adjoint of conv2d: x (N, C, H, W) on conv2d's output grid, weight (C, OC/G, kh, kw)
    -> out (N, OC, *output_size), each input value spread over its kernel window."""
    n, c, h, w_in = x.shape
    _, ocg, kh, kw = weight.shape
    w = weight.reshape(groups, c // groups, ocg * kh * kw)
    rows = _channels_first(x).reshape(groups, c // groups, -1)
    cols = np.matmul(w.transpose(0, 2, 1), rows)  # (G, OC/G*kh*kw, N*H*W): BLAS reads w transposed
    if w_in < GATHER_MAX_WIDTH:  # x is on conv2d's output grid: short rows, so the scatter
        return _col2im_by_scatter(cols.reshape(groups * ocg * kh * kw, -1), n, ocg * groups, output_size,
                                  kh, kw, strides, paddings, dilations, (h, w_in))
    out = np.zeros((n, ocg * groups, output_size[0], output_size[1]), x.dtype)
    sh, sw, pt, pl, dh, dw = _geometry(strides, paddings, dilations)
    col2im(cols.reshape(groups * ocg * kh * kw, -1), out, kh, kw, sh, sw, pt, pl, dh, dw, h, w_in)
    return out


def _col2im_by_scatter(cols, n, c, size, kh, kw, strides, paddings, dilations, out_hw):
    """(N, C, *size): col2im through a padded channels-first buffer, as _im2col_by_gather reads it."""
    (h, w), (oh, ow) = size, out_hw
    pt, pb, pl, pr = paddings
    hp = _padded_size(h, oh, kh, strides[0], pt, pb, dilations[0])
    wp = _padded_size(w, ow, kw, strides[1], pl, pr, dilations[1])
    xp = np.zeros((c, n, hp, wp), cols.dtype)
    offsets, bases = _gather_tables(n, hp, wp, kh, kw, strides[0], strides[1], dilations[0], dilations[1], oh, ow)
    col2im_scatter(np.ascontiguousarray(cols), xp.reshape(c, -1), offsets, bases)
    return np.ascontiguousarray(xp[:, :, pt:pt + h, pl:pl + w].transpose(1, 0, 2, 3))


# With many columns (N*OH*OW) the weight grad's GEMM runs faster as cols @ dout^T, the tall
# contiguous cols on the left (measured, one thread: ResNet's 64x8x8 3x3, 2048 columns: 2.2 ms vs
# 1.85 ms with the copy; LeNet's 6->16 5x5, 6400 columns: 0.49 vs 0.29); with few (ResNet's 2x2
# maps, 128) the transposed copy of dw costs more than it saves (1.9 ms vs 2.9).
TALL_MIN_COLUMNS = 1024


def conv2d_grad_filter_im2col(x: np.ndarray, dout: np.ndarray, strides=(1, 1), paddings=(0, 0, 0, 0),
                              dilations=(1, 1), groups: int = 1, filter_size=(1, 1)) -> np.ndarray:
    """d(conv2d)/d(weight): dout (N, OC, OH, OW) times the windows of x -> (OC, C/G, kh, kw)."""
    c = x.shape[1]
    oc = dout.shape[1]
    kh, kw = filter_size
    cols, _, _ = _im2col(x, kh, kw, strides, paddings, dilations)
    cgk = (c // groups) * kh * kw
    d = _channels_first(dout).reshape(groups, oc // groups, -1)
    if cols.shape[1] >= TALL_MIN_COLUMNS:  # dw^T = cols @ dout^T, then one small transposed copy
        dw = np.matmul(cols.reshape(groups, cgk, -1), d.transpose(0, 2, 1)).transpose(0, 2, 1)
        return np.ascontiguousarray(dw).reshape(oc, c // groups, kh, kw)
    dw = np.matmul(d, cols.reshape(groups, cgk, -1).transpose(0, 2, 1))  # (G, OC/G, C/G*kh*kw)
    return dw.reshape(oc, c // groups, kh, kw)
