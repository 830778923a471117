"""The fusion pass writes the CUDA kernel's source beside the CPU loop's, from the same steps, without a GPU:
writing the text imports no numba.cuda (compiling it, on the GPU, does)."""
from __future__ import annotations

import subprocess
import sys

import pytest

import minipaddle as paddle
import minipaddle.nn.functional as F
from minipaddle import static
from minipaddle.framework.errors import InvalidArgument
from minipaddle.framework.kernels.cpu.fused_codegen import generate_cuda_source
from minipaddle.framework.static.passes import fuse_elementwise, fused_source
from minipaddle.framework.static.passes.fusion import fused_cuda_source
from minipaddle.visualizer.program import op_to_dict


def _fused_op(dtype="float32"):
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            x = static.data("x", [4, 6], dtype)
            b = static.data("b", [6], dtype)
            s = static.data("s", [1], dtype)
            out = F.gelu(x * s) + b
    finally:
        paddle.disable_static()
    fused, _ = fuse_elementwise(main, fetch_list=[out])
    (op,) = [op for op in fused.global_block().ops if op.type == "fused_elementwise"]
    return op


def test_the_op_carries_both_sources_from_one_description():
    op = _fused_op()
    cuda_source = fused_source(op, device="gpu")
    assert cuda_source == fused_cuda_source(op) == op.attrs["cuda_source"]
    assert fused_source(op) == fused_source(op, device="cpu") == op.attrs["source"]
    assert op.attrs["input_kinds"] == ["a", "s", "r"]
    assert "@cuda.jit(cache=True)" in cuda_source and "from numba import cuda" in cuda_source
    assert "for i in range(cuda.grid(1), out0.size, cuda.gridsize(1)):" in cuda_source
    assert "    s1 = x1[0]" in cuda_source and "    n2 = x2.size" in cuda_source   # scalar once, a row by i % n
    assert "t0 = np.float32(prim_multiply(x0[i], s1))" in cuda_source
    assert "np.float32(prim_add(t1, x2[i % n2]))" in cuda_source
    assert "@cuda.jit(device=True)\ndef prim_gelu(x):" in cuda_source            # the primitive itself, on the GPU
    assert "math.erf" in cuda_source and "erf_f32" not in cuda_source          # the CPU's vectorizable erf stays there
    assert "SQRT_HALF = np.float32(0.7071067811865476)" in cuda_source      # float32 math stays float32 on the GPU
    assert "return np.float32(0.5) * x * (np.float32(1.0) + math.erf(x * SQRT_HALF))" in cuda_source
    compile(cuda_source, "<fused cuda>", "exec")


def test_the_same_steps_give_the_same_cuda_kernel_name_and_another_dtype_another():
    op = _fused_op()
    steps, kinds, outs = op.attrs["steps"], op.attrs["input_kinds"], op.attrs["outputs"]
    name32, source32 = generate_cuda_source(steps, kinds, outs, "float32")
    name64, source64 = generate_cuda_source(steps, kinds, outs, "float64")
    assert source32 == op.attrs["cuda_source"] and f"def {name32}(" in source32 and name32.endswith("_cuda")
    assert name64 != name32 and "np.float64(prim_gelu(t0))" in source64
    assert "return 0.5 * x * (1.0 + math.erf(x * SQRT_HALF))" in source64
    assert "SQRT_HALF = 0.7071067811865476" in source64


def test_the_debugger_gets_both_sources():
    attrs = op_to_dict(_fused_op(), 0)["attrs"]
    assert attrs["source"].startswith('"""Generated') and "@njit" in attrs["source"]
    assert attrs["cuda_source"].startswith('"""Generated') and "@cuda.jit" in attrs["cuda_source"]


def test_a_device_other_than_cpu_or_gpu_is_a_clear_error():
    with pytest.raises(InvalidArgument, match="fused_source: device must be 'cpu' or 'gpu', got 'tpu'"):
        fused_source(_fused_op(), device="tpu")


def test_writing_the_cuda_source_imports_no_numba_cuda():
    code = ("import sys\n"
            "import minipaddle as paddle, minipaddle.nn.functional as F\n"
            "from minipaddle import static\n"
            "from minipaddle.framework.static.passes import fuse_elementwise\n"
            "paddle.enable_static()\n"
            "main = static.Program()\n"
            "with static.program_guard(main, static.Program()):\n"
            "    x = static.data('x', [4, 6], 'float64')\n"
            "    out = F.relu(x * 2.0) + x\n"
            "fused, _ = fuse_elementwise(main, fetch_list=[out])\n"
            "op = [op for op in fused.global_block().ops if op.type == 'fused_elementwise'][0]\n"
            "print('cuda.jit' in op.attrs['cuda_source'], 'numba.cuda' in sys.modules,\n"
            "      any(m.startswith('minipaddle.framework.kernels.cuda.') for m in sys.modules))\n")
    env = {"PATH": "/usr/bin:/bin", "NUMBA_ENABLE_CUDASIM": "0"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert out.stdout.split() == ["True", "False", "False"]
