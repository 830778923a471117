"""Convolution on the CPU as im2col + BLAS, image by image: no transposed copies of inputs or outputs.

kernels/cpu/im2col.py lays the windows of the whole batch side by side, cols (C*kh*kw, N*OH*OW),
so each op is one large GEMM -- but its result is (OC, N*OH*OW), and turning that into NCHW (and
dout into the same layout for the backward) costs a transposed copy of the output on every call.
Here the columns of each image stay together, cols (N, C*kh*kw, OH*OW), and numpy's matmul
broadcasts the weight over the batch, one BLAS call per image (and group):

    conv2d:              out[n]  = w @ cols[n]                      (N, OC, OH*OW) is NCHW already
    conv2d_transpose:    cols[n] = w^T @ x[n], into the batch-wide layout;  col2im(cols) -> out
    conv2d_grad_filter:  dw^T    = cols @ dout^T, over the whole batch at once

The weight gradient sums over images, so it keeps the batch-wide layout of kernels/cpu/im2col.py,
cols (C*kh*kw, N*OH*OW), with dout made channel-first (a small copy); for tiny weights it sums
per-image products instead (BATCH_WIDE_MIN_WEIGHTS).

Small per-image products also stay on one BLAS thread (OpenBLAS threads only large ones), which
on a busy 2-core machine is what keeps the products from stalling (see framework/thread_modes.py).
The `_parallel` variants split im2col's rows and col2im's images over numba's threads; BLAS is
called before or after a parallel loop, never inside it.

Per-image products pay only while each image has many output positions: below
SMALL_IMAGE_POSITIONS (ResNet's deeper stages: 8x8 down to 1x1) each image's product is tiny, and
the batch-wide kernels of kernels/cpu/im2col.py (one large GEMM) are faster, so these kernels hand
such shapes to them (measured by the autotuner on ResNet-18, batch 32, 32x32 inputs: a training
step 215 ms -> 99 ms with the batch-wide kernels in those stages).

Taps that only ever read padding are cut off first (`live_taps`): a 3x3 kernel with padding 1 on
ResNet's 1x1 feature maps reads the input with its centre tap alone, so the other eight multiply
zeros; dropping them (and the padding they needed) leaves the same output grid and a ninth of the
work (measured, 32x512x1x1, 512->512: 3.1 ms -> 0.4 ms per call, one thread). A NaN or Inf that
only such a tap would have met (in the weight for the forward, in dout for the weight grad) still
reaches the output: those calls take the full kernel (see `_crop_keeps_nan`).

The row loops index flat views with unsigned offsets (see kernels/cpu/im2col.py: a signed index
costs a wrap-around test per access and stops vectorization).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
from numba import njit, prange

from ... import thread_modes
from .im2col import (_channels_first, _geometry, _im2col_row, _valid_range, col2im, conv2d_grad_filter_im2col,
                     conv2d_im2col, conv2d_transpose_col2im, conv_out_size, im2col)

SMALL_IMAGE_POSITIONS = 100  # output positions per image below which one batch-wide GEMM wins
# OpenBLAS runs a product on one thread while M*N*K <= 4 * 65536 (GEMM_MULTITHREAD_THRESHOLD times
# its SMP minimum); above that each per-image product wakes its threads, N times per call. On the
# busy 2-core machine that cost ResNet's 7x7 stem (64 x 147 x 256 per image) 10.9 ms against 2.2 ms
# for one batch-wide GEMM (2 threads; one thread: 3.2 vs 3.1), so larger products go batch-wide.
ONE_THREAD_PRODUCT = 4 * 65536

thread_modes.prepare_numba_threads()  # before numba starts its OpenMP threads
thread_modes.keep_freed_pages()  # the columns and gradients freed each step keep their pages


@njit(cache=True)
def im2col_images(x, cols, kh, kw, sh, sw, pt, pl, dh, dw, oh, ow):
    """cols (N, C*kh*kw, oh*ow) = the windows of each image of x (N, C, H, W); padding reads as 0."""
    rows, plane = cols.shape[1], oh * ow
    for row in range(rows):
        _im2col_row(x, cols.reshape(-1), row, plane, rows * plane, kh, kw, sh, sw, pt, pl, dh, dw, oh, ow)


@njit(cache=True, parallel=True)
def im2col_images_parallel(x, cols, kh, kw, sh, sw, pt, pl, dh, dw, oh, ow):
    rows, plane = cols.shape[1], oh * ow
    for row in prange(rows):  # rows are disjoint in cols: threads never write the same place
        _im2col_row(x, cols.reshape(-1), row, plane, rows * plane, kh, kw, sh, sw, pt, pl, dh, dw, oh, ow)


@njit(cache=True, parallel=True)
def im2col_batch_parallel(x, cols, kh, kw, sh, sw, pt, pl, dh, dw, oh, ow):
    plane = oh * ow
    for row in prange(cols.shape[0]):
        _im2col_row(x, cols.reshape(-1), row, x.shape[0] * plane, plane, kh, kw, sh, sw, pt, pl, dh, dw, oh, ow)


@njit(cache=True)
def col2im_image(src, row_stride, image_start, out, n, kh, kw, sh, sw, pt, pl, dh, dw, oh, ow):
    """out[n] (C, H, W) = every column of image n added back onto its window; row `row` of its
    columns starts at src[image_start + row * row_stride] (flat, either layout)."""
    channels, height, width = out.shape[1], out.shape[2], out.shape[3]
    dst = out[n].reshape(-1)
    for k in range(np.uint64(dst.size)):  # zeroed just before the adds, while this image is in cache
        dst[k] = 0
    u_sw = np.uint64(sw)
    for row in range(channels * kh * kw):
        c = row // (kh * kw)
        i = (row // kw) % kh
        j = row % kw
        y_lo, y_hi = _valid_range(oh, sh, i * dh - pt, height)
        x_lo, x_hi = _valid_range(ow, sw, j * dw - pl, width)
        for y in range(y_lo, y_hi):  # output rows that read padding send nothing back
            inside = np.uint64(image_start + row * row_stride + y * ow + x_lo)
            first = np.uint64((c * height + y * sh - pt + i * dh) * width + x_lo * sw - pl + j * dw)
            for k in range(np.uint64(x_hi - x_lo)):
                dst[first + k * u_sw] += src[inside + k]


@njit(cache=True, parallel=True)
def col2im_batch_parallel(cols, out, kh, kw, sh, sw, pt, pl, dh, dw, oh, ow):
    """out (N, C, H, W) from the batch-wide cols (C*kh*kw, N*oh*ow), images split over threads."""
    n_img, plane = out.shape[0], oh * ow
    # by image, not by row: rows of one image add into the same pixels, images never do
    for n in prange(n_img):
        col2im_image(cols.reshape(-1), n_img * plane, n * plane, out, n, kh, kw, sh, sw, pt, pl, dh, dw, oh, ow)


# ---- the kernels the registry calls (attrs as in framework/ops/conv.py) -----------------------
def _threaded(parallel: bool, nbytes: int) -> bool:
    return parallel and thread_modes.cpu_threads_for(nbytes) > 1


def _columns(x: np.ndarray, kh: int, kw: int, strides, paddings, dilations, parallel: bool):
    """cols (N, C*kh*kw, OH*OW) of x, and (OH, OW)."""
    n, c, h, w = x.shape
    oh = conv_out_size(h, kh, strides[0], paddings[0], paddings[1], dilations[0])
    ow = conv_out_size(w, kw, strides[1], paddings[2], paddings[3], dilations[1])
    cols = np.empty((n, c * kh * kw, oh * ow), x.dtype)
    run = im2col_images_parallel if _threaded(parallel, cols.nbytes) else im2col_images
    run(np.ascontiguousarray(x), cols, kh, kw, *_geometry(strides, paddings, dilations), oh, ow)
    return cols, oh, ow


def _conv2d(x, weight, strides, paddings, dilations, groups, parallel):
    n = x.shape[0]
    oc, cg, kh, kw = weight.shape
    cols, oh, ow = _columns(x, kh, kw, strides, paddings, dilations, parallel)
    w = np.ascontiguousarray(weight).reshape(groups, oc // groups, cg * kh * kw)
    out = np.matmul(w, cols.reshape(n, groups, cg * kh * kw, oh * ow))  # (N, G, OC/G, L): NCHW
    return out.reshape(n, oc, oh, ow)


def conv2d_images(x: np.ndarray, weight: np.ndarray, strides=(1, 1), paddings=(0, 0, 0, 0),
                  dilations=(1, 1), groups: int = 1) -> np.ndarray:
    """out (N, OC, OH, OW): im2col and one BLAS product per image, written straight into NCHW."""
    return _conv2d_live(x, weight, strides, paddings, dilations, groups, False)


def conv2d_images_parallel(x: np.ndarray, weight: np.ndarray, strides=(1, 1), paddings=(0, 0, 0, 0),
                           dilations=(1, 1), groups: int = 1) -> np.ndarray:
    """conv2d_images with im2col split over numba's threads (BLAS runs after, with its own)."""
    return _conv2d_live(x, weight, strides, paddings, dilations, groups, True)


