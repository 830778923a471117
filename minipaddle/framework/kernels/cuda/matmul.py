"""Matrix multiply on an NVIDIA GPU in numba.cuda: four kernels, each one step faster than the last.

    out[z, i, j] = sum_p A[z, i, p] * B[z, p, j]

All four are registered as candidates for the same op (framework/kernels/cuda_registry.py), so the
autotuner times them side by side and a learner can read the progression in order:

(a) `matmul_naive_kernel`    one thread per output element; every operand read comes from global memory.
(b) `matmul_tiled_kernel`    a 16x16 block of threads stages 16x16 tiles of A and B in shared memory:
                             each element fetched from global memory is used 16 times.
(c) `matmul_regblock_kernel` each thread computes an 8x8 block of outputs in registers from a 128x8
                             tile of A and an 8x128 tile of B: 8+8 shared-memory reads feed 64 FMAs.
(d) `matmul_bankfree_kernel` (c) with the shared tiles laid out so no warp hits a shared-memory bank
                             twice: A's tile is stored transposed and padded, and each thread owns
                             columns 16 apart instead of 8 neighbouring ones.

Why not float4 loads ("vectorized" kernels in CUDA C)? numba has no way to reinterpret a float32
array as float4, so every load is a scalar one; in (d) a thread's eight reads of A's tile are
contiguous and 16-byte aligned, which lets the compiler merge them into wider shared loads itself.

Paddle's semantics (transpose flags, 1-D operands, broadcast batch dims) live in the Python wrappers
at the bottom: they view every operand as a 3-D (batch, rows, cols) array and hand each kernel two
small index arrays that say which batch entry of x and of y output entry z reads. A transpose flag
is passed to the kernel, whose loaders then read the operand in its stored order (coalesced) and
write it into the tile the other way round.

The tiled kernels (b-d) use float32 tiles and serve float32; the naive kernel serves float16 (it
accumulates in float32), float32 and float64.
"""
from __future__ import annotations

import functools

import numpy as np
from numba import cuda, float32

MAX_GRID_Z = 65535  # CUDA's limit on gridDim.z: a larger batch loops (each block handles z, z + 65535, ...)


# ---- (a) naive: one thread, one output ---------------------------------------------------
NAIVE_BLOCK = 16  # 16x16 = 256 threads per block


@cuda.jit(cache=True)
def matmul_naive_kernel(a, b, out, a_batch, b_batch, trans_a, trans_b):
    """Thread (i, j) walks row i of A and column j of B: 2k global reads for k multiply-adds."""
    # x is the fast-moving thread index: neighbouring threads of a warp take neighbouring columns j,
    # so their reads of B[p, j] and writes of out[i, j] hit consecutive addresses (coalesced).
    j = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    i = cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.y
    m, n = out.shape[1], out.shape[2]
    k = a.shape[1] if trans_a else a.shape[2]
    if i >= m or j >= n:
        return
    for z in range(cuda.blockIdx.z, out.shape[0], cuda.gridDim.z):
        az, bz = a_batch[z], b_batch[z]
        acc = float32(0.0)  # float16 accumulates in float32; float64 widens acc to float64
        for p in range(k):
            x = a[az, p, i] if trans_a else a[az, i, p]
            y = b[bz, j, p] if trans_b else b[bz, p, j]
            acc += x * y
        out[z, i, j] = acc


# ---- (b) tiled: shared-memory tiles, each global read used TILE times ----------------------
TILE = 16  # the block is TILE x TILE threads; the tiles are TILE x TILE floats


