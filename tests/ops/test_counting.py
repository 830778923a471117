"""unique, bincount, histogram, searchsorted, bucketize against numpy, and their errors."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument, InvalidType


@settings(max_examples=25, deadline=None)
@given(x=hnp.arrays(np.int64, hnp.array_shapes(min_dims=1, max_dims=3, max_side=5), elements=st.integers(-3, 3)))
def test_unique_matches_numpy(x):
    out, index, inverse, counts = paddle.unique(paddle.to_tensor(x), return_index=True, return_inverse=True,
                                                return_counts=True)
    e_out, e_index, e_inverse, e_counts = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
    for got, want in ((out, e_out), (index, e_index), (inverse, e_inverse.reshape(-1)), (counts, e_counts)):
        np.testing.assert_array_equal(got.numpy(), want)
    assert index.dtype == inverse.dtype == counts.dtype == paddle.int64


def test_unique_along_an_axis_and_errors():
    x = np.array([[2, 1], [2, 1], [0, 3]])
    out, counts = paddle.unique(paddle.to_tensor(x), axis=0, return_counts=True)
    np.testing.assert_array_equal(out.numpy(), [[0, 3], [2, 1]])
    assert counts.numpy().tolist() == [1, 2]
    assert paddle.unique(paddle.to_tensor([3, 1]), return_inverse=True, dtype="int32")[1].dtype == paddle.int32
    with pytest.raises(InvalidArgument, match="unique: dtype got float32, expected int32 or int64"):
        paddle.unique(paddle.to_tensor([1]), dtype="float32")


@settings(max_examples=25, deadline=None)
@given(x=hnp.arrays(np.int64, st.integers(0, 8), elements=st.integers(0, 6)), minlength=st.integers(0, 9))
def test_bincount_matches_numpy(x, minlength):
    np.testing.assert_array_equal(paddle.bincount(paddle.to_tensor(x), minlength=minlength).numpy(),
                                  np.bincount(x, minlength=minlength))
    w = np.linspace(0.5, 2.0, len(x)).astype(np.float32)
    got = paddle.bincount(paddle.to_tensor(x), weights=paddle.to_tensor(w), minlength=minlength)
    assert got.dtype == paddle.float32
    np.testing.assert_allclose(got.numpy(), np.bincount(x, weights=w, minlength=minlength), rtol=1e-6)


def test_bincount_errors():
    with pytest.raises(InvalidArgument, match="bincount: x holds -1, expected non-negative integers only"):
        paddle.bincount(paddle.to_tensor([1, -1]))
    with pytest.raises(InvalidType, match="bincount: x has dtype float32, expected an integer dtype"):
        paddle.bincount(paddle.to_tensor([1.0]))
    with pytest.raises(InvalidArgument, match=r"bincount: weights has shape \[1\], expected x's shape \[2\]"):
        paddle.bincount(paddle.to_tensor([1, 2]), weights=paddle.to_tensor([1.0]))


@settings(max_examples=25, deadline=None)
@given(x=hnp.arrays(np.float64, st.integers(1, 12), elements=st.floats(-4, 4)), bins=st.integers(1, 6))
def test_histogram_matches_numpy_over_a_range(x, bins):
    got = paddle.histogram(paddle.to_tensor(x), bins=bins, min=-3, max=3)
    np.testing.assert_array_equal(got.numpy(), np.histogram(x, bins=bins, range=(-3, 3))[0])
    assert got.dtype == paddle.int64


def test_histogram_defaults_weights_density_and_errors():
    x = paddle.to_tensor([1.0, 2.0, 1.0, 4.0])
    assert paddle.histogram(x, bins=3).numpy().tolist() == [2, 1, 1]   # min = max = 0: the data's range
    assert paddle.histogram(paddle.to_tensor([1.0, 1.0]), bins=2).numpy().tolist() == [0, 2]
    np.testing.assert_allclose(paddle.histogram(x, bins=2, min=0, max=4, density=True).numpy(), [0.25, 0.25])
    w = paddle.histogram(x, bins=2, min=0, max=4, weight=paddle.to_tensor([1.0, 2.0, 3.0, 4.0]))
    assert w.numpy().tolist() == [4.0, 6.0]
    with pytest.raises(InvalidArgument, match=r"histogram: max \(0.0\) is smaller than min \(4.0\)"):
        paddle.histogram(x, bins=2, min=4, max=0)
    with pytest.raises(InvalidArgument, match="histogram: bins got 0, expected an int >= 1"):
        paddle.histogram(x, bins=0)


@settings(max_examples=25, deadline=None)
@given(seq=hnp.arrays(np.float64, st.integers(1, 6), elements=st.integers(-5, 5).map(float)),
       values=hnp.arrays(np.float64, st.integers(0, 6), elements=st.floats(-6, 6)), right=st.booleans())
def test_searchsorted_and_bucketize_match_numpy(seq, values, right):
    seq = np.sort(seq)
    side = "right" if right else "left"
    expected = np.searchsorted(seq, values, side=side)
    got = paddle.searchsorted(paddle.to_tensor(seq), paddle.to_tensor(values), right=right)
    np.testing.assert_array_equal(got.numpy(), expected)
    np.testing.assert_array_equal(paddle.bucketize(paddle.to_tensor(values), paddle.to_tensor(seq), right=right)
                                  .numpy(), expected)


def test_searchsorted_row_by_row_and_errors():
    seq = paddle.to_tensor([[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]])
    out = paddle.searchsorted(seq, paddle.to_tensor([[3.0], [3.0]]), out_int32=True)
    assert out.numpy().tolist() == [[1], [1]] and out.dtype == paddle.int32
    with pytest.raises(InvalidArgument, match=r"searchsorted: sorted_sequence has shape \[2, 3\] and values \[2\]"):
        paddle.searchsorted(seq, paddle.to_tensor([1.0, 2.0]))
    with pytest.raises(InvalidArgument, match=r"bucketize: sorted_sequence has shape \[2, 3\], expected a 1-D"):
        paddle.bucketize(paddle.to_tensor([1.0]), seq)
