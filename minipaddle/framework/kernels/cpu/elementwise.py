"""Elementwise CPU kernels built from scalar primitives: numba loops, compiled lazily, cached on disk.

A primitive is a plain Python function of scalars (framework/ops/primitives.py).
`ElementwiseKernel(primitives.gelu, FLOAT_UNARY)` compiles nothing until its first call; then
numba compiles one small loop that applies the primitive to every element, with the primitive
inlined, and stores the machine code in __pycache__ so a new process loads it in milliseconds.
The CUDA backend builds its kernel from the same primitive: one definition, every device, and so
does elementwise_parallel.py (the same loops with `prange`: a candidate for the autotuner).

Why loops and not `numba.vectorize`: a vectorized ufunc rebuilds its C wrapper in every new
process (~50 ms per dtype, which numba does not cache); a cached @njit loop loads in ~5-20 ms.
"""
from __future__ import annotations

import hashlib
import inspect
import types

import numpy as np

FLOAT_UNARY = ("float32(float32)", "float64(float64)")
FLOAT_BINARY = ("float32(float32, float32)", "float64(float64, float64)")
NUMERIC_UNARY = ("int32(int32)", "int64(int64)") + FLOAT_UNARY
NUMERIC_BINARY = ("int32(int32, int32)", "int64(int64, int64)") + FLOAT_BINARY


# Loop templates, one per argument pattern ("a" an array, "s" a scalar). Each op gets its own
# copy of one of these with `primitive` bound to that op's primitive (see ElementwiseKernel._loop).
def _loop_a(x, out):
    for i in range(out.size):
        out[i] = primitive(x[i])  # noqa: F821 - bound per op


def _loop_aa(x, y, out):
    for i in range(out.size):
        out[i] = primitive(x[i], y[i])  # noqa: F821 - bound per op


def _loop_as(x, a, out):
    for i in range(out.size):
        out[i] = primitive(x[i], a)  # noqa: F821 - bound per op


def _loop_ass(x, a, b, out):
    for i in range(out.size):
        out[i] = primitive(x[i], a, b)  # noqa: F821 - bound per op


_TEMPLATES = {"a": _loop_a, "aa": _loop_aa, "as": _loop_as, "ass": _loop_ass}


def _parse_signature(sig: str) -> tuple[np.dtype, np.dtype]:
    """'float32(float32, float32)' -> (input dtype, output dtype)."""
    out, _, args = sig.partition("(")
    first = args.split(",")[0].strip(" )")
    name = {"boolean": "bool"}
    return np.dtype(name.get(first, first)), np.dtype(name.get(out, out))


class ElementwiseKernel:
    """A numba kernel applying `primitive` elementwise; `signatures` say which dtypes it serves.

    Subclasses swap the loop templates and numba's options (elementwise_parallel.py: prange loops).
    """

    TEMPLATES = _TEMPLATES
    # numpy's error model: x / 0 gives inf or nan, as numpy's ufunc (the default kernel) does; Python's
    # would raise ZeroDivisionError from inside the loop
    JIT_OPTIONS: dict = {"nogil": True, "error_model": "numpy"}
    SUFFIX = ""  # tells this kind's cached loops apart from the others' in __pycache__

    def __init__(self, primitive, signatures) -> None:
        self.primitive = primitive
        self.signatures = tuple(signatures)
        self.out_dtype = dict(_parse_signature(s) for s in self.signatures)
        self._loops: dict[str, object] = {}

    def _loop(self, pattern: str):
        """This op's copy of the loop template, jitted with the primitive inlined."""
        loop = self._loops.get(pattern)
        if loop is None:
            from numba import njit
            # The cache file is named after the qualname; the primitive's source hash in it
            # makes an edited primitive compile afresh instead of loading a stale loop.
            source = inspect.getsource(self.primitive).encode()
            tag = hashlib.sha1(source).hexdigest()[:10]
            template = self.TEMPLATES[pattern]
            names = {"primitive": njit(inline="always")(self.primitive), **self._template_globals()}
            fn = types.FunctionType(template.__code__, names, f"{self.primitive.__name__}_{pattern}")
            fn.__qualname__ = f"{self.primitive.__name__}_{pattern}{self.SUFFIX}_{tag}"
            fn.__module__ = template.__module__
            loop = self._loops[pattern] = njit(cache=True, **self.JIT_OPTIONS)(fn)
        return loop

    def _template_globals(self) -> dict:
        """Names the templates use besides `primitive` (called when the first loop compiles)."""
        return {}

    def __call__(self, x: np.ndarray, *rest):
        out_dtype = self.out_dtype.get(x.dtype)
        if out_dtype is None:
            raise TypeError(f"{self.primitive.__name__}: no loop for dtype {x.dtype}; have {self.signatures}")
        if rest and isinstance(rest[0], np.ndarray):
            y = rest[0]
            if y.shape != x.shape:
                x, y = np.broadcast_arrays(x, y)
            shape = x.shape
            args = (np.ascontiguousarray(x).reshape(-1), np.ascontiguousarray(y, dtype=x.dtype).reshape(-1))
            pattern = "aa"
        else:
            shape = x.shape
            args = (np.ascontiguousarray(x).reshape(-1), *rest)
            pattern = "a" + "s" * len(rest)
        out = np.empty(args[0].size, out_dtype)
        self._loop(pattern)(*args, out)
        return out.reshape(shape)

    @property
    def __wrapped__(self):  # inspect.unwrap lands on the primitive: its source is the kernel's math
        return self.primitive


def upcast_float16(kernel):
    """Run a float32 kernel for float16 inputs (numba has no float16 math on the CPU)."""
    return compute_in_float32(kernel, np.dtype(np.float16))


def upcast_bfloat16(kernel):
    """Run a float32 kernel for bfloat16 inputs: each input is widened to float32 (exactly: bfloat16 is
    float32 with the low 16 bits of mantissa dropped), the kernel computes in float32, and the result is
    rounded back to bfloat16 (round to nearest even). So a bfloat16 op is the float32 op rounded once,
    as on hardware that computes bfloat16 in float32 units; a sum or matmul accumulates in float32."""
    from ...dtype import BFLOAT16_NP
    return compute_in_float32(kernel, BFLOAT16_NP)


def compute_in_float32(kernel, narrow: np.dtype):
    """`kernel` for inputs of the narrow float dtype `narrow`: widen to float32, compute, round back."""
    def narrow_kernel(*arrays, **attrs):
        wide = [a.astype(np.float32) if isinstance(a, np.ndarray) and a.dtype == narrow else a
                for a in arrays]
        out = kernel(*wide, **attrs)
        if isinstance(out, tuple):
            return tuple(o.astype(narrow) if o.dtype == np.float32 else o for o in out)
        out = np.asarray(out)
        return out.astype(narrow) if out.dtype == np.float32 else out
    narrow_kernel.__name__ = narrow_kernel.__qualname__ = f"{narrow.name}_via_float32"
    narrow_kernel.__wrapped__ = kernel
    return narrow_kernel
