"""CUDA kernels that move elements through strided views: reshape & co., tile, flip, concat, stack,
split, slice, strided_slice, pad -- and their gradients.

None of these ops computes anything: each moves elements, and every move here is one of two kernels
over a *strided view* of a flat array -- an offset, a shape and per-dim strides (in elements, possibly
0 or negative), read with the shared index helper `broadcast_position` (kernels/broadcast.py):

    strided_copy:   out[i] = x[offset + position(i)]     tile, flip, slice, strided_slice, split
    strided_write:  out[offset + position(i)] = x[i]     concat, stack, strided_slice_grad, pad

Only the host-side arithmetic differs per op: which offset, shape and strides describe the view.
flip negates strides and starts at the last element; tile reads x as [r0, s0, r1, s1, ...] with
stride 0 on each repeat; slice starts at the first picked element and steps `step * stride`; concat
writes input k into the band of the output that starts at the sizes before it.

reshape, squeeze, unsqueeze and flatten cost no copy: a C-contiguous device array reshapes in place
(`.reshape` returns a view sharing the memory). slice returns such a view too when the sliced region
is contiguous (as the CPU's slice returns a numpy view).

(broadcast_to / expand / transpose are in manipulation.py.) Kernels take C-contiguous device arrays
and return new ones, with the CPU kernels' signatures.
"""
from __future__ import annotations

import builtins

import numpy as np
from numba import cuda

from .. import broadcast
from ...ops import joining as J
from ...ops import manipulation as M
from ...ops.common import normalize_axis
from .elementwise import broadcast_position
from .launch import THREADS, blocks_for, flat, launch


# ---- the kernels -------------------------------------------------------------------------------
@cuda.jit(cache=True)
def _strided_copy(x, offset, out, ndim, shape, strides):
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        out[i] = x[offset + broadcast_position(i, ndim, shape, strides)]


@cuda.jit(cache=True)
def _strided_write(x, out, offset, ndim, shape, strides):
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        out[offset + broadcast_position(i, ndim, shape, strides)] = x[i]


@cuda.jit(cache=True)
def _fill(out, value):
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        out[i] = value


