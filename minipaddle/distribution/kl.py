"""KL(p || q) = E_p[log p(x) - log q(x)]: a table of closed forms keyed by the two classes.

`kl_divergence(p, q)` looks up the most specific registered pair of base classes of type(p) and
type(q) (Paddle's rule); `register_kl(P, Q)` adds an entry. Discrete distributions without a
closed form (Binomial, Poisson) sum over their support.
"""
from __future__ import annotations

import functools
import math
import warnings

import numpy as np

import minipaddle as paddle
import minipaddle.nn.functional as F
from ..framework.errors import invalid_argument, invalid_type, unimplemented
from ..framework.ops.special import digamma, lgamma
from ..framework.tensor import Tensor
from .continuous import Cauchy, Laplace, Uniform
from .counting import Binomial, Geometric, Poisson, _support
from .discrete import Bernoulli, Categorical
from .distribution import Distribution
from .gamma_family import Beta, Dirichlet, Exponential, ExponentialFamily, Gamma
from .normal import LogNormal, MultivariateNormal, Normal

_REGISTER_TABLE: dict = {}

def kl_divergence(p: Distribution, q: Distribution) -> Tensor:
    """The KL divergence KL(p || q), batchwise.

    >>> p = paddle.distribution.Beta(alpha=0.5, beta=0.5)      # doctest: +SKIP
    >>> q = paddle.distribution.Beta(alpha=0.3, beta=0.7)      # doctest: +SKIP
    >>> paddle.distribution.kl_divergence(p, q)                # doctest: +SKIP
    0.21193528
    """
    return _dispatch(type(p), type(q))(p, q)

def register_kl(cls_p: type, cls_q: type):
    """Decorator: register `fn(p, q)` as KL(p || q) for p of class cls_p and q of class cls_q."""
    if not (isinstance(cls_p, type) and issubclass(cls_p, Distribution)
            and isinstance(cls_q, type) and issubclass(cls_q, Distribution)):
        raise invalid_type("register_kl", "cls_p and cls_q must be subclasses of Distribution.")

    def decorator(fn):
        _REGISTER_TABLE[cls_p, cls_q] = fn
        return fn
    return decorator

@functools.total_ordering
class _Compare:
    """Orders class pairs: (A, B) <= (C, D) when A is a subclass of C (then B of D)."""

    def __init__(self, *classes) -> None:
        self.classes = classes

    def __eq__(self, other) -> bool:
        return self.classes == other.classes

    def __le__(self, other) -> bool:
        for cls_x, cls_y in zip(self.classes, other.classes):
            if not issubclass(cls_x, cls_y):
                return False
            if cls_x is not cls_y:
                break
        return True

def _dispatch(cls_p: type, cls_q: type):
    matches = [(sp, sq) for sp, sq in _REGISTER_TABLE if issubclass(cls_p, sp) and issubclass(cls_q, sq)]
    if not matches:
        raise unimplemented("kl_divergence", f"no KL registered for ({cls_p.__name__}, {cls_q.__name__}).",
                            hint="register one with @paddle.distribution.register_kl(P, Q).")
    left_p, left_q = min(_Compare(*m) for m in matches).classes
    right_q, right_p = min(_Compare(*reversed(m)) for m in matches).classes   # most specific in q first
    if _REGISTER_TABLE[left_p, left_q] is not _REGISTER_TABLE[right_p, right_q]:
        warnings.warn(f"Ambiguous kl_divergence({cls_p.__name__}, {cls_q.__name__}). "
                      f"Please register_kl({left_p.__name__}, {right_q.__name__})", RuntimeWarning, stacklevel=3)
    return _REGISTER_TABLE[left_p, left_q]

# ---- closed forms ------------------------------------------------------------------------------
@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * var_ratio + 0.5 * (t1 - 1.0 - var_ratio.log())

@register_kl(LogNormal, LogNormal)
def _kl_lognormal_lognormal(p, q):
    return _kl_normal_normal(p._base, q._base)

@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_mvn_mvn(p, q):
    """0.5 (tr(S_q^-1 S_p) + |L_q^-1 (mu_q - mu_p)|^2 - k) + log det L_q - log det L_p."""
    if p.event_shape != q.event_shape:
        raise invalid_argument("kl_divergence", f"the two MultivariateNormals' event shapes differ: "
                                                f"{list(p.event_shape)} and {list(q.event_shape)}.")
    k = p.event_shape[0]
    inv_q = paddle.to_tensor(np.linalg.inv(q._unbroadcasted_scale_tril.numpy().astype(np.float64)).astype(p.dtype))
    m = paddle.matmul(inv_q, p._unbroadcasted_scale_tril)   # L_q^-1 L_p: tr(S_q^-1 S_p) = |m|_F^2
    trace = m.pow(2).sum([-2, -1])
    return 0.5 * (trace + q._mahalanobis(q.loc - p.loc) - k) + q._half_log_det() - p._half_log_det()

