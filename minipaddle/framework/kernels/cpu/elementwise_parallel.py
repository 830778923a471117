"""Parallel elementwise CPU kernels: the serial loops of elementwise.py, with `prange`.

The same scalar primitive (framework/ops/primitives.py) is inlined into a loop whose iterations
numba's thread pool splits between the cores (`parallel=True`), so each element is computed by
exactly the same machine code as in the serial loop: the results are bitwise identical, only
the order in which elements are written differs.

Threads pay only for big arrays. Starting a parallel region costs some microseconds (waking the
pool, splitting the range), which a 1k-element add (~1 us of work) never earns back, while a
4M-element gelu (tens of ms of erf) runs up to `cores` times faster. So these kernels are
registered at the lowest priority, never the default: the autotuner times them beside the
serial/numpy kernels per shape class (dims bucketed by powers of two, so small and large arrays
are decided apart) and picks them only where they measured faster.

Like the serial loops, nothing is compiled before the first call, and the machine code is cached
in __pycache__ (numba caches parallel loops too), so `import minipaddle` never imports numba.
"""
from __future__ import annotations

from .elementwise import ElementwiseKernel


# Templates, one per argument pattern as in elementwise.py; `primitive` and `prange` are bound per op.
def _ploop_a(x, out):
    for i in prange(out.size):  # noqa: F821 - bound per op
        out[i] = primitive(x[i])  # noqa: F821 - bound per op


def _ploop_aa(x, y, out):
    for i in prange(out.size):  # noqa: F821 - bound per op
        out[i] = primitive(x[i], y[i])  # noqa: F821 - bound per op


def _ploop_as(x, a, out):
    for i in prange(out.size):  # noqa: F821 - bound per op
        out[i] = primitive(x[i], a)  # noqa: F821 - bound per op


def _ploop_ass(x, a, b, out):
    for i in prange(out.size):  # noqa: F821 - bound per op
        out[i] = primitive(x[i], a, b)  # noqa: F821 - bound per op


class ParallelElementwiseKernel(ElementwiseKernel):
    """`ElementwiseKernel` whose loop runs on numba's thread pool (same primitive, same results)."""

    TEMPLATES = {"a": _ploop_a, "aa": _ploop_aa, "as": _ploop_as, "ass": _ploop_ass}
    # numpy's error model: x / 0 gives inf/nan as numpy's ufunc (the default kernel) does, instead of
    # raising ZeroDivisionError as Python's model would (parallel loops use numpy's model anyway)
    JIT_OPTIONS = {"parallel": True, "nogil": True, "error_model": "numpy"}
    SUFFIX = "_parallel"

    def _template_globals(self) -> dict:
        from numba import prange
        return {"prange": prange}
