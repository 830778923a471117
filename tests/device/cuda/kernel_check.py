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
    """Every output of the op's GPU kernel equals the CPU kernel's: dtype, shape and values within
    rtol/atol (0 and 0: exactly), NaNs where the CPU has them."""
    gpu, cpu = run_both(op_name, arrays, attrs or {})
    many = isinstance(cpu, tuple)
    assert isinstance(gpu, tuple) == many and (not many or len(gpu) == len(cpu)), op_name
    for g, c in zip(gpu, cpu) if many else [(gpu, cpu)]:
        got, c = g.copy_to_host(), np.asarray(c)
        assert got.dtype == c.dtype and got.shape == c.shape, (op_name, got.dtype, c.dtype, got.shape, c.shape)
        np.testing.assert_allclose(got, c, rtol=rtol, atol=atol, equal_nan=True, err_msg=f"{op_name} {attrs}")


def on_device(device: str, fn):
    """fn() with `device` current (paddle.set_device), then back on the CPU."""
    minipaddle.set_device(device)
    try:
        return fn()
    finally:
        minipaddle.set_device("cpu")


def gpu_and_cpu(fn):
    """(fn() on the GPU, fn() on the CPU): one piece of user code run on either device."""
    return on_device("gpu", fn), fn()
