"""numba kernels behind tensor summaries: one call computes every statistic and the histogram.

numpy would need a call each for min, max, mean, std, isnan, isinf and histogram (~35 us on a
tiny tensor, mostly call overhead); the recorder summarizes every tensor an op makes, so one
compiled call (~1 us) is what keeps tracing affordable. Imported lazily by summary.py (also for the
saturation of activations, saturated_count; and by the optimizer for the norms it reports while
someone listens: copy_and_square_sum, diff_square_sum).
"""
from __future__ import annotations

import numpy as np
from numba import njit

BINS = 32


@njit(cache=True)
def summarize_flat(x, hist):
    """(finite, nan, inf counts, min, max, mean, std) of any 1-D float array; fills hist (BINS counts).

    min/max/mean/std and the histogram cover the finite values only; the histogram's bins split
    [min, max] evenly (all values land in the last bin when min == max).
    """
    finite = 0
    nans = 0
    posinf = 0
    neginf = 0
    lo = np.inf
    hi = -np.inf
    total = 0.0
    for i in range(x.size):
        v = x[i]
        if np.isnan(v):
            nans += 1
        elif v == np.inf:
            posinf += 1
        elif v == -np.inf:
            neginf += 1
        else:
            finite += 1
            total += v
            lo = min(lo, v)
            hi = max(hi, v)
    mean = total / finite if finite > 0 else 0.0
    squares = 0.0  # second pass around the mean: stable where sum-of-squares would cancel
    nbins = hist.size
    width = (hi - lo) / nbins
    for i in range(nbins):
        hist[i] = 0
    for i in range(x.size):
        v = x[i]
        if np.isfinite(v):
            d = v - mean
            squares += d * d
            b = int((v - lo) / width) if width > 0 else nbins - 1
            if b >= nbins:
                b = nbins - 1
            hist[b] += 1
    std = np.sqrt(squares / finite) if finite > 0 else 0.0
    return finite, nans, posinf + neginf, float(lo), float(hi), mean, std


# Only the reductions below may be reordered (SIMD): no NaN/Inf assumption, they see finite data.
_REORDER = {"reassoc", "nsz", "contract"}

# One pass for min, max and the moments of a big float array. numba does not vectorize a float
# min/max reduction (NaN semantics), but it does an integer one: a float's bits read as a signed
# integer, with the magnitude bits of negative values flipped, order as the floats do -- and every
# NaN orders beyond +-Inf, so the keys of min and max also tell whether every value is finite.
# (Integer compares, too, because numba compiles a callee with its caller's fastmath flags: a float
# isfinite() in here could be folded to True.)
_INF32 = 0x7F800000                 # the key of +Inf; -Inf's is -_INF32 - 1
_INF64 = 0x7FF0000000000000


@njit(cache=True, fastmath=_REORDER)
def big_summary32(x, stride, hist):
    """(all finite, min, max, shift, sum of x - shift, sum of (x - shift)**2) of a contiguous 1-D
    float32 array in one pass; when all are finite, also `hist` counts of every `stride`-th value over
    [min, max]. See _moments_shift for `shift`."""
    bits = x.view(np.int32)
    shift = _moments_shift(x)
    mask = np.int32(0x7FFFFFFF)
    lo = mask
    hi = np.int32(-0x80000000)
    total = 0.0
    squares = 0.0
    for i in range(x.size):
        b = bits[i]
        key = np.int32(b ^ (np.int32(b >> 31) & mask))
        lo = key if key < lo else lo
        hi = key if key > hi else hi
        d = x[i] - shift
        total += d
        squares += d * d
    finite = -_INF32 - 1 < lo and hi < _INF32
    keys = np.empty(2, np.int32)
    keys[0] = np.int32(lo ^ (np.int32(lo >> 31) & mask))
    keys[1] = np.int32(hi ^ (np.int32(hi >> 31) & mask))
    values = keys.view(np.float32)
    lo_value, hi_value = float(values[0]), float(values[1])
    if finite:
        _sample_histogram(x, lo_value, hi_value, stride, hist)
    return finite, lo_value, hi_value, shift, total, squares


