"""The fusion pass's generated kernels on the GPU: the `fused_elementwise` op's "gpu" kernel.

The fusion pass (framework/static/passes/fusion.py) writes two kernels from one description, the op's
`steps`: a numba loop for the CPU (`attrs["source"]`) and a numba.cuda kernel (`attrs["cuda_source"]`),
both by kernels/cpu/fused.py and both calling the same scalar primitives (ops/primitives.py). Writing
the CUDA text needs no GPU; this module compiles it -- saved to the same cache folder as the CPU
kernels and imported from there, so numba's `cache=True` keeps the machine code for the next process --
and launches it, one element per thread:

    @cuda.jit(cache=True)
    def fused_<hash>_cuda(x0, x1, out0):
        s1 = x1[0]                                  # a one-element input, read once per thread
        for i in range(cuda.grid(1), out0.size, cuda.gridsize(1)):
            t0 = np.float32(prim_multiply(x0[i], s1))
            out0[i] = t0

Inputs are taken as the CPU kernel takes them (`fit_inputs`): full-size and one-element inputs as they
are, a row (a bias) read as `x[i % row]`, any other broadcast expanded on the device first. Inputs that
do not fit run the original ops one by one with their own GPU kernels, so the answer is always the
unfused one.
"""
from __future__ import annotations

import re
from typing import Callable

import numpy as np
from numba import cuda

from ..cpu.fused import fit_inputs, load_kernel, row_sum_axes, run_unfused
from .launch import THREADS, blocks_for, launch
from .manipulation import broadcast_to

_BY_SOURCE: dict[str, Callable] = {}   # generated CUDA source -> its compiled kernel


def load_cuda_kernel(cuda_source: str) -> Callable:
    """The compiled kernel of a generated CUDA source (compiled once per source and process)."""
    fn = _BY_SOURCE.get(cuda_source)
    if fn is None:
        name = re.search(r"^def (fused_\w+)\(", cuda_source, re.M).group(1)
        fn = _BY_SOURCE[cuda_source] = load_kernel(name, cuda_source)
    return fn


def _expand_device(a, shape: tuple):
    return broadcast_to(a, shape)


def _constant(value: float, dtype):
    return cuda.to_device(np.array(value, dtype))


def fused_elementwise_kernel(*arrays, kernel_name: str = "", source: str = "", cuda_source: str = "",
                             expression: str = "", input_kinds=(), steps=(), outputs=(), dtype=None, row_sums=(),
                             row_dims=1, row_axes=(), row_keepdim=False, product=(), out=None):
    """Launch the generated CUDA kernel on device arrays; `out`: device arrays (the output shape and
    dtype) to store into instead of new ones (the Executor's buffer_reuse pool passes them). Row sums
    (a bias gradient) are summed by the device's sum kernel after the loop: the CPU loop accumulates
    them in the same pass, a GPU thread owns one element and no row."""
    dt = np.dtype(dtype)
    fitted = fit_inputs(arrays, input_kinds, dt, _expand_device, product) if cuda_source else None
    if fitted is None:
        result = run_unfused(arrays, steps, outputs, dt, backend="gpu", constant=_constant)
        if out is not None:
            for o, r in zip(out, result):
                o.copy_to_device(r)
            result = tuple(out)
    else:
        shape, flat = fitted
        result = tuple(out) if out is not None else tuple(cuda.device_array(shape, dt) for _ in outputs)
        n = int(np.prod(shape))
        if n:
            launch(load_cuda_kernel(cuda_source), blocks_for(n), THREADS, *flat, *(o.reshape(n) for o in result))
    if row_sums:
        result += tuple(_row_sum(result[j], row_dims, row_axes, row_keepdim, dt) for j in row_sums)
    return result[0] if len(result) == 1 else result


def _row_sum(a, row_dims: int, row_axes, keepdim: bool, dtype):
    from ...registry import KernelKey, get_op, kernel_fn
    axes = row_sum_axes(len(a.shape), row_dims, row_axes)
    return kernel_fn(get_op("sum"), KernelKey("gpu", dtype))(a, axis=axes, keepdim=keepdim, dtype=None)
