"""A blocked (tiled) matrix multiply in numba: the readable alternative to BLAS.

    out[b, i, j] = sum_p a[b, i, p] * b[b, p, j]

A naive triple loop walks down a column of `b` for every output element and misses the
cache on nearly every step. Here the loops are ordered i -> p -> j, so the innermost loop
adds `a[i, p] * b[p, :]` onto the row `out[i, :]`: both rows are contiguous memory, which
LLVM turns into SIMD code. The `p` dimension is cut into TILE-sized blocks so that the
TILE rows of `b` one block touches stay in cache while every row `i` of a TILE-row block
of `out` sweeps over them.

The loop runs on one thread. A `prange` version (one job per batch entry and block of TILE
rows) was up to 2x faster on an idle 2-core machine, but numba's OpenMP threads and OpenBLAS's
threads spin-wait for work after each call and fight over the same two cores: measured with
OMP_NUM_THREADS=2 while another process kept one core busy, the prange loop took 7.2 ms for a
64x64 product (serial: 33 us), 7.6 ms for 128x784 @ 784x256 (serial: 1.9 ms), 7.7 ms for
256x256x256 (serial: 1.2 ms), 8.0 ms for 16 x 128x128 (serial: 0.41 ms), and a BLAS call right
after it took 32 ms instead of 0.5 ms. A candidate that stalls the next BLAS call is not one the
autotuner can time honestly (it times each op alone), so this one stays serial. BLAS stays the
default kernel (several times faster); this one is here to read, to compare, and for the
autotuner to time.

`matmul_numba` is the kernel the registry calls (framework/ops/linalg.py registers it
beside numpy's BLAS matmul): it applies Paddle's transpose flags, promotes 1-D operands,
broadcasts the batch dims and hands `matmul_blocked` C-contiguous 3-D arrays.
"""
from __future__ import annotations

import numpy as np
from numba import njit

TILE = 64  # 64 rows of b (64 x n floats) stay in L2 while a block of out's rows reads them


@njit(cache=True, nogil=True)
def matmul_blocked(a, b, out):
    """out += a @ b for C-contiguous (batch, m, k) @ (batch, k, n) -> (batch, m, n)."""
    batch, m, k = a.shape
    n = b.shape[2]
    row_blocks = (m + TILE - 1) // TILE
    for job in range(batch * row_blocks):  # one job: one batch entry, TILE rows of out
        bi = job // row_blocks
        i0 = (job % row_blocks) * TILE
        i1 = min(i0 + TILE, m)
        a_b, b_b, out_b = a[bi], b[bi], out[bi]
        for p0 in range(0, k, TILE):
            p1 = min(p0 + TILE, k)
            for i in range(i0, i1):
                out_row = out_b[i]
                for p in range(p0, p1):
                    a_ip = a_b[i, p]
                    b_row = b_b[p]
                    for j in range(n):  # contiguous in b and out: vectorized
                        out_row[j] += a_ip * b_row[j]


def matmul_numba(x: np.ndarray, y: np.ndarray, transpose_x: bool = False,
                 transpose_y: bool = False) -> np.ndarray:
    """Paddle's matmul semantics on top of `matmul_blocked`."""
    x_vector, y_vector = x.ndim == 1, y.ndim == 1
    a = x[None, :] if x_vector else (np.swapaxes(x, -1, -2) if transpose_x else x)
    b = y[:, None] if y_vector else (np.swapaxes(y, -1, -2) if transpose_y else y)
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    m, k = a.shape[-2:]
    n = b.shape[-1]
    size = int(np.prod(batch, dtype=np.int64))
    a3 = np.ascontiguousarray(np.broadcast_to(a, batch + (m, k))).reshape(size, m, k)
    b3 = np.ascontiguousarray(np.broadcast_to(b, batch + (k, n))).reshape(size, k, n)
    out = np.zeros((size, m, n), dtype=np.result_type(x, y))
    if out.size and k:
        matmul_blocked(a3, b3, out)
    # drop the 1s that the 1-D promotion added (a reshape: C-contiguous stays C-contiguous)
    return out.reshape(batch + (() if x_vector else (m,)) + (() if y_vector else (n,)))
