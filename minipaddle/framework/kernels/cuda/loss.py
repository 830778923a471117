"""The fused softmax cross-entropy with hard labels on the GPU (cross_entropy_with_softmax), and its gradient.

Forward, one thread per row r of the (rows, classes) logits, label k = label[r] -- the CPU's
kernels/cpu/loss.py row by row:

    shifted    = x[r] - max(x[r])                       (shift by 0 when the max is not finite)
    softmax[r] = exp(shifted) / sum(exp(shifted))
    loss[r]    = log(sum(exp(shifted))) - shifted[k]    (0 on a row whose label is ignore_index)

A label outside [0, classes) that is not ignore_index is noted (the first such row, by
`cuda.atomic.min`), as is the count of rows not ignored; those two numbers come to the host, where the
bad label becomes the op's error and the count the "mean" divisor. The reduction sums the row losses
in float64, as the CPU does.

Backward, one thread per element: grad[r, j] = (softmax[r, j] - (j == k)) * dloss / divisor, 0 on
ignored rows. The class axis is moved last (a transpose copy) when it is not already.
"""
from __future__ import annotations

import math

import numpy as np
from numba import cuda

from ...ops.loss import OP, bad_label_error, mean_divisor
from . import elementwise as E
from . import reduction as R
from .launch import THREADS, blocks_for, flat, launch
from .manipulation import transpose
from .strided import full, reshaped

F64 = np.dtype("float64")


# ---- the kernels -----------------------------------------------------------------------------------
@cuda.jit(cache=True)
def _softmax_cross_entropy_rows(x, label, ignore_index, softmax, loss, found, rows, n, zero, one, minus_inf):
    # found[0]: the first row with a bad label (rows when none); found[1]: the rows not ignored
    for r in range(cuda.grid(1), rows, cuda.gridsize(1)):
        start = r * n
        m = x[start]
        for j in range(1, n):
            if x[start + j] > m:
                m = x[start + j]
        if math.isinf(m) or math.isnan(m):  # a row of -inf (or with an inf): shift by 0, as softmax does
            m = zero
        total = zero
        for j in range(n):
            e = math.exp(x[start + j] - m)
            softmax[start + j] = e
            total += e
        inv = one / total
        for j in range(n):
            softmax[start + j] *= inv
        k = label[r]
        loss[r] = zero
        if k != ignore_index:
            if k < 0 or k >= n:
                cuda.atomic.min(found, 0, r)
            else:
                log_total = math.log(total) if total > zero else minus_inf  # (the simulator's log(0) raises)
                loss[r] = log_total - (x[start + k] - m)
                cuda.atomic.add(found, 1, 1)


@cuda.jit(cache=True)
def _softmax_cross_entropy_grad(softmax, label, ignore_index, dloss, per_row, divisor, grad, n):
    for i in range(cuda.grid(1), grad.size, cuda.gridsize(1)):
        r = i // n
        k = label[r]
        if k == ignore_index:
            grad[i] = 0
            continue
        c = (dloss[r] if per_row else dloss[0]) / divisor
        g = softmax[i] * c
        if i - r * n == k:
            g -= c
        grad[i] = g


# ---- the class axis last, and back -----------------------------------------------------------------
def _last_perm(ndim: int, axis: int) -> tuple:
    """The permutation moving `axis` last (numpy.moveaxis(a, axis, -1))."""
    return tuple(d for d in range(ndim) if d != axis) + (axis,)


def _as_rows(x, label, axis: int):
    """(rows, classes) logits with the class axis last, the labels as (rows,) int32/int64, and the moved shape."""
    shape = tuple(x.shape)
    moved = x if axis == len(shape) - 1 else transpose(x, _last_perm(len(shape), axis))
    lab = reshaped(label, (int(label.size),))
    if np.dtype(lab.dtype) not in (np.dtype("int32"), np.dtype("int64")):
        lab = E.cast(lab, np.dtype("int64"))
    return reshaped(moved, (int(label.size), shape[axis])), lab, tuple(moved.shape)


def _moved_back(a, moved_shape: tuple, axis: int):
    a = reshaped(a, moved_shape)
    if axis == len(moved_shape) - 1:
        return a
    perm = _last_perm(len(moved_shape), axis)
    return transpose(a, tuple(int(np.argsort(perm)[d]) for d in range(len(perm))))


def _reduced(loss, valid: int, ignore_index: int, reduction: str, dtype):
    """The row losses summed in float64 and divided as the CPU's "mean"/"sum" do, in the logits' dtype."""
    total = R.sum(E.cast(loss, F64), None, False)
    if reduction == "mean":
        divisor = mean_divisor(valid, int(loss.size), ignore_index)
        total = E.divide(total, full((), divisor if divisor else np.nan, F64))  # no rows at all: nan
    return E.cast(total, dtype)


# ---- the kernels the registry calls (attrs as in framework/ops/loss.py) ------------------------------
def cross_entropy_with_softmax(logits, label, ignore_index=-100, axis=-1, reduction="mean"):
    """(softmax, loss) of logits against hard int labels, reduced by `reduction`."""
    axis %= len(logits.shape)
    x2, lab, moved_shape = _as_rows(logits, label, axis)
    rows, n = (int(s) for s in x2.shape)
    dtype = np.dtype(logits.dtype)
    softmax2 = cuda.device_array((rows, n), dtype)
    loss = cuda.device_array(rows, dtype)
    found = cuda.to_device(np.array([rows, 0], np.int64))
    if rows and n:
        launch(_softmax_cross_entropy_rows, blocks_for(rows), THREADS, flat(x2, x2.size), lab, int(ignore_index),
               flat(softmax2, softmax2.size), loss, found, rows, n, dtype.type(0), dtype.type(1), dtype.type(-np.inf))
    bad, valid = (int(v) for v in found.copy_to_host())
    if bad < rows:
        raise bad_label_error(OP, int(lab[bad:bad + 1].copy_to_host()[0]), n, ignore_index)
    softmax = _moved_back(softmax2, moved_shape, axis)
    if reduction == "none":
        return softmax, reshaped(loss, tuple(label.shape))
    return softmax, _reduced(loss, valid, int(ignore_index), reduction, dtype)


def cross_entropy_with_softmax_grad(softmax, label, dloss, ignore_index=-100, axis=-1, reduction="mean"):
    """dlogits = (softmax - one_hot(label)) * dloss / divisor (the "mean" divisor, else 1); 0 on ignored rows."""
    axis %= len(softmax.shape)
    s2, lab, moved_shape = _as_rows(softmax, label, axis)
    rows, n = (int(s) for s in s2.shape)
    divisor = 1
    if reduction == "mean":
        valid = rows
        if ignore_index >= 0:
            ignored = R.sum(E.equal(lab, full((), ignore_index, lab.dtype)), None, False)
            valid = rows - int(ignored.copy_to_host())
        divisor = max(mean_divisor(valid, rows, ignore_index), 1)
    grad = cuda.device_array((rows, n), softmax.dtype)
    if grad.size:
        launch(_softmax_cross_entropy_grad, blocks_for(grad.size), THREADS, flat(s2, s2.size), lab,
               int(ignore_index), reshaped(dloss, (int(dloss.size),)), reduction == "none", float(divisor),
               flat(grad, grad.size), n)
    return _moved_back(grad, moved_shape, axis)
