"""Initializers (framework/initializer.py, public as paddle.nn.initializer) fill parameters with the
right distribution, reproducibly under paddle.seed."""
from __future__ import annotations

import math

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework import initializer as core_init
from minipaddle.framework.errors import InvalidArgument
from minipaddle.nn import initializer as init


def _param(shape, initializer):
    return paddle.create_parameter(shape, "float64", default_initializer=initializer)


@pytest.mark.parametrize("shape, fan_in, fan_out", [([300, 200], 300, 200), ([64, 16, 3, 3], 144, 576)])
def test_xavier_and_kaiming_scales_follow_paddle_fans(shape, fan_in, fan_out):
    paddle.seed(0)
    xn = _param(shape, init.XavierNormal()).numpy()
    assert xn.std() == pytest.approx(math.sqrt(2 / (fan_in + fan_out)), rel=0.05)
    xu = _param(shape, init.XavierUniform()).numpy()
    assert np.abs(xu).max() <= math.sqrt(6 / (fan_in + fan_out))
    kn = _param(shape, init.KaimingNormal()).numpy()
    assert kn.std() == pytest.approx(math.sqrt(2 / fan_in), rel=0.05)
    ku = _param(shape, init.KaimingUniform()).numpy()
    assert np.abs(ku).max() <= math.sqrt(6 / fan_in)


def test_truncated_normal_stays_within_bounds():
    v = _param([2000], init.TruncatedNormal(mean=1.0, std=0.5)).numpy()
    assert v.min() >= 0.0 and v.max() <= 2.0 and v.std() < 0.5


def test_constant_uniform_normal_assign():
    assert np.all(_param([3], init.Constant(2.5)).numpy() == 2.5)
    u = _param([1000], init.Uniform(-0.1, 0.2)).numpy()
    assert u.min() >= -0.1 and u.max() <= 0.2
    n = _param([4000], init.Normal(3.0, 0.1)).numpy()
    assert n.mean() == pytest.approx(3.0, abs=0.01)
    np.testing.assert_array_equal(_param([2], init.Assign([1.0, 2.0])).numpy(), [1.0, 2.0])
    with pytest.raises(InvalidArgument, match=r"Assign.*\[3\].*\[2\]"):
        _param([2], init.Assign([1.0, 2.0, 3.0]))


def test_seed_makes_initialization_reproducible():
    paddle.seed(7)
    a = _param([5, 5], init.XavierUniform()).numpy()
    paddle.seed(7)
    b = _param([5, 5], init.XavierUniform()).numpy()
    np.testing.assert_array_equal(a, b)


def test_default_initializers_are_paddles():
    assert np.all(paddle.create_parameter([3], "float32", is_bias=True).numpy() == 0)
    w = paddle.create_parameter([100, 100], "float32").numpy()
    assert np.abs(w).max() <= math.sqrt(6 / 200) and w.std() > 0


def test_calculate_gain_and_bad_arguments():
    assert init.calculate_gain("relu") == pytest.approx(math.sqrt(2))
    assert init.calculate_gain("leaky_relu", 0.2) == pytest.approx(math.sqrt(2 / 1.04))
    with pytest.raises(InvalidArgument, match="unknown nonlinearity"):
        init.calculate_gain("wobble")
    with pytest.raises(InvalidArgument, match="low"):
        init.Uniform(1.0, 0.0)
    with pytest.raises(InvalidArgument, match="float"):
        paddle.create_parameter([2], "int64")


def test_nn_initializer_is_the_cores_classes_under_paddles_name():
    for name in init.__all__:
        assert getattr(init, name) is getattr(core_init, name), name
