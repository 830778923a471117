"""Location-scale distributions on the real line: Uniform, Laplace, Cauchy, Gumbel, StudentT.

Each rsample is the inverse CDF of a uniform (or a standard draw) pushed through
loc + scale * z, so its gradient reaches loc and scale.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

import minipaddle as paddle
from ..framework.autograd import no_grad
from ..framework.errors import invalid_argument
from ..framework.ops.special import atan, digamma, lgamma
from ..framework.tensor import Tensor
from .distribution import (Distribution, as_value, broadcast_params, float_eps, float_tiny, generator, noise,
                           require_positive, sample_shape)
from .gamma_family import Gamma

_EULER_GAMMA = 0.5772156649015329


class Uniform(Distribution):
    """Uniform(low, high): density 1 / (high - low) on [low, high)."""

    def __init__(self, low, high, name: str | None = None) -> None:
        self.name = name if name is not None else "Uniform"
        self.low, self.high = broadcast_params("Uniform", low=low, high=high)
        self.dtype = str(self.low._data.dtype)
        super().__init__(tuple(self.low.shape))

    @property
    def mean(self) -> Tensor:
        return (self.low + self.high) / 2.0

    @property
    def variance(self) -> Tensor:
        return (self.high - self.low).pow(2) / 12.0

    def sample(self, shape: Sequence[int] = (), seed: int = 0) -> Tensor:
        shape = self._extend_shape(sample_shape("Uniform.sample", shape))
        rng = np.random.default_rng(seed) if seed else generator()
        u = noise(rng.random(shape), self.dtype)
        with no_grad():
            return self.low + (self.high - self.low) * u

    def log_prob(self, value) -> Tensor:
        return self.prob(value).log()

    def prob(self, value) -> Tensor:
        value = as_value("Uniform.prob", value, self.low)
        inside = ((self.low < value) & (value < self.high)).astype(self.dtype)
        return inside / (self.high - self.low)

    def entropy(self) -> Tensor:
        return (self.high - self.low).log()


class Laplace(Distribution):
    """Laplace(loc, scale): density exp(-|x - loc| / scale) / (2 scale)."""

    def __init__(self, loc, scale) -> None:
        self.loc, self.scale = broadcast_params("Laplace", loc=loc, scale=scale)
        self.dtype = str(self.loc._data.dtype)
        super().__init__(tuple(self.loc.shape))

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        return 2.0 * self.scale.pow(2)

    @property
    def stddev(self) -> Tensor:
        return math.sqrt(2.0) * self.scale

    def sample(self, shape: Sequence[int] = ()) -> Tensor:
        with no_grad():
            return self.rsample(shape)

    def rsample(self, shape: Sequence[int] = ()) -> Tensor:
        """The inverse CDF at u ~ U(-1, 1): loc - scale * sign(u) * log(1 - |u|)."""
        shape = self._extend_shape(sample_shape("Laplace.rsample", shape))
        eps = float_eps(self.dtype)
        u = noise(generator().uniform(-1.0 + eps, 1.0, shape), self.dtype)
        return self.loc - self.scale * u.sign() * (-u.abs()).log1p()

    def log_prob(self, value) -> Tensor:
        value = as_value("Laplace.log_prob", value, self.loc)
        return -(2.0 * self.scale).log() - (value - self.loc).abs() / self.scale

    def entropy(self) -> Tensor:
        return 1.0 + (2.0 * self.scale).log()

    def cdf(self, value) -> Tensor:
        value = as_value("Laplace.cdf", value, self.loc)
        z = (value - self.loc) / self.scale
        return 0.5 - 0.5 * z.sign() * ((-z.abs()).exp() - 1.0)

    def icdf(self, value) -> Tensor:
        value = as_value("Laplace.icdf", value, self.loc)
        t = value - 0.5
        return self.loc - self.scale * t.sign() * (-2.0 * t.abs()).log1p()


class Cauchy(Distribution):
    """Cauchy(loc, scale): density 1 / (pi scale (1 + ((x - loc) / scale)^2)); it has no mean."""

    def __init__(self, loc, scale, name: str | None = None) -> None:
        self.name = name if name is not None else "Cauchy"
        self.loc, self.scale = broadcast_params("Cauchy", loc=loc, scale=scale)
        self.dtype = str(self.loc._data.dtype)
        super().__init__(tuple(self.loc.shape))

    @property
    def mean(self) -> Tensor:
        raise invalid_argument("Cauchy.mean", "the Cauchy distribution has no mean.")

    @property
    def variance(self) -> Tensor:
        raise invalid_argument("Cauchy.variance", "the Cauchy distribution has no variance.")

    @property
    def stddev(self) -> Tensor:
        raise invalid_argument("Cauchy.stddev", "the Cauchy distribution has no stddev.")

    def sample(self, shape: Sequence[int] = ()) -> Tensor:
        with no_grad():
            return self.rsample(shape)

    def rsample(self, shape: Sequence[int] = ()) -> Tensor:
        shape = self._extend_shape(sample_shape("Cauchy.rsample", shape))
        return self.loc + self.scale * noise(generator().standard_cauchy(shape), self.dtype)

    def log_prob(self, value) -> Tensor:
        value = as_value("Cauchy.log_prob", value, self.loc)
        z = (value - self.loc) / self.scale
        return -math.log(math.pi) - self.scale.log() - (z * z).log1p()

    def cdf(self, value) -> Tensor:
        value = as_value("Cauchy.cdf", value, self.loc)
        return atan((value - self.loc) / self.scale) / math.pi + 0.5

    def entropy(self) -> Tensor:
        return math.log(4.0 * math.pi) + self.scale.log()


class Gumbel(Distribution):
    """Gumbel(loc, scale): the maximum's distribution; cdf exp(-exp(-(x - loc) / scale))."""

    def __init__(self, loc, scale) -> None:
        self.loc, self.scale = broadcast_params("Gumbel", loc=loc, scale=scale)
        self.dtype = str(self.loc._data.dtype)
        super().__init__(tuple(self.loc.shape))

    @property
    def mean(self) -> Tensor:
        return self.loc + self.scale * _EULER_GAMMA

    @property
    def variance(self) -> Tensor:
        return self.scale.pow(2) * (math.pi ** 2 / 6.0)

    @property
    def stddev(self) -> Tensor:
        return self.variance.sqrt()

    def sample(self, shape: Sequence[int] = ()) -> Tensor:
        with no_grad():
            return self.rsample(shape)

    def rsample(self, shape: Sequence[int] = ()) -> Tensor:
        """The inverse CDF: loc - scale * log(-log(u))."""
        shape = self._extend_shape(sample_shape("Gumbel.rsample", shape))
        u = noise(generator().uniform(float_tiny("float32"), 1.0 - float_eps("float32"), shape), self.dtype)
        return self.loc - self.scale * (-u.log()).log()

    def prob(self, value) -> Tensor:
        return self.log_prob(value).exp()

    def log_prob(self, value) -> Tensor:
        value = as_value("Gumbel.log_prob", value, self.loc)
        y = (self.loc - value) / self.scale
        return y - y.exp() - self.scale.log()

    def cdf(self, value) -> Tensor:
        value = as_value("Gumbel.cdf", value, self.loc)
        return (-(-(value - self.loc) / self.scale).exp()).exp()

    def entropy(self) -> Tensor:
        return self.scale.log() + 1.0 + _EULER_GAMMA


