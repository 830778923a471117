"""numba CPU kernels for the fused softmax cross-entropy with hard labels, and its gradient.

Forward, for each row r of a C-contiguous (rows, classes) block of logits x, label k = label[r]:

    shifted[r] = x[r] - max(x[r])                         never overflows in exp
    softmax[r] = exp(shifted[r]) / sum(exp(shifted[r]))
    loss[r]    = log(sum(exp(shifted[r]))) - shifted[r, k]   (= -log(softmax[r, k]))

in three sweeps over one buffer: a numba pass (row max, shift, pick shifted[r, k], check the
label), numpy's exp in place (SIMD: about twice as fast as a compiled scalar exp loop), and a
numba pass (row sums, normalize, loss and its total). numpy alone needs ~8 whole-array calls and
as many temporaries. Measured, float32: 128x10 (the MLP's logits) 5.7 us vs 8.4 us for one fused
numba loop with scalar exp and 27 us for plain numpy; 128x1000 0.35 ms vs 0.41 ms and 0.34 ms.

Backward, one pass: grad[r] = (softmax[r] - one_hot(k)) * dloss / divisor (3.6 us for 128x10).

The op (framework/ops/loss.py) moves the class axis last, applies the reduction and turns a bad
label, found here for free while reading each label, into the op's error message.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ...ops.loss import OP, as_rows, bad_label_error, finish, grad_divisor


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
    """e[r] /= sum(e[r]) (e holds exp(shifted)); loss[r] = log(sum) - loss[r] (loss holds picked).

    Returns the sum of the losses (accumulated in float64), so "mean" and "sum" need no extra pass."""
    rows, n = e.shape
    loss_sum = 0.0
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
            loss_sum += loss[r]
    return loss_sum


@njit(cache=True, error_model="numpy")
def grad_rows(softmax, label, ignore_index, dloss, per_row, divisor, grad):
    """grad[r] = (softmax[r] - one_hot(label[r])) * dloss[r or 0] / divisor; 0 on ignored rows.

    dloss holds one value per row (per_row: reduction "none") or a single one ("mean", "sum")."""
    rows, n = softmax.shape
    for r in range(rows):
        k = label[r]
        if k == ignore_index:
            for j in range(n):
                grad[r, j] = 0
            continue
        c = (dloss[r] if per_row else dloss[0]) / divisor
        for j in range(n):
            grad[r, j] = softmax[r, j] * c
        grad[r, k] -= c


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
    loss_sum = normalize_rows(softmax2, lab, ignore_index, loss)
    return finish(logits, label, softmax2, loss, valid, moved_shape, axis, ignore_index, reduction, loss_sum)


def cross_entropy_grad_numba(softmax, label, dloss, ignore_index=-100, axis=-1, reduction="mean"):
    """The registered grad kernel: one pass writing (softmax - one_hot) * dloss / divisor."""
    axis %= softmax.ndim
    s2, lab, moved_shape = as_rows(softmax, label, axis)
    grad = np.empty_like(s2)
    grad_rows(s2, lab, ignore_index, dloss.reshape(-1), reduction == "none",
              grad_divisor(lab, ignore_index, reduction), grad)
    grad = grad.reshape(moved_shape)
    return grad if axis == softmax.ndim - 1 else np.ascontiguousarray(np.moveaxis(grad, -1, axis))
