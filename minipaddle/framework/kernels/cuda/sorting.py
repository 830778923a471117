"""sort, argsort and topk on the GPU: a bitonic sort of every row along the axis.

The order is the CPU's (framework/ops/sorting.py, numpy's stable sort) written as one total order on
(value, position), so the result does not depend on how the threads met:

    a comes before b  if  value(a) < value(b)  (> when descending),  or they are equal and a < b

with NaN above every number, as numpy sorts: last ascending, first descending, equal NaNs in their
original order. Ties keep their original order either way, which is what "stable" means.

Bitonic sort (Batcher, 1968) sorts 2^m slots in m(m+1)/2 rounds; in each round every thread
compares one pair of slots a fixed distance apart and swaps them if they are out of order, so all
pairs of a round are independent. A row of n values is padded to the next power of two with slots
that sort after everything. Only positions move: each slot holds a position along the axis, and the
comparison reads the two values from x, so one kernel serves every dtype.

- rows up to 1024: one block per row sorts its positions in shared memory, one barrier per round;
- longer rows: the positions live in a global scratch array, and each round is a launch of its own
  over all rows' pairs (the launch boundary is the barrier).

topk is the first k of the sorted row (descending for the largest); unsorted, its k positions are
put back in index order, as the CPU's. float16 and bool rows are ordered by a float32 / int32 copy.
"""
from __future__ import annotations

import numpy as np
from numba import cuda, int32

from . import elementwise as E
from .indexing import take_along_axis
from .launch import THREADS, blocks_for, flat, launch

SHARED_ROW = 1024  # the longest row one block sorts in shared memory (512 threads, a pair each)


# ---- the order -----------------------------------------------------------------------------------
@cuda.jit(device=True)
def _comes_before(x, base, inner, n, a, b, descending):
    """Does position a of a row come before position b? Positions >= n are padding and go last."""
    if a >= n or b >= n:
        return b >= n and (a < n or a < b)
    va = x[base + a * inner]
    vb = x[base + b * inner]
    a_nan = va != va
    b_nan = vb != vb
    if a_nan or b_nan:
        if a_nan and b_nan:
            return a < b
        return a_nan == descending  # NaN is the largest value
    if va == vb:
        return a < b
    return (va > vb) == descending


