"""Layouts: dense <-> COO <-> CSR round trips, coalesce, and gradients through conversions."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument

from .helpers import random_sparse

S = paddle.sparse


@pytest.mark.parametrize("shape, density", [((5, 7), 0.3), ((1, 1), 1.0), ((4, 3), 0.0), ((2, 3, 4), 0.4)])
def test_dense_coo_csr_round_trips(shape, density):
    dense = random_sparse(shape, density, seed=sum(shape))
    x = paddle.to_tensor(dense)
    coo = x.to_sparse_coo(len(shape))
    csr = x.to_sparse_csr()
    assert coo.nnz() == csr.nnz() == np.count_nonzero(dense)
    for sparse in (coo, csr, coo.to_sparse_csr(), csr.to_sparse_coo(len(shape))):
        np.testing.assert_array_equal(sparse.to_dense().numpy(), dense)


def test_csr_arrays_match_scipy():
    dense = random_sparse((6, 9), 0.3, seed=3)
    csr = paddle.to_tensor(dense).to_sparse_csr()
    ref = sp.csr_matrix(dense)
    np.testing.assert_array_equal(csr.crows().numpy(), ref.indptr)
    np.testing.assert_array_equal(csr.cols().numpy(), ref.indices)
    np.testing.assert_array_equal(csr.values().numpy(), ref.data)


def test_dense_to_coo_with_fewer_sparse_dims_keeps_whole_rows():
    x = paddle.to_tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 0.0], [2.0, 0.0, 3.0]])
    coo = x.to_sparse_coo(1)
    np.testing.assert_array_equal(coo.indices().numpy(), [[0, 2]])
    np.testing.assert_array_equal(coo.values().numpy(), [[0, 1, 0], [2, 0, 3]])
    np.testing.assert_array_equal(coo.to_dense().numpy(), x.numpy())
    with pytest.raises(InvalidArgument, match="sparse_dim"):
        x.to_sparse_coo(3)


def test_dense_tensor_is_not_sparse():
    x = paddle.ones([2, 2])
    assert not (x.is_sparse() or x.is_sparse_coo() or x.is_sparse_csr()) and x.is_dense()


def test_coalesce_sums_duplicates_and_sorts():
    x = S.sparse_coo_tensor([[1, 0, 1, 0], [0, 1, 0, 0]], [1.0, 2.0, 3.0, 4.0], [2, 2])
    c = x.coalesce()
    np.testing.assert_array_equal(c.indices().numpy(), [[0, 0, 1], [0, 1, 0]])
    np.testing.assert_array_equal(c.values().numpy(), [4.0, 2.0, 4.0])
    np.testing.assert_array_equal(c.to_dense().numpy(), x.to_dense().numpy())
    assert S.coalesce(c) is c           # already coalesced: nothing to do


def test_coo_with_duplicates_converts_to_csr_summed():
    x = S.sparse_coo_tensor([[1, 0, 1], [0, 1, 0]], [1.0, 2.0, 3.0], [2, 2])
    csr = x.to_sparse_csr()
    np.testing.assert_array_equal(csr.crows().numpy(), [0, 1, 2])
    np.testing.assert_array_equal(csr.values().numpy(), [2.0, 4.0])


def test_gradients_flow_through_conversions():
    v = paddle.to_tensor([1.0, 2.0, 3.0], dtype="float64", stop_gradient=False)
    x = S.sparse_coo_tensor([[1, 0, 1], [0, 1, 0]], v, [2, 2], stop_gradient=False)
    weights = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]], dtype="float64")
    (x.coalesce().to_sparse_csr().to_dense() * weights).sum().backward()
    np.testing.assert_array_equal(v.grad.numpy(), [3.0, 2.0, 3.0])   # each entry's weight, repeats too
    d = paddle.to_tensor([[0.0, 5.0], [6.0, 0.0]], dtype="float64", stop_gradient=False)
    (d.to_sparse_coo(2).values() * paddle.to_tensor([2.0, 3.0], dtype="float64")).sum().backward()
    np.testing.assert_array_equal(d.grad.numpy(), [[0, 2], [3, 0]])
