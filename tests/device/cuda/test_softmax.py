"""CUDA softmax and log_softmax against the CPU kernels: every axis, rows longer than a warp,
non-finite rows, float16 and float64."""
from __future__ import annotations

import numpy as np
import pytest

from .kernel_check import check

RNG = np.random.default_rng(5)


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
@pytest.mark.parametrize("op_name", ["softmax", "log_softmax"])
def test_every_axis_of_a_3d_tensor(op_name, axis):
    check(op_name, [RNG.standard_normal((3, 4, 2)).astype(np.float32) * 5], {"axis": axis}, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("op_name", ["softmax", "log_softmax"])
def test_rows_longer_than_a_warp_combine_across_warps(op_name):
    check(op_name, [RNG.standard_normal((2, 70)) * 30], {"axis": 1}, rtol=1e-12, atol=1e-14)


def test_non_finite_rows_follow_the_cpu_kernel():
    inf, nan = np.inf, np.nan
    x = np.array([[1, inf, 2], [-inf, -inf, -inf], [1, 2, nan], [0, -inf, 1]], np.float32)
    check("softmax", [x], {"axis": -1})
    check("log_softmax", [x], {"axis": -1})


def test_float16_and_zero_d():
    check("softmax", [RNG.standard_normal((3, 5)).astype(np.float16)], {"axis": 0}, rtol=1e-3, atol=1e-3)
    check("softmax", [np.array(3.0, np.float32)], {"axis": -1})
    check("log_softmax", [np.array(3.0, np.float64)], {"axis": -1})
