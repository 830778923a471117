"""Parallel elementwise CPU kernels: the serial loops of elementwise.py, with `prange`.

The same scalar primitive (framework/ops/primitives.py) is inlined into a loop whose iterations
numba's thread pool splits between the cores (`parallel=True`), so each element is computed by
exactly the same machine code as in the serial loop: the results are bitwise identical, only
the order in which elements are written differs.

Threads pay only for big arrays. Starting a parallel region costs microseconds (waking the pool,
splitting the range), which a 1k-element add (~1 us of work) never earns back, so below
MIN_PARALLEL_SIZE elements the kernel runs the serial loop of the same primitive and starts no
thread at all. Above it, a 4M-element add or gelu can run up to `cores` times faster -- or much
slower on a machine whose cores are busy. So these kernels are registered at the lowest priority,
never the default: the autotuner times them beside the serial/numpy kernels per shape class (dims
bucketed by powers of two, so small and large arrays are decided apart) and runs them only where
they measured faster.

Threads that fight: numba's OpenMP threads spin-wait for more work after a parallel loop, and
OpenBLAS's threads do the same after a BLAS call; on 2 cores each then stalls the other (measured:
a 128x784 @ 784x256 BLAS call right after a parallel 1k add took 11.7 ms instead of 0.32 ms). The
autotuner times each op alone and cannot see that, so before numba's OpenMP runtime starts this
module sets OMP_WAIT_POLICY=PASSIVE (unless the user set it): the threads sleep as soon as a loop
ends, and the same BLAS call took 0.32-0.45 ms after a parallel add. It is set when the first
parallel loop is built; an OpenMP runtime that was already running keeps its own policy.

Like the serial loops, nothing is compiled before the first call, and the machine code is cached
in __pycache__ (numba caches parallel loops too), so `import minipaddle` never imports numba.
"""
from __future__ import annotations

import os

import numpy as np

from .elementwise import ElementwiseKernel

MIN_PARALLEL_SIZE = 1 << 16  # below this many output elements the serial loop runs (no threads started)


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
    JIT_OPTIONS = {**ElementwiseKernel.JIT_OPTIONS, "parallel": True}
    SUFFIX = "_parallel"

    def __init__(self, primitive, signatures) -> None:
        super().__init__(primitive, signatures)
        self.serial = ElementwiseKernel(primitive, signatures)  # for small arrays: bitwise the same results

    def _template_globals(self) -> dict:
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # before numba starts OpenMP: see the docstring
        from numba import prange
        return {"prange": prange}

    def __call__(self, x: np.ndarray, *rest):
        size = x.size
        if rest and isinstance(rest[0], np.ndarray) and rest[0].shape != x.shape:
            size = np.broadcast(x, rest[0]).size
        if size < MIN_PARALLEL_SIZE:
            return self.serial(x, *rest)
        return super().__call__(x, *rest)