@cuda.jit(device=True)
def _pair(p, j):
    """The two slots that pair p compares in a round of distance j."""
    low = 2 * j * (p // j) + p % j
    return low, low + j


# ---- the kernels ---------------------------------------------------------------------------------
@cuda.jit(cache=True)
def _sort_rows_shared(x, out, indices, rows, n, inner, slots, keep, descending):
    """One block per row (grid-stride over rows): bitonic sort of the row's positions in shared memory,
    then the first `keep` values and positions written to out and indices."""
    order = cuda.shared.array(SHARED_ROW, int32)
    t = cuda.threadIdx.x
    step = cuda.blockDim.x
    for row in range(cuda.blockIdx.x, rows, cuda.gridDim.x):
        base = (row // inner) * n * inner + row % inner
        for s in range(t, slots, step):
            order[s] = s
        cuda.syncthreads()
        k = 2
        while k <= slots:
            j = k // 2
            while j > 0:
                for p in range(t, slots // 2, step):
                    low, high = _pair(p, j)
                    a, b = order[low], order[high]
                    if (low & k) == 0:  # this run sorts forwards
                        swap = _comes_before(x, base, inner, n, b, a, descending)
                    else:
                        swap = _comes_before(x, base, inner, n, a, b, descending)
                    if swap:
                        order[low], order[high] = b, a
                cuda.syncthreads()
                j //= 2
            k *= 2
        out_base = (row // inner) * keep * inner + row % inner
        for s in range(t, keep, step):
            out[out_base + s * inner] = x[base + order[s] * inner]
            indices[out_base + s * inner] = order[s]
        cuda.syncthreads()  # before the next row overwrites order


@cuda.jit(cache=True)
def _first_slots(order, slots):
    for i in range(cuda.grid(1), order.size, cuda.gridsize(1)):
        order[i] = i % slots


@cuda.jit(cache=True)
def _bitonic_round(x, order, rows, n, inner, slots, k, j, descending):
    """One round of distance j in runs of length k, every row's pairs at once; order is (rows, slots)."""
    half = slots // 2
    for i in range(cuda.grid(1), rows * half, cuda.gridsize(1)):
        row = i // half
        low, high = _pair(i % half, j)
        forwards = (low & k) == 0
        low += row * slots
        high += row * slots
        a, b = order[low], order[high]
        base = (row // inner) * n * inner + row % inner
        if forwards:
            swap = _comes_before(x, base, inner, n, b, a, descending)
        else:
            swap = _comes_before(x, base, inner, n, a, b, descending)
        if swap:
            order[low], order[high] = b, a


@cuda.jit(cache=True)
def _take_sorted(x, order, out, indices, n, inner, slots, keep):
    """out and indices of (outer, keep, inner) from the first `keep` sorted slots of every row."""
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        within = i % inner
        s = (i // inner) % keep
        row = (i // (inner * keep)) * inner + within
        position = order[row * slots + s]
        indices[i] = position
        out[i] = x[(row // inner) * n * inner + within + position * inner]


# ---- rows of any length ----------------------------------------------------------------------------
def _slots_for(n: int) -> int:
    """The power of two that holds a row of n (at least 2, so that there is a pair)."""
    return max(2, 1 << (n - 1).bit_length())


def sort_rows(keys, values, axis: int, descending: bool, keep: int):
    """(the first `keep` of values sorted along axis by keys, their int64 positions). keys orders, values
    are what is written out (the same array unless keys is a float32/int32 copy)."""
    if keys is not values:  # the positions come from the keys, the values from x: two passes
        indices = sort_rows(keys, keys, axis, descending, keep)[1]
        return take_along_axis(values, indices, axis=axis, broadcast=False), indices
    shape = tuple(int(s) for s in values.shape)
    n = shape[axis]
    inner = int(np.prod(shape[axis + 1:], dtype=np.int64))
    out_shape = shape[:axis] + (keep,) + shape[axis + 1:]
    out = cuda.device_array(out_shape, values.dtype)
    indices = cuda.device_array(out_shape, np.int64)
    if out.size == 0:
        return out, indices
    rows = int(values.size) // n
    slots = _slots_for(n)
    geometry = (rows, n, inner, slots)
    if slots <= SHARED_ROW:
        launch(_sort_rows_shared, blocks_for(rows, 1), slots // 2, flat(values, values.size), flat(out, out.size),
               flat(indices, indices.size), *geometry, keep, bool(descending))
    else:
        _sort_rows_global(flat(values, values.size), flat(out, out.size), flat(indices, indices.size), geometry,
                          keep, bool(descending))
    return out, indices


def _sort_rows_global(x, out, indices, geometry: tuple, keep: int, descending: bool) -> None:
    """Bitonic sort with the positions in global memory: one launch per round."""
    rows, n, inner, slots = geometry
    order = cuda.device_array(rows * slots, np.int64)
    launch(_first_slots, blocks_for(order.size), THREADS, order, slots)
    pairs = rows * slots // 2
    k = 2
    while k <= slots:
        j = k // 2
        while j > 0:
            launch(_bitonic_round, blocks_for(pairs), THREADS, x, order, rows, n, inner, slots, k, j, descending)
            j //= 2
        k *= 2
    launch(_take_sorted, blocks_for(out.size), THREADS, x, order, out, indices, n, inner, slots, keep)


def _keys(x):
    """What the kernels compare: x itself, or a float32 (float16) / int32 (bool) copy of it."""
    if np.dtype(x.dtype) == np.float16:
        return E.cast(x, dtype="float32")
    if np.dtype(x.dtype) == np.bool_:
        return E.cast(x, dtype="int32")
    return x


# ---- the kernels the registry calls (attrs as in framework/ops/sorting.py) ---------------------------
def _as_rows(x, axis: int):
    """x with at least one dim (a 0-d x is a row of one) and axis made non-negative."""
    if len(x.shape) == 0:
        return x.reshape(1), 0
    return x, axis % len(x.shape)


def sort(x, axis=-1, descending=False):
    """(x sorted along axis, int64 positions it came from); stable, NaNs last (first when descending)."""
    rows, axis = _as_rows(x, axis)
    out, indices = sort_rows(_keys(rows), rows, axis, bool(descending), int(rows.shape[axis]))
    return out.reshape(x.shape), indices.reshape(x.shape)


def argsort(x, axis=-1, descending=False):
    """The int64 positions that sort x along axis (sort's second output)."""
    return sort(x, axis, descending)[1]


def topk(x, k=1, axis=-1, largest=True, sorted=True):  # noqa: A002 - the op's attribute
    """(the k largest (smallest) values along axis, their int64 positions). As the CPU kernel, sorted=False
    gives them in position order when k is less than the row (all of it comes sorted). Among equal values
    the first positions win."""
    rows, axis = _as_rows(x, axis)
    out, indices = sort_rows(_keys(rows), rows, axis, bool(largest), int(k))
    if not sorted and int(k) < int(rows.shape[axis]):
        indices = sort_rows(indices, indices, axis, False, int(k))[0]
        out = take_along_axis(rows, indices, axis=axis, broadcast=False)
    if len(x.shape) == 0:
        return out.reshape(()), indices.reshape(())
    return out, indices
