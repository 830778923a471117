"""The normal family: Normal, LogNormal (exp of a normal) and MultivariateNormal."""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

import minipaddle as paddle
from ..framework.autograd import no_grad
from ..framework.errors import invalid_argument
from ..framework.tensor import Tensor
from .distribution import (Distribution, as_param, as_value, broadcast_params, generator, noise, param_dtype,
                           sample_shape)
from .transform import ExpTransform
from .transformed import TransformedDistribution

_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)


class Normal(Distribution):
    """The normal (Gaussian) distribution N(loc, scale^2).

    >>> d = paddle.distribution.Normal(0.0, 1.0)          # doctest: +SKIP
    >>> d.log_prob(paddle.to_tensor(0.0))                  # doctest: +SKIP
    -0.9189385                                             # -log(sqrt(2 pi))
    """

    def __init__(self, loc, scale, name: str | None = None) -> None:
        self.name = name if name is not None else "Normal"
        self.loc, self.scale = broadcast_params("Normal", loc=loc, scale=scale)
        self.dtype = str(self.loc._data.dtype)
        super().__init__(tuple(self.loc.shape))

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        return self.scale.pow(2)

    def sample(self, shape: Sequence[int] = (), seed: int = 0) -> Tensor:
        """Draws without gradient; a non-zero `seed` draws from a generator of its own."""
        with no_grad():
            return self._draw(shape, np.random.default_rng(seed) if seed else generator())

    def rsample(self, shape: Sequence[int] = ()) -> Tensor:
        """loc + scale * eps with eps ~ N(0, 1): differentiable in loc and scale."""
        return self._draw(shape, generator())

    def _draw(self, shape, rng: np.random.Generator) -> Tensor:
        shape = self._extend_shape(sample_shape("Normal.sample", shape))
        return self.loc + self.scale * noise(rng.standard_normal(shape), self.dtype)

    def log_prob(self, value) -> Tensor:
        value = as_value("Normal.log_prob", value, self.loc)
        z = (value - self.loc) / self.scale
        return -0.5 * z * z - self.scale.log() - _HALF_LOG_2PI

    def entropy(self) -> Tensor:
        return 0.5 + _HALF_LOG_2PI + self.scale.log()


class LogNormal(TransformedDistribution):
    """The distribution of exp(X) for X ~ Normal(loc, scale)."""

    def __init__(self, loc, scale) -> None:
        self._base = Normal(loc=loc, scale=scale)
        self.loc, self.scale = self._base.loc, self._base.scale
        super().__init__(self._base, [ExpTransform()])

    @property
    def mean(self) -> Tensor:
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def variance(self) -> Tensor:
        s2 = self.scale.pow(2)
        return (s2.exp() - 1.0) * (2 * self.loc + s2).exp()

    def entropy(self) -> Tensor:
        return self._base.entropy() + self.loc

    def probs(self, value) -> Tensor:
        return self.prob(value)

    def log_prob(self, value) -> Tensor:
        return super().log_prob(as_value("LogNormal.log_prob", value, self.loc))


class MultivariateNormal(Distribution):
    """N(loc, Sigma) over vectors: give exactly one of covariance_matrix, precision_matrix, scale_tril.

    Sigma is factored as L L^T (Cholesky). Samples are loc + L eps, differentiable in loc and in
    scale_tril when that is how the distribution was given. The factorization of a covariance or
    precision matrix is computed in numpy, so log_prob's gradient reaches loc and value, not those.
    """

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None) -> None:
        given = [m for m in (covariance_matrix, precision_matrix, scale_tril) if m is not None]
        if len(given) != 1:
            raise invalid_argument("MultivariateNormal", "exactly one of covariance_matrix, precision_matrix or "
                                                         "scale_tril may be specified.")
        matrix = given[0]
        dtype = param_dtype([loc, matrix])
        loc = as_param("MultivariateNormal", "loc", loc, dtype)
        matrix = as_param("MultivariateNormal", "the matrix", matrix, dtype)
        if matrix.ndim < 2 or matrix.shape[-1] != matrix.shape[-2]:
            raise invalid_argument("MultivariateNormal", f"the matrix must be square with optional leading batch "
                                                         f"dims, got shape {list(matrix.shape)}.")
        if loc.ndim < 1 or loc.shape[-1] != matrix.shape[-1]:
            raise invalid_argument("MultivariateNormal", f"loc's last dim must be {matrix.shape[-1]} (the matrix's), "
                                                         f"got loc of shape {list(loc.shape)}.")
        self.dtype = str(loc._data.dtype)
        batch = np.broadcast_shapes(tuple(loc.shape[:-1]), tuple(matrix.shape[:-2]))
        k = loc.shape[-1]
        self.loc = paddle.broadcast_to(loc, list(batch) + [k])
        self._unbroadcasted_scale_tril = self._scale_tril(matrix, covariance_matrix, precision_matrix)
        self.scale_tril = paddle.broadcast_to(self._unbroadcasted_scale_tril, list(batch) + [k, k])
        super().__init__(batch, (k,))

    def _scale_tril(self, matrix: Tensor, covariance, precision) -> Tensor:
        if covariance is None and precision is None:
            return matrix
        data = matrix.numpy().astype(np.float64)
        if precision is not None:
            data = np.linalg.inv(data)
        try:
            return paddle.to_tensor(np.linalg.cholesky(data).astype(self.dtype))
        except np.linalg.LinAlgError:
            raise invalid_argument("MultivariateNormal", "the covariance matrix is not positive definite.") from None

    @property
    def covariance_matrix(self) -> Tensor:
        return paddle.matmul(self.scale_tril, self.scale_tril, transpose_y=True)

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        return self.scale_tril.pow(2).sum(-1)

    def sample(self, shape: Sequence[int] = ()) -> Tensor:
        with no_grad():
            return self.rsample(shape)

    def rsample(self, shape: Sequence[int] = ()) -> Tensor:
        shape = self._extend_shape(sample_shape("MultivariateNormal.rsample", shape))
        eps = noise(generator().standard_normal(shape), self.dtype)
        return self.loc + paddle.matmul(self._unbroadcasted_scale_tril, eps.unsqueeze(-1)).squeeze(-1)

    def _half_log_det(self) -> Tensor:
        diag = self._unbroadcasted_scale_tril * paddle.eye(self.event_shape[0], dtype=self.dtype)
        return diag.sum(-1).log().sum(-1)

    def _mahalanobis(self, diff: Tensor) -> Tensor:
        """|L^-1 diff|^2, with L^-1 from numpy (a constant for autograd)."""
        inv = np.linalg.inv(self._unbroadcasted_scale_tril.numpy().astype(np.float64)).astype(self.dtype)
        z = paddle.matmul(paddle.to_tensor(inv), diff.unsqueeze(-1)).squeeze(-1)
        return (z * z).sum(-1)

    def log_prob(self, value) -> Tensor:
        value = as_value("MultivariateNormal.log_prob", value, self.loc)
        k = self.event_shape[0]
        return -0.5 * (k * math.log(2 * math.pi) + self._mahalanobis(value - self.loc)) - self._half_log_det()

    def entropy(self) -> Tensor:
        k = self.event_shape[0]
        half_log_det = paddle.broadcast_to(self._half_log_det(), list(self.batch_shape))
        return 0.5 * k * (1.0 + math.log(2 * math.pi)) + half_log_det

