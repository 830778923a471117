"""Indexing CUDA kernels: x[index], its gradient and x[index] = value, gather, index_select, gather_nd, scatter,
take_along_axis, one_hot, embedding -- each "pick" kernel with its "scatter-add" partner.

A pick reads `out[i] = x[position(i)]`; its gradient adds `dx[position(i)] += dout[i]` with
`cuda.atomic.add`, because two output elements may read the same input (a repeated index), and their
gradients must add up rather than overwrite each other. CUDA adds atomically in float32, float64, int32
and int64; a float16 gradient adds up in float32 and is rounded once at the end.

x[index] follows numpy's rules (index_parsing.py turns the index into items plus one int64 array of
index rows). Basic items -- ints, slices, None -- describe a strided view of x (strided.py); the
advanced index arrays, however many, pick whole positions, so the host adds them up once into a
*table* of offsets (`table[j] = sum of index_row[j] * stride` over the advanced axes), and the kernel
reads `x[offset + table[j] + strided position]`. numpy's placement rule for the advanced dims
(where they go in the output) is applied on the host, where it is plain Python. The index rows are
copied to the host for that (they are small) and checked against the axes there.

Kernels take C-contiguous device arrays and return new ones, with the CPU kernels' signatures.
"""
from __future__ import annotations

import numpy as np
from numba import cuda

from .. import broadcast
from ...ops.index_parsing import ADVANCED, SEPARATOR, has_advanced, out_of_range
from ...ops.sorting import along_axis_shapes
from .elementwise import broadcast_position, broadcast_positions
from .launch import THREADS, blocks_for, flat, launch
from .manipulation import broadcast_to
from .strided import add_along, astype, copy, scalar_of, strided_write, take_along, view_or_copy, zeros


