"""cumprod and logcumsumexp: forward against numpy, gradients against central differences."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument, Unimplemented

from .opcheck import arrays, assert_forward, check_double_grad, check_grad, shapes


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_cumprod_matches_numpy_and_its_gradient_is_numeric(data):
    shape = data.draw(shapes(min_dims=1, max_dims=3, min_side=1))
    x = data.draw(arrays(shape, "float64", low=-2.0, high=2.0))
    axis = data.draw(st.sampled_from([None] + list(range(-len(shape), len(shape)))))
    expected = np.cumprod(x.reshape(-1) if axis is None else x, axis=0 if axis is None else axis)
    assert_forward(paddle.cumprod(paddle.to_tensor(x), dim=axis), expected)
    check_grad(lambda t: paddle.cumprod(t, dim=axis), [x])


def test_cumprod_gradient_is_exact_where_x_has_zeros():
    x = np.array([[2.0, 0.0, 3.0, 0.0], [0.0, 1.5, -2.0, 4.0]])
    check_grad(lambda t: paddle.cumprod(t, dim=1), [x])
    check_grad(lambda t: paddle.cumprod(t, dim=0), [x])


def test_cumprod_dtypes_and_errors():
    assert paddle.cumprod(paddle.to_tensor([1, 2, 3]), dim=0).numpy().tolist() == [1, 2, 6]
    assert paddle.cumprod(paddle.to_tensor([1, 2]), dim=0, dtype="float64").dtype == paddle.float64
    with pytest.raises(InvalidArgument, match=r"cumprod: axis 2 is out of range for a 2-D tensor"):
        paddle.cumprod(paddle.ones([2, 2]), dim=2)
    with pytest.raises(InvalidArgument, match="cumprod: argument 'x' has dtype bool"):
        paddle.cumprod(paddle.to_tensor([True]), dim=0)
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    (g,) = paddle.grad(paddle.cumprod(x, dim=0).sum(), x, create_graph=True)
    with pytest.raises(Unimplemented, match="cumprod: the gradient of cumprod's gradient"):
        g.sum().backward()


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_logcumsumexp_matches_numpy_and_its_gradient_is_numeric(data):
    shape = data.draw(shapes(min_dims=1, max_dims=3, min_side=1))
    x = data.draw(arrays(shape, "float64", low=-5.0, high=5.0))
    axis = data.draw(st.sampled_from([None] + list(range(-len(shape), len(shape)))))
    flat = x.reshape(-1) if axis is None else x
    expected = np.log(np.cumsum(np.exp(flat), axis=0 if axis is None else axis))
    assert_forward(paddle.logcumsumexp(paddle.to_tensor(x), axis=axis), expected)
    check_grad(lambda t: paddle.logcumsumexp(t, axis=axis), [x])


def test_logcumsumexp_is_stable_and_twice_differentiable():
    out = paddle.logcumsumexp(paddle.to_tensor([1000.0, 1000.0, -np.inf]))
    np.testing.assert_allclose(out.numpy(), [1000.0, 1000.0 + np.log(2), 1000.0 + np.log(2)], rtol=1e-6)
    check_double_grad(lambda t: paddle.logcumsumexp(t, axis=0), [np.array([0.5, -1.0, 2.0])])
    assert paddle.logcumsumexp(paddle.to_tensor([1, 2])).dtype == paddle.float32   # ints: float32, as Paddle
