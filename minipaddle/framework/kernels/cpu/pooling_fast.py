"""Max pooling near memory speed: numba loops that read input rows in order, without branches.

The general kernels (kernels/cpu/pooling.py) walk every window through four index arrays with an
`if` per element; on random data that branch mispredicts every other time, and LeNet's 64x6x28x28
pooling took ~1.7 ms where copying the input takes ~0.03 ms. These loops update the running max
with selects (`_beats`), which LLVM vectorizes, and write out the commonest case, 2x2 windows with
stride 2 and no padding (LeNet's, VGG's):

    out[p, y, x] = max of x[p, 2y : 2y+2, 2x : 2x+2]      (two input rows per output row)

When the planes' height and width are even, the whole batch is one stack of row pairs, (N*C*OH, 2, W),
and one loop runs over every output row (`max_pool_2x2_row_pairs`; `pool_2x2_row_pairs` without
the mask): LeNet's 64x6x28x28 pool in 1.9x the time of copying its input.

Any other geometry (padding, overlap, ceil_mode's partial windows, other sizes) runs
`max_pool_window_plane`, the same select loop over the windows' [start, end) ranges.

The mask is Paddle's (`return_mask`, int32): the flat index h*W + w of each window's first maximum
(a NaN wins, as in the general kernel: the autotuner checks that candidates agree bit for bit). It
stays int32 rather than a compact int8 tap number because users see it; it costs the forward most
of its time above a copy (measured: 0.047 ms for the values alone, 0.075 ms with the mask, 0.026
ms to copy the input). The backward zeroes dx and adds each gradient at its mask.

So `pool2d` (max pooling without a mask, what F.max_pool2d runs unless return_mask=True) compiles
the same loops with mask=None -- numba drops the `if mask is not None` stores from that version --
and its gradient `pool2d_grad` finds each window's max again in x with the same selects: for 2x2/2
windows it writes every element of dx once (the gradient where the max is, 0 elsewhere), with no
zeroing pass and no scatter.

Threads: planes (image, channel) are independent, so the `_parallel` drivers split them over
numba's thread pool (`prange`); the plain drivers run one thread. framework/thread_modes.py holds
the policy that keeps numba's threads and OpenBLAS's from fighting (`cpu_threads_for`).
"""
from __future__ import annotations

import numpy as np
from numba import get_num_threads, njit, prange

from ... import thread_modes
from ...ops.pooling import pool_out_hw, pool_windows

thread_modes.prepare_numba_threads()  # before numba starts its OpenMP threads


@njit(cache=True, inline="always")
def _beats(v, best):
    """Does v replace the running max? When larger, or when it is the first NaN (a NaN wins).

    Two comparisons and no branch (`not v <= best` is also true when either is NaN), so LLVM turns
    the loops below into vector selects; a branch here mispredicts on every other random input.
    """
    return (not v <= best) & (best == best)


@njit(cache=True, inline="always")
def _window_2x2(top, bottom, k):
    """(max, top_right, bottom_right, down) of the window top[2k:2k+2] over bottom[2k:2k+2]: a tree (top
    pair, bottom pair, then the two winners) gives the same value and first argmax as the running max
    of the general kernel; the bottom pair wins only when strictly better."""
    a0, a1 = top[2 * k], top[2 * k + 1]
    b0, b1 = bottom[2 * k], bottom[2 * k + 1]
    top_right = _beats(a1, a0)
    bottom_right = _beats(b1, b0)
    top_max = a1 if top_right else a0
    bottom_max = b1 if bottom_right else b0
    down = _beats(bottom_max, top_max)
    return (bottom_max if down else top_max), top_right, bottom_right, down


@njit(cache=True)
def max_pool_2x2_plane(x, out, mask, p):
    """out/mask[p] for 2x2 windows with stride 2 and no padding: two input rows per output row.
    mask may be None (pool2d, no mask): numba then compiles a version without the mask's stores."""
    width = np.int32(x.shape[2])
    for y in range(out.shape[1]):
        top = x[p, 2 * y]
        bottom = x[p, 2 * y + 1]
        row_out = out[p, y]
        col = np.int32(2 * y) * width  # flat index of this row pair's first element
        for k in range(row_out.shape[0]):
            row_out[k], top_right, bottom_right, down = _window_2x2(top, bottom, k)
            if mask is not None:
                where = (col + width + np.int32(bottom_right)) if down else (col + np.int32(top_right))
                mask[p, y, k] = where + np.int32(2 * k)


