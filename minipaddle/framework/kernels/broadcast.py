"""Broadcasting index helpers, written once as plain Python and compiled for every device.

MiniTorch's idea: the index arithmetic that maps an output element to the input elements it
reads is plain Python over shape and strides tuples, so numba compiles the same functions for
the CPU (`njit`) and as CUDA device functions (`cuda.jit(device=True)`) -- and a learner can call
them on Python ints to check them by hand:

    >>> to_index(5, (2, 3), [0, 0])            # element 5 of a 2x3 array is at [1, 2]
    [1, 2]
    >>> index_to_position([1, 2], (3, 1))      # ... which is position 5 in C order
    5
    >>> broadcast_index([1, 2], (2, 3), (1, 3), [0, 0])   # a (1, 3) input broadcast to (2, 3)
    [0, 2]

Kernels use the fused form, `broadcast_position` (`broadcast_positions` for two inputs), which goes
from an output ordinal straight to an input position without a local index array: the input's
strides are 0 along the dims it is broadcast over (`broadcast_strides`), so those dims simply do
not move it.

This module imports no numba: the kernel modules compile what they use (kernels/cuda/elementwise.py).
The host-side helpers (`broadcast_strides`, `coalesce`, `padded`) prepare the tuples a kernel takes.
"""
from __future__ import annotations

Shape = tuple   # sizes per dim, C order
Strides = tuple  # elements (not bytes) to step per dim; 0 along a broadcast dim

MAX_DIMS = 8     # kernels take shapes padded to this many dims: one compiled kernel serves every rank


# ---- index helpers: compiled for the CPU and for CUDA ----------------------------------
def index_to_position(index, strides) -> int:
    """The storage position of a multi-dim `index` in an array with `strides`."""
    position = 0
    for d in range(len(index)):
        position += index[d] * strides[d]
    return position


def to_index(ordinal, shape, out_index):
    """Fill `out_index` with the multi-dim index of element number `ordinal` (C order) of `shape`."""
    remaining = ordinal
    for d in range(len(shape) - 1, -1, -1):
        out_index[d] = remaining % shape[d]
        remaining = remaining // shape[d]
    return out_index


def broadcast_index(big_index, big_shape, shape, out_index):
    """The index into an array of `shape` that numpy's broadcasting reads for `big_index` of `big_shape`.

    Dims are aligned on the right; a dim of size 1 is read at 0 whatever the big index is."""
    offset = len(big_shape) - len(shape)
    for d in range(len(shape)):
        out_index[d] = big_index[d + offset] if shape[d] > 1 else 0
    return out_index


def broadcast_position(ordinal, ndim, shape, strides) -> int:
    """The storage position an input with `strides` reads for output element `ordinal` of `shape`.

    `to_index` and `index_to_position` fused, from the last dim to the first, so no index array is
    needed (GPU threads have no cheap local arrays); only the first `ndim` (>= 1) entries are used."""
    position = 0
    remaining = ordinal
    for d in range(ndim - 1, 0, -1):
        size = shape[d]
        position += (remaining % size) * strides[d]
        remaining = remaining // size
    return position + remaining * strides[0]  # what remains is the first dim's digit: no division


def broadcast_positions(ordinal, ndim, shape, strides_a, strides_b):
    """broadcast_position for two inputs at once: both read the same index digits, so each digit
    costs one division, not two (integer division is the expensive part of broadcasting)."""
    position_a = 0
    position_b = 0
    remaining = ordinal
    for d in range(ndim - 1, 0, -1):
        size = shape[d]
        digit = remaining % size
        remaining = remaining // size
        position_a += digit * strides_a[d]
        position_b += digit * strides_b[d]
    return position_a + remaining * strides_a[0], position_b + remaining * strides_b[0]


# ---- host side: the tuples the kernels take --------------------------------------------
def contiguous_strides(shape: Shape) -> Strides:
    """C-order strides, in elements."""
    strides = []
    step = 1
    for size in reversed(shape):
        strides.append(step)
        step *= size
    return tuple(reversed(strides))


def broadcast_strides(shape: Shape, out_shape: Shape) -> Strides:
    """Strides (in elements) that read a C-contiguous array of `shape` as if it had `out_shape`.

    >>> broadcast_strides((3, 1), (2, 3, 4))
    (0, 1, 0)
    """
    own = contiguous_strides(shape)
    offset = len(out_shape) - len(shape)
    return tuple(0 if d < offset or shape[d - offset] == 1 else own[d - offset] for d in range(len(out_shape)))


def coalesce(shape: Shape, *strides_list: Strides) -> tuple:
    """Merge neighbouring dims that every operand walks as one: fewer dims, fewer divisions per element.

    Dims d and d+1 merge when, for every operand, stride[d] == stride[d+1] * shape[d+1] (both
    contiguous there, or both broadcast). Size-1 dims are dropped.

    >>> coalesce((2, 3, 4), (12, 4, 1), (0, 0, 1))   # (2, 3, 4) + a (4,) row
    ((6, 4), ((4, 1), (0, 1)))
    """
    dims = [d for d in range(len(shape)) if shape[d] != 1]
    if not dims:
        return (1,), tuple((0,) for _ in strides_list)
    new_shape = [shape[dims[0]]]
    new_strides = [[s[dims[0]]] for s in strides_list]
    for d in dims[1:]:
        mergeable = all(ns[-1] == s[d] * shape[d] for ns, s in zip(new_strides, strides_list))
        if mergeable:
            new_shape[-1] *= shape[d]
            for ns, s in zip(new_strides, strides_list):
                ns[-1] = s[d]
        else:
            new_shape.append(shape[d])
            for ns, s in zip(new_strides, strides_list):
                ns.append(s[d])
    return tuple(new_shape), tuple(tuple(ns) for ns in new_strides)


def padded(values: tuple, fill: int) -> tuple:
    """`values` padded on the right to MAX_DIMS entries (kernels read only the first ndim)."""
    if len(values) > MAX_DIMS:
        raise ValueError(f"broadcast: {len(values)} dims after merging contiguous ones; kernels handle "
                         f"at most {MAX_DIMS}. Hint: reshape the operands to fewer dims first.")
    return tuple(values) + (fill,) * (MAX_DIMS - len(values))
