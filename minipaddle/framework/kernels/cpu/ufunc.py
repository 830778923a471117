"""Build numba CPU ufuncs from scalar primitives, lazily and cached on disk.

A primitive is a plain Python function of scalars (see framework/ops/primitives.py).
`LazyUfunc(primitives.gelu, FLOAT_UNARY)` compiles nothing until the first call; then
numba's `vectorize(..., cache=True)` builds a real numpy ufunc and stores the machine
code next to the source, so a new process loads it instead of compiling again.
The CUDA backend builds its ufunc from the same primitive: one definition, every device.
"""
from __future__ import annotations

import numpy as np

FLOAT_UNARY = ("float32(float32)", "float64(float64)")
FLOAT_BINARY = ("float32(float32, float32)", "float64(float64, float64)")
# ints first: numpy takes the first loop it can cast to safely, and int64 -> float64 is "safe"
NUMERIC_UNARY = ("int32(int32)", "int64(int64)") + FLOAT_UNARY
NUMERIC_BINARY = ("int32(int32, int32)", "int64(int64, int64)") + FLOAT_BINARY
FLOAT_PREDICATE = ("boolean(float32)", "boolean(float64)")


class LazyUfunc:
    """A numba ufunc made from `primitive` on first use."""

    def __init__(self, primitive, signatures) -> None:
        self.primitive = primitive
        self.signatures = list(signatures)
        self._ufunc = None

    def resolve(self):
        """The compiled ufunc (compiles, or loads from numba's cache, the first time)."""
        if self._ufunc is None:
            from numba import vectorize
            self._ufunc = vectorize(self.signatures, nopython=True, cache=True)(self.primitive)
        return self._ufunc

    def __call__(self, *args, **kwargs):
        return self.resolve()(*args, **kwargs)

    @property
    def __wrapped__(self):  # inspect.unwrap lands on the primitive: its source is the kernel
        return self.primitive


def upcast_float16(kernel):
    """Run a float32 kernel for float16 inputs (numba has no float16 math on the CPU)."""
    def float16_kernel(*arrays, **attrs):
        wide = [a.astype(np.float32) if a.dtype == np.float16 else a for a in arrays]
        out = kernel(*wide, **attrs)
        if isinstance(out, tuple):
            return tuple(o.astype(np.float16) if o.dtype == np.float32 else o for o in out)
        return out.astype(np.float16) if out.dtype == np.float32 else out
    float16_kernel.__wrapped__ = kernel
    return float16_kernel
