"""Uniform draws on the CPU from Philox4x32-10 (kernels/philox.py), the generator the GPU draws with.

The dropout family (dropout, alpha_dropout, rrelu) takes its uniforms from here on the CPU and from
kernels/cuda/random.py on the GPU: the same functions, the same key from paddle.seed's generator,
the same element order -- so a seeded model drops the same units on either device.

    key0, key1 = new_key()                  # one draw's key, from paddle.seed's generator
    u = uniforms24(n, key0, key1)           # n floats in [0, 1), 24 random bits each
"""
from __future__ import annotations

import numba
import numpy as np

from ... import creation
from .. import philox

_philox4x32 = numba.njit(cache=True)(philox.philox4x32)
_unit24 = numba.njit(cache=True)(philox.unit24)


def new_key() -> tuple:
    """A fresh Philox key (two 32-bit words) from paddle.seed's generator."""
    key = int(creation.generator().integers(0, 1 << 63))
    return np.uint64(key & 0xFFFFFFFF), np.uint64(key >> 32)


@numba.njit(cache=True)
def _fill_uniforms24(out, key0, key1):
    n = out.size
    for group in range((n + 3) // 4):
        w0, w1, w2, w3 = _philox4x32(np.uint64(group) & philox.LOW32, np.uint64(group) >> philox.SHIFT32,
                                     np.uint64(0), np.uint64(0), key0, key1)
        base = group * 4
        out[base] = _unit24(w0)
        if base + 1 < n:
            out[base + 1] = _unit24(w1)
        if base + 2 < n:
            out[base + 2] = _unit24(w2)
        if base + 3 < n:
            out[base + 3] = _unit24(w3)


def uniforms24(n: int, key0, key1) -> np.ndarray:
    """n float64 uniforms in [0, 1) (24 random bits each): element i is word i % 4 of Philox group i // 4."""
    out = np.empty(n, np.float64)
    if n:
        _fill_uniforms24(out, key0, key1)
    return out


def uniforms_like(shape: tuple) -> np.ndarray:
    """Uniforms of `shape` under a fresh key: what the GPU's dropout kernels draw for the same seed."""
    key0, key1 = new_key()
    return uniforms24(int(np.prod(shape, dtype=np.int64)), key0, key1).reshape(shape)
