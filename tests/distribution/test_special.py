"""framework/ops/special.py: lgamma, digamma, polygamma and atan against scipy, with their gradients
(and grads of grads) against central differences."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import special

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument
from minipaddle.framework.ops.special import atan, digamma, lgamma, polygamma
from tests.ops.opcheck import check_double_grad, check_grad

X = np.array([-2.5, -0.3, 0.1, 0.5, 1.0, 1.4616, 3.7, 10.0, 123.4])
POSITIVE = np.array([[0.3, 1.0, 2.5], [4.0, 7.5, 30.0]])


def test_lgamma_and_digamma_match_scipy_including_negative_x():
    np.testing.assert_allclose(lgamma(paddle.to_tensor(X)).numpy(), special.gammaln(X), rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(digamma(paddle.to_tensor(X)).numpy(), special.digamma(X), rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("n", [1, 2, 3, 5])
def test_polygamma_matches_scipy(n):
    np.testing.assert_allclose(polygamma(paddle.to_tensor(X), n).numpy(), special.polygamma(n, X), rtol=1e-12)


def test_poles_are_nan_and_float32_keeps_its_dtype():
    poles = paddle.to_tensor([0.0, -1.0, -3.0])
    assert np.isnan(digamma(poles).numpy()).all() and np.isnan(polygamma(poles, 1).numpy()).all()
    out = lgamma(paddle.to_tensor([1.0, 5.0], dtype="float32"))
    assert out.dtype == paddle.float32
    np.testing.assert_allclose(out.numpy(), [0.0, np.log(24.0)], rtol=1e-6)


def test_polygamma_of_order_zero_is_digamma_and_atan_matches_numpy():
    x = paddle.to_tensor(POSITIVE)
    np.testing.assert_array_equal(polygamma(x, 0).numpy(), digamma(x).numpy())
    np.testing.assert_allclose(atan(paddle.to_tensor(X)).numpy(), np.arctan(X), rtol=1e-15)


@pytest.mark.parametrize("op", [lgamma, digamma, lambda x: polygamma(x, 1), atan])
def test_gradients_match_central_differences(op):
    check_grad(op, [POSITIVE], rtol=1e-5)
    check_double_grad(op, [POSITIVE], rtol=1e-4)


def test_bad_inputs_are_clear_errors():
    with pytest.raises(InvalidArgument, match="lgamma.*dtype int64"):
        lgamma(paddle.to_tensor([1, 2]))
    with pytest.raises(InvalidArgument, match="polygamma.*non-negative int"):
        polygamma(paddle.to_tensor([1.0]), -1)
