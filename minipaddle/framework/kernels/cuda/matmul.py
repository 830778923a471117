"""Matrix multiply on an NVIDIA GPU in numba.cuda: five kernels, each a step of the classic progression.

    out[z, i, j] = sum_p A[z, i, p] * B[z, p, j]

All five are registered as candidates for the same op (the matmul lines of
framework/kernels/cuda_registry.py), so the autotuner times them side by side and a learner can
read the progression in order. Measured on one H100 at 4096^2 float32 (benchmarks/gpu_matmul_bench.py,
benchmarks/results/gpu_matmul.json; cuBLAS through PyTorch, TF32 off: 2.7 ms):

(a) `matmul_naive_kernel`     one thread per output element, every operand read from global
                              memory: 109 ms, 2.5% of cuBLAS.
(b) `matmul_tiled_kernel`     a 16x16 block of threads stages 16x16 tiles of A and B in shared
                              memory, so each global read is used 16 times: 28 ms, 10%.
(c) `matmul_regblock_kernel`  each thread accumulates an 8x8 block of outputs in registers from a
                              128x8 tile of A and an 8x128 tile of B: 8+8 shared reads feed 64 FMAs: 12.7 ms, 21%.
(d) `matmul_bankfree_kernel`  (c) with the tiles laid out so that no warp reads one shared-memory
                              bank twice: A's tile transposed and padded, a thread's columns 16 apart: 9.3 ms, 29%.
(e) `matmul_prefetch_kernel`  (d) with double-buffered tiles, the next tile's global loads issued
                              before this tile's FMAs: 10.9 ms, 25%. The textbook's next step does not
                              pay here: the prefetched values cost registers, which (c)-(e) are short of.

Why no float4 ("vectorized") loads? numba cannot view a float32 array as float4, so every load is a
scalar one. In (d) a thread's eight reads of A's tile are contiguous and 16-byte aligned, but the
compiler did not merge them into wider loads (the H100 PTX holds only ld.shared.f32).

Paddle's semantics (transpose flags, 1-D operands, broadcast batch dims) live in the Python wrappers
at the bottom: they view every operand as a 3-D (batch, rows, cols) array and hand each kernel two
small index arrays that say which batch entry of x and of y output entry z reads. (a) and (b) are
told the transpose flags and read a transposed operand in its stored order; for (c)-(e) the wrapper
first copies a transposed operand with `transpose_kernel`.

The tiled kernels (b)-(e) use float32 tiles and serve float32; the naive kernel serves float16 (it
accumulates in float32), float32 and float64.
"""
from __future__ import annotations

import functools

import numpy as np

if not hasattr(np, "row_stack"):
    # numba-cuda <= 0.30 registers an overload for np.row_stack on its first compile; numpy 2.5
    # removed that alias (of np.vstack), and the compile then fails with an AttributeError.
    np.row_stack = np.vstack

from numba import config, cuda, float32  # noqa: E402 - after the numpy fix above

from .launch import launch  # noqa: E402

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
        acc = float32(0.0)  # a float64 product widens acc to float64
        for p in range(k):
            x = a[az, p, i] if trans_a else a[az, i, p]
            y = b[bz, j, p] if trans_b else b[bz, p, j]
            acc += x * y
        out[z, i, j] = acc


# float16 gets its own copy, and without cache=True: numba-cuda links NVIDIA's fp16 library into
# a kernel that touches float16, and it cannot write such a kernel to its on-disk cache.
@cuda.jit
def matmul_naive_half_kernel(a, b, out, a_batch, b_batch, trans_a, trans_b):
    """(a) for float16: the products are summed in float32 and rounded to float16 once, at the end."""
    j = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    i = cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.y
    m, n = out.shape[1], out.shape[2]
    k = a.shape[1] if trans_a else a.shape[2]
    if i >= m or j >= n:
        return
    for z in range(cuda.blockIdx.z, out.shape[0], cuda.gridDim.z):
        az, bz = a_batch[z], b_batch[z]
        acc = float32(0.0)
        for p in range(k):
            x = a[az, p, i] if trans_a else a[az, i, p]
            y = b[bz, j, p] if trans_b else b[bz, p, j]
            acc += float32(x) * float32(y)
        out[z, i, j] = acc


