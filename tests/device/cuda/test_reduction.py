"""CUDA reductions against the CPU kernels: every axes combination of a 3-D tensor, keepdim, the
thread-per-row, block-per-row and two-pass (chunked) paths, integer and float16 inputs."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from numba import cuda

from minipaddle.framework.kernels.cuda import reduction

from .kernel_check import check

RNG = np.random.default_rng(3)
X = RNG.standard_normal((5, 7, 3)).astype(np.float32)
AXES = [None] + [c for r in (1, 2, 3) for c in itertools.combinations(range(3), r)]
FLOAT_REDUCTIONS = ["sum", "mean", "max", "min", "prod", "var", "std", "amax", "amin"]


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("op_name", FLOAT_REDUCTIONS)
def test_every_axes_combination_of_a_3d_tensor(op_name, axis, keepdim):
    attrs = {"axis": axis, "keepdim": keepdim}
    check(op_name, [X], attrs, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("unbiased", [True, False])
def test_var_and_std_divide_by_n_minus_one_when_unbiased(unbiased):
    for op_name in ("var", "std"):
        check(op_name, [X.astype(np.float64)], {"axis": (0, 2), "keepdim": False, "unbiased": unbiased}, rtol=1e-12)


@pytest.mark.parametrize("axis", [None, 0, 1, 2])
@pytest.mark.parametrize("op_name", ["argmax", "argmin"])
def test_argmax_and_argmin_pick_the_first_extreme(op_name, axis):
    x = RNG.integers(-3, 3, (5, 7, 3)).astype(np.float32)  # many ties
    for keepdim in (False, True):
        check(op_name, [x], {"axis": axis, "keepdim": keepdim, "dtype": np.dtype("int64")})
    check(op_name, [x], {"axis": axis, "keepdim": False, "dtype": np.dtype("int32")})


@pytest.mark.parametrize("op_name", ["sum", "max", "min", "prod", "argmax"])
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_integers_reduce_exactly(op_name, dtype):
    x = RNG.integers(-4, 5, (4, 9)).astype(dtype)
    attrs = {"axis": (1,), "keepdim": False} if op_name != "argmax" else {"axis": 1}
    check(op_name, [x], attrs)


def test_sum_of_bool_and_int32_is_int64_as_paddle():
    check("sum", [RNG.random((4, 6)) > 0.5], {"axis": None})
    check("sum", [RNG.integers(0, 9, (4, 6)).astype(np.int32)], {"axis": (0,)})


def test_long_rows_reduce_one_block_per_row_with_warp_shuffles():
    x = RNG.standard_normal((3, 70)).astype(np.float32)  # rows of 70 (> 64): the block path
    for op_name in ("sum", "max", "var", "argmin"):
        attrs = {"axis": 1} if op_name == "argmin" else {"axis": (1,)}
        check(op_name, [x], attrs, rtol=1e-5, atol=1e-5)
    y = RNG.standard_normal((2, 3, 35)).astype(np.float32)
    check("mean", [y], {"axis": (0, 2)}, rtol=1e-5, atol=1e-6)  # the reduced axes are moved innermost first


def test_few_long_rows_are_split_into_chunks_and_reduced_twice():
    x = RNG.standard_normal(3001).astype(np.float32)
    rows2d = x.reshape(1, -1)
    assert reduction.max_blocks() > 1 and rows2d.shape[1] // (4 * reduction.THREADS) > 1  # the chunked path
    check("sum", [x], {"axis": None}, rtol=1e-5, atol=1e-4)
    check("std", [x], {"axis": None}, rtol=1e-5)
    check("max", [x], {"axis": (0,)})


def test_float16_accumulates_in_float32():
    x = RNG.standard_normal((6, 80)).astype(np.float16)
    check("sum", [x], {"axis": (1,)}, rtol=2e-3, atol=2e-2)
    check("mean", [x], {"axis": (0,)}, rtol=2e-3, atol=2e-3)


def test_zero_d_and_empty_inputs():
    check("sum", [np.array(2.5, np.float32)], {"axis": None})
    check("mean", [np.zeros((0, 3), np.float32)], {"axis": (1,)})
    check("sum", [np.zeros((0, 3), np.float32)], {"axis": (0,), "keepdim": True})


def test_permute_materializes_a_transpose():
    x = RNG.standard_normal((2, 3, 4, 5)).astype(np.float32)
    for perm in [(0, 2, 1, 3), (3, 2, 1, 0), (1, 0, 2, 3)]:
        got = reduction.permute(cuda.to_device(x), perm).copy_to_host()
        np.testing.assert_array_equal(got, np.transpose(x, perm))