class StudentT(Distribution):
    """Student's t with `df` degrees of freedom, shifted by loc and scaled by scale."""

    def __init__(self, df, loc, scale, name: str | None = None) -> None:
        self.name = name if name is not None else "StudentT"
        self.df, self.loc, self.scale = broadcast_params("StudentT", df=df, loc=loc, scale=scale)
        require_positive("StudentT", "df", self.df, allow_zero=True)
        require_positive("StudentT", "scale", self.scale, allow_zero=True)
        self.dtype = str(self.df._data.dtype)
        super().__init__(tuple(self.df.shape))
        self._chi2 = Gamma(0.5 * self.df, paddle.full_like(self.df, 0.5))

    @property
    def mean(self) -> Tensor:
        return paddle.where(self.df > 1.0, self.loc, paddle.full_like(self.loc, float("nan")))

    @property
    def variance(self) -> Tensor:
        finite = self.scale.pow(2) * self.df / (self.df - 2.0)
        var = paddle.where(self.df > 2.0, finite, paddle.full_like(finite, float("nan")))
        return paddle.where((self.df <= 2.0) & (self.df > 1.0), paddle.full_like(var, float("inf")), var)

    def sample(self, shape: Sequence[int] = ()) -> Tensor:
        """loc + scale * z / sqrt(chi2 / df): a normal over the root of a scaled chi-squared."""
        shape = sample_shape("StudentT.sample", shape)
        with no_grad():
            z = noise(generator().standard_normal(self._extend_shape(shape)), self.dtype)
            chi2 = self._chi2.sample(shape)
            return self.loc + self.scale * z * (chi2 / self.df).rsqrt()

    def log_prob(self, value) -> Tensor:
        value = as_value("StudentT.log_prob", value, self.df)
        y = (value - self.loc) / self.scale
        log_z = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi)
                 + lgamma(0.5 * self.df) - lgamma(0.5 * (self.df + 1.0)))
        return -0.5 * (self.df + 1.0) * (y * y / self.df).log1p() - log_z

    def entropy(self) -> Tensor:
        df = self.df
        lbeta = lgamma(0.5 * df) + math.lgamma(0.5) - lgamma(0.5 * (df + 1.0))
        return (self.scale.log() + 0.5 * (df + 1.0) * (digamma(0.5 * (df + 1.0)) - digamma(0.5 * df))
                + 0.5 * df.log() + lbeta)