@njit(cache=True)
def max_pool_2x2_row_pairs(pairs, out, mask, oh):
    """out/mask for 2x2 windows with stride 2 over even-sized planes, the whole batch seen as one stack
    of row pairs (pairs: (N*C*OH, 2, W), out/mask: (N*C*OH, OW), whole planes): one loop over every
    output row, so 10x10 planes do not pay a call and a row setup per plane. The same tree of selects
    as max_pool_2x2_plane; without a mask: pool_2x2_row_pairs. (Rows counted from 0, not from a start
    argument: with a start numba checks every index for wraparound, 49 -> 55 us.)"""
    width = np.int32(pairs.shape[2])
    for r in range(out.shape[0]):
        top = pairs[r, 0]
        bottom = pairs[r, 1]
        row_out = out[r]
        col = np.int32(2 * (r % oh)) * width  # flat index of this row pair's first element in its plane
        for k in range(row_out.shape[0]):
            row_out[k], top_right, bottom_right, down = _window_2x2(top, bottom, k)
            where = (col + width + np.int32(bottom_right)) if down else (col + np.int32(top_right))
            mask[r, k] = where + np.int32(2 * k)


@njit(cache=True)
def pool_2x2_row_pairs(pairs, out):
    """max_pool_2x2_row_pairs' values alone (pool2d): without the mask's bookkeeping (numba drops the
    window's unused flags) the loop runs near a copy's speed. 64x6x28x28: 49 us (a copy of the input:
    26 us); 64x16x10x10: 28 us (copy: 9 us; the per-plane loops took 43)."""
    for r in range(out.shape[0]):
        top = pairs[r, 0]
        bottom = pairs[r, 1]
        row_out = out[r]
        for k in range(row_out.shape[0]):
            row_out[k] = _window_2x2(top, bottom, k)[0]


