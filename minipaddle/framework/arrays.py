"""The few raw-array steps the autograd engine takes outside of ops, for either backend's storage.

Seeding a backward pass with ones, zero gradients for unused outputs, summing two gradients into
one and copying a gradient into a leaf's `.grad` work on the arrays directly (no Tensor, no grad
node). On the CPU they are numpy calls; on the GPU the same steps run the registry's GPU kernels.
"""
from __future__ import annotations

import numpy as np

from . import gpu
from .registry import DEVICE_ARRAY_TYPES, OPS, run_kernel


def placed_like(array: np.ndarray, like) -> object:
    """The host array `array` on the backend of the array `like` (copied to the GPU when `like` is there)."""
    return gpu.to_device(array) if type(like) in DEVICE_ARRAY_TYPES else array


def full(shape: tuple, value, dtype: np.dtype, like) -> object:
    """An array of `shape` filled with `value`, on the backend of the array `like`."""
    return placed_like(np.full(shape, value, dtype), like)


def zeros_like(array) -> object:
    """Zeros of `array`'s shape and dtype, on its backend."""
    return full(tuple(array.shape), 0, np.dtype(array.dtype), array)


def add(a, b):
    """a + b as a new array (same shape and dtype, one backend)."""
    if type(a) in DEVICE_ARRAY_TYPES:
        return run_kernel(OPS["add"], (a, b), {}, "gpu")
    return a + b


def add_into(out, b) -> None:
    """out += b, in place (a leaf's `.grad` keeps its storage across accumulations)."""
    if type(out) in DEVICE_ARRAY_TYPES:
        out.copy_to_device(run_kernel(OPS["add"], (out, b), {}, "gpu"))
    else:
        np.add(out, b, out=out)


def copy(a):
    """A new array with a's values, on a's backend."""
    if type(a) in DEVICE_ARRAY_TYPES:
        out = gpu.cuda().device_array(a.shape, a.dtype)
        out.copy_to_device(a)
        return out
    return np.array(a, copy=True)