@njit(cache=True, fastmath=_REORDER)
def big_summary64(x, stride, hist):
    """big_summary32 for float64."""
    bits = x.view(np.int64)
    shift = _moments_shift(x)
    mask = np.int64(0x7FFFFFFFFFFFFFFF)
    lo = mask
    hi = np.int64(-0x8000000000000000)
    total = 0.0
    squares = 0.0
    for i in range(x.size):
        b = bits[i]
        key = b ^ ((b >> 63) & mask)
        lo = key if key < lo else lo
        hi = key if key > hi else hi
        d = x[i] - shift
        total += d
        squares += d * d
    finite = -_INF64 - 1 < lo and hi < _INF64
    keys = np.empty(2, np.int64)
    keys[0] = lo ^ ((lo >> 63) & mask)
    keys[1] = hi ^ ((hi >> 63) & mask)
    values = keys.view(np.float64)
    if finite:
        _sample_histogram(x, values[0], values[1], stride, hist)
    return finite, values[0], values[1], shift, total, squares


@njit(cache=True, fastmath=_REORDER)
def _moments_shift(x):
    """The mean of 64 evenly spread values: the moments are summed around it, so that the variance
    sum_sq/n - (sum/n)**2 cancels no digits that matter (the loss is about (mean - shift)**2 / variance
    ulps of float64)."""
    n = x.size
    step = max(1, n // 64)
    total = 0.0
    count = 0
    for i in range(0, n, step):
        total += x[i]
        count += 1
    return total / count


@njit(cache=True, fastmath=_REORDER)
def moments(x, shift):
    """(sum of x - shift, sum of (x - shift)**2) of an all-finite 1-D array, in float64."""
    total = 0.0
    squares = 0.0
    for i in range(x.size):
        d = x[i] - shift
        total += d
        squares += d * d
    return total, squares


@njit(cache=True)
def _sample_histogram(x, lo, hi, stride, hist):
    """Counts of every `stride`-th value of an all-finite array in len(hist) even bins of [lo, hi]."""
    nbins = hist.size
    for i in range(nbins):
        hist[i] = 0
    scale = nbins / (hi - lo) if hi > lo else 0.0
    for i in range(0, x.size, stride):
        b = int((x[i] - lo) * scale) if scale > 0 else nbins - 1
        if b >= nbins:
            b = nbins - 1
        hist[b] += 1


@njit(cache=True)
def same_bits(a, b):
    """Whether two equally long unsigned-integer views hold the same bits (NaN payloads included).

    No early exit: the OR of all differences vectorizes (~22 us for 200k float32 pairs), a loop that
    stops at the first difference does not (~150 us).
    """
    diff = 0
    for i in range(a.size):
        diff |= a[i] ^ b[i]
    return diff == 0


# ---- the health view's saturation (summary.saturation) ----

@njit(cache=True)
def saturated_count(x, stride, lo, hi):
    """How many of every stride-th value of 1-D `x` lie outside [lo, hi] (tanh: |y| > 0.97 is
    lo=-0.97, hi=0.97) -- or, when lo == hi, equal lo (relu's dead units: lo = hi = 0)."""
    count = 0
    if lo == hi:
        for i in range(0, x.size, stride):
            if x[i] == lo:
                count += 1
    else:
        for i in range(0, x.size, stride):
            v = x[i]
            if v < lo or v > hi:
                count += 1
    return count


# ---- the optimizer's update report (Optimizer._emit_update, while an instrument subscriber listens) ----

@njit(cache=True, fastmath=_REORDER)
def copy_and_square_sum(src, dst, g):
    """Copy 1-D `src` into `dst` (a parameter before its update) and return the sum of g**2 (its
    gradient), in float64: both in one call, each a vectorized pass."""
    for i in range(src.size):
        dst[i] = src[i]
    total = 0.0
    for i in range(g.size):
        total += g[i] * g[i]
    return total


@njit(cache=True, fastmath=_REORDER)
def diff_square_sum(a, b):
    """The sum of (a - b)**2 of two 1-D arrays, in float64 (the squared norm of an update)."""
    total = 0.0
    for i in range(a.size):
        d = a[i] - b[i]
        total += d * d
    return total