@njit(cache=True, parallel=True)
def max_pool_2x2_row_pairs_parallel(pairs, out, mask, oh, chunks):
    planes = out.shape[0] // oh
    for c in prange(chunks):  # whole planes per chunk: the mask's r % oh stays the row in the plane
        first, last = oh * (planes * c // chunks), oh * (planes * (c + 1) // chunks)
        if mask is None:
            pool_2x2_row_pairs(pairs[first:last], out[first:last])
        else:
            max_pool_2x2_row_pairs(pairs[first:last], out[first:last], mask[first:last], oh)


@njit(cache=True, inline="always")
def _window_max(x, p, h0, h1, w0, w1):
    """(max, flat h*W + w of its first occurrence) of x[p, h0:h1, w0:w1], by selects (see _beats).

    The window starts from its first element (which never beats itself, NaN or not) and reads each
    window row left to right, so ties go to the first maximum in row-major order, as in Paddle.
    """
    width = x.shape[2]
    best = x[p, h0, w0]
    where = np.int32(h0 * width + w0)
    for h in range(h0, h1):
        src = x[p, h]
        for c in range(w0, w1):
            take = _beats(src[c], best)
            best = src[c] if take else best
            where = np.int32(h * width + c) if take else where
    return best, where


@njit(cache=True, inline="always")
def _row_max_3(src, c):
    """(max, 0/1/2) of src[c : c+3], the first maximum (a NaN wins), by two selects."""
    a, b, d = src[c], src[c + 1], src[c + 2]
    second = _beats(b, a)
    best = b if second else a
    third = _beats(d, best)
    return (d if third else best), (np.int32(2) if third else (np.int32(1) if second else np.int32(0)))


@njit(cache=True, inline="always")
def _window_max_3x3(r0, r1, r2, h0, w0, width):
    """_window_max of a whole 3x3 window whose rows are r0, r1, r2: the three row maxima do not
    depend on each other, so they run side by side, then the rows are compared in order (the first
    maximum in row-major order still wins). ResNet's 3x3/2 pool: 4.2 ms -> 2.2 ms."""
    m0, i0 = _row_max_3(r0, w0)
    m1, i1 = _row_max_3(r1, w0)
    m2, i2 = _row_max_3(r2, w0)
    down = _beats(m1, m0)
    best = m1 if down else m0
    where = (np.int32((h0 + 1) * width + w0) + i1) if down else (np.int32(h0 * width + w0) + i0)
    last = _beats(m2, best)
    return (m2 if last else best), ((np.int32((h0 + 2) * width + w0) + i2) if last else where)


@njit(cache=True)
def max_pool_window_plane(x, out, mask, p, h_start, h_end, w_start, w_end):
    """out/mask[p] for any windows, given as clipped [start, end) ranges (padding, overlap, ceil_mode);
    mask may be None, as in max_pool_2x2_plane. Whole 3x3 windows take `_window_max_3x3`."""
    width = x.shape[2]
    for y in range(out.shape[1]):
        row_out = out[p, y]
        h0, h1 = h_start[y], h_end[y]
        three_rows = h1 - h0 == 3
        r0 = x[p, h0]
        r1 = x[p, h0 + 1] if three_rows else r0
        r2 = x[p, h0 + 2] if three_rows else r0
        if mask is not None:
            row_mask = mask[p, y]
        for k in range(row_out.shape[0]):
            w0, w1 = w_start[k], w_end[k]
            if three_rows and w1 - w0 == 3:
                best, where = _window_max_3x3(r0, r1, r2, h0, w0, width)
            else:
                best = x[p, h0, w0]
                where = np.int32(h0 * width + w0)
                for h in range(h0, h1):  # _window_max written out: numba's inlining of it slowed both paths
                    src = x[p, h]
                    for c in range(w0, w1):
                        take = _beats(src[c], best)
                        best = src[c] if take else best
                        where = np.int32(h * width + c) if take else where
            row_out[k] = best
            if mask is not None:
                row_mask[k] = where


@njit(cache=True)
def max_pool_planes_serial(x, out, mask, h_start, h_end, w_start, w_end, two_by_two):
    for p in range(x.shape[0]):
        _max_pool_plane(x, out, mask, p, h_start, h_end, w_start, w_end, two_by_two)


@njit(cache=True, parallel=True)
def max_pool_planes_parallel(x, out, mask, h_start, h_end, w_start, w_end, two_by_two):
    for p in prange(x.shape[0]):
        _max_pool_plane(x, out, mask, p, h_start, h_end, w_start, w_end, two_by_two)


@njit(cache=True, inline="always")
def _max_pool_plane(x, out, mask, p, h_start, h_end, w_start, w_end, two_by_two):
    if two_by_two:
        max_pool_2x2_plane(x, out, mask, p)
    else:
        max_pool_window_plane(x, out, mask, p, h_start, h_end, w_start, w_end)


@njit(cache=True)
def max_pool_grad_plane(dout, mask, dx, p):
    """dx[p] (planes, H*W): zeroed, then each gradient added where its window's max was.

    For the threaded driver: the thread that scatters into a plane zeroes it first, so the plane
    is in that core's cache for the scatter.
    """
    row = dx[p]
    for k in range(row.shape[0]):  # a loop, not row[:] = 0: a slice per plane costs more than a small plane
        row[k] = 0
    g = dout[p]
    m = mask[p]
    for k in range(g.shape[0]):
        row[m[k]] += g[k]


@njit(cache=True)
def max_pool_grad_planes_serial(dout, mask, dx):
    flat = dx.reshape(-1)
    for i in range(flat.shape[0]):  # one pass of zeros, then the scatter (small planes: no per-plane work)
        flat[i] = 0
    for p in range(dx.shape[0]):
        for k in range(dout.shape[1]):
            dx[p, mask[p, k]] += dout[p, k]


@njit(cache=True, parallel=True)
def max_pool_grad_planes_parallel(dout, mask, dx):
    for p in prange(dx.shape[0]):  # a mask indexes inside its own plane: planes never collide
        max_pool_grad_plane(dout, mask, dx, p)


# ---- pool2d_grad: the max found again in x, no mask ----------------------------------------------
@njit(cache=True)
def pool2d_grad_2x2_plane(x, dout, dx, p, zero):
    """dx[p] (H, W) for 2x2 windows with stride 2: each input gets its window's gradient when it is
    the window's (first) max, else `zero` (0 of dx's dtype) -- every element written once, no zeroing
    pass, no scatter. The tests are selects joined by & (`and` would branch and stop vectorizing)."""
    oh, ow = dout.shape[1], dout.shape[2]
    for y in range(oh):
        top, bottom = x[p, 2 * y], x[p, 2 * y + 1]
        g = dout[p, y]
        d_top, d_bottom = dx[p, 2 * y], dx[p, 2 * y + 1]
        for k in range(ow):
            a0, a1 = top[2 * k], top[2 * k + 1]
            b0, b1 = bottom[2 * k], bottom[2 * k + 1]
            top_right = _beats(a1, a0)
            bottom_right = _beats(b1, b0)
            down = _beats(b1 if bottom_right else b0, a1 if top_right else a0)
            up = not down
            gk = g[k]
            d_top[2 * k] = gk if up & (not top_right) else zero
            d_top[2 * k + 1] = gk if up & top_right else zero
            d_bottom[2 * k] = gk if down & (not bottom_right) else zero
            d_bottom[2 * k + 1] = gk if down & bottom_right else zero
        for k in range(2 * ow, dx.shape[2]):  # an odd width's last column is in no window
            d_top[k] = zero
            d_bottom[k] = zero
    for h in range(2 * oh, dx.shape[1]):  # nor is an odd height's last row
        for k in range(dx.shape[2]):
            dx[p, h, k] = zero


@njit(cache=True)
def pool2d_grad_window_plane(x, dout, dx, p, h_start, h_end, w_start, w_end):
    """dx[p] (H, W) for any windows: zeroed, then each gradient added at its window's max, found
    again in x exactly as the forward found it (`_window_max`)."""
    flat = dx[p].reshape(-1)
    for k in range(flat.shape[0]):
        flat[k] = 0.0
    for y in range(dout.shape[1]):
        for k in range(dout.shape[2]):
            _, where = _window_max(x, p, h_start[y], h_end[y], w_start[k], w_end[k])
            flat[where] += dout[p, y, k]


@njit(cache=True, inline="always")
def _pool2d_grad_plane(x, dout, dx, p, h_start, h_end, w_start, w_end, two_by_two, zero):
    if two_by_two:
        pool2d_grad_2x2_plane(x, dout, dx, p, zero)
    else:
        pool2d_grad_window_plane(x, dout, dx, p, h_start, h_end, w_start, w_end)


@njit(cache=True)
def pool2d_grad_planes_serial(x, dout, dx, h_start, h_end, w_start, w_end, two_by_two, zero):
    for p in range(x.shape[0]):
        _pool2d_grad_plane(x, dout, dx, p, h_start, h_end, w_start, w_end, two_by_two, zero)


@njit(cache=True, parallel=True)
def pool2d_grad_planes_parallel(x, dout, dx, h_start, h_end, w_start, w_end, two_by_two, zero):
    for p in prange(x.shape[0]):  # each plane's gradient stays inside the plane
        _pool2d_grad_plane(x, dout, dx, p, h_start, h_end, w_start, w_end, two_by_two, zero)


# ---- the kernels the registry calls (attrs as in framework/ops/pooling.py) ---------------------
def _geometry(x_hw, kernel_size, strides, paddings, ceil_mode):
    """(out_hw, windows, two_by_two): the output size, the clipped windows, and whether they are
    all whole 2x2 windows with stride 2 (with ceil_mode the last window of an odd size is partial)."""
    h, w = x_hw
    oh, ow = pool_out_hw("max_pool2d", (h, w), kernel_size, strides, paddings, ceil_mode)
    two_by_two = (tuple(kernel_size) == tuple(strides) == (2, 2) and not any(paddings)
                  and 2 * oh <= h and 2 * ow <= w)
    hs, he = pool_windows(h, oh, kernel_size[0], strides[0], paddings[0], False)
    ws, we = pool_windows(w, ow, kernel_size[1], strides[1], paddings[2], False)
    return (oh, ow), (hs, he, ws, we), two_by_two


def _max_pool(x, kernel_size, strides, paddings, ceil_mode, parallel: bool, with_mask: bool = True):
    n, c, h, w = x.shape
    if (h % 2 == 0 and w % 2 == 0 and h and w and tuple(kernel_size) == tuple(strides) == (2, 2)
            and not any(paddings)):  # the commonest geometry, planes of even size: one stack of row pairs
        rows, oh, ow = n * c * (h // 2), h // 2, w // 2
        out = np.empty((n, c, oh, ow), x.dtype)
        mask = np.empty((n, c, oh, ow), np.int32) if with_mask else None
        if rows:
            pairs = np.ascontiguousarray(x).reshape(rows, 2, w)
            flat_mask = None if mask is None else mask.reshape(rows, ow)
            if parallel:
                max_pool_2x2_row_pairs_parallel(pairs, out.reshape(rows, ow), flat_mask, oh, get_num_threads())
            elif flat_mask is None:
                pool_2x2_row_pairs(pairs, out.reshape(rows, ow))
            else:
                max_pool_2x2_row_pairs(pairs, out.reshape(rows, ow), flat_mask, oh)
        return out if mask is None else (out, mask)
    (oh, ow), windows, two_by_two = _geometry((h, w), kernel_size, strides, paddings, ceil_mode)
    out = np.empty((n * c, oh, ow), x.dtype)
    mask = np.empty((n * c, oh, ow), np.int32) if with_mask else None
    if out.size:
        planes = np.ascontiguousarray(x).reshape(n * c, h, w)
        run = max_pool_planes_parallel if parallel else max_pool_planes_serial
        run(planes, out, mask, *windows, two_by_two)
    if not with_mask:
        return out.reshape(n, c, oh, ow)
    return out.reshape(n, c, oh, ow), mask.reshape(n, c, oh, ow)


def max_pool2d_rows(x, kernel_size=(1, 1), strides=(1, 1), paddings=(0, 0, 0, 0), ceil_mode=False):
    """max_pool2d on one thread: select loops, 2x2 windows with stride 2 written out."""
    return _max_pool(x, kernel_size, strides, paddings, ceil_mode, False)


def max_pool2d_rows_parallel(x, kernel_size=(1, 1), strides=(1, 1), paddings=(0, 0, 0, 0), ceil_mode=False):
    """max_pool2d_rows with the planes split over numba's threads (one thread for small inputs)."""
    parallel = thread_modes.cpu_threads_for(x.nbytes) > 1
    return _max_pool(x, kernel_size, strides, paddings, ceil_mode, parallel)


def _max_pool_grad(dout, mask, input_size, parallel: bool):
    n, c = dout.shape[:2]
    dx = np.empty((n * c, input_size[0] * input_size[1]), dout.dtype)
    run = max_pool_grad_planes_parallel if parallel else max_pool_grad_planes_serial
    run(np.ascontiguousarray(dout).reshape(n * c, -1), np.ascontiguousarray(mask).reshape(n * c, -1), dx)
    return dx.reshape(n, c, *input_size)


def max_pool2d_grad_rows(dout, mask, input_size=(1, 1)):
    """max_pool2d_grad on one thread: one pass of zeros, then each gradient added at its mask."""
    return _max_pool_grad(dout, mask, input_size, False)


def max_pool2d_grad_rows_parallel(dout, mask, input_size=(1, 1)):
    """max_pool2d_grad_rows with the planes split over numba's threads (one thread for small inputs)."""
    parallel = thread_modes.cpu_threads_for(dout.nbytes * 4) > 1
    return _max_pool_grad(dout, mask, input_size, parallel)


# ---- pool2d: max pooling without a mask (framework/ops/pooling.py) -------------------------------
def pool2d_rows(x, kernel_size=(1, 1), strides=(1, 1), paddings=(0, 0, 0, 0), ceil_mode=False):
    """pool2d (max pooling, no mask) on one thread: max_pool2d_rows' loops without the mask's stores."""
    return _max_pool(x, kernel_size, strides, paddings, ceil_mode, False, with_mask=False)


def pool2d_rows_parallel(x, kernel_size=(1, 1), strides=(1, 1), paddings=(0, 0, 0, 0), ceil_mode=False):
    """pool2d_rows with the planes split over numba's threads (one thread for small inputs)."""
    parallel = thread_modes.cpu_threads_for(x.nbytes) > 1
    return _max_pool(x, kernel_size, strides, paddings, ceil_mode, parallel, with_mask=False)


def _pool2d_grad(x, dout, kernel_size, strides, paddings, ceil_mode, parallel: bool):
    n, c, h, w = x.shape
    (oh, ow), windows, two_by_two = _geometry((h, w), kernel_size, strides, paddings, ceil_mode)
    dx = np.empty((n * c, h, w), dout.dtype)
    run = pool2d_grad_planes_parallel if parallel else pool2d_grad_planes_serial
    run(np.ascontiguousarray(x).reshape(n * c, h, w), np.ascontiguousarray(dout).reshape(n * c, oh, ow), dx,
        *windows, two_by_two, dx.dtype.type(0))
    return dx.reshape(n, c, h, w)


def pool2d_grad_rows(x, dout, kernel_size=(1, 1), strides=(1, 1), paddings=(0, 0, 0, 0), ceil_mode=False):
    """pool2d_grad on one thread: each window's max found again in x, its gradient written there."""
    return _pool2d_grad(x, dout, kernel_size, strides, paddings, ceil_mode, False)


def pool2d_grad_rows_parallel(x, dout, kernel_size=(1, 1), strides=(1, 1), paddings=(0, 0, 0, 0),
                              ceil_mode=False):
    """pool2d_grad_rows with the planes split over numba's threads (one thread for small inputs)."""
    parallel = thread_modes.cpu_threads_for(x.nbytes) > 1
    return _pool2d_grad(x, dout, kernel_size, strides, paddings, ceil_mode, parallel)
