"""CUDA broadcast_to / expand / expand_as / transpose against the CPU kernels (C-contiguous copies)."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from .kernel_check import check

RNG = np.random.default_rng(11)


@pytest.mark.parametrize("x_shape, shape", [((3, 1), (2, 3, 4)), ((4,), (5, 4)), ((), (2, 3)), ((2, 1, 3), (2, 5, 3)),
                                            ((3, 1), (-1, 6)), ((2, 3), (2, 3)), ((1,), (0, 4))])
@pytest.mark.parametrize("op_name", ["broadcast_to", "expand"])
def test_broadcast_to_matches_numpy_broadcasting(op_name, x_shape, shape):
    check(op_name, [RNG.standard_normal(x_shape).astype(np.float32)], {"shape": shape})


def test_expand_as_and_other_dtypes():
    check("expand_as", [RNG.standard_normal((1, 3)).astype(np.float64), np.zeros((4, 3), np.float64)])
    check("broadcast_to", [RNG.random((3, 1)) > 0.5], {"shape": (2, 3, 5)})
    check("broadcast_to", [RNG.integers(0, 9, (1, 4)).astype(np.int64)], {"shape": (3, 4)})


@pytest.mark.parametrize("perm", list(itertools.permutations(range(3))))
def test_transpose_every_permutation_of_a_3d_tensor(perm):
    check("transpose", [RNG.standard_normal((5, 7, 3)).astype(np.float32)], {"perm": perm})


def test_transpose_of_a_0d_tensor_is_a_copy():
    check("transpose", [np.array(2.0, np.float32)], {"perm": ()})