@cuda.jit(cache=True)
def _take_along(x, index, out, n, k, inner):
    # x viewed as [outer, n, inner], out as [outer, k, inner]: out[o, j, r] = x[o, index[j], r]
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        r = i % inner
        j = (i // inner) % k
        o = i // (inner * k)
        out[i] = x[(o * n + index[j]) * inner + r]


@cuda.jit(cache=True)
def _add_along(dout, index, out, n, k, inner):
    # the transpose of _take_along: out[o, index[j], r] += dout[o, j, r]; repeated indices add up
    for i in range(cuda.grid(1), dout.size, cuda.gridsize(1)):
        r = i % inner
        j = (i // inner) % k
        o = i // (inner * k)
        cuda.atomic.add(out, (o * n + index[j]) * inner + r, dout[i])


# ---- host side: launching on strided views ---------------------------------------------------------
def _launch_view(shape: tuple, strides: tuple) -> tuple:
    """(ndim, padded shape, padded strides) of a view, its neighbouring dims merged (broadcast.coalesce)."""
    merged, (merged_strides,) = broadcast.coalesce(tuple(shape), tuple(strides))
    return len(merged), broadcast.padded(merged, 1), broadcast.padded(merged_strides, 0)


def strided_copy(x, offset: int, shape: tuple, strides: tuple):
    """A new C-contiguous array of `shape` holding x's view (offset, strides); x is C-contiguous."""
    out = cuda.device_array(tuple(shape), x.dtype)
    n = out.size
    if n:
        ndim, dims, steps = _launch_view(shape, strides)
        launch(_strided_copy, blocks_for(n), THREADS, flat(x, x.size), offset, flat(out, n), ndim, dims, steps)
    return out


def strided_write(x, out, offset: int, strides: tuple) -> None:
    """Write x (C-contiguous) into the view (offset, x.shape, strides) of the C-contiguous `out`."""
    n = x.size
    if n:
        ndim, dims, steps = _launch_view(tuple(x.shape), strides)
        launch(_strided_write, blocks_for(n), THREADS, flat(x, n), flat(out, out.size), offset, ndim, dims, steps)


def copy(x):
    """A new C-contiguous copy of x."""
    return strided_copy(x, 0, tuple(x.shape), broadcast.contiguous_strides(tuple(x.shape)))


def full(shape: tuple, value, dtype):
    """A new device array of `shape` filled with `value`."""
    out = cuda.device_array(tuple(shape), dtype)
    if out.size:
        launch(_fill, blocks_for(out.size), THREADS, flat(out, out.size), scalar_of(dtype, value))
    return out


def scalar_of(dtype, value):
    """`value` as a kernel argument for arrays of `dtype`: float16 goes as float32 (stored rounded),
    as the elementwise kernels pass their float16 attributes."""
    dtype = np.dtype(dtype)
    return np.float32(value) if dtype == np.float16 else dtype.type(value)


def zeros(shape: tuple, dtype):
    return full(shape, 0, dtype)


def is_contiguous(shape: tuple, strides: tuple) -> bool:
    """Whether a view with these strides is C-contiguous (size-1 dims may have any stride)."""
    expected = 1
    for size, stride in zip(reversed(shape), reversed(strides)):
        if size == 0:
            return True
        if size != 1 and stride != expected:
            return False
        expected *= size
    return True


def view_or_copy(x, offset: int, shape: tuple, strides: tuple):
    """x's view as a device array sharing x's memory when the view is contiguous, else a copy."""
    shape = tuple(shape)
    n = int(np.prod(shape, dtype=np.int64))
    if n and is_contiguous(shape, strides):
        return reshaped(flat(x, x.size)[offset:offset + n], shape)
    return strided_copy(x, offset, shape, strides)


def reshaped(x, shape: tuple):
    """x with a new shape, sharing its memory (a C-contiguous array always reshapes in place)."""
    shape = tuple(int(n) for n in shape)
    if shape == tuple(x.shape):
        return x
    try:
        return x.reshape(shape)
    except (NotImplementedError, ValueError, TypeError):  # numba cannot view as 0-D: copy instead
        return strided_copy(x, 0, shape, broadcast.contiguous_strides(shape))


def axis_view(shape: tuple, axis: int) -> tuple:
    """(outer, n, inner): `shape` seen as three dims around `axis`."""
    outer = int(np.prod(shape[:axis], dtype=np.int64))
    inner = int(np.prod(shape[axis + 1:], dtype=np.int64))
    return outer, shape[axis], inner


def take_along(x, index, axis: int, index_shape: tuple):
    """out[..., j, ...] = x[..., index[j], ...] along `axis`; index is an int device array of index_shape."""
    shape = tuple(x.shape)
    _, n, inner = axis_view(shape, axis)
    k = index.size
    out = cuda.device_array(shape[:axis] + tuple(index_shape) + shape[axis + 1:], x.dtype)
    if out.size:
        launch(_take_along, blocks_for(out.size), THREADS, flat(x, x.size), flat(index, k), flat(out, out.size),
               n, k, inner)
    return out


def add_along(dout, index, axis: int, shape: tuple):
    """Zeros of `shape` with dout[..., j, ...] added at [..., index[j], ...]: take_along's gradient.

    CUDA adds atomically in float32/float64/int32/int64; float16 adds up in float32, rounded once."""
    shape = tuple(shape)
    dtype = np.dtype(dout.dtype)
    if dtype == np.float16:
        return astype(add_along(astype(dout, np.float32), index, axis, shape), np.float16)
    out = zeros(shape, dtype)
    _, n, inner = axis_view(shape, axis)
    k = index.size
    if dout.size:
        launch(_add_along, blocks_for(dout.size), THREADS, flat(dout, dout.size), flat(index, k), flat(out, out.size),
               n, k, inner)
    return out


def astype(x, dtype):
    from .elementwise import cast
    return cast(x, dtype)


def _strides(x) -> tuple:
    return broadcast.contiguous_strides(tuple(x.shape))


# ---- reshape, squeeze, unsqueeze, flatten: views ---------------------------------------------------
def reshape(x, shape=()):
    return reshaped(x, M.reshape_meta(x, tuple(shape)).shape)


def squeeze(x, axis=None):
    return reshaped(x, M.squeeze_meta(x, axis).shape)


def unsqueeze(x, axis=()):
    return reshaped(x, M.unsqueeze_meta(x, axis).shape)


def flatten(x, start_axis=0, stop_axis=-1):
    return reshaped(x, M.flatten_meta(x, start_axis, stop_axis).shape)


# ---- tile, flip: copies of strided views --------------------------------------------------------
def tile(x, repeat_times=()):
    """x read as [r0, s0, r1, s1, ...] with stride 0 on each repeat r_i, then viewed as [r0*s0, ...]."""
    n = max(len(x.shape), len(repeat_times))
    shape = (1,) * (n - len(x.shape)) + tuple(x.shape)
    reps = (1,) * (n - len(repeat_times)) + tuple(repeat_times)
    strides = broadcast.contiguous_strides(shape)
    pairs_shape = tuple(d for r, s in zip(reps, shape) for d in (r, s))
    pairs_strides = tuple(d for stride in strides for d in (0, stride))
    return reshaped(strided_copy(x, 0, pairs_shape, pairs_strides), tuple(r * s for r, s in zip(reps, shape)))


def flip(x, axis=()):
    """x read backwards along `axis`: a negative stride, starting from the last element."""
    shape, strides = tuple(x.shape), list(_strides(x))
    offset = 0
    for a in ({a % len(shape) for a in axis} if shape else ()):
        offset += (shape[a] - 1) * strides[a]
        strides[a] = -strides[a]
    return strided_copy(x, offset, shape, tuple(strides))


# ---- concat, stack, split, chunk ---------------------------------------------------------------
def concat(*xs, axis=0):
    """Each input written into its band of the output (one strided write per input)."""
    first = tuple(xs[0].shape)
    axis = axis % len(first)
    total = builtins.sum(x.shape[axis] for x in xs)
    out_shape = first[:axis] + (total,) + first[axis + 1:]
    out = cuda.device_array(out_shape, xs[0].dtype)
    strides = broadcast.contiguous_strides(out_shape)
    start = 0
    for x in xs:
        strided_write(x, out, start * strides[axis], strides)
        start += x.shape[axis]
    return out


def stack(*xs, axis=0):
    """Input k written at position k of the new dim `axis`."""
    shape = tuple(xs[0].shape)
    axis = axis % (len(shape) + 1)
    out_shape = shape[:axis] + (len(xs),) + shape[axis:]
    out = cuda.device_array(out_shape, xs[0].dtype)
    strides = broadcast.contiguous_strides(out_shape)
    x_strides = strides[:axis] + strides[axis + 1:]
    for k, x in enumerate(xs):
        strided_write(x, out, k * strides[axis], x_strides)
    return out


def split(x, num_or_sections=1, axis=0):
    """One strided copy per part: part k starts after the sizes of the parts before it."""
    shape = tuple(x.shape)
    axis = axis % len(shape)
    sizes = [part.shape[axis] for part in J.split_meta(x, num_or_sections, axis)]
    strides = _strides(x)
    parts, start = [], 0
    for size in sizes:
        part_shape = shape[:axis] + (size,) + shape[axis + 1:]
        parts.append(strided_copy(x, start * strides[axis], part_shape, strides))
        start += size
    return tuple(parts)


def chunk(x, chunks=1, axis=0):
    return split(x, chunks, axis)


# ---- slice, strided_slice and its gradient ----------------------------------------------------
def python_slices(shape: tuple, axes, starts, ends, strides) -> tuple:
    """One Python slice per dim (Python's clamping rules are Paddle's; infer_meta checked the axes)."""
    slices = [builtins.slice(None)] * len(shape)
    for axis, start, end, step in zip(axes, starts, ends, strides):
        slices[normalize_axis("slice", axis, len(shape))] = builtins.slice(start, end, step)
    return tuple(slices)


def slice_view(shape: tuple, slices) -> tuple:
    """(offset, shape, strides) of a C-contiguous array of `shape` indexed by one Python slice per dim."""
    strides = broadcast.contiguous_strides(shape)
    offset, out_shape, out_strides = 0, [], []
    for n, stride, s in zip(shape, strides, slices):
        start, stop, step = s.indices(n)
        size = len(range(start, stop, step))
        out_shape.append(size)
        out_strides.append(step * stride)
        if size:
            offset += start * stride
    return offset, tuple(out_shape), tuple(out_strides)


def slice(x, axes=(), starts=(), ends=()):  # noqa: A001 - the op's name
    """A view of x when the sliced region is contiguous (as the CPU's numpy view), else a copy."""
    shape = tuple(x.shape)
    return view_or_copy(x, *slice_view(shape, python_slices(shape, axes, starts, ends, (1,) * len(axes))))


def strided_slice(x, axes=(), starts=(), ends=(), strides=()):
    shape = tuple(x.shape)
    return strided_copy(x, *slice_view(shape, python_slices(shape, axes, starts, ends, strides)))


def strided_slice_grad(out_grad, input_shape=(), axes=(), starts=(), ends=(), strides=()):
    """Zeros of the input's shape with out_grad written where the slice read."""
    shape = tuple(input_shape)
    offset, _, view_strides = slice_view(shape, python_slices(shape, axes, starts, ends, strides))
    dx = zeros(shape, out_grad.dtype)
    strided_write(out_grad, dx, offset, view_strides)
    return dx


# ---- pad and its gradient ---------------------------------------------------------------------
def pad_source(n: int, before: int, after: int, mode: str) -> np.ndarray:
    """For each position of a padded dim, the position of x it copies: the CPU's pad of 0..n-1 itself."""
    return J.pad_kernel(np.arange(n, dtype=np.int64), ((before, after),), mode)


def pad(x, paddings=(), mode="constant", value=0.0):
    """constant: fill, then write x inside; other modes: one gather per padded dim (its source index)."""
    shape = tuple(x.shape)
    if not shape:
        return copy(x)
    if mode == "constant":
        out_shape = tuple(n + b + a for n, (b, a) in zip(shape, paddings))
        out = full(out_shape, value, x.dtype)
        strides = broadcast.contiguous_strides(out_shape)
        strided_write(x, out, builtins.sum(b * s for (b, _), s in zip(paddings, strides)), strides)
        return out
    out = x
    for axis, (before, after) in enumerate(paddings):
        if before or after:
            source = pad_source(shape[axis], before, after, mode)
            out = take_along(out, cuda.to_device(source), axis, source.shape)
    return copy(x) if out is x else out


def pad_grad(out_grad, paddings=(), mode="constant"):
    """pad's transpose: the inside (constant), or each padded cell's gradient added into the cell it copied."""
    shape = tuple(out_grad.shape)
    if mode == "constant" or not shape:
        index = tuple(builtins.slice(b, n - a) for n, (b, a) in zip(shape, paddings))
        return strided_copy(out_grad, *slice_view(shape, index))
    g = out_grad
    for axis, (before, after) in enumerate(paddings):
        if before or after:
            g_shape = tuple(g.shape)
            n = g_shape[axis] - before - after
            source = pad_source(n, before, after, mode)
            g = add_along(g, cuda.to_device(source), axis, g_shape[:axis] + (n,) + g_shape[axis + 1:])
    return copy(out_grad) if g is out_grad else g