def _conv2d_live(x, weight, strides, paddings, dilations, groups, parallel):
    crop = live_taps(x.shape[2:], weight.shape[2:], strides, paddings, dilations)
    if crop is not None and np.isfinite(weight).all():  # a NaN in a dropped tap must still reach out
        rows, cols, paddings = crop
        weight = live_weight(weight, rows, cols)
    if _small_images(x, weight, strides, paddings, dilations):
        return conv2d_im2col(x, weight, strides, paddings, dilations, groups)
    return _conv2d(x, weight, strides, paddings, dilations, groups, parallel)


def _small_images(x, weight, strides, paddings, dilations) -> bool:
    """Whether per-image products do not pay for conv2d: too few output positions per image, or
    products large enough for OpenBLAS to thread each one."""
    oh = conv_out_size(x.shape[2], weight.shape[2], strides[0], paddings[0], paddings[1], dilations[0])
    ow = conv_out_size(x.shape[3], weight.shape[3], strides[1], paddings[2], paddings[3], dilations[1])
    return oh * ow < SMALL_IMAGE_POSITIONS or _threaded_product(weight, oh * ow)


def _threaded_product(weight, positions: int) -> bool:
    """Whether one image's product (OC x C/G*kh*kw) @ (C/G*kh*kw x positions) is threaded by OpenBLAS."""
    return weight.shape[0] * weight.shape[1] * weight.shape[2] * weight.shape[3] * positions > ONE_THREAD_PRODUCT


