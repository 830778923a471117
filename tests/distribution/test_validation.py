"""Bad parameters and arguments give clear minipaddle errors where Paddle checks them."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle import distribution as D
from minipaddle.framework.errors import InvalidArgument, InvalidType, Unimplemented


def t32(values):
    return paddle.to_tensor(np.asarray(values, dtype=np.float32))


@pytest.mark.parametrize("make, match", [
    (lambda: D.StudentT(t32([3.0]), t32([0.0]), t32([-1.0])), "scale must be non-negative"),
    (lambda: D.StudentT(t32([-3.0]), t32([0.0]), t32([1.0])), "df must be non-negative"),
    (lambda: D.Geometric(t32([0.0, 0.5])), r"probs must lie in \(0, 1\]"),
    (lambda: D.Geometric(1.5), r"probs must lie in \(0, 1\]"),
    (lambda: D.Chi2(t32([-1.0])), "df must be positive"),
    (lambda: D.Multinomial(0, t32([0.5, 0.5])), "total_count must be an int >= 1"),
    (lambda: D.Multinomial(3, t32(0.5)), "at least one dim"),
    (lambda: D.Dirichlet(t32(1.0)), "at least one-dimensional"),
    (lambda: D.Categorical(t32(1.0)), "at least one dim"),
    (lambda: D.Normal(t32([0.0, 1.0]), t32([1.0, 2.0, 3.0])), "do not broadcast"),
    (lambda: D.MultivariateNormal(t32([0.0, 0.0])), "exactly one of"),
    (lambda: D.MultivariateNormal(t32([0.0, 0.0]), covariance_matrix=t32([[1.0, 2.0], [2.0, 1.0]])),
     "not positive definite"),
    (lambda: D.MultivariateNormal(t32([0.0, 0.0, 0.0]), covariance_matrix=t32(np.eye(2))), "last dim must be 2"),
    (lambda: D.Independent(D.Normal(t32([0.0]), t32([1.0])), 2), "reinterpreted_batch_rank <= 1"),
])
def test_invalid_parameters_raise_invalid_argument(make, match):
    with pytest.raises(InvalidArgument, match=match):
        make()


def test_wrong_types_raise_invalid_type():
    with pytest.raises(InvalidType, match="loc must be a float"):
        D.Normal("zero", 1.0)
    with pytest.raises(InvalidType, match="shape must be a sequence"):
        D.Normal(0.0, 1.0).sample(3)
    with pytest.raises(InvalidArgument, match="non-negative ints"):
        D.Normal(0.0, 1.0).sample([-1])
    with pytest.raises(InvalidType, match="base must be a Distribution"):
        D.TransformedDistribution("normal", [D.ExpTransform()])
    with pytest.raises(InvalidType, match="value must be a Tensor"):
        D.Normal(0.0, 1.0).log_prob("x")


def test_what_a_distribution_does_not_define_says_so():
    with pytest.raises(Unimplemented, match="no reparameterized sampler"):
        D.Beta(1.0, 2.0).rsample([2])
    with pytest.raises(InvalidArgument, match="no mean"):
        _ = D.Cauchy(0.0, 1.0).mean
    with pytest.raises(NotImplementedError):
        _ = D.Categorical(t32([0.5, 0.5])).mean


def test_values_of_another_float_dtype_are_cast_to_the_parameters():
    d = D.Normal(t32([0.0]), t32([1.0]))
    assert d.log_prob(paddle.to_tensor([0.5], dtype="float64")).dtype == paddle.float32
