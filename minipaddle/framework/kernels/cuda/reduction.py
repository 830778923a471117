"""Reduction CUDA kernels: sum, mean, max, min, prod, argmax, argmin, var, std over any axes.

Every reduction becomes "reduce each row of a (rows, row_len) matrix":
1. the reduced axes are moved innermost. When they already are (axis=-1, axis=None, ...), that is
   a free reshape; otherwise `permute` copies x once in the new order (a gather kernel that
   reads through the shared index helper of kernels/broadcast.py);
2. the rows are reduced:
   - short rows (<= 64): one thread per row, a plain loop;
   - long rows: one block per row. Each thread folds a strided slice of the row into a register
     (four loads in flight at a time), then the block combines its threads' values: a tree of warp
     shuffles inside each warp (`shfl_down`, no shared memory, no barrier), each warp's result
     into shared memory, and one more round of shuffles over those;
   - few long rows (sum of everything): each row is split into chunks, one block per chunk,
     and a second launch reduces the chunks' partial results -- so a sum over 64M floats still
     keeps every multiprocessor busy.

The kernels are templates specialized per reduction (`combine`: a primitive such as
primitives.add or primitives.maximum; `prepare`: how an element enters, e.g. var's squared
deviation; `finalize`: mean's division) and per dtype. float16 and float32 accumulate in float32,
float64 in float64, integers in int64.
"""
from __future__ import annotations

import builtins
import math

import numpy as np
from numba import cuda, from_dtype

from ...ops import primitives as P
from .. import broadcast
from .launch import THREADS, WARP, blocks_for, device_function, launch, max_blocks, shfl_down, specialize
from .launch import flat as launch_flat

SMALL_ROW = 64  # rows up to this long are reduced by one thread each
# this module defines the ops sum, max and min: the builtins keep other names, in host and kernel code
smaller, larger = builtins.min, builtins.max

broadcast_position = cuda.jit(device=True)(broadcast.broadcast_position)


# ---- moving the reduced axes innermost ---------------------------------------------------------
@cuda.jit(cache=True)
def permute_copy(x, out, ndim, shape, strides):
    """out (flat, C order) = x read through `strides` (x's strides permuted): a transpose copy."""
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        out[i] = x[broadcast_position(i, ndim, shape, strides)]


def permute(x, perm: tuple):
    """A C-contiguous copy of x with its axes in the order `perm` (numpy's transpose, materialized)."""
    shape = tuple(x.shape[p] for p in perm)
    out = cuda.device_array(shape, x.dtype)
    if out.size == 0:
        return out
    own = broadcast.contiguous_strides(x.shape)
    merged, (strides,) = broadcast.coalesce(shape, tuple(own[p] for p in perm))
    launch(permute_copy, blocks_for(out.size), THREADS, x.reshape(x.size), out.reshape(out.size), len(merged),
           broadcast.padded(merged, 1), broadcast.padded(strides, 0))
    return out


def as_rows(x, axes: tuple):
    """x as a (rows, row_len) device array whose rows are the slices reduced over `axes`."""
    ndim = len(x.shape)
    kept = tuple(d for d in range(ndim) if d not in axes)
    row_len = math.prod(x.shape[d] for d in axes)
    rows = math.prod(x.shape[d] for d in kept)
    if axes != tuple(range(ndim - len(axes), ndim)):
        x = permute(x, kept + tuple(axes))
    return x.reshape(rows, row_len)


# ---- the pieces a template is specialized with --------------------------------------------
def plain(value, center, row):
    return value


def squared_deviation(value, center, row):
    d = value - center[row]
    return d * d


def keep(total, count, row):
    return total


def divide_by_count(total, count, row):
    return total / count


def square_root_of_quotient(total, count, row):
    return math.sqrt(total / count)


# ---- templates ------------------------------------------------------------------------------
def _rows_by_thread(x, out, rows, row_len, center, count):
    """Short rows: thread t folds row t (grid-stride over rows)."""
    for row in range(cuda.grid(1), rows, cuda.gridsize(1)):
        value = IDENTITY  # noqa: F821 - bound per reduction
        for k in range(row * row_len, (row + 1) * row_len):
            value = combine(value, prepare(acc(x[k]), center, row))  # noqa: F821
        out[row] = finalize(value, count, row)  # noqa: F821


