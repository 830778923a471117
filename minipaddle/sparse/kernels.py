"""The CSR x dense product as a numba loop (the kernel of the `sparse_csr_dense_matmul` op).

    out[i, :] = sum over k in crows[i]:crows[i+1] of values[k] * dense[cols[k], :]

Row i of the result is a weighted sum of the dense rows its stored entries point at. The inner loop
adds one contiguous dense row onto one contiguous output row, which LLVM vectorizes; the work is
nnz * n multiply-adds, against rows * k * n for the dense product. It runs on one thread, like
framework/kernels/cpu/matmul.py and for the same reason (numba's threads and OpenBLAS's fight over
the cores). numba compiles it on the first sparse matmul (the op registers it as a LazyKernel) and
caches the machine code on disk.
"""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def csr_dense_matmul_loop(crows, cols, values, dense, out):
    """out += csr(crows, cols, values) @ dense, for C-contiguous dense [k, n] and out [rows, n]."""
    n = out.shape[1]
    for i in range(out.shape[0]):
        for k in range(crows[i], crows[i + 1]):
            weight = values[k]
            source = cols[k]
            for j in range(n):
                out[i, j] += weight * dense[source, j]


def csr_dense_matmul(crows, cols, values, dense, n_rows=0):
    """[n_rows, k] (CSR arrays) @ dense [k, n] -> dense [n_rows, n]."""
    out = np.zeros((n_rows, dense.shape[1]), dtype=values.dtype)
    csr_dense_matmul_loop(crows, cols, values, np.ascontiguousarray(dense), out)
    return out
