"""Copying CUDA kernels: broadcast_to / expand / expand_as and transpose.

GPU storage is always C-contiguous, so where the CPU returns a numpy view (transpose) or a broadcast
copy, the GPU gathers into a new array: element i of the output reads x through strides -- x's own
strides permuted (transpose) or 0 along the broadcast dims (broadcast_to) -- with the shared index
helper of kernels/broadcast.py. One gather kernel (reduction.permute_copy) serves both.
"""
from __future__ import annotations

from numba import cuda

from .. import broadcast
from .elementwise import assign
from .launch import THREADS, blocks_for, flat, launch
from .reduction import permute, permute_copy


def _target_shape(x_shape: tuple, shape: tuple) -> tuple:
    """`shape` with each -1 replaced by x's size there (dims aligned on the right), as the CPU kernel."""
    offset = len(shape) - len(x_shape)
    return tuple(x_shape[i - offset] if n == -1 else n for i, n in enumerate(shape))


def broadcast_to(x, shape=()):
    """A new array of `shape` holding x broadcast (numpy's rules)."""
    target = _target_shape(tuple(x.shape), tuple(shape))
    out = cuda.device_array(target, x.dtype)
    if out.size == 0:
        return out
    merged, (strides,) = broadcast.coalesce(target, broadcast.broadcast_strides(tuple(x.shape), target))
    launch(permute_copy, blocks_for(out.size), THREADS, flat(x, x.size), flat(out, out.size), len(merged),
           broadcast.padded(merged, 1), broadcast.padded(strides, 0))
    return out


def expand(x, shape=()):
    return broadcast_to(x, shape)


def expand_as(x, y):
    return broadcast_to(x, tuple(y.shape))


def transpose(x, perm=()):
    """A C-contiguous copy of x with its axes in the order `perm`."""
    if len(x.shape) == 0:
        return assign(x)
    return permute(x, tuple(int(p) for p in perm))
