"""Running sums on the GPU: cumsum (ops/reduction.py declares the op and its gradient).

x viewed as [outer, n, inner] around `axis` holds outer * inner independent lines of n elements;
one thread walks one line, front to back (or back to front: reverse=True), adding as it goes --
numpy's cumsum order, so float results match the CPU's. A line is sequential work here: the plain
form, where a parallel (Blelloch) scan would also split each long line across a block.

float16 adds up in float32 and rounds each stored sum once, as the elementwise kernels compute.
"""
from __future__ import annotations

import numpy as np
from numba import cuda

from .launch import THREADS, blocks_for, flat, launch
from .strided import axis_view, copy, reshaped, scalar_of


@cuda.jit(cache=True)
def _cumsum_lines(x, out, n, inner, reverse, zero):
    lines = out.size // n
    for line in range(cuda.grid(1), lines, cuda.gridsize(1)):
        start = (line // inner) * n * inner + line % inner  # element 0 of this line
        total = zero
        for step in range(n):
            j = n - 1 - step if reverse else step
            total += x[start + j * inner]
            out[start + j * inner] = total


def cumsum(x, axis=None, reverse=False):
    """Running sum along `axis` (None: of the flattened x), as the CPU kernel."""
    if axis is None:
        x, axis = reshaped(x, (x.size,)), 0
    shape = tuple(x.shape)
    if not shape:
        return copy(x)
    out = cuda.device_array(shape, x.dtype)
    outer, n, inner = axis_view(shape, axis % len(shape))
    if out.size:
        launch(_cumsum_lines, blocks_for(outer * inner), THREADS, flat(x, x.size), flat(out, out.size), n, inner,
               bool(reverse), scalar_of(np.dtype(x.dtype), 0))
    return out
