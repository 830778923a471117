"""numba CPU kernel for the fused softmax cross-entropy with hard labels.

For each row r of a C-contiguous (rows, classes) block of logits x, with label k = label[r]:

    shifted[r] = x[r] - max(x[r])                         never overflows in exp
    softmax[r] = exp(shifted[r]) / sum(exp(shifted[r]))
    loss[r]    = log(sum(exp(shifted[r]))) - shifted[r, k]   (= -log(softmax[r, k]))

in three sweeps over one buffer: a numba pass (row max, shift, pick shifted[r, k], check the
label), numpy's exp in place (SIMD: about twice as fast as a compiled scalar exp loop), and a
numba pass (row sums, normalize, loss). numpy alone needs ~8 whole-array calls and as many
temporaries. Measured, float32: 128x10 (the MLP's logits) 5.7 us vs 8.4 us for one fused numba
loop with scalar exp and 27 us for plain numpy; 128x1000 0.35 ms vs 0.41 ms and 0.34 ms.

The op (framework/ops/loss.py) moves the class axis last, applies the reduction and turns a bad
label, found here for free while reading each label, into the op's error message.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ...ops.loss import OP, as_rows, bad_label_error, finish


@njit(cache=True, error_model="numpy")  # 0/0 gives nan (a row of -inf), as numpy does
def shift_rows(x, label, ignore_index, shifted, picked):
    """shifted[r] = x[r] - max(x[r]); picked[r] = shifted[r, label[r]] (0 for an ignored row).

    Returns (the first row whose label is out of range, or -1; the number of rows not ignored).
    """
    rows, n = x.shape
    valid = 0
    for r in range(rows):
        xr = x[r]
        m = xr[0]  # stays in x's dtype: float32 rows are computed in float32
        for j in range(1, n):
            if xr[j] > m:
                m = xr[j]
        if not np.isfinite(m):  # a row of -inf (or with an inf): shift by 0, as softmax does
            m = xr.dtype.type(0)
        for j in range(n):
            shifted[r, j] = xr[j] - m
        k = label[r]
        if k == ignore_index:
            picked[r] = 0
        elif k < 0 or k >= n:
            return r, valid
        else:
            picked[r] = shifted[r, k]
            valid += 1
    return -1, valid


@njit(cache=True, error_model="numpy")  # 0/0 gives nan (a row of -inf), as numpy does
def normalize_rows(e, label, ignore_index, loss):
    """e[r] /= sum(e[r]) (e holds exp(shifted)); loss[r] = log(sum) - loss[r] (loss holds picked)."""
    rows, n = e.shape
    for r in range(rows):
        er = e[r]
        total = er.dtype.type(0)
        for j in range(n):
            total += er[j]
        inv = 1 / total
        for j in range(n):
            er[j] *= inv
        if label[r] != ignore_index:
            loss[r] = np.log(total) - loss[r]


def cross_entropy_numba(logits, label, ignore_index=-100, axis=-1, reduction="mean"):
    """The registered kernel: logits and labels in; softmax and the reduced loss out."""
    axis %= logits.ndim
    x2, lab, moved_shape = as_rows(logits, label, axis)
    softmax2 = np.empty_like(x2)
    loss = np.empty(x2.shape[0], x2.dtype)
    bad, valid = shift_rows(x2, lab, ignore_index, softmax2, loss)
    if bad >= 0:
        raise bad_label_error(OP, int(lab[bad]), x2.shape[1], ignore_index)
    np.exp(softmax2, out=softmax2)
    normalize_rows(softmax2, lab, ignore_index, loss)
    return finish(logits, label, softmax2, loss, valid, moved_shape, axis, ignore_index, reduction)
