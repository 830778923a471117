"""Sampling: shapes, paddle.seed reproducibility, sample moments against the analytic ones, and
gradients of rsample (the reparameterization trick) against closed forms."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle import distribution as D

N = 20000  # draws per moment check; tolerances are 5 standard errors of the estimate


def t64(values, stop_gradient=True):
    return paddle.to_tensor(np.asarray(values, dtype=np.float64), stop_gradient=stop_gradient)


SCALAR_FAMILIES = {
    "normal": lambda: D.Normal(t64([0.5, -1.0]), t64([2.0, 0.3])),
    "uniform": lambda: D.Uniform(t64([0.0, -1.0]), t64([2.0, 3.0])),
    "laplace": lambda: D.Laplace(t64([0.5, -1.0]), t64([2.0, 0.3])),
    "gumbel": lambda: D.Gumbel(t64([0.5, -1.0]), t64([2.0, 0.3])),
    "student_t": lambda: D.StudentT(t64([6.0, 9.0]), t64([0.5, -1.0]), t64([2.0, 0.3])),
    "exponential": lambda: D.Exponential(t64([0.5, 3.0])),
    "gamma": lambda: D.Gamma(t64([0.7, 4.5]), t64([2.0, 0.5])),
    "beta": lambda: D.Beta(t64([0.5, 2.0]), t64([0.7, 5.0])),
    "lognormal": lambda: D.LogNormal(t64([0.5, -1.0]), t64([0.4, 0.3])),
    "bernoulli": lambda: D.Bernoulli(t64([0.3, 0.85])),
    "binomial": lambda: D.Binomial(t64([10.0, 7.0]), t64([0.3, 0.6])),
    "poisson": lambda: D.Poisson(t64([2.5, 0.4])),
    "geometric": lambda: D.Geometric(t64([0.3, 0.75])),
}


@pytest.mark.parametrize("name", sorted(SCALAR_FAMILIES))
def test_sample_moments_match_mean_and_variance(name):
    paddle.seed(7)
    d = SCALAR_FAMILIES[name]()
    x = d.sample([N]).numpy()
    assert x.shape == (N, 2) and x.dtype == np.float64
    mean, var = d.mean.numpy(), d.variance.numpy()
    np.testing.assert_array_less(np.abs(x.mean(0) - mean), 5 * np.sqrt(var / N))
    # the variance of a sample variance is about (m4 - var^2) / N; 8 variance-widths is loose but real
    m4 = ((x - mean) ** 4).mean(0)
    np.testing.assert_array_less(np.abs(x.var(0) - var), 8 * np.sqrt((m4 - var ** 2) / N) + 1e-12)


def test_vector_samples_have_the_right_moments():
    paddle.seed(3)
    alpha = np.array([1.0, 2.0, 3.0])
    x = D.Dirichlet(t64(alpha)).sample([N]).numpy()
    np.testing.assert_allclose(x.sum(-1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(x.mean(0), alpha / alpha.sum(), atol=0.01)
    counts = D.Multinomial(10, t64([0.2, 0.3, 0.5])).sample([N]).numpy()
    assert (counts.sum(-1) == 10).all()
    np.testing.assert_allclose(counts.mean(0), [2.0, 3.0, 5.0], atol=0.06)
    cov = np.array([[2.0, 0.6], [0.6, 1.0]])
    y = D.MultivariateNormal(t64([1.0, -1.0]), covariance_matrix=t64(cov)).sample([N]).numpy()
    np.testing.assert_allclose(np.cov(y.T), cov, atol=0.08)


def test_categorical_samples_are_int64_indices_with_softmax_frequencies():
    paddle.seed(11)
    logits = np.array([0.0, 1.0, 2.0])
    x = D.Categorical(t64(logits)).sample([N])
    assert x.dtype == paddle.int64 and x.shape == [N]
    freq = np.bincount(x.numpy(), minlength=3) / N
    np.testing.assert_allclose(freq, np.exp(logits) / np.exp(logits).sum(), atol=0.015)


def test_seed_makes_samples_reproducible_and_shapes_extend():
    d = D.Gamma(t64([[1.0, 2.0, 3.0]]), t64([1.0]))
    paddle.seed(123)
    a = d.sample([4, 2]).numpy()
    paddle.seed(123)
    b = d.sample([4, 2]).numpy()
    assert a.shape == (4, 2, 1, 3)
    np.testing.assert_array_equal(a, b)
    assert d.sample().shape == [1, 3]
    normal = D.Normal(t64([0.0]), t64([1.0]))
    np.testing.assert_array_equal(normal.sample([3], seed=5).numpy(), normal.sample([3], seed=5).numpy())


def test_sample_has_no_gradient_but_rsample_does():
    loc = t64([0.5], stop_gradient=False)
    d = D.Normal(loc, t64([1.0]))
    assert d.sample([3]).stop_gradient
    assert not d.rsample([3]).stop_gradient


@pytest.mark.parametrize("make, expected", [
    # x = loc + scale * eps, so dx/dloc = 1 and dx/dscale = eps = (x - loc) / scale, draw by draw
    (lambda loc, scale: D.Normal(loc, scale), lambda x, loc, scale: (1.0, (x - loc) / scale)),
    (lambda loc, scale: D.Laplace(loc, scale), lambda x, loc, scale: (1.0, (x - loc) / scale)),
    (lambda loc, scale: D.Gumbel(loc, scale), lambda x, loc, scale: (1.0, (x - loc) / scale)),
    (lambda loc, scale: D.Cauchy(loc, scale), lambda x, loc, scale: (1.0, (x - loc) / scale)),
])
def test_location_scale_rsample_gradients(make, expected):
    paddle.seed(5)
    loc, scale = t64([0.3, -1.0], stop_gradient=False), t64([1.5, 0.4], stop_gradient=False)
    x = make(loc, scale).rsample([6])
    g_loc, g_scale = paddle.grad(x.sum(), [loc, scale])
    want_loc, want_scale = expected(x.numpy(), loc.numpy(), scale.numpy())
    np.testing.assert_allclose(g_loc.numpy(), np.full(2, 6.0) * want_loc, rtol=1e-12)
    np.testing.assert_allclose(g_scale.numpy(), want_scale.sum(0), rtol=1e-10)


def test_exponential_and_gamma_rsample_gradient_in_rate():
    paddle.seed(9)
    rate = t64([0.5, 3.0], stop_gradient=False)
    x = D.Exponential(rate).rsample([5])
    (g,) = paddle.grad(x.sum(), [rate])
    np.testing.assert_allclose(g.numpy(), (-x.numpy() / rate.numpy()).sum(0), rtol=1e-12)
    conc, rate = t64([2.0, 0.5], stop_gradient=False), t64([3.0, 1.0], stop_gradient=False)
    y = D.Gamma(conc, rate).rsample([5])
    g_conc, g_rate = paddle.grad(y.sum(), [conc, rate], allow_unused=True)
    assert g_conc is None  # as in Paddle: the standard gamma draw is a constant
    np.testing.assert_allclose(g_rate.numpy(), (-y.numpy() / rate.numpy()).sum(0), rtol=1e-12)


def test_lognormal_and_mvn_rsample_gradients():
    paddle.seed(4)
    loc = t64([0.2], stop_gradient=False)
    x = D.LogNormal(loc, t64([0.5])).rsample([7])
    (g,) = paddle.grad(x.sum(), [loc])
    np.testing.assert_allclose(g.numpy(), x.numpy().sum(0), rtol=1e-12)   # d exp(loc + s eps)/dloc = x
    tril = t64([[1.0, 0.0], [0.5, 2.0]], stop_gradient=False)
    mvn_loc = t64([0.0, 1.0], stop_gradient=False)
    y = D.MultivariateNormal(mvn_loc, scale_tril=tril).rsample([3])
    g_loc, g_tril = paddle.grad(y.sum(), [mvn_loc, tril])
    eps = np.linalg.solve(tril.numpy(), (y.numpy() - mvn_loc.numpy()).T).T   # y = loc + L eps
    np.testing.assert_allclose(g_loc.numpy(), [3.0, 3.0], rtol=1e-12)
    np.testing.assert_allclose(g_tril.numpy(), np.ones((2, 1)) * eps.sum(0)[None, :], rtol=1e-10)


def test_reparameterized_mean_gradient_estimates_the_true_one():
    """d/dloc E[x^2] = 2 loc for Normal(loc, 1): the rsample estimate converges to it."""
    paddle.seed(1)
    loc = t64([0.7], stop_gradient=False)
    x = D.Normal(loc, t64([1.0])).rsample([N])
    (g,) = paddle.grad((x * x).mean(), [loc])
    np.testing.assert_allclose(g.numpy(), [1.4], atol=5 * 2 / np.sqrt(N))


def test_bernoulli_relaxed_rsample_is_differentiable_logits():
    paddle.seed(2)
    probs = t64([0.3], stop_gradient=False)
    x = D.Bernoulli(probs).rsample([4], temperature=0.5)
    (g,) = paddle.grad(x.sum(), [probs])
    p = 0.3
    np.testing.assert_allclose(g.numpy(), [4 / (p * (1 - p)) / 0.5], rtol=1e-10)   # d logit(p)/dp = 1/(p(1-p))
