"""The few raw-array steps the autograd engine takes outside of ops, for either backend's storage.

Seeding a backward pass with ones, zero gradients for unused outputs, summing two gradients into
one and copying a gradient into a leaf's `.grad` work on the arrays directly (no Tensor, no grad
node). On the CPU they are numpy calls; on the GPU the same steps run the registry's GPU kernels.
"""
from __future__ import annotations

import numpy as np

from . import gpu
from .registry import OPS, run_kernel


def full(shape: tuple, value, dtype: np.dtype, like) -> object:
    """An array of `shape` filled with `value`, on the backend of the array `like`."""
    array = np.full(shape, value, dtype)
    return array if type(like) is np.ndarray else gpu.to_device(array)


def add(a, b):
    """a + b as a new array (same shape and dtype, one backend)."""
    if type(a) is np.ndarray:
        return a + b
    return run_kernel(OPS["add"], (a, b), {}, "gpu")


def add_into(out, b) -> None:
    """out += b, in place (a leaf's `.grad` keeps its storage across accumulations)."""
    if type(out) is np.ndarray:
        np.add(out, b, out=out)
    else:
        out.copy_to_device(run_kernel(OPS["add"], (out, b), {}, "gpu"))


def copy(a):
    """A new array with a's values, on a's backend."""
    if type(a) is np.ndarray:
        return np.array(a, copy=True)
    out = gpu.cuda().device_array(a.shape, a.dtype)
    out.copy_to_device(a)
    return out