@cuda.jit(cache=True)
def matmul_tiled_kernel(a, b, out, a_batch, b_batch, trans_a, trans_b):
    """Block (by, bx) computes out[by*16:(by+1)*16, bx*16:(bx+1)*16], thread (ty, tx) one element of it."""
    # +1 column of padding: a transposed loader writes a tile column by column, and without it the
    # 16 writes of a half-warp would land in the same shared-memory bank.
    a_tile = cuda.shared.array((TILE, TILE + 1), float32)  # a_tile[r, c] = A[i0 + r, p0 + c]
    b_tile = cuda.shared.array((TILE, TILE + 1), float32)  # b_tile[r, c] = B[p0 + r, j0 + c]
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    i0 = cuda.blockIdx.y * TILE
    j0 = cuda.blockIdx.x * TILE
    m, n = out.shape[1], out.shape[2]
    k = a.shape[1] if trans_a else a.shape[2]
    for z in range(cuda.blockIdx.z, out.shape[0], cuda.gridDim.z):
        az, bz = a_batch[z], b_batch[z]
        acc = float32(0.0)
        for p0 in range(0, k, TILE):
            # Each thread loads one element of each tile. Consecutive tx read consecutive addresses:
            # A stored (m, k): thread (ty, tx) loads A[i0+ty, p0+tx] into a_tile[ty, tx];
            # A stored transposed (k, m): it loads A[i0+tx, p0+ty] (= a[p0+ty, i0+tx]) into a_tile[tx, ty].
            # Out-of-range elements (the ragged last tiles) are loaded as 0 and add nothing.
            if trans_a:
                r, c = tx, ty
                a_tile[r, c] = a[az, p0 + c, i0 + r] if i0 + r < m and p0 + c < k else 0.0
            else:
                r, c = ty, tx
                a_tile[r, c] = a[az, i0 + r, p0 + c] if i0 + r < m and p0 + c < k else 0.0
            # B stored (k, n): thread (ty, tx) loads B[p0+ty, j0+tx] into b_tile[ty, tx];
            # B stored transposed (n, k): it loads B[p0+tx, j0+ty] (= b[j0+ty, p0+tx]) into b_tile[tx, ty].
            if trans_b:
                r, c = tx, ty
                b_tile[r, c] = b[bz, j0 + c, p0 + r] if p0 + r < k and j0 + c < n else 0.0
            else:
                r, c = ty, tx
                b_tile[r, c] = b[bz, p0 + r, j0 + c] if p0 + r < k and j0 + c < n else 0.0
            cuda.syncthreads()  # the whole tile is loaded before anyone reads it
            for q in range(TILE):
                acc += a_tile[ty, q] * b_tile[q, tx]
            cuda.syncthreads()  # everyone is done reading before the next tile overwrites it
        if i0 + ty < m and j0 + tx < n:
            out[z, i0 + ty, j0 + tx] = acc