def _rows_by_block(x, out, rows, row_len, chunks, center, count):
    """Long rows: block b folds chunk (job % chunks) of row (job // chunks), for job = b, b + grid, ..."""
    warp_totals = cuda.shared.array(32, acc)  # noqa: F821 - one slot per warp (at most 1024 threads)
    tid = cuda.threadIdx.x
    step = cuda.blockDim.x
    lane = tid % WARP
    chunk_len = (row_len + chunks - 1) // chunks
    for job in range(cuda.blockIdx.x, rows * chunks, cuda.gridDim.x):  # the same job for the whole block
        row = job // chunks
        begin = row * row_len + (job % chunks) * chunk_len
        end = row * row_len + smaller(row_len, (job % chunks + 1) * chunk_len)
        # 1. each thread folds every step-th element of the chunk, four loads at a time
        value = IDENTITY  # noqa: F821
        i = begin + tid
        while i + 3 * step < end:
            a, b, c, d = x[i], x[i + step], x[i + 2 * step], x[i + 3 * step]
            ab = combine(prepare(acc(a), center, row), prepare(acc(b), center, row))  # noqa: F821
            cd = combine(prepare(acc(c), center, row), prepare(acc(d), center, row))  # noqa: F821
            value = combine(value, combine(ab, cd))  # noqa: F821
            i += 4 * step
        while i < end:
            value = combine(value, prepare(acc(x[i]), center, row))  # noqa: F821
            i += step
        # 2. fold within each warp: after offsets 16, 8, 4, 2, 1 lane 0 holds the warp's result
        offset = WARP // 2
        while offset > 0:
            value = combine(value, shfl_down(value, offset))  # noqa: F821
            offset //= 2
        if lane == 0:
            warp_totals[tid // WARP] = value
        cuda.syncthreads()
        # 3. every warp folds the warps' results (only thread 0's answer is used)
        value = warp_totals[lane] if lane < step // WARP else IDENTITY  # noqa: F821
        offset = WARP // 2
        while offset > 0:
            value = combine(value, shfl_down(value, offset))  # noqa: F821
            offset //= 2
        if tid == 0:
            out[job] = finalize(value, count, row)  # noqa: F821
        cuda.syncthreads()  # warp_totals is reused by the next job


class RowReduction:
    """One reduction: `combine` folds two values, `identity(acc_dtype)` starts a fold, `prepare` maps
    an element in, `finalize` maps the row's total out. Specializes its kernels per dtype, lazily."""

    def __init__(self, name: str, combine, identity, prepare=plain, finalize=keep) -> None:
        self.name = name
        self.combine, self.identity, self.prepare, self.finalize = combine, identity, prepare, finalize
        self._kernels: dict = {}
        self._second_pass = None

    def kernel(self, template, acc_dtype: np.dtype, final: bool = True):
        """`template` specialized for this reduction; final=False keeps raw totals (a first pass)."""
        key = (template.__name__, acc_dtype, final)
        kernel = self._kernels.get(key)
        if kernel is None:
            names = {"combine": device_function(self.combine), "IDENTITY": acc_dtype.type(self.identity(acc_dtype)),
                     "prepare": device_function(self.prepare),
                     "finalize": device_function(self.finalize if final else keep),
                     "acc": from_dtype(acc_dtype), "shfl_down": shfl_down}
            suffix = "" if final else "_partial"
            kernel = self._kernels[key] = specialize(template, f"{self.name}{template.__name__}_{acc_dtype}{suffix}",
                                                     names)
        return kernel

    def second_pass(self) -> "RowReduction":
        """The reduction of the chunks' partial totals: already prepared, so they enter as they are."""
        if self._second_pass is None:
            self._second_pass = RowReduction(f"{self.name}_chunks", self.combine, self.identity, plain, self.finalize)
        return self._second_pass


_NO_CENTER: dict = {}


def accumulator(dtype: np.dtype) -> np.dtype:
    """float16 and float32 accumulate in float32, float64 in float64, integers and bool in int64."""
    if dtype.kind == "f":
        return np.dtype("float64") if dtype == np.float64 else np.dtype("float32")
    return np.dtype("int64")


def chunks_for(rows: int, row_len: int) -> int:
    """How many blocks share one long row: enough to fill the GPU when there are too few rows, never
    so many that a block gets fewer than 4 * THREADS elements."""
    if rows >= max_blocks():
        return 1
    return larger(1, smaller(math.ceil(max_blocks() / rows), row_len // (4 * THREADS)))


def reduce_rows(reduction: RowReduction, rows2d, out_dtype, count=1.0, center=None):
    """Reduce each row of a (rows, row_len) device array; returns a (rows,) device array.

    `count` reaches `finalize` (mean's divisor); `center` is a (rows,) array `prepare` may read."""
    rows, row_len = rows2d.shape
    acc_dtype = accumulator(np.dtype(rows2d.dtype))
    out = cuda.device_array(rows, out_dtype)
    if rows == 0:
        return out
    if center is None:  # prepare() does not read it: one small array per dtype serves every call
        center = _NO_CENTER.get(acc_dtype)
        if center is None:
            center = _NO_CENTER[acc_dtype] = cuda.device_array(1, acc_dtype)
    count = acc_dtype.type(count)
    flat = launch_flat(rows2d, rows * row_len)
    if row_len <= SMALL_ROW:
        kernel = reduction.kernel(_rows_by_thread, acc_dtype)
        launch(kernel, blocks_for(rows), THREADS, flat, out, rows, row_len, center, count)
        return out
    chunks = chunks_for(rows, row_len)
    if chunks == 1:
        kernel = reduction.kernel(_rows_by_block, acc_dtype)
        launch(kernel, smaller(rows, max_blocks()), THREADS, flat, out, rows, row_len, 1, center, count)
        return out
    partial = cuda.device_array(rows * chunks, acc_dtype)
    first = reduction.kernel(_rows_by_block, acc_dtype, final=False)
    launch(first, smaller(rows * chunks, max_blocks()), THREADS, flat, partial, rows, row_len, chunks, center, count)
    return reduce_rows(reduction.second_pass(), partial.reshape(rows, chunks), out_dtype, count, center)


# ---- argmax, argmin: (value, index) pairs -----------------------------------------------------
def argmax_better(v, i, w, j):
    """Does candidate (w, j) beat (v, i)? The larger value; on a tie the first index; NaN beats all
    (numpy's argmax returns the first NaN)."""
    if w != w:
        return v == v or j < i
    if v != v:
        return False
    return w > v or (w == v and j < i)


def argmin_better(v, i, w, j):
    if w != w:
        return v == v or j < i
    if v != v:
        return False
    return w < v or (w == v and j < i)


def _arg_rows_by_block(x, out, rows, row_len):
    """Block b finds the best (value, index) of rows b, b + grid, ...: the same shape as _rows_by_block."""
    warp_values = cuda.shared.array(32, acc)  # noqa: F821
    warp_indices = cuda.shared.array(32, int64)  # noqa: F821
    tid = cuda.threadIdx.x
    step = cuda.blockDim.x
    lane = tid % WARP
    for row in range(cuda.blockIdx.x, rows, cuda.gridDim.x):
        value, index = START, NO_INDEX  # noqa: F821
        for k in range(tid, row_len, step):
            candidate = acc(x[row * row_len + k])  # noqa: F821
            if better(value, index, candidate, k):  # noqa: F821
                value, index = candidate, k
        offset = WARP // 2
        while offset > 0:
            other, other_index = shfl_down(value, offset), shfl_down(index, offset)  # noqa: F821
            if better(value, index, other, other_index):  # noqa: F821
                value, index = other, other_index
            offset //= 2
        if lane == 0:
            warp_values[tid // WARP] = value
            warp_indices[tid // WARP] = index
        cuda.syncthreads()
        value, index = START, NO_INDEX  # noqa: F821
        if lane < step // WARP:
            value, index = warp_values[lane], warp_indices[lane]
        offset = WARP // 2
        while offset > 0:
            other, other_index = shfl_down(value, offset), shfl_down(index, offset)  # noqa: F821
            if better(value, index, other, other_index):  # noqa: F821
                value, index = other, other_index
            offset //= 2
        if tid == 0:
            out[row] = index
        cuda.syncthreads()


def _arg_rows_by_thread(x, out, rows, row_len):
    """Short rows: thread t scans row t."""
    for row in range(cuda.grid(1), rows, cuda.gridsize(1)):
        value, index = START, NO_INDEX  # noqa: F821
        for k in range(row_len):
            candidate = acc(x[row * row_len + k])  # noqa: F821
            if better(value, index, candidate, k):  # noqa: F821
                value, index = candidate, k
        out[row] = index


_ARG_KERNELS: dict = {}


def _arg_kernel(template, better, acc_dtype: np.dtype):
    key = (template.__name__, better.__name__, acc_dtype)
    kernel = _ARG_KERNELS.get(key)
    if kernel is None:
        start = -np.inf if better is argmax_better else np.inf
        if acc_dtype.kind != "f":
            info = np.iinfo(acc_dtype)
            start = info.min if better is argmax_better else info.max
        names = {"better": device_function(better), "acc": from_dtype(acc_dtype), "int64": from_dtype(np.int64),
                 "START": acc_dtype.type(start), "NO_INDEX": np.int64(np.iinfo(np.int64).max), "shfl_down": shfl_down}
        kernel = _ARG_KERNELS[key] = specialize(template, f"{better.__name__}{template.__name__}_{acc_dtype}", names)
    return kernel


# ---- the op kernels: the CPU kernels' signatures ---------------------------------------------
def _lowest(dtype):
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def _highest(dtype):
    return np.inf if dtype.kind == "f" else np.iinfo(dtype).max


SUM = RowReduction("sum", P.add, lambda dtype: 0)
PROD = RowReduction("prod", P.multiply, lambda dtype: 1)
MAX = RowReduction("max", P.maximum, _lowest)
MIN = RowReduction("min", P.minimum, _highest)
MEAN = RowReduction("mean", P.add, lambda dtype: 0, finalize=divide_by_count)
VAR = RowReduction("var", P.add, lambda dtype: 0, prepare=squared_deviation, finalize=divide_by_count)
STD = RowReduction("std", P.add, lambda dtype: 0, prepare=squared_deviation, finalize=square_root_of_quotient)


def reduced_shape(shape: tuple, axes: tuple, keepdim: bool) -> tuple:
    """The shape of a reduction of `shape` over `axes`, as numpy's keepdims gives it."""
    if keepdim:
        return tuple(1 if d in axes else n for d, n in enumerate(shape))
    return tuple(n for d, n in enumerate(shape) if d not in axes)


def _reduce(reduction: RowReduction, x, axis, keepdim, out_dtype, count=None, center=None):
    """Run `reduction` over `axis` (None: all) and shape the result as numpy's keepdims does."""
    shape = tuple(x.shape) or (1,)  # a 0-D x reduces as one element
    axes = tuple(range(len(shape))) if axis is None or not x.shape else tuple(axis)
    rows2d = as_rows(x.reshape(shape), axes)
    if count is None:
        count = rows2d.shape[1]
    out = reduce_rows(reduction, rows2d, out_dtype, count, center)
    return out.reshape(reduced_shape(tuple(x.shape), axes if x.shape else (), keepdim))


def sum(x, axis=None, keepdim=False, dtype=None):  # noqa: A001 - the op's name
    if dtype is None:
        dtype = np.dtype("int64") if np.dtype(x.dtype).kind in "biu" else x.dtype
    return _reduce(SUM, x, axis, keepdim, np.dtype(dtype))


def mean(x, axis=None, keepdim=False):
    return _reduce(MEAN, x, axis, keepdim, x.dtype)


def max(x, axis=None, keepdim=False):  # noqa: A001
    return _reduce(MAX, x, axis, keepdim, x.dtype)


def min(x, axis=None, keepdim=False):  # noqa: A001
    return _reduce(MIN, x, axis, keepdim, x.dtype)


def prod(x, axis=None, keepdim=False):
    return _reduce(PROD, x, axis, keepdim, x.dtype)


def _variance(reduction: RowReduction, x, axis, keepdim, unbiased):
    """Two passes over x: the rows' means, then the mean squared deviation from them (stable)."""
    shape = tuple(x.shape) or (1,)
    axes = tuple(range(len(shape))) if axis is None or not x.shape else tuple(axis)
    rows2d = as_rows(x.reshape(shape), axes)
    row_len = rows2d.shape[1]
    means = reduce_rows(MEAN, rows2d, accumulator(np.dtype(x.dtype)), row_len)
    dof = row_len - (1 if unbiased else 0)
    out = reduce_rows(reduction, rows2d, x.dtype, dof, center=means)
    return out.reshape(reduced_shape(tuple(x.shape), axes if x.shape else (), keepdim))


def var(x, axis=None, keepdim=False, unbiased=True):
    return _variance(VAR, x, axis, keepdim, unbiased)


def std(x, axis=None, keepdim=False, unbiased=True):
    return _variance(STD, x, axis, keepdim, unbiased)


def _arg(better, x, axis, keepdim, dtype):
    shape = tuple(x.shape)
    if axis is None or not shape:  # over the flattened x: a 0-D index (all-ones dims with keepdim)
        rows2d = x.reshape(1, x.size)
        out_shape = (1,) * len(shape) if keepdim else ()
    else:
        rows2d = as_rows(x, (axis,))
        out_shape = reduced_shape(shape, (axis,), keepdim)
    rows, row_len = rows2d.shape
    out = cuda.device_array(rows, np.int64)
    flat = rows2d.reshape(rows * row_len)
    if row_len <= SMALL_ROW:
        kernel = _arg_kernel(_arg_rows_by_thread, better, accumulator(np.dtype(x.dtype)))
        launch(kernel, blocks_for(rows), THREADS, flat, out, rows, row_len)
    else:
        kernel = _arg_kernel(_arg_rows_by_block, better, accumulator(np.dtype(x.dtype)))
        launch(kernel, smaller(rows, max_blocks()), THREADS, flat, out, rows, row_len)
    if np.dtype(dtype) != np.int64:
        from .elementwise import cast
        out = cast(out, dtype)
    return out.reshape(out_shape)


INT64 = np.dtype("int64")


def argmax(x, axis=None, keepdim=False, dtype=INT64):
    return _arg(argmax_better, x, axis, keepdim, dtype)


def argmin(x, axis=None, keepdim=False, dtype=INT64):
    return _arg(argmin_better, x, axis, keepdim, dtype)