# ---- (b) tiled: shared-memory tiles, each global read used TILE times ----------------------
TILE = 16  # the block is TILE x TILE threads; the tiles are TILE x TILE floats
TILE_ROW = TILE + 1  # a shared array's shape must be made of plain constants, not expressions


@cuda.jit(cache=True)
def matmul_tiled_kernel(a, b, out, a_batch, b_batch, trans_a, trans_b):
    """Block (by, bx) computes out[by*16:(by+1)*16, bx*16:(bx+1)*16], thread (ty, tx) one element of it."""
    # +1 column of padding: a transposed loader writes a tile column by column, and without it the
    # 16 writes of a half-warp would land in the same shared-memory bank.
    a_tile = cuda.shared.array((TILE, TILE_ROW), float32)  # a_tile[r, c] = A[i0 + r, p0 + c]
    b_tile = cuda.shared.array((TILE, TILE_ROW), float32)  # b_tile[r, c] = B[p0 + r, j0 + c]
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
# From here on the kernels read A and B in their stored (row-major) order only: the wrapper first
# copies a transposed operand with `transpose_kernel` (O(n^2) work before the product's O(n^3)).
# A transpose flag tested inside the loop would keep two sets of addresses alive in registers,
# and registers are what these kernels run short of.
BM = 128  # rows of out per block
BN = 128  # columns of out per block
BK = 8    # depth of one pair of tiles
TM = 8    # rows of out per thread
TN = 8    # columns of out per thread
THREADS = (BM // TM) * (BN // TN)  # 256 threads, a 16 x 16 grid of thread blocks-of-outputs
LOADS_A = BM * BK // THREADS       # 4 elements of A's tile per thread per step
LOADS_B = BK * BN // THREADS       # 4 elements of B's tile per thread per step
A_ROWS_PER_PASS = THREADS // BK    # 32: the 256 threads load 32 rows x 8 depths of A's tile at once
B_ROWS_PER_PASS = THREADS // BN    # 2: ... and 2 depths x 128 columns of B's tile

# Registers per thread. Left alone, the compiler gives these kernels 140-160 registers (64
# accumulators, 16 operands, and numba's 64-bit index arithmetic), so only one block of 256
# threads fits on an SM (65536 registers): too few warps to hide shared-memory latency. Capped
# at 128, two blocks fit; a few values spill to local memory (16-32 bytes). Measured on an H100
# at 4096^2: (c) 22.2 -> 12.5 ms, (d) 13.4 -> 9.0 ms. numba's simulator knows no such option.
REGISTER_CAPPED = {"cache": True} if config.ENABLE_CUDASIM else {"cache": True, "max_registers": 128}


@cuda.jit(**REGISTER_CAPPED)
def matmul_regblock_kernel(a, b, out, a_batch, b_batch):
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
    # Loading: thread tid fetches A[i0 + a_row + 32s, p0 + a_col] for s = 0..3 (8 neighbouring
    # threads read one row's 8 neighbouring floats) and B[p0 + b_row + 2s, j0 + b_col] (128
    # neighbouring threads read one row of B's tile).
    a_row, a_col = tid // BK, tid % BK
    b_row, b_col = tid // BN, tid % BN
    i0 = cuda.blockIdx.y * BM
    j0 = cuda.blockIdx.x * BN
    m, n, k = out.shape[1], out.shape[2], a.shape[2]
    for z in range(cuda.blockIdx.z, out.shape[0], cuda.gridDim.z):
        az, bz = a_batch[z], b_batch[z]
        for r in range(TM):
            for c in range(TN):
                acc[r, c] = 0.0
        for p0 in range(0, k, BK):
            for s in range(LOADS_A):
                r = a_row + s * A_ROWS_PER_PASS
                a_tile[r, a_col] = a[az, i0 + r, p0 + a_col] if i0 + r < m and p0 + a_col < k else 0.0
            for s in range(LOADS_B):
                r = b_row + s * B_ROWS_PER_PASS
                b_tile[r, b_col] = b[bz, p0 + r, j0 + b_col] if p0 + r < k and j0 + b_col < n else 0.0
            cuda.syncthreads()
            # For each of the 8 depths: 8 values of A's column and 8 of B's row into registers,
            # then their outer product (64 FMAs) onto the accumulators.
            for q in range(BK):
                for r in range(TM):
                    reg_a[r] = a_tile[ty * TM + r, q]    # the warp's two ty are 64 words apart: same bank
                for c in range(TN):
                    reg_b[c] = b_tile[q, tx * TN + c]    # threads tx and tx+4 share a bank: 4-way conflict
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
A_ROW = BM + A_PAD  # a shared array's shape must be made of plain constants, not expressions


@cuda.jit(**REGISTER_CAPPED)
def matmul_bankfree_kernel(a, b, out, a_batch, b_batch):
    """Block (by, bx) computes a 128x128 tile of out; thread (ty, tx) computes
    out[i0 + ty*8 + r, j0 + tx + 16*c] for r, c in 0..7."""
    a_tile_t = cuda.shared.array((BK, A_ROW), float32)  # a_tile_t[c, r] = A[i0 + r, p0 + c]
    b_tile = cuda.shared.array((BK, BN), float32)       # b_tile[r, c] = B[p0 + r, j0 + c]
    acc = cuda.local.array((TM, TN), float32)
    reg_a = cuda.local.array(TM, float32)
    reg_b = cuda.local.array(TN, float32)
    tid = cuda.threadIdx.x
    tx = tid % (BN // TN)
    ty = tid // (BN // TN)
    a_row, a_col = tid // BK, tid % BK
    b_row, b_col = tid // BN, tid % BN
    i0 = cuda.blockIdx.y * BM
    j0 = cuda.blockIdx.x * BN
    m, n, k = out.shape[1], out.shape[2], a.shape[2]
    for z in range(cuda.blockIdx.z, out.shape[0], cuda.gridDim.z):
        az, bz = a_batch[z], b_batch[z]
        for r in range(TM):
            for c in range(TN):
                acc[r, c] = 0.0
        for p0 in range(0, k, BK):
            # The same loads as (c), A's written transposed: word a_col*(BM+4) + r. A warp covers
            # 4 rows x 8 depths, banks (4*a_col + r) % 32: all 32 different.
            for s in range(LOADS_A):
                r = a_row + s * A_ROWS_PER_PASS
                a_tile_t[a_col, r] = a[az, i0 + r, p0 + a_col] if i0 + r < m and p0 + a_col < k else 0.0
            for s in range(LOADS_B):
                r = b_row + s * B_ROWS_PER_PASS
                b_tile[r, b_col] = b[bz, p0 + r, j0 + b_col] if p0 + r < k and j0 + b_col < n else 0.0
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


# ---- (e) prefetching: the next tiles' global loads overlap this tile's arithmetic ---------------
# In (d) a warp that waits for its global loads has nothing to do: the loads come right before a
# syncthreads and the FMAs after it. Here the loop runs one step behind itself: step t issues the
# global loads of tile t into registers, then multiplies tile t-1 (already in shared memory), and
# only then writes tile t into shared memory: the loads' latency is hidden behind 512 FMAs. Two
# shared buffers alternate (tile t lives in buffer t % 2), so one syncthreads per step suffices:
# step t writes the buffer that step t-1 read, and the barrier ending step t-1 has seen every
# thread finish reading it.


@cuda.jit(**REGISTER_CAPPED)
def matmul_prefetch_kernel(a, b, out, a_batch, b_batch):
    """(d)'s 128x128 block tile and 8x8 thread tile, with double-buffered shared tiles."""
    a_tile_t = cuda.shared.array((2, BK, A_ROW), float32)  # a_tile_t[t % 2, c, r] = A[i0 + r, p0 + c]
    b_tile = cuda.shared.array((2, BK, BN), float32)       # b_tile[t % 2, r, c] = B[p0 + r, j0 + c]
    acc = cuda.local.array((TM, TN), float32)
    reg_a = cuda.local.array(TM, float32)
    reg_b = cuda.local.array(TN, float32)
    next_a = cuda.local.array(LOADS_A, float32)   # this thread's 4 elements of the next tile of A
    next_b = cuda.local.array(LOADS_B, float32)
    tid = cuda.threadIdx.x
    tx = tid % (BN // TN)
    ty = tid // (BN // TN)
    a_row, a_col = tid // BK, tid % BK
    b_row, b_col = tid // BN, tid % BN
    i0 = cuda.blockIdx.y * BM
    j0 = cuda.blockIdx.x * BN
    m, n, k = out.shape[1], out.shape[2], a.shape[2]
    tiles = (k + BK - 1) // BK
    for z in range(cuda.blockIdx.z, out.shape[0], cuda.gridDim.z):
        az, bz = a_batch[z], b_batch[z]
        for r in range(TM):
            for c in range(TN):
                acc[r, c] = 0.0
        for t in range(tiles + 1):
            p0 = t * BK
            if t < tiles:  # 1. issue the global loads of tile t (the same elements as in (c) and (d))
                for s in range(LOADS_A):
                    r = a_row + s * A_ROWS_PER_PASS
                    next_a[s] = a[az, i0 + r, p0 + a_col] if i0 + r < m and p0 + a_col < k else 0.0
                for s in range(LOADS_B):
                    r = b_row + s * B_ROWS_PER_PASS
                    next_b[s] = b[bz, p0 + r, j0 + b_col] if p0 + r < k and j0 + b_col < n else 0.0
            if t > 0:      # 2. multiply tile t-1 while those loads are in flight
                buf = (t - 1) % 2
                for q in range(BK):
                    for r in range(TM):
                        reg_a[r] = a_tile_t[buf, q, ty * TM + r]
                    for c in range(TN):
                        reg_b[c] = b_tile[buf, q, tx + c * (BN // TN)]
                    for r in range(TM):
                        for c in range(TN):
                            acc[r, c] += reg_a[r] * reg_b[c]
            if t < tiles:  # 3. now wait for the loads and write tile t into the other buffer
                buf = t % 2
                for s in range(LOADS_A):
                    a_tile_t[buf, a_col, a_row + s * A_ROWS_PER_PASS] = next_a[s]
                for s in range(LOADS_B):
                    b_tile[buf, b_row + s * B_ROWS_PER_PASS, b_col] = next_b[s]
            cuda.syncthreads()
        for r in range(TM):
            i = i0 + ty * TM + r
            for c in range(TN):
                j = j0 + tx + c * (BN // TN)
                if i < m and j < n:
                    out[z, i, j] = acc[r, c]


# ---- the transposed copy the kernels (c)-(e) read a transposed operand through -----------------
@cuda.jit(cache=True)
def transpose_kernel(src, dst):
    """dst[z, j, i] = src[z, i, j] through a 16x16 shared tile: the reads and the writes both coalesced."""
    tile = cuda.shared.array((TILE, TILE_ROW), float32)  # padded: column reads hit 16 different banks
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    i0 = cuda.blockIdx.y * TILE
    j0 = cuda.blockIdx.x * TILE
    rows, cols = src.shape[1], src.shape[2]
    for z in range(cuda.blockIdx.z, src.shape[0], cuda.gridDim.z):
        if i0 + ty < rows and j0 + tx < cols:
            tile[ty, tx] = src[z, i0 + ty, j0 + tx]      # neighbouring tx: neighbouring columns of src
        cuda.syncthreads()
        if j0 + ty < cols and i0 + tx < rows:
            dst[z, j0 + ty, i0 + tx] = tile[tx, ty]      # neighbouring tx: neighbouring columns of dst
        cuda.syncthreads()


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


def _transposed(a):
    """A C-contiguous copy of the (batch, rows, cols) float32 array a with its last two dims swapped."""
    batch, rows, cols = a.shape
    dst = cuda.device_array((batch, cols, rows), dtype=a.dtype)
    if dst.size:
        grid = (-(-cols // TILE), -(-rows // TILE), min(batch, MAX_GRID_Z))
        launch(transpose_kernel, grid, (TILE, TILE), a, dst)
    return dst


def _launch(kernel, grid_xy: tuple, block: tuple, x, y, transpose_x: bool, transpose_y: bool,
            reads_flags: bool = True):
    """Shape bookkeeping shared by the kernels: 3-D views, batch indices, output, launch.

    A kernel that `reads_flags` is told whether each operand is transposed; for the others a
    transposed operand is copied into row-major order first.
    """
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
        if reads_flags:
            launch(kernel, grid, block, a, b, out, a_index, b_index, trans_a, trans_b)
        else:
            a = _transposed(a) if trans_a else a
            b = _transposed(b) if trans_b else b
            launch(kernel, grid, block, a, b, out, a_index, b_index)
    # drop the 1s that a 1-D operand added (a reshape: out is C-contiguous)
    return out.reshape(batch + (() if x.ndim == 1 else (m,)) + (() if y.ndim == 1 else (n,)))


def _check_float32(kernel_name: str, x) -> None:
    if x.dtype != np.float32:
        raise TypeError(f"matmul: the {kernel_name} kernel computes in float32 tiles; got {x.dtype}. "
                        "Hint: cuda_naive serves float16 and float64.")


def matmul_cuda_naive(x, y, transpose_x: bool = False, transpose_y: bool = False):
    """(a) one thread per output element; float16, float32, float64."""
    kernel = matmul_naive_half_kernel if x.dtype == np.float16 else matmul_naive_kernel
    return _launch(kernel, (NAIVE_BLOCK, NAIVE_BLOCK), (NAIVE_BLOCK, NAIVE_BLOCK), x, y, transpose_x, transpose_y)


def matmul_cuda_tiled(x, y, transpose_x: bool = False, transpose_y: bool = False):
    """(b) 16x16 shared-memory tiles; float32."""
    _check_float32("cuda_tiled", x)
    return _launch(matmul_tiled_kernel, (TILE, TILE), (TILE, TILE), x, y, transpose_x, transpose_y)


def matmul_cuda_regblock(x, y, transpose_x: bool = False, transpose_y: bool = False):
    """(c) 128x128 block tiles, 8x8 outputs per thread in registers; float32."""
    _check_float32("cuda_regblock", x)
    return _launch(matmul_regblock_kernel, (BN, BM), (THREADS,), x, y, transpose_x, transpose_y,
                   reads_flags=False)


def matmul_cuda_bankfree(x, y, transpose_x: bool = False, transpose_y: bool = False):
    """(d) (c) without shared-memory bank conflicts; float32."""
    _check_float32("cuda_bankfree", x)
    return _launch(matmul_bankfree_kernel, (BN, BM), (THREADS,), x, y, transpose_x, transpose_y,
                   reads_flags=False)


def matmul_cuda_prefetch(x, y, transpose_x: bool = False, transpose_y: bool = False):
    """(e) (d) with the next tiles' global loads overlapping this tile's FMAs; float32."""
    _check_float32("cuda_prefetch", x)
    return _launch(matmul_prefetch_kernel, (BN, BM), (THREADS,), x, y, transpose_x, transpose_y,
                   reads_flags=False)


# name -> wrapper, in the order of the progression (the benchmark and the tutorial walk it)
CANDIDATES = {
    "cuda_naive": matmul_cuda_naive,
    "cuda_tiled": matmul_cuda_tiled,
    "cuda_regblock": matmul_cuda_regblock,
    "cuda_bankfree": matmul_cuda_bankfree,
    "cuda_prefetch": matmul_cuda_prefetch,
}

# name -> the @cuda.jit kernel each wrapper launches (the benchmark reads their register counts)
KERNELS = {
    "cuda_naive": matmul_naive_kernel,
    "cuda_tiled": matmul_tiled_kernel,
    "cuda_regblock": matmul_regblock_kernel,
    "cuda_bankfree": matmul_bankfree_kernel,
    "cuda_prefetch": matmul_prefetch_kernel,
}
