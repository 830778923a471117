"""Every distribution's log_prob, entropy, mean, variance and cdf against scipy.stats, in float64."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import minipaddle as paddle
from minipaddle import distribution as D


def t64(values):
    return paddle.to_tensor(np.asarray(values, dtype=np.float64))


# name -> (minipaddle distribution, scipy frozen distribution, values to evaluate at)
# Parameters are [2]-batches, so the values broadcast against two different distributions.
CONTINUOUS = {
    "normal": (lambda: D.Normal(t64([0.5, -1.0]), t64([2.0, 0.3])),
               stats.norm([0.5, -1.0], [2.0, 0.3]), [0.3, -0.8]),
    "uniform": (lambda: D.Uniform(t64([0.0, -1.0]), t64([2.0, 3.0])),
                stats.uniform([0.0, -1.0], [2.0, 4.0]), [0.3, 2.5]),
    "laplace": (lambda: D.Laplace(t64([0.5, -1.0]), t64([2.0, 0.3])),
                stats.laplace([0.5, -1.0], [2.0, 0.3]), [0.3, -0.4]),
    "cauchy": (lambda: D.Cauchy(t64([0.5, -1.0]), t64([2.0, 0.3])),
               stats.cauchy([0.5, -1.0], [2.0, 0.3]), [0.3, -0.4]),
    "gumbel": (lambda: D.Gumbel(t64([0.5, -1.0]), t64([2.0, 0.3])),
               stats.gumbel_r([0.5, -1.0], [2.0, 0.3]), [0.3, -0.4]),
    "student_t": (lambda: D.StudentT(t64([3.0, 5.5]), t64([0.5, -1.0]), t64([2.0, 0.3])),
                  stats.t([3.0, 5.5], [0.5, -1.0], [2.0, 0.3]), [0.3, -0.4]),
    "exponential": (lambda: D.Exponential(t64([0.5, 3.0])),
                    stats.expon(scale=[2.0, 1 / 3.0]), [0.3, 1.4]),
    "gamma": (lambda: D.Gamma(t64([0.7, 4.5]), t64([2.0, 0.5])),
              stats.gamma([0.7, 4.5], scale=[0.5, 2.0]), [0.3, 7.0]),
    "chi2": (lambda: D.Chi2(t64([3.0, 7.0])), stats.chi2([3.0, 7.0]), [0.3, 7.0]),
    "beta": (lambda: D.Beta(t64([0.5, 2.0]), t64([0.7, 5.0])),
             stats.beta([0.5, 2.0], [0.7, 5.0]), [0.3, 0.25]),
    "lognormal": (lambda: D.LogNormal(t64([0.5, -1.0]), t64([1.2, 0.3])),
                  stats.lognorm([1.2, 0.3], scale=np.exp([0.5, -1.0])), [0.3, 0.4]),
}
DISCRETE = {
    "bernoulli": (lambda: D.Bernoulli(t64([0.3, 0.85])), stats.bernoulli([0.3, 0.85]), [1.0, 0.0]),
    "binomial": (lambda: D.Binomial(t64([10.0, 7.0]), t64([0.3, 0.6])), stats.binom([10, 7], [0.3, 0.6]), [3.0, 7.0]),
    "poisson": (lambda: D.Poisson(t64([2.5, 0.4])), stats.poisson([2.5, 0.4]), [3.0, 0.0]),
    "geometric": (lambda: D.Geometric(t64([0.3, 0.75])), stats.geom([0.3, 0.75], loc=-1), [2.0, 0.0]),
}
NO_MOMENTS = ("cauchy",)


@pytest.mark.parametrize("name", sorted(CONTINUOUS))
def test_continuous_log_prob_and_prob_match_scipy(name):
    make, ref, values = CONTINUOUS[name]
    d = make()
    np.testing.assert_allclose(d.log_prob(t64(values)).numpy(), ref.logpdf(values), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(d.prob(t64(values)).numpy(), ref.pdf(values), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", sorted(DISCRETE))
def test_discrete_log_prob_matches_scipy(name):
    make, ref, values = DISCRETE[name]
    np.testing.assert_allclose(make().log_prob(t64(values)).numpy(), ref.logpmf(values), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", sorted(CONTINUOUS) + sorted(DISCRETE))
def test_entropy_matches_scipy(name):
    make, ref, _ = {**CONTINUOUS, **DISCRETE}[name]
    entropy = make().entropy()
    assert entropy.dtype == paddle.float64 and entropy.shape == [2]
    np.testing.assert_allclose(entropy.numpy(), ref.entropy(), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("name", sorted(set(CONTINUOUS) - set(NO_MOMENTS)) + sorted(DISCRETE))
def test_mean_and_variance_match_scipy(name):
    make, ref, _ = {**CONTINUOUS, **DISCRETE}[name]
    d = make()
    np.testing.assert_allclose(d.mean.numpy(), ref.mean(), rtol=1e-12)
    np.testing.assert_allclose(d.variance.numpy(), ref.var(), rtol=1e-12)


@pytest.mark.parametrize("name", ["laplace", "cauchy", "gumbel", "exponential"])
def test_cdf_matches_scipy(name):
    make, ref, values = CONTINUOUS[name]
    np.testing.assert_allclose(make().cdf(t64(values)).numpy(), ref.cdf(values), rtol=1e-10)


@pytest.mark.parametrize("name", ["laplace", "exponential"])
def test_icdf_inverts_cdf(name):
    make, ref, _ = CONTINUOUS[name]
    q = [0.1, 0.85]
    np.testing.assert_allclose(make().icdf(t64(q)).numpy(), ref.ppf(q), rtol=1e-10)


def test_discrete_cdfs_match_scipy():
    np.testing.assert_allclose(D.Bernoulli(t64([0.3, 0.3])).cdf(t64([0.0, 1.0])).numpy(), [0.7, 1.0])
    np.testing.assert_allclose(D.Geometric(t64([0.3, 0.75])).cdf(t64([2.0, 0.0])).numpy(),
                               stats.geom([0.3, 0.75], loc=-1).cdf([2.0, 0.0]))


def test_uniform_is_zero_density_outside_its_support():
    d = D.Uniform(t64([0.0]), t64([2.0]))
    np.testing.assert_array_equal(d.prob(t64([[-0.5], [2.5]])).numpy(), [[0.0], [0.0]])
    assert d.log_prob(t64([3.0])).numpy()[0] == -np.inf


def test_dirichlet_matches_scipy_per_batch_row():
    alpha = np.array([[1.0, 2.0, 3.0], [0.5, 0.7, 4.0]])
    x = np.array([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])
    d = D.Dirichlet(t64(alpha))
    for i in range(2):
        ref = stats.dirichlet(alpha[i])
        np.testing.assert_allclose(d.log_prob(t64(x)).numpy()[i], ref.logpdf(x[i]), rtol=1e-10)
        np.testing.assert_allclose(d.entropy().numpy()[i], ref.entropy(), rtol=1e-10)
        np.testing.assert_allclose(d.mean.numpy()[i], ref.mean(), rtol=1e-12)
        np.testing.assert_allclose(d.variance.numpy()[i], ref.var(), rtol=1e-12)


def test_multinomial_matches_scipy():
    p = np.array([0.2, 0.3, 0.5])
    d = D.Multinomial(6, t64(p))
    ref = stats.multinomial(6, p)
    x = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(d.log_prob(t64(x)).numpy(), ref.logpmf(x), rtol=1e-10)
    np.testing.assert_allclose(d.entropy().numpy(), ref.entropy(), rtol=1e-10)
    np.testing.assert_allclose(d.variance.numpy(), 6 * p * (1 - p), rtol=1e-12)


def test_categorical_reads_logits_like_paddle():
    logits = np.array([1.0, 2.0, 5.0])
    d = D.Categorical(t64(logits))
    soft = np.exp(logits) / np.exp(logits).sum()
    np.testing.assert_allclose(d.entropy().numpy(), -(soft * np.log(soft)).sum(), rtol=1e-12)
    # Paddle's probs(value) normalizes the logits themselves: logits / sum(logits)
    np.testing.assert_allclose(d.probs(paddle.to_tensor([2, 0])).numpy(), logits[[2, 0]] / logits.sum())


def test_multivariate_normal_matches_scipy_for_every_parameterization():
    loc = np.array([0.5, -1.0])
    cov = np.array([[2.0, 0.6], [0.6, 1.0]])
    ref = stats.multivariate_normal(loc, cov)
    x = np.array([[0.3, 0.2], [1.0, -2.0]])
    for kwargs in ({"covariance_matrix": t64(cov)}, {"precision_matrix": t64(np.linalg.inv(cov))},
                   {"scale_tril": t64(np.linalg.cholesky(cov))}):
        d = D.MultivariateNormal(t64(loc), **kwargs)
        np.testing.assert_allclose(d.log_prob(t64(x)).numpy(), ref.logpdf(x), rtol=1e-10)
        np.testing.assert_allclose(d.entropy().numpy(), ref.entropy(), rtol=1e-10)
        np.testing.assert_allclose(d.variance.numpy(), np.diag(cov), rtol=1e-10)


def test_independent_sums_log_prob_over_reinterpreted_dims():
    base = D.Normal(t64([[0.0, 1.0], [2.0, 3.0]]), t64([[1.0, 2.0], [0.5, 0.5]]))
    d = D.Independent(base, 1)
    assert (d.batch_shape, d.event_shape) == ((2,), (2,))
    x = t64([[0.1, 0.2], [0.3, 0.4]])
    np.testing.assert_allclose(d.log_prob(x).numpy(), base.log_prob(x).numpy().sum(-1), rtol=1e-12)


def test_transformed_normal_by_exp_is_lognormal():
    base = D.Normal(t64([0.5]), t64([1.2]))
    d = D.TransformedDistribution(base, [D.ExpTransform()])
    x = t64([0.3, 2.0])
    np.testing.assert_allclose(d.log_prob(x).numpy(), stats.lognorm(1.2, scale=np.exp(0.5)).logpdf([0.3, 2.0]),
                               rtol=1e-10)


def test_parameters_keep_float64_and_python_floats_give_float32():
    assert D.Normal(t64(0.0), t64(1.0)).entropy().dtype == paddle.float64
    d = D.Gamma(2.0, 3.0)
    assert d.entropy().dtype == paddle.float32 and d.batch_shape == ()
