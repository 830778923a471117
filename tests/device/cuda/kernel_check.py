"""Run an op's GPU kernel and its default CPU kernel on the same inputs, and compare."""
from __future__ import annotations

import numpy as np
from numba import cuda

import minipaddle  # noqa: F401 - registers every op and its CPU kernels
from minipaddle.framework.kernels import cuda_registry  # noqa: F401 - registers the GPU kernels
from minipaddle.framework.registry import KernelKey, get_op, kernel_fn


def run_both(op_name: str, arrays, attrs: dict):
    """(GPU result, CPU result) of the op's default kernels on the same numpy inputs."""
    op = get_op(op_name)
    dtype = arrays[op.kernel_input].dtype
    cpu = kernel_fn(op, KernelKey("cpu", dtype))(*arrays, **attrs)
    gpu = kernel_fn(op, KernelKey("gpu", dtype))(*[cuda.to_device(a) for a in arrays], **attrs)
    return gpu, cpu


def check(op_name: str, arrays, attrs: dict | None = None, rtol=1e-6, atol=1e-6):
    gpu, cpu = run_both(op_name, arrays, attrs or {})
    got = gpu.copy_to_host()
    cpu = np.asarray(cpu)
    assert got.dtype == cpu.dtype and got.shape == cpu.shape, (op_name, got.dtype, cpu.dtype, got.shape, cpu.shape)
    np.testing.assert_allclose(got, cpu, rtol=rtol, atol=atol, equal_nan=True, err_msg=f"{op_name} {attrs}")