# ---- (c) register blocking: each thread an 8x8 block of outputs ----------------------------
BM = 128  # rows of out per block
BN = 128  # columns of out per block
BK = 8    # depth of one pair of tiles
TM = 8    # rows of out per thread
TN = 8    # columns of out per thread
THREADS = (BM // TM) * (BN // TN)  # 256 threads, a 16 x 16 grid of thread blocks-of-outputs
LOADS_A = BM * BK // THREADS       # 4 elements of A's tile per thread per step
LOADS_B = BK * BN // THREADS       # 4 elements of B's tile per thread per step


@cuda.jit(cache=True)
def matmul_regblock_kernel(a, b, out, a_batch, b_batch, trans_a, trans_b):
    """Block (by, bx) computes a 128x128 tile of out; thread (ty, tx) its 8x8 sub-block
    out[i0 + ty*8 + r, j0 + tx*8 + c], accumulated in 64 registers."""
    a_tile = cuda.shared.array((BM, BK), float32)  # a_tile[r, c] = A[i0 + r, p0 + c]
    b_tile = cuda.shared.array((BK, BN), float32)  # b_tile[r, c] = B[p0 + r, j0 + c]
    acc = cuda.local.array((TM, TN), float32)      # fully unrolled loops keep these in registers
    reg_a = cuda.local.array(TM, float32)
    reg_b = cuda.local.array(TN, float32)
    tid = cuda.threadIdx.x
    tx = tid % (BN // TN)
    ty = tid // (BN // TN)
    i0 = cuda.blockIdx.y * BM
    j0 = cuda.blockIdx.x * BN
    m, n = out.shape[1], out.shape[2]
    k = a.shape[1] if trans_a else a.shape[2]
    for z in range(cuda.blockIdx.z, out.shape[0], cuda.gridDim.z):
        az, bz = a_batch[z], b_batch[z]
        for r in range(TM):
            for c in range(TN):
                acc[r, c] = 0.0
        for p0 in range(0, k, BK):
            # Load the 128x8 tile of A: element e = tid + s*256 of the tile, numbered in A's stored
            # order so that neighbouring threads read neighbouring addresses.
            for s in range(LOADS_A):
                e = tid + s * THREADS
                if trans_a:                 # stored (k, m): e runs along i
                    r, c = e % BM, e // BM
                    a_tile[r, c] = a[az, p0 + c, i0 + r] if i0 + r < m and p0 + c < k else 0.0
                else:                       # stored (m, k): e runs along p, 8 threads per row
                    r, c = e // BK, e % BK
                    a_tile[r, c] = a[az, i0 + r, p0 + c] if i0 + r < m and p0 + c < k else 0.0
            # Load the 8x128 tile of B the same way.
            for s in range(LOADS_B):
                e = tid + s * THREADS
                if trans_b:                 # stored (n, k): e runs along p
                    r, c = e % BK, e // BK
                    b_tile[r, c] = b[bz, j0 + c, p0 + r] if p0 + r < k and j0 + c < n else 0.0
                else:                       # stored (k, n): e runs along j
                    r, c = e // BN, e % BN
                    b_tile[r, c] = b[bz, p0 + r, j0 + c] if p0 + r < k and j0 + c < n else 0.0
            cuda.syncthreads()
            # For each of the 8 depths: 8 values of A's column and 8 of B's row into registers,
            # then their outer product (64 FMAs) onto the accumulators.
            for q in range(BK):
                for r in range(TM):
                    reg_a[r] = a_tile[ty * TM + r, q]
                for c in range(TN):
                    reg_b[c] = b_tile[q, tx * TN + c]   # threads tx and tx+4 share a bank: 4-way conflict
                for r in range(TM):
                    for c in range(TN):
                        acc[r, c] += reg_a[r] * reg_b[c]
            cuda.syncthreads()
        for r in range(TM):
            i = i0 + ty * TM + r
            for c in range(TN):
                j = j0 + tx * TN + c
                if i < m and j < n:
                    out[z, i, j] = acc[r, c]


# ---- (d) bank-conflict-free register blocking ---------------------------------------------
# Shared memory has 32 banks, 4 bytes wide: word w lives in bank w % 32. A warp's reads of
# different words in one bank are served one after the other.
# - (c) reads b_tile[q, tx*8 + c]: threads tx and tx+4 are 32 words apart, same bank. Here a
#   thread owns the columns tx + 16*c instead: a warp's 16 tx read 16 neighbouring words.
# - (c) reads a_tile[ty*8 + r, q]: the warp's two ty are 64 words apart, same bank. Here A's tile
#   is stored transposed, a_tile_t[q, r], so the 8 values a thread reads are contiguous; a padding
#   of 4 words per row makes the loaders' transposing writes hit 32 different banks.
A_PAD = 4


@cuda.jit(cache=True)
def matmul_bankfree_kernel(a, b, out, a_batch, b_batch, trans_a, trans_b):
    """Block (by, bx) computes a 128x128 tile of out; thread (ty, tx) computes
    out[i0 + ty*8 + r, j0 + tx + 16*c] for r, c in 0..7."""
    a_tile_t = cuda.shared.array((BK, BM + A_PAD), float32)  # a_tile_t[c, r] = A[i0 + r, p0 + c]
    b_tile = cuda.shared.array((BK, BN), float32)            # b_tile[r, c] = B[p0 + r, j0 + c]
    acc = cuda.local.array((TM, TN), float32)
    reg_a = cuda.local.array(TM, float32)
    reg_b = cuda.local.array(TN, float32)
    tid = cuda.threadIdx.x
    tx = tid % (BN // TN)
    ty = tid // (BN // TN)
    i0 = cuda.blockIdx.y * BM
    j0 = cuda.blockIdx.x * BN
    m, n = out.shape[1], out.shape[2]
    k = a.shape[1] if trans_a else a.shape[2]
    for z in range(cuda.blockIdx.z, out.shape[0], cuda.gridDim.z):
        az, bz = a_batch[z], b_batch[z]
        for r in range(TM):
            for c in range(TN):
                acc[r, c] = 0.0
        for p0 in range(0, k, BK):
            # A's tile, as in (c), but written transposed: word c*(BM+4) + r. A warp of the untransposed
            # loader covers r = 4 rows x c = 8 depths, banks (4c + r) % 32: all 32 different.
            for s in range(LOADS_A):
                e = tid + s * THREADS
                if trans_a:
                    r, c = e % BM, e // BM
                    a_tile_t[c, r] = a[az, p0 + c, i0 + r] if i0 + r < m and p0 + c < k else 0.0
                else:
                    r, c = e // BK, e % BK
                    a_tile_t[c, r] = a[az, i0 + r, p0 + c] if i0 + r < m and p0 + c < k else 0.0
            for s in range(LOADS_B):
                e = tid + s * THREADS
                if trans_b:
                    r, c = e % BK, e // BK
                    b_tile[r, c] = b[bz, j0 + c, p0 + r] if p0 + r < k and j0 + c < n else 0.0
                else:
                    r, c = e // BN, e % BN
                    b_tile[r, c] = b[bz, p0 + r, j0 + c] if p0 + r < k and j0 + c < n else 0.0
            cuda.syncthreads()
            for q in range(BK):
                for r in range(TM):
                    reg_a[r] = a_tile_t[q, ty * TM + r]        # 8 contiguous words, the same for 16 threads
                for c in range(TN):
                    reg_b[c] = b_tile[q, tx + c * (BN // TN)]  # 16 threads, 16 neighbouring words
                for r in range(TM):
                    for c in range(TN):
                        acc[r, c] += reg_a[r] * reg_b[c]
            cuda.syncthreads()
        for r in range(TM):
            i = i0 + ty * TM + r
            for c in range(TN):
                j = j0 + tx + c * (BN // TN)   # 16 threads write 16 neighbouring columns: coalesced
                if i < m and j < n:
                    out[z, i, j] = acc[r, c]


# ---- Paddle's matmul semantics around the kernels ----------------------------------------------
def _batch_size(shape: tuple) -> int:
    size = 1
    for d in shape:
        size *= d
    return size


@functools.lru_cache(maxsize=64)
def _batch_index(x_batch: tuple, y_batch: tuple):
    """Device arrays saying which (flattened) batch entry of x and of y each output entry reads.

    x batch (2, 1) and y batch (3,) broadcast to (2, 3): x's index is [0 0 0 1 1 1], y's [0 1 2 0 1 2].
    Cached: a training loop multiplies the same shapes again and again.
    """
    batch = np.broadcast_shapes(x_batch, y_batch)
    x_index = np.broadcast_to(np.arange(_batch_size(x_batch), dtype=np.int64).reshape(x_batch), batch)
    y_index = np.broadcast_to(np.arange(_batch_size(y_batch), dtype=np.int64).reshape(y_batch), batch)
    return batch, cuda.to_device(np.ascontiguousarray(x_index).ravel()), \
        cuda.to_device(np.ascontiguousarray(y_index).ravel())


def _as_3d(x, transpose: bool, vector_shape: tuple):
    """View x as (batch, rows, cols) in its stored order; a 1-D x becomes `vector_shape` (a transpose
    flag on a 1-D operand does nothing, as in Paddle)."""
    shape = tuple(x.shape)  # a plain tuple: the simulator's shape objects refuse negative indices
    if len(shape) == 1:
        return x.reshape(vector_shape), False, ()
    return x.reshape(_batch_size(shape[:-2]), shape[-2], shape[-1]), transpose, shape[:-2]


def _launch(kernel, grid_xy: tuple, block: tuple, x, y, transpose_x: bool, transpose_y: bool):
    """Shape bookkeeping shared by the four kernels: 3-D views, batch indices, output, launch."""
    a, trans_a, x_batch = _as_3d(x, transpose_x, (1, 1, x.shape[0]))
    b, trans_b, y_batch = _as_3d(y, transpose_y, (1, y.shape[0], 1))
    m = a.shape[2] if trans_a else a.shape[1]
    n = b.shape[1] if trans_b else b.shape[2]
    batch, a_index, b_index = _batch_index(x_batch, y_batch)
    size = _batch_size(batch)
    out = cuda.device_array((size, m, n), dtype=x.dtype)
    if out.size:
        # k == 0 needs no special case: every kernel then writes its zero accumulators
        grid = (-(-n // grid_xy[0]), -(-m // grid_xy[1]), min(size, MAX_GRID_Z))
        kernel[grid, block](a, b, out, a_index, b_index, trans_a, trans_b)
    # drop the 1s that a 1-D operand added (a reshape: out is C-contiguous)
    return out.reshape(batch + (() if x.ndim == 1 else (m,)) + (() if y.ndim == 1 else (n,)))


def _check_float32(kernel_name: str, x) -> None:
    if x.dtype != np.float32:
        raise TypeError(f"matmul: the {kernel_name} kernel computes in float32 tiles; got {x.dtype}. "
                        "Hint: cuda_naive serves float16 and float64.")


def matmul_cuda_naive(x, y, transpose_x: bool = False, transpose_y: bool = False):
    """(a) one thread per output element; float16, float32, float64."""
    return _launch(matmul_naive_kernel, (NAIVE_BLOCK, NAIVE_BLOCK), (NAIVE_BLOCK, NAIVE_BLOCK),
                   x, y, transpose_x, transpose_y)


def matmul_cuda_tiled(x, y, transpose_x: bool = False, transpose_y: bool = False):
    """(b) 16x16 shared-memory tiles; float32."""
    _check_float32("cuda_tiled", x)
    return _launch(matmul_tiled_kernel, (TILE, TILE), (TILE, TILE), x, y, transpose_x, transpose_y)


def matmul_cuda_regblock(x, y, transpose_x: bool = False, transpose_y: bool = False):
    """(c) 128x128 block tiles, 8x8 outputs per thread in registers; float32."""
    _check_float32("cuda_regblock", x)
    return _launch(matmul_regblock_kernel, (BN, BM), (THREADS,), x, y, transpose_x, transpose_y)


def matmul_cuda_bankfree(x, y, transpose_x: bool = False, transpose_y: bool = False):
    """(d) (c) without shared-memory bank conflicts; float32."""
    _check_float32("cuda_bankfree", x)
    return _launch(matmul_bankfree_kernel, (BN, BM), (THREADS,), x, y, transpose_x, transpose_y)


# name -> wrapper, in the order of the progression (the benchmark and the tutorial walk it)
CANDIDATES = {
    "cuda_naive": matmul_cuda_naive,
    "cuda_tiled": matmul_cuda_tiled,
    "cuda_regblock": matmul_cuda_regblock,
    "cuda_bankfree": matmul_cuda_bankfree,
}

# name -> the @cuda.jit kernel each wrapper launches (the benchmark reads their register counts)
KERNELS = {
    "cuda_naive": matmul_naive_kernel,
    "cuda_tiled": matmul_tiled_kernel,
    "cuda_regblock": matmul_regblock_kernel,
    "cuda_bankfree": matmul_bankfree_kernel,
}