@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    """log((q.high - q.low) / (p.high - p.low)) when p's support lies inside q's, else inf."""
    inside = (q.low <= p.low) & (p.high <= q.high)
    ratio = ((q.high - q.low) / (p.high - p.low)).log()
    return paddle.where(inside, ratio, paddle.full_like(ratio, float("inf")))

@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    t = (p.loc - q.loc).abs()
    return (p.scale * (-t / p.scale).exp() + t) / q.scale + (q.scale / p.scale).log() - 1.0

@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p, q):
    """log(((s_p + s_q)^2 + (l_p - l_q)^2) / (4 s_p s_q)) (Chyzak & Nielsen, 2019)."""
    return ((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)).log() - (4.0 * p.scale * q.scale).log()

@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    ratio = q.rate / p.rate
    return ratio - 1.0 - ratio.log()

@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    a_p, b_p, a_q, b_q = p.concentration, p.rate, q.concentration, q.rate
    return ((a_p - a_q) * digamma(a_p) - lgamma(a_p) + lgamma(a_q)
            + a_q * (b_p.log() - b_q.log()) + a_p * (b_q - b_p) / b_p)

@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    sum_p, sum_q = p.alpha + p.beta, q.alpha + q.beta
    return ((lgamma(q.alpha) + lgamma(q.beta) + lgamma(sum_p)) - (lgamma(p.alpha) + lgamma(p.beta) + lgamma(sum_q))
            + (p.alpha - q.alpha) * digamma(p.alpha) + (p.beta - q.beta) * digamma(p.beta)
            + (sum_q - sum_p) * digamma(sum_p))

@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    a, b = p.concentration, q.concentration
    a0 = a.sum(-1)
    return (lgamma(a0) - lgamma(b.sum(-1)) - (lgamma(a) - lgamma(b)).sum(-1)
            + ((a - b) * (digamma(a) - digamma(a0).unsqueeze(-1))).sum(-1))

@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    log_pa, log_pb = -F.softplus(-p.logits), -F.softplus(-q.logits)
    log_one_minus_pa, log_one_minus_pb = -F.softplus(p.logits), -F.softplus(q.logits)
    pa, one_minus_pa = F.sigmoid(p.logits), F.sigmoid(-p.logits)
    return (log_pa - log_pb) * pa + (log_one_minus_pa - log_one_minus_pb) * one_minus_pa

@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    """sum p (log p - log q) over the categories; the axis is kept (Paddle's shape)."""
    log_p, log_q = F.log_softmax(p.logits, axis=-1), F.log_softmax(q.logits, axis=-1)
    return (log_p.exp() * (log_p - log_q)).sum(-1, keepdim=True)

@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    """sum_k a (1-a)^k [log(a/b) + k log((1-a)/(1-b))] = log(a/b) + (1-a)/a log((1-a)/(1-b)), E[k] = (1-a)/a.

    Paddle 3.3.1 returns the Bernoulli KL of the success probabilities here; this is the geometric one.
    """
    a, b = p.probs, q.probs
    return (a / b).log() + (1.0 - a) / a * ((-a).log1p() - (-b).log1p())

@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p, q):
    values, inside = p._support()
    log_p, log_q = p.log_prob(values), q.log_prob(values)
    terms = paddle.where(inside, log_p.exp() * (log_p - log_q), paddle.zeros_like(log_p))
    return terms.sum(0)

@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    if p.batch_shape != q.batch_shape:
        raise invalid_argument("kl_divergence", f"the two Poissons' batch shapes differ: {list(p.batch_shape)} and "
                                                f"{list(q.batch_shape)}; expected the same.")
    upper = p._upper(paddle.maximum(p.rate, q.rate))
    values = _support(upper, len(p.batch_shape), p.dtype)
    log_p, log_q = p.log_prob(values), q.log_prob(values)
    return (log_p.exp() * (log_p - log_q)).sum(0)

@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    raise unimplemented("kl_divergence", f"no closed form registered for ({type(p).__name__}, {type(q).__name__}).",
                        hint="register one with @paddle.distribution.register_kl(P, Q).")

_ = math  # (math is used by registered user code in examples)
