"""The CUDA matmul kernels (kernels/cuda/matmul.py) compute Paddle's matmul, checked against numpy.

Each kernel of the progression (naive, tiled, register-blocked, bank-conflict-free) gets the same
cases: shapes that are not multiples of any tile, broadcast batch dims, transpose flags, 1-D
operands. Runs on a real GPU where there is one, else under numba's simulator (conftest.py): tiny
shapes, since the simulator runs every GPU thread as a Python thread.
"""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
from numba import cuda

from minipaddle.framework.kernels.cuda import matmul as kernels

REPO_ROOT = Path(__file__).resolve().parents[3]
ALL = list(kernels.CANDIDATES)


def reference(x: np.ndarray, y: np.ndarray, transpose_x: bool, transpose_y: bool) -> np.ndarray:
    """Paddle's matmul in numpy: the flags swap a matrix's last two dims; 1-D operands ignore them."""
    if transpose_x and x.ndim >= 2:
        x = np.swapaxes(x, -1, -2)
    if transpose_y and y.ndim >= 2:
        y = np.swapaxes(y, -1, -2)
    return np.matmul(x.astype(np.float64), y.astype(np.float64))


def run(name: str, x: np.ndarray, y: np.ndarray, transpose_x: bool = False, transpose_y: bool = False):
    out = kernels.CANDIDATES[name](cuda.to_device(x), cuda.to_device(y), transpose_x, transpose_y)
    return out.copy_to_host()


def check(name, x_shape, y_shape, transpose_x=False, transpose_y=False, dtype=np.float32, tol=1e-5):
    rng = np.random.default_rng(sum(x_shape) * 31 + sum(y_shape))
    x = rng.standard_normal(x_shape).astype(dtype)
    y = rng.standard_normal(y_shape).astype(dtype)
    got = run(name, x, y, transpose_x, transpose_y)
    want = reference(x, y, transpose_x, transpose_y)
    assert got.shape == want.shape and got.dtype == dtype
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


@pytest.mark.parametrize("name", ALL)
def test_a_small_product_matches_numpy(name):
    check(name, (5, 7), (7, 3))


@pytest.mark.parametrize("name", ALL)
def test_ragged_tiles_are_padded_with_zeros(name):
    # 33 rows, 17 deep, 9 columns: one past a 16- or 32-tile, far below a 128-tile
    check(name, (33, 17), (17, 9))


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("transpose_x, transpose_y", [(True, False), (False, True), (True, True)])
def test_transpose_flags_swap_the_last_two_dims(name, transpose_x, transpose_y):
    x_shape = (6, 5) if transpose_x else (5, 6)
    y_shape = (3, 6) if transpose_y else (6, 3)
    check(name, x_shape, y_shape, transpose_x, transpose_y)


@pytest.mark.parametrize("name", ALL)
def test_batch_dims_broadcast(name):
    check(name, (2, 1, 4, 3), (1, 2, 3, 5))         # batch (2, 1) with (1, 2) -> (2, 2)
    check(name, (3, 4), (2, 3, 5), transpose_x=True)  # a 2-D x is shared by every batch entry of y


@pytest.mark.parametrize("name", ALL)
def test_one_dimensional_operands_are_squeezed_away(name):
    check(name, (7,), (7, 3))                       # row vector @ matrix -> (3,)
    check(name, (2, 4, 5), (5,), transpose_x=False)  # batched matrix @ column vector -> (2, 4)
    check(name, (6,), (6,), transpose_x=True)       # vector . vector -> () ; the flag does nothing


@pytest.mark.parametrize("name", ALL)
def test_an_empty_contraction_gives_zeros(name):
    got = run(name, np.ones((3, 0), np.float32), np.ones((0, 2), np.float32))
    assert got.shape == (3, 2) and not got.any()


def test_an_empty_batch_gives_an_empty_result():
    got = run("cuda_tiled", np.ones((0, 3, 4), np.float32), np.ones((4, 2), np.float32))
    assert got.shape == (0, 3, 2)


@pytest.mark.parametrize("dtype, tol", [(np.float64, 1e-12), (np.float16, 2e-2)])
def test_the_naive_kernel_serves_float64_and_float16(dtype, tol):
    check("cuda_naive", (9, 5), (5, 4), dtype=dtype, tol=tol)


@pytest.mark.parametrize("name", ALL[1:])
def test_the_tiled_kernels_refuse_other_dtypes_with_a_hint(name):
    x = cuda.to_device(np.ones((2, 2)))
    with pytest.raises(TypeError, match=f"{name} kernel computes in float32.*cuda_naive serves"):
        kernels.CANDIDATES[name](x, x)


def test_the_benchmark_checks_every_kernel(tmp_path):
    spec = importlib.util.spec_from_file_location("gpu_matmul_bench", REPO_ROOT / "benchmarks" / "gpu_matmul_bench.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    out = tmp_path / "gpu_matmul.json"
    assert bench.main([str(out), "--size", "64", "--repeats", "1"]) == 0
    result = json.loads(out.read_text())
    assert [row["kernel"] for row in result["rows"]] == ALL
    assert all(row["relative_error"] < 1e-5 for row in result["rows"])
    if not result["simulator"]:
        assert all(row["gflops"] > 0 for row in result["rows"])


def test_every_step_is_a_registered_candidate_and_the_fastest_is_the_default():
    from minipaddle.framework.registry import KernelKey, get_op
    float32 = [k.name for k in get_op("matmul").kernels[KernelKey("gpu", np.dtype("float32"))]]
    assert float32[0] == "cuda_bankfree" and sorted(float32) == sorted(ALL)   # sorted by priority
    for dtype in ("float16", "float64"):
        assert [k.name for k in get_op("matmul").kernels[KernelKey("gpu", np.dtype(dtype))]] == ["cuda_naive"]


def test_paddle_matmul_on_gpu_tensors_runs_the_default_kernel():
    import minipaddle as paddle
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal((5, 7)).astype(np.float32), rng.standard_normal((7, 3)).astype(np.float32)
    out = paddle.matmul(paddle.to_tensor(x, place="gpu"), paddle.to_tensor(y, place="gpu"))
    assert out.place == paddle.CUDAPlace(0)
    np.testing.assert_allclose(out.numpy(), x @ y, rtol=1e-5, atol=1e-5)
