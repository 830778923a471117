"""paddle.distribution: probability distributions, transforms and KL divergences.

    d = paddle.distribution.Normal(loc, scale)
    x = d.rsample([100])           # differentiable draws: loc + scale * eps
    d.log_prob(x), d.entropy(), d.mean, d.variance
    paddle.distribution.kl_divergence(d, other)

One module per family: normal (Normal, LogNormal, MultivariateNormal), continuous (Uniform,
Laplace, Cauchy, Gumbel, StudentT), gamma_family (Exponential, Gamma, Chi2, Beta, Dirichlet),
discrete (Bernoulli, Categorical, Multinomial), counting (Binomial, Poisson, Geometric),
transformed (Independent, TransformedDistribution), transform (the Transforms), kl.
"""
from __future__ import annotations

from . import transform  # noqa: F401 - paddle.distribution.transform, as in Paddle
from .continuous import Cauchy, Gumbel, Laplace, StudentT, Uniform
from .counting import Binomial, Geometric, Poisson
from .discrete import Bernoulli, Categorical, Multinomial
from .distribution import Distribution
from .gamma_family import Beta, Chi2, Dirichlet, Exponential, ExponentialFamily, Gamma
from .kl import kl_divergence, register_kl
from .normal import LogNormal, MultivariateNormal, Normal
from .transform import (AbsTransform, AffineTransform, ChainTransform, ExpTransform, IndependentTransform,
                        PowerTransform, ReshapeTransform, SigmoidTransform, SoftmaxTransform, StackTransform,
                        StickBreakingTransform, TanhTransform, Transform)
from .transformed import Independent, TransformedDistribution

__all__ = ["AbsTransform", "AffineTransform", "ChainTransform", "ExpTransform", "IndependentTransform",
           "PowerTransform", "ReshapeTransform", "SigmoidTransform", "SoftmaxTransform", "StackTransform",
           "StickBreakingTransform", "TanhTransform", "Transform",
           "Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2", "Dirichlet", "Distribution",
           "Exponential", "ExponentialFamily", "Gamma", "Geometric", "Gumbel", "Independent", "Laplace",
           "LogNormal", "Multinomial", "MultivariateNormal", "Normal", "Poisson", "StudentT",
           "TransformedDistribution", "Uniform", "kl_divergence", "register_kl"]
