"""numba CPU kernels for softmax and log_softmax: one pass over each row of the last axis.

The wrappers move the softmax axis to the end and make the data one C-contiguous
(rows, n) block, so the compiled loops always walk memory in order. numpy's kernels
(framework/ops/reduction.py) stay the default; these are here to read, compare and autotune.
"""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _row_shift(x, r):
    """The row's max, subtracted before exp so it never overflows. A +inf max is subtracted too, so the
    row comes out NaN (inf - inf), as in Paddle and PyTorch; a -inf max (a row of only -inf) is not."""
    m = -np.inf
    for j in range(x.shape[1]):
        m = max(m, x[r, j])
    return m if m != -np.inf else 0.0


@njit(cache=True, error_model="numpy")  # numpy's float rules: a row of only -inf is 0 / 0 = NaN, not an error
def softmax_rows(x, out):
    """out[r] = exp(x[r] - max(x[r])) / sum(...) for each row r of a (rows, n) array."""
    rows, n = x.shape
    for r in range(rows):
        m = _row_shift(x, r)
        total = 0.0
        for j in range(n):
            e = np.exp(x[r, j] - m)
            out[r, j] = e
            total += e
        for j in range(n):
            out[r, j] /= total


@njit(cache=True)
def log_softmax_rows(x, out):
    """out[r] = x[r] - max - log(sum(exp(x[r] - max))) for each row r of a (rows, n) array."""
    rows, n = x.shape
    for r in range(rows):
        m = _row_shift(x, r)
        total = 0.0
        for j in range(n):
            total += np.exp(x[r, j] - m)
        log_total = np.log(total)
        for j in range(n):
            out[r, j] = x[r, j] - m - log_total


def _along_rows(row_kernel, x: np.ndarray, axis: int) -> np.ndarray:
    if x.ndim == 0 or x.size == 0:
        rows = np.ascontiguousarray(x.reshape(1, -1) if x.ndim == 0 else x)
        out = np.empty_like(rows)
        if x.size:
            row_kernel(rows, out)
        return out.reshape(x.shape)
    moved = np.ascontiguousarray(np.moveaxis(x, axis, -1))
    rows = moved.reshape(-1, moved.shape[-1])
    out = np.empty_like(rows)
    row_kernel(rows, out)
    return np.ascontiguousarray(np.moveaxis(out.reshape(moved.shape), -1, axis))


def softmax_numba(x: np.ndarray, axis: int = -1) -> np.ndarray:
    return _along_rows(softmax_rows, x, axis)


def log_softmax_numba(x: np.ndarray, axis: int = -1) -> np.ndarray:
    return _along_rows(log_softmax_rows, x, axis)
