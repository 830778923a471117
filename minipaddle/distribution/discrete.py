"""Distributions over counts and categories: Bernoulli, Categorical, Multinomial, Binomial, Poisson,
Geometric.

Draws are integers (Categorical's are int64 indices; the others return counts in the parameters'
float dtype, as Paddle does). Entropies of Binomial and Poisson, which have no closed form, sum
-p log p over the support (Poisson's cut where its tail is negligible).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

import minipaddle as paddle
import minipaddle.nn.functional as F
from ..framework.autograd import no_grad
from ..framework.errors import invalid_argument
from ..framework.ops.special import lgamma
from ..framework.tensor import Tensor
from .distribution import (Distribution, as_param, as_value, broadcast_params, float_eps, float_tiny, generator,
                           noise, param_dtype, sample_shape)
from .gamma_family import ExponentialFamily


def _clip_probs(probs: Tensor) -> Tensor:
    eps = float_eps(probs._data.dtype)
    return paddle.clip(probs, min=eps, max=1.0 - eps)


class Bernoulli(ExponentialFamily):
    """Bernoulli(probs): 1 with probability probs, else 0. probs is clipped to [eps, 1 - eps]."""

    def __init__(self, probs, name: str | None = None) -> None:
        self.name = name if name is not None else "Bernoulli"
        (probs,) = broadcast_params("Bernoulli", probs=probs)
        self.dtype = str(probs._data.dtype)
        self.probs = _clip_probs(probs)
        self.logits = self.probs.log() - (-self.probs).log1p()
        super().__init__(tuple(self.probs.shape))

    @property
    def mean(self) -> Tensor:
        return self.probs

    @property
    def variance(self) -> Tensor:
        return self.probs * (1.0 - self.probs)

    def sample(self, shape: Sequence[int] = ()) -> Tensor:
        shape = self._extend_shape(sample_shape("Bernoulli.sample", shape))
        u = noise(generator().random(shape), self.dtype)
        with no_grad():
            return (u < self.probs).astype(self.dtype)

    def rsample(self, shape: Sequence[int] = (), temperature: float = 1.0) -> Tensor:
        """A relaxed (Gumbel-softmax) draw in logit space: (logit(u) + logits) / temperature."""
        shape = self._extend_shape(sample_shape("Bernoulli.rsample", shape))
        u = noise(generator().uniform(float_tiny(self.dtype), 1.0, shape), self.dtype)
        return (u.log() - (-u).log1p() + self.logits) / temperature

    def cdf(self, value) -> Tensor:
        value = as_value("Bernoulli.cdf", value, self.probs)
        below_one = paddle.where(value < 1.0, 1.0 - self.probs, paddle.ones_like(self.probs))
        return paddle.where(value < 0.0, paddle.zeros_like(below_one), below_one)

    def log_prob(self, value) -> Tensor:
        value = as_value("Bernoulli.log_prob", value, self.probs)
        return value * self.logits - F.softplus(self.logits)

    def entropy(self) -> Tensor:
        return F.softplus(self.logits) - self.logits * self.probs


class Categorical(Distribution):
    """A choice among the last axis's categories.

    As in Paddle, `logits` act as log-probabilities for sample and entropy, while `probs(value)`
    reads them as unnormalized probabilities (logits / logits.sum(-1)).
    """

    def __init__(self, logits, name: str | None = None) -> None:
        self.name = name if name is not None else "Categorical"
        self.logits = as_param("Categorical", "logits", logits, param_dtype([logits]))
        if self.logits.ndim < 1:
            raise invalid_argument("Categorical", "logits must have at least one dim (the categories).")
        self.dtype = str(self.logits._data.dtype)
        self._prob = self.logits / self.logits.sum(-1, keepdim=True)
        super().__init__(tuple(self.logits.shape[:-1]))

    def sample(self, shape: Sequence[int] = ()) -> Tensor:
        """Category indices (int64) of shape `shape + batch_shape`."""
        shape = sample_shape("Categorical.sample", shape)
        probs = F.softmax(self.logits, axis=-1).numpy().astype(np.float64)
        u = generator().random(shape + self.batch_shape)[..., None]
        index = (u >= np.cumsum(probs, axis=-1)).sum(-1)   # the first category whose cumulative prob passes u
        return paddle.to_tensor(np.minimum(index, probs.shape[-1] - 1).astype(np.int64))

    def probs(self, value: Tensor) -> Tensor:
        """The probabilities of the categories in `value` (indices)."""
        if not isinstance(value, Tensor):
            value = paddle.to_tensor(np.asarray(value, dtype=np.int64))
        if self._prob.ndim == 1:
            return paddle.gather(self._prob, value.reshape([-1])).reshape(value.shape)
        if value.ndim == 1:
            index = value.reshape([1] * (self._prob.ndim - 1) + [-1])
            return paddle.take_along_axis(self._prob, index, axis=-1)
        return paddle.take_along_axis(self._prob, value, axis=-1)

    def prob(self, value: Tensor) -> Tensor:
        return self.probs(value)

    def log_prob(self, value: Tensor) -> Tensor:
        return self.probs(value).log()

    def entropy(self) -> Tensor:
        log_p = F.log_softmax(self.logits, axis=-1)
        return -(log_p.exp() * log_p).sum(-1)


class Multinomial(Distribution):
    """Counts of `total_count` Categorical(probs) draws; the last axis of probs is the event."""

    def __init__(self, total_count: int, probs) -> None:
        if not isinstance(total_count, int) or isinstance(total_count, bool) or total_count < 1:
            raise invalid_argument("Multinomial", f"total_count must be an int >= 1, got {total_count!r}.")
        probs = as_param("Multinomial", "probs", probs, param_dtype([probs]))
        if probs.ndim < 1:
            raise invalid_argument("Multinomial", "probs must have at least one dim (the categories).")
        self.probs = probs / probs.sum(-1, keepdim=True)
        self.total_count = total_count
        self.dtype = str(probs._data.dtype)
        self._categorical = Categorical(logits=probs.log())
        super().__init__(tuple(probs.shape[:-1]), tuple(probs.shape[-1:]))

    @property
    def mean(self) -> Tensor:
        return self.probs * self.total_count

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1.0 - self.probs)

    def sample(self, shape: Sequence[int] = ()) -> Tensor:
        shape = self._extend_shape(sample_shape("Multinomial.sample", shape))
        probs = np.broadcast_to(self.probs.numpy().astype(np.float64), shape)
        return noise(generator().multinomial(self.total_count, probs), self.dtype)

    def log_prob(self, value) -> Tensor:
        value = as_value("Multinomial.log_prob", value, self.probs)
        log_norm = lgamma(value.sum(-1) + 1.0) - lgamma(value + 1.0).sum(-1)
        return log_norm + (value * self.probs.log()).sum(-1)

    def entropy(self) -> Tensor:
        n = self.total_count
        support = paddle.arange(1, n + 1, dtype=self.dtype).reshape([-1] + [1] * self.probs.ndim)
        p = self.probs
        log_binomial = (lgamma(paddle.to_tensor(n + 1.0, dtype=self.dtype)) - lgamma(support + 1.0)
                        - lgamma(n - support + 1.0) + support * p.log() + (n - support) * (1.0 - p).log())
        expected = (log_binomial.exp() * lgamma(support + 1.0)).sum([0, -1])
        return n * self._categorical.entropy() - float(np.log(np.arange(1, n + 1)).sum()) + expected
