"""Transforms: inverse(forward(x)) == x, and the log-det against a numerical Jacobian."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle import distribution as D
from minipaddle.framework.errors import InvalidArgument, Unimplemented


def t64(values):
    return paddle.to_tensor(np.asarray(values, dtype=np.float64))


def numeric_jacobian(fn, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """d fn(x) / dx of one event (x 1-D), by central differences."""
    cols = []
    for i in range(x.size):
        step = np.zeros_like(x)
        step[i] = eps
        cols.append((fn(x + step) - fn(x - step)) / (2 * eps))
    return np.stack(cols, axis=-1)


ELEMENTWISE = {
    "exp": (D.ExpTransform(), [0.5, -1.0, 2.0]),
    "sigmoid": (D.SigmoidTransform(), [0.5, -1.0, 2.0]),
    "tanh": (D.TanhTransform(), [0.5, -1.0, 2.0]),
    "affine": (D.AffineTransform(t64([1.0, 0.0, -2.0]), t64([-2.0, 0.5, 3.0])), [0.5, -1.0, 2.0]),
    "power": (D.PowerTransform(t64(3.0)), [0.5, 1.2, 2.0]),
}


@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
def test_elementwise_transform_inverts_and_its_log_det_is_the_derivative(name):
    t, x = ELEMENTWISE[name]
    x = np.asarray(x)
    y = t.forward(t64(x))
    np.testing.assert_allclose(t.inverse(y).numpy(), x, rtol=1e-10)
    derivative = np.diag(numeric_jacobian(lambda v: t.forward(t64(v)).numpy(), x))
    np.testing.assert_allclose(t.forward_log_det_jacobian(t64(x)).numpy() * np.ones(3), np.log(np.abs(derivative)),
                               rtol=1e-6)
    np.testing.assert_allclose(t.inverse_log_det_jacobian(y).numpy() * np.ones(3), -np.log(np.abs(derivative)),
                               rtol=1e-6)


def test_stick_breaking_maps_onto_the_simplex_with_the_right_log_det():
    t = D.StickBreakingTransform()
    x = np.array([0.3, -1.2, 0.8])
    y = t.forward(t64(x)).numpy()
    assert y.shape == (4,) and np.all(y > 0)
    np.testing.assert_allclose(y.sum(), 1.0, rtol=1e-12)
    np.testing.assert_allclose(t.inverse(t64(y)).numpy(), x, rtol=1e-10)
    # the map onto the first k coordinates is a bijection of R^k: its Jacobian is square
    jac = numeric_jacobian(lambda v: t.forward(t64(v)).numpy()[:3], x)
    np.testing.assert_allclose(t.forward_log_det_jacobian(t64(x)).numpy(), np.log(abs(np.linalg.det(jac))),
                               rtol=1e-6)
    assert t.forward_shape([5, 3]) == (5, 4) and t.inverse_shape([5, 4]) == (5, 3)


def test_chain_adds_log_dets_and_composes_in_order():
    chain = D.ChainTransform([D.AffineTransform(t64(1.0), t64(2.0)), D.ExpTransform()])
    x = np.array([0.1, -0.4])
    np.testing.assert_allclose(chain.forward(t64(x)).numpy(), np.exp(1 + 2 * x))
    np.testing.assert_allclose(chain.inverse(chain.forward(t64(x))).numpy(), x, rtol=1e-12)
    np.testing.assert_allclose(chain.forward_log_det_jacobian(t64(x)).numpy(), np.log(2.0) + 1 + 2 * x, rtol=1e-12)


def test_reshape_stack_softmax_and_abs():
    x = t64(np.arange(6.0).reshape(2, 3))
    reshape = D.ReshapeTransform((3,), (3, 1))
    assert reshape.forward(x).shape == [2, 3, 1] and reshape.forward_log_det_jacobian(x).shape == [2]
    assert reshape.inverse_shape([7, 3, 1]) == (7, 3)
    stack = D.StackTransform([D.ExpTransform(), D.AffineTransform(t64(1.0), t64(3.0))], axis=0)
    np.testing.assert_allclose(stack.forward(x).numpy(), [np.exp([0, 1, 2]), 1 + 3 * np.array([3, 4, 5])])
    np.testing.assert_allclose(stack.inverse(stack.forward(x)).numpy(), x.numpy(), rtol=1e-12)
    soft = D.SoftmaxTransform().forward(x).numpy()
    np.testing.assert_allclose(soft.sum(-1), 1.0)
    low, high = D.AbsTransform().inverse(t64([2.0]))
    assert (low.numpy()[0], high.numpy()[0]) == (-2.0, 2.0)


def test_calling_a_transform_on_a_distribution_transforms_it():
    d = D.ExpTransform()(D.Normal(t64(0.0), t64(1.0)))
    assert isinstance(d, D.TransformedDistribution)
    np.testing.assert_allclose(d.log_prob(t64(1.0)).numpy(), -0.5 * np.log(2 * np.pi), rtol=1e-12)
    assert isinstance(D.ExpTransform()(D.TanhTransform()), D.ChainTransform)


def test_transform_errors_are_clear():
    with pytest.raises(Unimplemented, match="not injective"):
        D.AbsTransform().forward_log_det_jacobian(t64([1.0]))
    with pytest.raises(InvalidArgument, match="different numbers of elements"):
        D.ReshapeTransform((2, 3), (4,))
    with pytest.raises(InvalidArgument, match="at least 1"):
        D.StickBreakingTransform().forward(t64(1.0))
    with pytest.raises(TypeError, match="Tensor"):
        D.AffineTransform(1.0, t64(2.0))
