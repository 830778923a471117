"""kernels/cuda_registry.py: every GPU kernel is registered for sensible dtypes, its target resolves,
it accepts the op's inputs and attributes as the CPU kernel does, and importing it imports no numba."""
from __future__ import annotations

import inspect
import re
import subprocess
import sys
from pathlib import Path

import numpy as np

import minipaddle  # noqa: F401
from minipaddle.framework.kernels import cuda_registry
from minipaddle.framework.registry import OPS, LazyKernel

SOURCE = Path(cuda_registry.__file__).read_text()


def gpu_kernels():
    for op in OPS.values():
        for key, bucket in op.kernels.items():
            if key.backend == "gpu" and any(k.name == "cuda" for k in bucket):
                for kernel in (k for k in bucket if k.name == "cuda"):
                    yield op, key, kernel


def test_importing_the_registry_imports_no_numba():
    code = ("import sys, minipaddle, minipaddle.framework.kernels.cuda_registry; "
            "print(sorted(m for m in sys.modules if m == 'numba' or m.startswith('numba.') "
            "or m.startswith('minipaddle.framework.kernels.cuda.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_every_target_is_spelled_out_and_resolves_to_a_kernel():
    targets = re.findall(r'LazyKernel\("([^"]+)"\)', SOURCE)
    assert len(targets) == SOURCE.count("add_kernel(") > 80
    for _op, _key, kernel in gpu_kernels():
        assert isinstance(kernel.fn, LazyKernel) and kernel.fn.target in targets
        assert callable(kernel.fn.resolve()), kernel.fn.target


def test_each_kernel_takes_the_ops_inputs_and_attributes():
    for op, _key, kernel in gpu_kernels():
        fn = kernel.fn.resolve()
        if not inspect.isfunction(fn):  # a CudaElementwiseKernel: arrays only, no attributes
            assert not op.attrs, op.name
            continue
        inspect.signature(fn, follow_wrapped=False).bind(*op.inputs, **op.attr_defaults)


def test_dtypes_registered():
    dtypes = {}
    for op, key, _kernel in gpu_kernels():
        dtypes.setdefault(op.name, set()).add(key.dtype.name)
    assert dtypes["gelu"] == {"float16", "float32", "float64"}
    assert dtypes["add"] == {"float16", "float32", "float64", "int32", "int64"}
    assert {"int32", "int64", "bool"} <= dtypes["equal"] and {"bool"} <= dtypes["cast"] and "bool" in dtypes["where"]
    assert np.dtype("float32").name in dtypes["dropout"]
