"""kron, diag, diagflat, meshgrid, repeat_interleave: forward against numpy, gradients numerically."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument

from .opcheck import arrays, assert_forward, check_double_grad, check_grad, shapes


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_kron_matches_numpy_and_its_gradient_is_numeric(data):
    x = data.draw(arrays(data.draw(shapes(min_dims=0, max_dims=3, min_side=1, max_side=3)), "float64"))
    y = data.draw(arrays(data.draw(shapes(min_dims=0, max_dims=3, min_side=1, max_side=3)), "float64"))
    assert_forward(paddle.kron(paddle.to_tensor(x), paddle.to_tensor(y)), np.kron(x, y))
    check_grad(paddle.kron, [x, y])


def test_kron_double_grad_and_errors():
    rng = np.random.default_rng(0)
    check_double_grad(paddle.kron, [rng.standard_normal((2, 2)), rng.standard_normal((1, 3))])
    with pytest.raises(InvalidArgument, match="kron: x has dtype float32 but y has dtype int64"):
        paddle.kron(paddle.ones([2]), paddle.to_tensor([1, 2]))


@pytest.mark.parametrize("offset", [0, 1, -2])
def test_diag_of_a_vector_and_of_a_matrix(offset):
    rng = np.random.default_rng(1)
    v, m = rng.standard_normal(3), rng.standard_normal((3, 4))
    assert_forward(paddle.diag(paddle.to_tensor(v), offset=offset), np.diag(v, offset))
    assert_forward(paddle.diag(paddle.to_tensor(m), offset=offset), np.diag(m, offset))
    check_grad(lambda t: paddle.diag(t, offset=offset), [v])
    check_grad(lambda t: paddle.diag(t, offset=offset), [m])
    check_double_grad(lambda t: paddle.diag(t, offset=offset), [m])


def test_diag_padding_0d_and_errors():
    out = paddle.diag(paddle.to_tensor([1, 2]), offset=1, padding_value=7)
    assert out.numpy().tolist() == [[7, 1, 7], [7, 7, 2], [7, 7, 7]]
    assert paddle.diag(paddle.to_tensor(3.0)).shape == [1, 1]
    with pytest.raises(InvalidArgument, match=r"diag: x has shape \[2, 2, 2\], expected a 0-D, 1-D"):
        paddle.diag(paddle.ones([2, 2, 2]))
    with pytest.raises(InvalidArgument, match="diag: offset got float, expected an int"):
        paddle.diag(paddle.ones([2]), offset=1.5)


@pytest.mark.parametrize("offset", [0, 2, -1])
def test_diagflat(offset):
    x = np.arange(6.0).reshape(2, 3)
    assert_forward(paddle.diagflat(paddle.to_tensor(x), offset=offset), np.diagflat(x, offset))
    check_grad(lambda t: paddle.diagflat(t, offset=offset), [x])


def test_meshgrid_matches_numpy_ij_and_sums_gradients_back():
    x, y, z = np.arange(3.0), np.array([4.0, 5.0]), np.array(7.0)
    grids = paddle.meshgrid(paddle.to_tensor(x), paddle.to_tensor(y), paddle.to_tensor(z))
    for g, e in zip(grids, np.meshgrid(x, y, z.reshape(1), indexing="ij")):
        assert_forward(g, e)
    check_grad(lambda a, b: paddle.meshgrid(a, b)[0] * paddle.meshgrid(a, b)[1], [x, y])
    assert len(paddle.meshgrid([paddle.to_tensor(x)])) == 1
    with pytest.raises(InvalidArgument, match=r"meshgrid: x\[1\] has shape \[2, 2\], expected a 0-D or 1-D"):
        paddle.meshgrid(paddle.to_tensor(x), paddle.ones([2, 2]))
    with pytest.raises(InvalidArgument, match=r"meshgrid: x\[1\] has dtype int64 but x\[0\] has dtype float64"):
        paddle.meshgrid(paddle.to_tensor(x), paddle.to_tensor([1]))


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_repeat_interleave_matches_numpy_and_its_gradient_is_numeric(data):
    shape = data.draw(shapes(min_dims=1, max_dims=3, min_side=1, max_side=3))
    x = data.draw(arrays(shape, "float64"))
    axis = data.draw(st.sampled_from([None] + list(range(len(shape)))))
    length = x.size if axis is None else shape[axis]
    repeats = data.draw(st.one_of(st.integers(0, 3), st.lists(st.integers(0, 3), min_size=length, max_size=length)))
    expected = np.repeat(x, repeats, axis=axis)
    arg = paddle.to_tensor(repeats) if isinstance(repeats, list) else repeats
    assert_forward(paddle.repeat_interleave(paddle.to_tensor(x), arg, axis=axis), expected)
    if expected.size:
        check_grad(lambda t: paddle.repeat_interleave(t, arg, axis=axis), [x])
        check_double_grad(lambda t: paddle.repeat_interleave(t, arg, axis=axis), [x])


def test_repeat_interleave_errors():
    x = paddle.ones([2, 3])
    with pytest.raises(InvalidArgument, match="repeat_interleave: repeats has 3 entries but x has 2 along the axis"):
        paddle.repeat_interleave(x, paddle.to_tensor([1, 2, 3]), axis=0)
    with pytest.raises(InvalidArgument, match=r"repeat_interleave: repeats \[1, -1\] has a negative count"):
        paddle.repeat_interleave(x, [1, -1], axis=0)
    with pytest.raises(InvalidArgument, match="repeat_interleave: repeats is a float32 tensor"):
        paddle.repeat_interleave(x, paddle.to_tensor([1.0, 2.0]), axis=0)
