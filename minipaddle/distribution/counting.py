"""Distributions of counts: Binomial, Poisson (support 0, 1, 2, ...) and Geometric (failures before
the first success)."""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

import minipaddle as paddle
from ..framework.autograd import no_grad
from ..framework.errors import invalid_argument
from ..framework.ops.special import lgamma
from ..framework.tensor import Tensor
from .distribution import (Distribution, as_param, as_value, broadcast_params, float_eps, float_tiny, generator,
                           noise, param_dtype, sample_shape)


def _support(upper: int, batch_rank: int, dtype: str) -> Tensor:
    """0, 1, ..., upper - 1 down the first axis, ready to broadcast against a batch."""
    return paddle.arange(0, upper, dtype=dtype).reshape([-1] + [1] * batch_rank)


class Binomial(Distribution):
    """The number of successes in `total_count` trials of probability `probs`."""

    def __init__(self, total_count, probs) -> None:
        dtype = param_dtype([probs])
        probs = as_param("Binomial", "probs", probs, dtype)
        total_count = as_param("Binomial", "total_count", total_count, dtype)
        self.total_count, self.probs = broadcast_params("Binomial", total_count=total_count, probs=probs)
        self.dtype = str(dtype)
        super().__init__(tuple(self.probs.shape))

    @property
    def mean(self) -> Tensor:
        return self.total_count * self.probs

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1.0 - self.probs)

    def sample(self, shape: Sequence[int] = ()) -> Tensor:
        shape = self._extend_shape(sample_shape("Binomial.sample", shape))
        n = np.broadcast_to(self.total_count.numpy().astype(np.int64), shape)
        return noise(generator().binomial(n, np.broadcast_to(self.probs.numpy(), shape)), self.dtype)

    def log_prob(self, value) -> Tensor:
        value = as_value("Binomial.log_prob", value, self.probs)
        n = self.total_count
        eps = float_eps(self.dtype)
        probs = paddle.clip(self.probs, min=eps, max=1.0 - eps)
        log_comb = lgamma(n + 1.0) - lgamma(n - value + 1.0) - lgamma(value + 1.0)
        return log_comb + value * probs.log() + (n - value) * (1.0 - probs).log()

    def entropy(self) -> Tensor:
        values, inside = self._support()
        log_p = self.log_prob(values)
        return -paddle.where(inside, log_p.exp() * log_p, paddle.zeros_like(log_p)).sum(0)

    def _support(self) -> tuple[Tensor, Tensor]:
        """0..max(total_count) down the first axis, each clipped to its own total_count (so log_prob
        stays finite, and so do its gradients), and where it lies inside the support."""
        values = _support(int(self.total_count.numpy().max()) + 1, len(self.batch_shape), self.dtype)
        return paddle.minimum(values, self.total_count), values <= self.total_count


class Poisson(Distribution):
    """Poisson(rate): P(k) = rate^k exp(-rate) / k!. A Python number gives batch_shape (1,), as in Paddle."""

    def __init__(self, rate) -> None:
        if not isinstance(rate, Tensor) and np.ndim(rate) == 0:
            rate = [rate]
        (self.rate,) = broadcast_params("Poisson", rate=rate)
        self.dtype = str(self.rate._data.dtype)
        super().__init__(tuple(self.rate.shape))

    @property
    def mean(self) -> Tensor:
        return self.rate

    @property
    def variance(self) -> Tensor:
        return self.rate

    def sample(self, shape: Sequence[int] = ()) -> Tensor:
        shape = self._extend_shape(sample_shape("Poisson.sample", shape))
        return noise(generator().poisson(np.broadcast_to(self.rate.numpy(), shape)), self.dtype)

    def log_prob(self, value) -> Tensor:
        value = as_value("Poisson.log_prob", value, self.rate)
        value, rate = paddle.broadcast_to(value, list(np.broadcast_shapes(value.shape, self.rate.shape))), self.rate
        # 0 * log(0) is 0 here: P(0) = 1 when the rate is 0
        v_log_rate = paddle.where(value == 0.0, paddle.zeros_like(value), value * rate.log())
        return -rate + v_log_rate - lgamma(value + 1.0)

    def _upper(self, rate: Tensor) -> int:
        """Where the support may be cut: max rate + 30 standard deviations (at least 30)."""
        max_rate = float(rate.numpy().max())
        return int(max_rate + 30 * max(math.sqrt(max_rate), 1.0))

    def entropy(self) -> Tensor:
        values = _support(self._upper(self.rate), len(self.batch_shape), self.dtype)
        log_p = self.log_prob(values)
        proposed = -(log_p.exp() * log_p).sum(0)
        return proposed * (self.rate != 0.0).astype(self.dtype)


class Geometric(Distribution):
    """The number of failures before the first success in trials of probability `probs`."""

    def __init__(self, probs) -> None:
        (probs,) = broadcast_params("Geometric", probs=probs)
        data = probs.numpy()
        if np.any(data <= 0) or np.any(data > 1):
            raise invalid_argument("Geometric", f"probs must lie in (0, 1], got {data.ravel()[:6].tolist()}.")
        self.probs = probs
        self.dtype = str(probs._data.dtype)
        super().__init__(tuple(probs.shape))

    @property
    def mean(self) -> Tensor:
        return 1.0 / self.probs - 1.0

    @property
    def variance(self) -> Tensor:
        return (1.0 / self.probs - 1.0) / self.probs

    @property
    def stddev(self) -> Tensor:
        return self.variance.sqrt()

    def pmf(self, k) -> Tensor:
        k = as_value("Geometric.pmf", k, self.probs)
        return (1.0 - self.probs).pow(k) * self.probs

    def log_pmf(self, k) -> Tensor:
        k = as_value("Geometric.log_pmf", k, self.probs)
        return k * (-self.probs).log1p() + self.probs.log()

    def log_prob(self, value) -> Tensor:
        """The same as log_pmf (Paddle names it so)."""
        return self.log_pmf(value)

    def sample(self, shape: Sequence[int] = ()) -> Tensor:
        with no_grad():
            return self.rsample(shape)

    def rsample(self, shape: Sequence[int] = ()) -> Tensor:
        """floor(log(u) / log(1 - p)): the inverse CDF (its gradient is zero almost everywhere)."""
        shape = self._extend_shape(sample_shape("Geometric.rsample", shape))
        u = noise(generator().uniform(float_tiny("float32"), 1.0, shape), self.dtype)
        return (u.log() / (-self.probs).log1p()).floor()

    def entropy(self) -> Tensor:
        p = self.probs
        return -((1.0 - p) * (1.0 - p).log() + p * p.log()) / p

    def cdf(self, k) -> Tensor:
        k = as_value("Geometric.cdf", k, self.probs)
        return 1.0 - (1.0 - self.probs).pow(k + 1.0)
