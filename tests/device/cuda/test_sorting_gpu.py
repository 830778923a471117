"""sort, argsort and topk on the GPU (kernels/cuda/sorting.py) against the CPU kernels: the same stable order
for ties, NaNs where numpy puts them, every dtype; and paddle.sort/argsort/topk differentiating on the GPU
as on the CPU."""
from __future__ import annotations

import functools

import numpy as np
import pytest
from numba import cuda

import minipaddle as paddle
from minipaddle.framework.kernels.cuda import sorting

from . import kernel_check
from .kernel_check import gpu_and_cpu

check = functools.partial(kernel_check.check, rtol=0, atol=0)  # sorting moves values: exactly the CPU's

RNG = np.random.default_rng(17)


def _ties_and_nans():
    x = RNG.integers(0, 4, (3, 7, 2)).astype(np.float64)   # few distinct values: many ties
    x[0, 2, 1] = x[1, 3, 0] = x[1, 5, 0] = np.nan
    return x


@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_and_argsort_keep_ties_in_order_and_place_nans_as_the_cpu(axis, descending):
    x = _ties_and_nans()
    check("sort", [x], {"axis": axis, "descending": descending})
    check("argsort", [x], {"axis": axis, "descending": descending})


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.int32, np.int64, np.bool_])
def test_sort_every_dtype_as_the_cpu(dtype):
    x = RNG.integers(-3, 3, (4, 6)).astype(dtype)
    check("sort", [x], {"axis": 1, "descending": True})
    check("argsort", [x], {"axis": 0, "descending": False})


def test_a_scalar_sorts_to_itself():
    check("sort", [np.array(2.5)], {"axis": 0, "descending": False})


def test_rows_too_long_for_shared_memory_sort_in_global_rounds(monkeypatch):
    # rows over SHARED_ROW (1024) take the one-launch-per-round path; the simulator runs a 2048-slot sort in
    # ~10 s, so shrink the limit and let tiny rows take it
    monkeypatch.setattr(sorting, "SHARED_ROW", 8)
    x = RNG.integers(0, 6, (13, 2)).astype(np.float64)
    x[4, 1] = x[10, 1] = np.nan
    for descending in (False, True):
        check("sort", [x], {"axis": 0, "descending": descending})
    check("topk", [RNG.standard_normal((1, 11))], {"k": 5, "axis": 1, "largest": False, "sorted": True})


@pytest.mark.parametrize("k", [1, 4, 9])
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("is_sorted", [True, False])
def test_topk_matches_the_cpu(k, largest, is_sorted):
    x = RNG.standard_normal((2, 9, 3))
    check("topk", [x], {"k": k, "axis": 1, "largest": largest, "sorted": is_sorted})


def test_topk_ties_go_to_the_first_positions_and_nan_counts_as_largest():
    x = np.array([[1.0, 3.0, 3.0, np.nan, 3.0, 2.0]])
    values, indices = sorting.topk(cuda.to_device(x), k=3, axis=1)
    np.testing.assert_array_equal(indices.copy_to_host(), [[3, 1, 2]])
    np.testing.assert_array_equal(values.copy_to_host(), [[np.nan, 3.0, 3.0]])
    values, indices = sorting.topk(cuda.to_device(x), k=2, axis=1, largest=False)
    np.testing.assert_array_equal(indices.copy_to_host(), [[0, 5]])


def test_sort_argsort_and_topk_differentiate_on_the_gpu_as_on_the_cpu():
    data = RNG.standard_normal((3, 6))
    weights = RNG.standard_normal((3, 6))

    def run():
        x = paddle.to_tensor(data, stop_gradient=False)
        ranked = paddle.sort(x, axis=1, descending=True)
        top, where = paddle.topk(x, k=2, axis=0)
        order = paddle.argsort(x, axis=0)
        loss = (ranked * paddle.to_tensor(weights)).sum() + (top * top).sum()
        loss.backward()
        return str(ranked.place), ranked.numpy(), top.numpy(), where.numpy(), order.numpy(), x.grad.numpy()
    gpu, cpu = gpu_and_cpu(run)
    assert gpu[0] == "Place(gpu:0)"
    for g, c in zip(gpu[1:], cpu[1:]):
        np.testing.assert_allclose(g, c, rtol=1e-12, atol=1e-12)