# ---- the kernels -------------------------------------------------------------------------------
@cuda.jit(cache=True)
def _pick_with_table(x, offset, table, inner, out, ndim, shape, strides):
    # the advanced dims are one block of table.size positions; `inner` output elements follow each
    m = table.size
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        out[i] = x[offset + table[(i // inner) % m] + broadcast_position(i, ndim, shape, strides)]


@cuda.jit(cache=True)
def _add_with_table(dout, offset, table, inner, out, ndim, shape, strides):
    m = table.size
    for i in range(cuda.grid(1), dout.size, cuda.gridsize(1)):
        cuda.atomic.add(out, offset + table[(i // inner) % m] + broadcast_position(i, ndim, shape, strides), dout[i])


@cuda.jit(cache=True)
def _put_with_table(value, offset, table, inner, out, ndim, shape, strides):
    # x[index] = value with advanced indices: _pick_with_table's positions, written instead of read
    m = table.size
    for i in range(cuda.grid(1), value.size, cuda.gridsize(1)):
        out[offset + table[(i // inner) % m] + broadcast_position(i, ndim, shape, strides)] = value[i]


@cuda.jit(cache=True)
def _gather_nd(x, index, out, k, x_strides, inner):
    # row m of out is x at the coordinates index[m, 0..k): the block of `inner` elements starting there
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        m = i // inner
        position = i - m * inner
        for j in range(k):
            position += index[m * k + j] * x_strides[j]
        out[i] = x[position]


@cuda.jit(cache=True)
def _gather_nd_add(dout, index, out, k, x_strides, inner):
    for i in range(cuda.grid(1), dout.size, cuda.gridsize(1)):
        m = i // inner
        position = i - m * inner
        for j in range(k):
            position += index[m * k + j] * x_strides[j]
        cuda.atomic.add(out, position, dout[i])


@cuda.jit(cache=True)
def _put_rows(updates, index, out, inner):
    # scatter with overwrite: row index[j] of out becomes row j of updates
    for i in range(cuda.grid(1), updates.size, cuda.gridsize(1)):
        j = i // inner
        out[index[j] * inner + i - j * inner] = updates[i]


@cuda.jit(cache=True)
def _along_axis(arr, indices, out, n, axis_stride, ndim, shape, arr_strides, idx_strides):
    # arr_strides is 0 along `axis`: that coordinate comes from indices instead
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        a, p = broadcast_positions(i, ndim, shape, arr_strides, idx_strides)
        j = indices[p]
        if j < 0:
            j += n
        out[i] = arr[a + j * axis_stride]


@cuda.jit(cache=True)
def _along_axis_add(dout, indices, out, n, axis_stride, ndim, shape, arr_strides, idx_strides):
    for i in range(cuda.grid(1), dout.size, cuda.gridsize(1)):
        a, p = broadcast_positions(i, ndim, shape, arr_strides, idx_strides)
        j = indices[p]
        if j < 0:
            j += n
        cuda.atomic.add(out, a + j * axis_stride, dout[i])


@cuda.jit(cache=True)
def _one_hot(labels, out, num_classes):
    for i in range(cuda.grid(1), labels.size, cuda.gridsize(1)):
        label = labels[i]
        if 0 <= label < num_classes:
            out[i * num_classes + label] = 1.0


@cuda.jit(cache=True)
def _embedding(ids, weight, out, dim, padding_idx, zero):
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        row = ids[i // dim]
        if padding_idx >= 0 and row == padding_idx:
            out[i] = zero  # Paddle: the padding id reads as a zero row
        else:
            out[i] = weight[row * dim + i % dim]


@cuda.jit(cache=True)
def _embedding_add(dout, ids, out, dim, padding_idx):
    for i in range(cuda.grid(1), dout.size, cuda.gridsize(1)):
        row = ids[i // dim]
        if padding_idx < 0 or row != padding_idx:  # the padding row's gradient stays 0
            cuda.atomic.add(out, row * dim + i % dim, dout[i])


# ---- x[index]: the plan of a view plus a table ---------------------------------------------------
def _index_plan(shape: tuple, items: tuple, advanced):
    """(offset, out dims as (size, stride) pairs, table, at): what x[items] reads.

    `table` (host int64, the advanced dims' shape) holds the offsets the advanced indices add, or is
    None for basic indexing; the advanced dims go in the output at dim `at` (numpy's rule: where the
    first advanced index is when they are adjacent, else first)."""
    strides = broadcast.contiguous_strides(shape)
    advanced_items = has_advanced(items)
    rows = advanced.copy_to_host() if advanced_items else None
    table = np.zeros(rows.shape[1:], np.int64) if advanced_items else None
    offset, dims, positions, at = 0, [], [], None
    axis = row = 0
    for pos, item in enumerate(items):
        if item is None:
            dims.append((1, 0))
            continue
        if item == SEPARATOR:  # an empty Ellipsis between advanced items: reads no axis
            continue
        if isinstance(item, str):  # ADVANCED, or a Python bool ("true"/"false": it reads no axis of x)
            if at is None:
                at = len(dims)
            positions.append(pos)
            if item == ADVANCED:
                table += _checked(rows[row], shape[axis], axis) * strides[axis]
                axis += 1
            row += 1
            continue
        n = shape[axis]
        if isinstance(item, int):
            offset += (item + n if item < 0 else item) * strides[axis]
            if advanced_items:  # an int among advanced indices joins them (numpy's rule)
                if at is None:
                    at = len(dims)
                positions.append(pos)
        else:
            start, stop, step = slice(*item).indices(n)
            size = len(range(start, stop, step))
            dims.append((size, step * strides[axis]))
            if size:
                offset += start * strides[axis]
        axis += 1
    dims.extend((shape[d], strides[d]) for d in range(axis, len(shape)))
    if advanced_items and positions[-1] - positions[0] != len(positions) - 1:
        at = 0  # numpy: separated advanced indices put their dims first
    return offset, dims, table, at


def _checked(rows: np.ndarray, n: int, axis: int) -> np.ndarray:
    """An index row as non-negative positions, after checking every value lies in the axis."""
    if rows.size:
        lo, hi = int(rows.min()), int(rows.max())
        if lo < -n:
            raise out_of_range("getitem", lo, f"axis {axis}", n, -n)
        if hi >= n:
            raise out_of_range("getitem", hi, f"axis {axis}", n, -n)
    return np.where(rows < 0, rows + n, rows)


def _table_launch(dims: list, table: np.ndarray, at: int) -> tuple:
    """Kernel arguments for a view whose dim `at` is the table's block: out shape, table, inner, view."""
    before, after = dims[:at], dims[at:]
    out_shape = tuple(s for s, _ in before) + tuple(table.shape) + tuple(s for s, _ in after)
    inner = int(np.prod([s for s, _ in after], dtype=np.int64))
    sizes = [s for s, _ in before] + [table.size] + [s for s, _ in after]
    steps = [t for _, t in before] + [0] + [t for _, t in after]
    merged, (merged_steps,) = broadcast.coalesce(tuple(sizes), tuple(steps))
    view = (len(merged), broadcast.padded(merged, 1), broadcast.padded(merged_steps, 0))
    return out_shape, cuda.to_device(table.reshape(-1)), max(inner, 1), view


def getitem(x, advanced, index=()):
    """x[index]: a view when basic and contiguous (as numpy's), else a new array."""
    shape = tuple(x.shape)
    offset, dims, table, at = _index_plan(shape, index, advanced)
    if table is None:
        return view_or_copy(x, offset, tuple(s for s, _ in dims), tuple(t for _, t in dims))
    out_shape, table, inner, view = _table_launch(dims, table, at)
    out = cuda.device_array(out_shape, x.dtype)
    if out.size:
        launch(_pick_with_table, blocks_for(out.size), THREADS, flat(x, x.size), offset, table, inner,
               flat(out, out.size), *view)
    return out


def getitem_grad(dout, advanced, index=(), shape=()):
    """Zeros of x's shape with dout added where x[index] read (a repeated index adds up)."""
    shape = tuple(shape)
    if np.dtype(dout.dtype) == np.float16 and has_advanced(index):
        return astype(getitem_grad(astype(dout, np.float32), advanced, index, shape), np.float16)
    offset, dims, table, at = _index_plan(shape, index, advanced)
    out = zeros(shape, dout.dtype)
    if table is None:  # basic indexing reads each element at most once: a plain write
        strided_write(dout, out, offset, tuple(t for _, t in dims))
        return out
    _, table, inner, view = _table_launch(dims, table, at)
    if dout.size:
        launch(_add_with_table, blocks_for(dout.size), THREADS, flat(dout, dout.size), offset, table, inner,
               flat(out, out.size), *view)
    return out


def index_put(x, value, advanced, index=()):
    """x[index] = value on a copy of x: value broadcast to the selected region, then written there.

    A position selected twice by an advanced index is written by whichever thread runs last (numpy
    writes the last occurrence; Paddle's GPU kernel, like this one, leaves the order undefined)."""
    offset, dims, table, at = _index_plan(tuple(x.shape), index, advanced)
    out = copy(x)
    if table is None:
        region = tuple(s for s, _ in dims)
        strided_write(_broadcast_to(value, region), out, offset, tuple(t for _, t in dims))
        return out
    region, table, inner, view = _table_launch(dims, table, at)
    value = _broadcast_to(value, region)
    if value.size:
        launch(_put_with_table, blocks_for(value.size), THREADS, flat(value, value.size), offset, table, inner,
               flat(out, out.size), *view)
    return out


def _broadcast_to(value, shape: tuple):
    return value if tuple(value.shape) == shape else broadcast_to(value, shape)


# ---- gather, index_select, gather_nd --------------------------------------------------------
def gather(x, index, axis=0):
    """Entries of x along `axis` at the positions in the 0-D or 1-D index (also index_select's kernel)."""
    return take_along(x, index, axis, tuple(index.shape))


def gather_grad(dout, index, axis=0, shape=()):
    return add_along(dout, index, axis, tuple(shape))


def _nd_launch(x_shape: tuple, index) -> tuple:
    k = tuple(index.shape)[-1]
    strides = broadcast.contiguous_strides(x_shape)
    inner = int(np.prod(x_shape[k:], dtype=np.int64))
    return k, broadcast.padded(strides[:k], 0), inner


def gather_nd(x, index):
    """out[m, ...] = x[index[m, 0], ..., index[m, k-1], ...] (k = index's last dim)."""
    x_shape, index_shape = tuple(x.shape), tuple(index.shape)
    k, strides, inner = _nd_launch(x_shape, index)
    out = cuda.device_array(index_shape[:-1] + x_shape[k:], x.dtype)
    if out.size:
        launch(_gather_nd, blocks_for(out.size), THREADS, flat(x, x.size), flat(index, index.size), flat(out, out.size),
               k, strides, inner)
    return out


def gather_nd_grad(dout, index, shape=()):
    shape = tuple(shape)
    if np.dtype(dout.dtype) == np.float16:
        return astype(gather_nd_grad(astype(dout, np.float32), index, shape), np.float16)
    k, strides, inner = _nd_launch(shape, index)
    out = zeros(shape, dout.dtype)
    if dout.size:
        launch(_gather_nd_add, blocks_for(dout.size), THREADS, flat(dout, dout.size), flat(index, index.size),
               flat(out, out.size), k, strides, inner)
    return out


# ---- scatter --------------------------------------------------------------------------------
def scatter(x, index, updates, overwrite=True):
    """x with rows `index` replaced by updates (overwrite=False: each such row is the sum of its updates).

    With a repeated index and overwrite=True, which update lands is not defined on the GPU (as Paddle's)."""
    out = copy(x)
    if not updates.size:
        return out
    inner = int(np.prod(tuple(x.shape)[1:], dtype=np.int64))
    blocks = blocks_for(updates.size)
    rows = flat(index, index.size)
    if overwrite:
        launch(_put_rows, blocks, THREADS, flat(updates, updates.size), rows, flat(out, out.size), inner)
        return out
    launch(_put_rows, blocks, THREADS, flat(zeros(tuple(updates.shape), updates.dtype), updates.size), rows,
           flat(out, out.size), inner)
    if np.dtype(out.dtype) == np.float16:  # no float16 atomics: add in float32
        return astype(_scatter_add(astype(out, np.float32), rows, astype(updates, np.float32)), np.float16)
    return _scatter_add(out, rows, updates)


def _scatter_add(out, rows, updates):
    from .strided import _add_along
    inner = out.size // out.shape[0]
    launch(_add_along, blocks_for(updates.size), THREADS, flat(updates, updates.size), rows, flat(out, out.size),
           out.shape[0], rows.size, inner)
    return out


# ---- take_along_axis ----------------------------------------------------------------------------
def _along_launch(arr_shape: tuple, idx_shape: tuple, out_shape: tuple, axis: int) -> tuple:
    """(n, axis stride, ndim, shape, arr strides, index strides) for walking `out_shape`.

    Off `axis`, arr is read at the output's coordinates (stride 0 where arr has size 1: broadcast);
    along `axis` its stride is 0 in the view, the coordinate coming from the index instead."""
    arr_strides = list(broadcast.broadcast_strides(arr_shape, out_shape))
    arr_strides[axis] = 0
    idx_strides = broadcast.broadcast_strides(idx_shape, out_shape)
    merged, (a, p) = broadcast.coalesce(out_shape, tuple(arr_strides), idx_strides)
    axis_stride = broadcast.contiguous_strides(arr_shape)[axis]
    return (arr_shape[axis], axis_stride, len(merged), broadcast.padded(merged, 1), broadcast.padded(a, 0),
            broadcast.padded(p, 0))


def take_along_axis(arr, indices, axis=0, broadcast=True):
    """out[..i..] = arr[..indices[..i..]..] along `axis` (the other dims broadcast when asked)."""
    arr_shape, idx_shape = tuple(arr.shape), tuple(indices.shape)
    if broadcast:
        _, idx_shape = along_axis_shapes("take_along_axis", arr_shape, idx_shape, axis, True)
    out = cuda.device_array(idx_shape, arr.dtype)
    if out.size:
        walk = _along_launch(arr_shape, tuple(indices.shape), idx_shape, axis)
        launch(_along_axis, blocks_for(out.size), THREADS, flat(arr, arr.size), flat(indices, indices.size),
               flat(out, out.size), *walk)
    return out


def take_along_axis_grad(dout, indices, axis=0, broadcast=True, shape=()):
    """Zeros of arr's (broadcast) shape with dout added at the positions that were taken."""
    shape = tuple(shape)
    if np.dtype(dout.dtype) == np.float16:
        return astype(take_along_axis_grad(astype(dout, np.float32), indices, axis, broadcast, shape), np.float16)
    out = zeros(shape, dout.dtype)
    if dout.size:
        walk = _along_launch(shape, tuple(indices.shape), tuple(dout.shape), axis)
        launch(_along_axis_add, blocks_for(dout.size), THREADS, flat(dout, dout.size), flat(indices, indices.size),
               flat(out, out.size), *walk)
    return out


# ---- one_hot, embedding ---------------------------------------------------------------------------
def one_hot(x, num_classes=1):
    """float32 rows of length num_classes with a 1 at each label."""
    out = zeros(tuple(x.shape) + (num_classes,), np.float32)
    if x.size:
        launch(_one_hot, blocks_for(x.size), THREADS, flat(x, x.size), flat(out, out.size), num_classes)
    return out


def embedding(x, weight, padding_idx=-1):
    """Rows of weight at the ids in x; the padding id (>= 0) reads as a zero row."""
    dim = weight.shape[1]
    out = cuda.device_array(tuple(x.shape) + (dim,), weight.dtype)
    if out.size:
        launch(_embedding, blocks_for(out.size), THREADS, flat(x, x.size), flat(weight, weight.size),
               flat(out, out.size), dim, padding_idx, scalar_of(weight.dtype, 0))
    return out


def embedding_grad(dout, x, num_embeddings=0, padding_idx=-1):
    """Zeros of weight's shape with each row of dout added at its id; the padding row stays 0."""
    dim = tuple(dout.shape)[-1]
    if np.dtype(dout.dtype) == np.float16:
        return astype(embedding_grad(astype(dout, np.float32), x, num_embeddings, padding_idx), np.float16)
    out = zeros((num_embeddings, dim), dout.dtype)
    if dout.size:
        launch(_embedding_add, blocks_for(dout.size), THREADS, flat(dout, dout.size), flat(x, x.size),
               flat(out, out.size), dim, padding_idx)
    return out
