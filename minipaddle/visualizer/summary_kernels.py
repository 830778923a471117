"""numba kernels behind tensor summaries: one call computes every statistic and the histogram.

numpy would need a call each for min, max, mean, std, isnan, isinf and histogram (~35 us on a
tiny tensor, mostly call overhead); the recorder summarizes every tensor an op makes, so one
compiled call (~1 us) is what keeps tracing affordable. Imported lazily by summary.py.
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


@njit(cache=True, fastmath=_REORDER)
def finite_moments(x, shift, lo, hi, stride, hist):
    """(sum of x - shift, sum of (x - shift)**2) of an all-finite array in float64, in one pass; also
    fills hist with the counts of every `stride`-th value in len(hist) even bins of [lo, hi].

    One pass instead of two (sum, then squared deviations): with `shift` inside [lo, hi] (the caller
    passes the midrange) the variance sum_sq/n - (sum/n)**2 loses at most (range/2)**2 / variance
    ulps of float64 -- far below float32 resolution for any real tensor.
    """
    total = 0.0
    squares = 0.0
    for i in range(x.size):  # vectorizes: float32 -> float64 lanes, reassociated sums
        d = x[i] - shift
        total += d
        squares += d * d
    nbins = hist.size
    for i in range(nbins):
        hist[i] = 0
    scale = nbins / (hi - lo) if hi > lo else 0.0
    for i in range(0, x.size, stride):
        b = int((x[i] - lo) * scale) if scale > 0 else nbins - 1
        if b >= nbins:
            b = nbins - 1
        hist[b] += 1
    return total, squares


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
