"""paddle.regularizer: the decay terms L1Decay and L2Decay add to a gradient."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument

P = np.array([-2.0, 0.0, 0.5])


def test_l2_decay_term_is_coeff_times_param():
    term = paddle.regularizer.L2Decay(0.1)(paddle.to_tensor(P))
    np.testing.assert_allclose(term.numpy(), 0.1 * P)


def test_l1_decay_term_is_coeff_times_sign():
    term = paddle.regularizer.L1Decay(0.1)(paddle.to_tensor(P))
    np.testing.assert_allclose(term.numpy(), [-0.1, 0.0, 0.1])


def test_l1_decay_in_sgd():
    w = paddle.create_parameter([3], "float64")
    w.set_value(P)
    w.grad = paddle.zeros([3], "float64")
    paddle.optimizer.SGD(1.0, parameters=[w], weight_decay=paddle.regularizer.L1Decay(0.25)).step()
    np.testing.assert_allclose(w.numpy(), P - 0.25 * np.sign(P))


def test_str_and_coeff():
    reg = paddle.regularizer.L2Decay(coeff=0.5)
    assert reg.coeff == 0.5 and str(reg) == "L2Decay, coeff=0.500000"


def test_bad_coeff_raises():
    with pytest.raises(InvalidArgument, match="coeff must be a number"):
        paddle.regularizer.L1Decay("0.1")
