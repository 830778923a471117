"""sparse_coo_tensor / sparse_csr_tensor: what they build, what they infer, and what they refuse."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument, InvalidType

S = paddle.sparse


def test_coo_round_trips_through_dense():
    x = S.sparse_coo_tensor([[0, 1, 2], [1, 2, 0]], [1.0, 2.0, 3.0], [3, 3])
    expected = np.array([[0, 1, 0], [0, 0, 2], [3, 0, 0]], dtype=np.float32)
    np.testing.assert_array_equal(x.to_dense().numpy(), expected)
    assert (x.shape, x.nnz(), x.dtype, x.stop_gradient) == ([3, 3], 3, paddle.float32, True)
    assert x.is_sparse() and x.is_sparse_coo() and not x.is_sparse_csr()
    assert x.indices().dtype == paddle.int64


def test_coo_infers_shape_and_dtype_like_paddle():
    x = S.sparse_coo_tensor([[0, 1], [2, 0]], [1, 2])
    assert x.shape == [2, 3] and x.dtype == paddle.int64
    assert S.sparse_coo_tensor([[0], [0]], np.array([1.0])).dtype == paddle.float64
    assert S.sparse_coo_tensor([[0], [0]], [1.0], dtype="float64").dtype == paddle.float64


def test_coo_with_dense_dims_holds_a_row_per_entry():
    x = S.sparse_coo_tensor([[0, 1], [1, 0]], [[1.0, 2.0], [3.0, 4.0]], [2, 2, 2])
    dense = x.to_dense().numpy()
    np.testing.assert_array_equal(dense[0, 1], [1, 2])
    np.testing.assert_array_equal(dense[1, 0], [3, 4])
    assert dense.sum() == 10


def test_csr_round_trips_through_dense_and_batches():
    x = S.sparse_csr_tensor([0, 1, 2, 0, 1, 1], [1, 0, 1], [1.0, 2.0, 3.0], [2, 2, 2])
    expected = np.array([[[0, 1], [2, 0]], [[0, 3], [0, 0]]], dtype=np.float32)
    np.testing.assert_array_equal(x.to_dense().numpy(), expected)
    assert x.is_sparse_csr() and x.nnz() == 3 and x.crows().dtype == paddle.int64


def test_values_tensor_keeps_its_graph_when_stop_gradient_is_false():
    v = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    w = v * 3.0
    x = S.sparse_coo_tensor([[0, 1], [1, 0]], w, [2, 2], stop_gradient=False)
    x.to_dense().sum().backward()
    np.testing.assert_array_equal(v.grad.numpy(), [3.0, 3.0])
    cut = S.sparse_coo_tensor([[0, 1], [1, 0]], w, [2, 2])       # default: cut off, as in Paddle
    assert cut.stop_gradient and cut.values()._node is None


def test_leaf_grad_is_laid_out_on_the_pattern():
    x = S.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], [2, 2], stop_gradient=False)
    (x.to_dense() * paddle.to_tensor([[5.0, 6.0], [7.0, 8.0]])).sum().backward()
    assert x.grad.is_sparse_coo()
    np.testing.assert_array_equal(x.grad.to_dense().numpy(), [[0, 6], [7, 0]])


@pytest.mark.parametrize("indices, values, shape, error, words", [
    ([[0, 5], [0, 1]], [1.0, 2.0], [3, 3], InvalidArgument, "outside the shape"),
    ([[0, -1], [0, 1]], [1.0, 2.0], [3, 3], InvalidArgument, "outside the shape"),
    ([0, 1], [1.0, 2.0], [3, 3], InvalidArgument, "2-D"),
    ([[0, 1], [0, 1]], [1.0, 2.0, 3.0], [3, 3], InvalidArgument, "same number of non-zeros"),
    ([[0, 1]], [1.0, 2.0], [3, 3], InvalidArgument, "sparse_dim (1) + dense_dim (0)"),
    ([[0.0, 1.0], [0.0, 1.0]], [1.0, 2.0], [3, 3], InvalidType, "dtype of indices"),
])
def test_coo_refuses_malformed_input(indices, values, shape, error, words):
    with pytest.raises(error, match="sparse_coo_tensor") as info:
        S.sparse_coo_tensor(indices, values, shape)
    assert words in str(info.value)


@pytest.mark.parametrize("crows, cols, values, shape, words", [
    ([0, 1, 3], [1, 2, 0], [1.0, 2.0, 3.0], [3, 3], "length of crows (3) must be rows + 1 = 4"),
    ([0, 2, 1, 3], [1, 2, 0], [1.0, 2.0, 3.0], [3, 3], "never decrease"),
    ([1, 1, 2, 3], [1, 2, 0], [1.0, 2.0, 3.0], [3, 3], "start at 0"),
    ([0, 1, 2, 4], [1, 2, 0], [1.0, 2.0, 3.0], [3, 3], "last value of crows"),
    ([0, 1, 2, 3], [1, 5, 0], [1.0, 2.0, 3.0], [3, 3], "cols must lie in [0, 3)"),
    ([0, 1, 2, 3], [1, 2, 0], [1.0, 2.0], [3, 3], "length of cols (3) must equal the length of values (2)"),
    ([0, 1], [0], [1.0], [1], "2-D or 3-D"),
])
def test_csr_refuses_malformed_input(crows, cols, values, shape, words):
    with pytest.raises(InvalidArgument, match="sparse_csr_tensor") as info:
        S.sparse_csr_tensor(crows, cols, values, shape)
    assert words in str(info.value)


def test_layout_specific_accessors_say_which_layout_they_need():
    x = S.sparse_coo_tensor([[0], [0]], [1.0], [1, 1])
    with pytest.raises(InvalidArgument, match="SparseCsrTensor"):
        x.crows()
    with pytest.raises(InvalidArgument, match="SparseCooTensor"):
        x.to_sparse_csr().indices()
    with pytest.raises(NotImplementedError, match="to_dense"):
        x.numpy()
