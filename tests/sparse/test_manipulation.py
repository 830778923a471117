"""transpose, sum and reshape against the dense computation."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument

from .helpers import random_sparse

S = paddle.sparse
A = random_sparse((3, 4, 5), 0.3, seed=21)


@pytest.mark.parametrize("perm", [[1, 0, 2], [2, 0, 1], [0, 1, 2]])
def test_transpose_matches_dense(perm):
    for x in (paddle.to_tensor(A).to_sparse_coo(3), paddle.to_tensor(A).to_sparse_csr()):
        out = S.transpose(x, perm)
        assert out.is_sparse_csr() == x.is_sparse_csr()
        np.testing.assert_array_equal(out.to_dense().numpy(), A.transpose(perm))
    with pytest.raises(InvalidArgument, match="permutation"):
        S.transpose(x, [0, 0, 1])


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_coo_sum_matches_dense(axis, keepdim):
    out = S.sum(paddle.to_tensor(A).to_sparse_coo(3), axis=axis, keepdim=keepdim)
    expected = A.sum(axis=axis, keepdims=keepdim)
    np.testing.assert_allclose(out.to_dense().numpy().reshape(np.shape(expected)), expected)
    if axis is not None:
        assert out.shape == list(expected.shape)


def test_sum_over_a_dense_dim_and_int_promotion():
    x = paddle.to_tensor(A).to_sparse_coo(2)          # last dim dense
    np.testing.assert_allclose(S.sum(x, axis=2).to_dense().numpy(), A.sum(axis=2))
    ints = S.sparse_coo_tensor([[0, 1]], paddle.to_tensor([1, 2], dtype="int32"), [3])
    assert S.sum(ints).dtype == paddle.int64 and S.sum(ints, dtype="float32").dtype == paddle.float32


def test_csr_sum_over_rows_leaves_empty_rows_empty():
    x = S.sparse_csr_tensor([0, 2, 2, 3], [0, 2, 1], [1.0, 2.0, 3.0], [3, 3])
    out = S.sum(x, axis=-1)
    assert out.shape == [3, 1]
    np.testing.assert_array_equal(out.crows().numpy(), [0, 1, 1, 2])
    np.testing.assert_array_equal(out.to_dense().numpy(), [[3.0], [0.0], [3.0]])
    assert S.sum(x).to_dense().numpy().tolist() == [[6.0]]
    with pytest.raises(NotImplementedError, match="axis None or -1"):
        S.sum(x, axis=0)


def test_reshape_moves_entries_like_dense():
    x = paddle.to_tensor(A).to_sparse_coo(3)
    np.testing.assert_array_equal(S.reshape(x, [12, -1]).to_dense().numpy(), A.reshape(12, 5))
    with pytest.raises(InvalidArgument, match="cannot reshape"):
        S.reshape(x, [7, 9])