# ---- taps that only read padding -----------------------------------------------------------------
def _reads_input(size: int, out: int, stride: int, offset: int) -> bool:
    """Whether a tap at `offset` (tap * dilation - padding before) reads inside [0, size) for some output."""
    first = max(0, -(offset // stride))  # ceil(-offset / stride)
    last = min(out, -((offset - size) // stride))  # ceil((size - offset) / stride)
    return first < last


# Cut taps off only when at most a quarter stay live: otherwise gathering the live weight (and
# scattering its gradient back) costs about what the smaller product saves (measured, one thread,
# 32x256x2x2 -> 512, 3x3 stride 2, 4 of 9 taps live: 1.33 ms -> 1.48 ms; 1 of 9: 2.5 -> 0.7 ms).
LIVE_TAPS_MAX_SHARE = 4


def live_taps(in_hw, k_hw, strides, paddings, dilations):
    """(rows, cols, paddings): the slices of the kernel's taps that read the input at least once, and
    the paddings that keep conv2d's output grid with only those taps; None when too few can go.

    >>> live_taps((1, 1), (3, 3), (1, 1), (1, 1, 1, 1), (1, 1))   # 3x3, pad 1, on a 1x1 map
    (slice(1, 2, None), slice(1, 2, None), (0, 0, 0, 0))
    """
    # remembered per geometry: worked out afresh it costs ~5 us, on every conv call
    return _live_taps(tuple(in_hw), tuple(k_hw), tuple(strides), tuple(paddings), tuple(dilations),
                      LIVE_TAPS_MAX_SHARE)


@lru_cache(maxsize=1024)
def _live_taps(in_hw, k_hw, strides, paddings, dilations, max_share):
    spans, kept = [], []
    for axis in (0, 1):
        size, k, s, d = in_hw[axis], k_hw[axis], strides[axis], dilations[axis]
        before, after = paddings[2 * axis], paddings[2 * axis + 1]
        out = conv_out_size(size, k, s, before, after, d)
        live = [i for i in range(k) if _reads_input(size, out, s, i * d - before)]
        if not live:
            return None
        lo, hi = live[0], live[-1] + 1
        kept += [before - lo * d, after - (k - hi) * d]
        spans.append(slice(lo, hi))
    live_count = (spans[0].stop - spans[0].start) * (spans[1].stop - spans[1].start)
    if min(kept) < 0 or live_count * max_share > k_hw[0] * k_hw[1]:
        return None  # too little to drop (or a dilated tap would need negative padding)
    return spans[0], spans[1], tuple(kept)


def _tap_numbers(rows: slice, cols: slice, kw: int) -> list[int]:
    return [i * kw + j for i in range(rows.start, rows.stop) for j in range(cols.start, cols.stop)]


def live_weight(weight: np.ndarray, rows: slice, cols: slice) -> np.ndarray:
    """weight[:, :, rows, cols], contiguous. Gathered by flat tap number: numpy copies the 4-D view,
    whose rows are 2 or 3 wide, ten times slower (measured, 512x256x3x3 -> 2x2: 2.6 ms vs 0.23 ms)."""
    oc, cg, kh, kw = weight.shape
    flat = np.ascontiguousarray(weight).reshape(oc * cg, kh * kw)
    return flat[:, _tap_numbers(rows, cols, kw)].reshape(oc, cg, rows.stop - rows.start, cols.stop - cols.start)


def _conv2d_transpose(x, weight, strides, paddings, dilations, groups, output_size, parallel):
    n, c, h, w_in = x.shape
    _, ocg, kh, kw = weight.shape
    ckg = ocg * kh * kw
    w = np.ascontiguousarray(weight).reshape(groups, c // groups, ckg).transpose(0, 2, 1)
    rows = np.ascontiguousarray(x).reshape(n, groups, c // groups, h * w_in)
    # One BLAS product per image (w read transposed in place), each written straight into its
    # slot of the batch-wide columns (C*kh*kw, N*H*W): col2im then walks them row by row, the
    # faster order here (measured, LeNet's 6->16 5x5: 0.26 ms vs 0.40 ms image by image).
    cols = np.empty((groups * ckg, n * h * w_in), x.dtype)
    np.matmul(w, rows, out=cols.reshape(groups, ckg, n, h * w_in).transpose(2, 0, 1, 3))
    geometry = _geometry(strides, paddings, dilations)
    size = (n, ocg * groups, output_size[0], output_size[1])
    if _threaded(parallel, cols.nbytes):
        out = np.empty(size, x.dtype)  # each image zeroed by its thread, just before its adds
        col2im_batch_parallel(cols, out, kh, kw, *geometry, h, w_in)
    else:
        out = np.zeros(size, x.dtype)
        col2im(cols, out, kh, kw, *geometry, h, w_in)
    return out


def conv2d_transpose_images(x: np.ndarray, weight: np.ndarray, strides=(1, 1), paddings=(0, 0, 0, 0),
                            dilations=(1, 1), groups: int = 1, output_size=(1, 1)) -> np.ndarray:
    """The adjoint of conv2d (its input gradient): one BLAS product and one col2im per image."""
    return _conv2d_transpose_live(x, weight, strides, paddings, dilations, groups, output_size, False)


def conv2d_transpose_images_parallel(x: np.ndarray, weight: np.ndarray, strides=(1, 1),
                                     paddings=(0, 0, 0, 0), dilations=(1, 1), groups: int = 1,
                                     output_size=(1, 1)) -> np.ndarray:
    """conv2d_transpose_images with col2im split over numba's threads."""
    return _conv2d_transpose_live(x, weight, strides, paddings, dilations, groups, output_size, True)


def _conv2d_transpose_live(x, weight, strides, paddings, dilations, groups, output_size, parallel):
    # a dropped tap only sends values into the padding, which is cut off anyway: no NaN test needed
    crop = live_taps(output_size, weight.shape[2:], strides, paddings, dilations)
    if crop is not None:
        rows, cols, paddings = crop
        weight = live_weight(weight, rows, cols)
    positions = x.shape[2] * x.shape[3]  # x is on conv2d's output grid
    if positions < SMALL_IMAGE_POSITIONS or _threaded_product(weight, positions):
        return conv2d_transpose_col2im(x, weight, strides, paddings, dilations, groups, output_size)
    return _conv2d_transpose(x, weight, strides, paddings, dilations, groups, output_size, parallel)


# Below this many weight entries per group (C/G*kh*kw * OC/G) the batch-wide GEMM has two tiny dims
# and a huge sum, which OpenBLAS runs poorly: per-image products summed are faster there (measured,
# one thread: LeNet's 1->6 3x3, 54 entries, 0.16 ms per image vs 0.50 ms batch-wide; its 6->16
# 5x5, 2400 entries, 1.09 ms per image vs 0.70 ms batch-wide).
BATCH_WIDE_MIN_WEIGHTS = 512


def _conv2d_grad_filter(x, dout, strides, paddings, dilations, groups, filter_size, parallel):
    n, c = x.shape[:2]
    oc = dout.shape[1]
    kh, kw = filter_size
    cgk = (c // groups) * kh * kw
    if cgk * (oc // groups) < BATCH_WIDE_MIN_WEIGHTS:
        cols, oh, ow = _columns(x, kh, kw, strides, paddings, dilations, parallel)
        d = np.ascontiguousarray(dout).reshape(n, groups, oc // groups, oh * ow)
        per_image = np.matmul(d, cols.reshape(n, groups, cgk, oh * ow).transpose(0, 1, 3, 2))
        return per_image.sum(axis=0).reshape(oc, c // groups, kh, kw)
    oh, ow = dout.shape[2:]
    cols = np.empty((c * kh * kw, n * oh * ow), x.dtype)  # the batch's columns side by side
    run = im2col_batch_parallel if _threaded(parallel, cols.nbytes) else im2col  # (kernels/cpu/im2col.py)
    run(np.ascontiguousarray(x), cols, kh, kw, *_geometry(strides, paddings, dilations), oh, ow)
    d = _channels_first(dout).reshape(groups, oc // groups, -1)
    # dw^T = cols @ dout^T: the tall, contiguous cols on the left (measured, LeNet's 6->16 5x5:
    # 0.43 ms against 0.75 ms for dout @ cols^T, one thread)
    dw_t = np.matmul(cols.reshape(groups, cgk, -1), d.transpose(0, 2, 1))  # (G, C/G*kh*kw, OC/G)
    return np.ascontiguousarray(dw_t.transpose(0, 2, 1)).reshape(oc, c // groups, kh, kw)


def conv2d_grad_filter_images(x: np.ndarray, dout: np.ndarray, strides=(1, 1), paddings=(0, 0, 0, 0),
                              dilations=(1, 1), groups: int = 1, filter_size=(1, 1)) -> np.ndarray:
    """d(conv2d)/d(weight) (OC, C/G, kh, kw): one GEMM over the batch's columns (tiny weights:
    one per image, summed)."""
    return _conv2d_grad_filter_live(x, dout, strides, paddings, dilations, groups, filter_size, False)


def conv2d_grad_filter_images_parallel(x: np.ndarray, dout: np.ndarray, strides=(1, 1),
                                       paddings=(0, 0, 0, 0), dilations=(1, 1), groups: int = 1,
                                       filter_size=(1, 1)) -> np.ndarray:
    """conv2d_grad_filter_images with im2col split over numba's threads."""
    return _conv2d_grad_filter_live(x, dout, strides, paddings, dilations, groups, filter_size, True)


def _conv2d_grad_filter_live(x, dout, strides, paddings, dilations, groups, filter_size, parallel):
    crop = live_taps(x.shape[2:], filter_size, strides, paddings, dilations)
    # a dropped tap's gradient is dout times zeros: 0, unless dout holds a NaN or Inf
    if crop is not None and np.isfinite(dout).all():
        rows, cols, live_paddings = crop
        live_size = (rows.stop - rows.start, cols.stop - cols.start)
        live = _conv2d_grad_filter_any(x, dout, strides, live_paddings, dilations, groups, live_size, parallel)
        oc, cg = live.shape[:2]
        dw = np.zeros((oc * cg, filter_size[0] * filter_size[1]), x.dtype)
        dw[:, _tap_numbers(rows, cols, filter_size[1])] = live.reshape(oc * cg, -1)
        return dw.reshape(oc, cg, *filter_size)
    return _conv2d_grad_filter_any(x, dout, strides, paddings, dilations, groups, filter_size, parallel)


def _conv2d_grad_filter_any(x, dout, strides, paddings, dilations, groups, filter_size, parallel):
    if dout.shape[2] * dout.shape[3] < SMALL_IMAGE_POSITIONS:
        return conv2d_grad_filter_im2col(x, dout, strides, paddings, dilations, groups, filter_size)
    return _conv2d_grad_filter(x, dout, strides, paddings, dilations, groups, filter_size, parallel)
