"""The gamma family: Exponential, Gamma, Chi2, Beta and Dirichlet.

Gamma draws come from numpy's `standard_gamma` on minipaddle's generator; Beta and Dirichlet are
normalized gamma draws (X_i ~ Gamma(alpha_i, 1): X / sum X ~ Dirichlet(alpha)). Their densities
use lgamma and digamma (framework/ops/special.py).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

import minipaddle as paddle
from ..framework.autograd import no_grad
from ..framework.errors import invalid_argument
from ..framework.ops.special import digamma, lgamma
from ..framework.tensor import Tensor
from .distribution import (Distribution, as_param, as_value, broadcast_params, float_tiny, generator, noise,
                           param_dtype, sample_shape)


class ExponentialFamily(Distribution):
    """Base class of the exponential-family distributions (Paddle's marker for the Bregman KL)."""


def _lbeta(*alphas: Tensor) -> Tensor:
    """log B(a_1, ..., a_k) = sum lgamma(a_i) - lgamma(sum a_i)."""
    total = alphas[0]
    log_gammas = lgamma(alphas[0])
    for a in alphas[1:]:
        total = total + a
        log_gammas = log_gammas + lgamma(a)
    return log_gammas - lgamma(total)


class Exponential(ExponentialFamily):
    """Exponential(rate): density rate * exp(-rate * x) on x >= 0."""

    def __init__(self, rate) -> None:
        (self.rate,) = broadcast_params("Exponential", rate=rate)
        self.dtype = str(self.rate._data.dtype)
        super().__init__(tuple(self.rate.shape))

    @property
    def mean(self) -> Tensor:
        return 1.0 / self.rate

    @property
    def variance(self) -> Tensor:
        return self.rate.pow(-2)

    def sample(self, shape: Sequence[int] = ()) -> Tensor:
        with no_grad():
            return self.rsample(shape)

    def rsample(self, shape: Sequence[int] = ()) -> Tensor:
        """-log(u) / rate with u ~ U(tiny, 1): differentiable in rate."""
        shape = self._extend_shape(sample_shape("Exponential.rsample", shape))
        u = noise(generator().uniform(float_tiny("float32"), 1.0, shape), self.dtype)
        return -u.log() / self.rate

    def log_prob(self, value) -> Tensor:
        value = as_value("Exponential.log_prob", value, self.rate)
        return self.rate.log() - self.rate * value

    def entropy(self) -> Tensor:
        return 1.0 - self.rate.log()

    def cdf(self, value) -> Tensor:
        value = as_value("Exponential.cdf", value, self.rate)
        return 1.0 - (-self.rate * value).exp()

    def icdf(self, value) -> Tensor:
        value = as_value("Exponential.icdf", value, self.rate)
        return -(1.0 - value).log() / self.rate


class Gamma(ExponentialFamily):
    """Gamma(concentration, rate): density b^a x^(a-1) exp(-b x) / Gamma(a) on x > 0.

    rsample is differentiable in `rate` only (as in Paddle: the standard gamma draw is a constant).
    """

    def __init__(self, concentration, rate) -> None:
        self.concentration, self.rate = broadcast_params("Gamma", concentration=concentration, rate=rate)
        self.dtype = str(self.rate._data.dtype)
        super().__init__(tuple(self.rate.shape))

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.rate

    @property
    def variance(self) -> Tensor:
        return self.concentration / self.rate.pow(2)

    def sample(self, shape: Sequence[int] = ()) -> Tensor:
        with no_grad():
            return self.rsample(shape)

    def rsample(self, shape: Sequence[int] = ()) -> Tensor:
        shape = self._extend_shape(sample_shape("Gamma.rsample", shape))
        alpha = np.broadcast_to(self.concentration.numpy(), shape)
        return noise(generator().standard_gamma(alpha), self.dtype) / self.rate

    def log_prob(self, value) -> Tensor:
        value = as_value("Gamma.log_prob", value, self.rate)
        a, b = self.concentration, self.rate
        return a * b.log() + (a - 1.0) * value.log() - b * value - lgamma(a)

    def entropy(self) -> Tensor:
        a = self.concentration
        return a - self.rate.log() + lgamma(a) + (1.0 - a) * digamma(a)


class Chi2(Gamma):
    """Chi-squared with `df` degrees of freedom: Gamma(df / 2, 1 / 2)."""

    def __init__(self, df) -> None:
        (df,) = broadcast_params("Chi2", df=df)
        if np.any(df.numpy() <= 0):
            raise invalid_argument("Chi2", "every element of df must be positive.")
        self.df = df
        super().__init__(0.5 * df, paddle.full_like(df, 0.5))


class Beta(ExponentialFamily):
    """Beta(alpha, beta) on (0, 1): density x^(a-1) (1-x)^(b-1) / B(a, b)."""

    def __init__(self, alpha, beta) -> None:
        self.alpha, self.beta = broadcast_params("Beta", alpha=alpha, beta=beta)
        self.dtype = str(self.alpha._data.dtype)
        super().__init__(tuple(self.alpha.shape))

    @property
    def mean(self) -> Tensor:
        return self.alpha / (self.alpha + self.beta)

    @property
    def variance(self) -> Tensor:
        total = self.alpha + self.beta
        return self.alpha * self.beta / (total.pow(2) * (total + 1.0))

    def sample(self, shape: Sequence[int] = ()) -> Tensor:
        shape = self._extend_shape(sample_shape("Beta.sample", shape))
        rng = generator()
        x = rng.standard_gamma(np.broadcast_to(self.alpha.numpy(), shape))
        y = rng.standard_gamma(np.broadcast_to(self.beta.numpy(), shape))
        return noise(x / (x + y), self.dtype)

    def log_prob(self, value) -> Tensor:
        value = as_value("Beta.log_prob", value, self.alpha)
        a, b = self.alpha, self.beta
        return (a - 1.0) * value.log() + (b - 1.0) * (1.0 - value).log() - _lbeta(a, b)

    def entropy(self) -> Tensor:
        a, b = self.alpha, self.beta
        return (_lbeta(a, b) - (a - 1.0) * digamma(a) - (b - 1.0) * digamma(b)
                + (a + b - 2.0) * digamma(a + b))


class Dirichlet(ExponentialFamily):
    """Dirichlet(concentration) on the simplex; the last dim of `concentration` is the event."""

    def __init__(self, concentration) -> None:
        concentration = as_param("Dirichlet", "concentration", concentration, param_dtype([concentration]))
        if concentration.ndim < 1 or concentration.size == 0:
            raise invalid_argument("Dirichlet", f"concentration must be at least one-dimensional and non-empty, "
                                                f"got shape {list(concentration.shape)}.")
        self.concentration = concentration
        self.dtype = str(concentration._data.dtype)
        super().__init__(tuple(concentration.shape[:-1]), tuple(concentration.shape[-1:]))

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def variance(self) -> Tensor:
        a = self.concentration
        a0 = a.sum(-1, keepdim=True)
        return a * (a0 - a) / (a0.pow(2) * (a0 + 1.0))

    def sample(self, shape: Sequence[int] = ()) -> Tensor:
        shape = self._extend_shape(sample_shape("Dirichlet.sample", shape))
        x = generator().standard_gamma(np.broadcast_to(self.concentration.numpy(), shape))
        return noise(x / x.sum(-1, keepdims=True), self.dtype)

    def log_prob(self, value) -> Tensor:
        value = as_value("Dirichlet.log_prob", value, self.concentration)
        a = self.concentration
        return ((a - 1.0) * value.log()).sum(-1) - lgamma(a).sum(-1) + lgamma(a.sum(-1))

    def entropy(self) -> Tensor:
        a = self.concentration
        a0 = a.sum(-1)
        k = a.shape[-1]
        log_b = lgamma(a).sum(-1) - lgamma(a0)
        return log_b + (a0 - k) * digamma(a0) - ((a - 1.0) * digamma(a)).sum(-1)
