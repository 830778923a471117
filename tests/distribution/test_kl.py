"""kl_divergence: closed forms against Monte Carlo estimates E_p[log p - log q], exact sums for
discrete pairs, and the register_kl dispatch rules."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats

import minipaddle as paddle
from minipaddle import distribution as D
from minipaddle.framework.errors import InvalidArgument, Unimplemented

N = 40000


def t64(values):
    return paddle.to_tensor(np.asarray(values, dtype=np.float64))


PAIRS = {
    "normal": (lambda: D.Normal(t64([0.0, 1.0]), t64([1.0, 0.5])), lambda: D.Normal(t64([1.0, 1.0]), t64([2.0, 1.5]))),
    "lognormal": (lambda: D.LogNormal(t64([0.0, 0.5]), t64([1.0, 0.5])),
                  lambda: D.LogNormal(t64([1.0, 0.0]), t64([0.5, 1.0]))),
    "laplace": (lambda: D.Laplace(t64([0.0, 1.0]), t64([1.0, 2.0])),
                lambda: D.Laplace(t64([1.0, 0.0]), t64([2.0, 1.0]))),
    "cauchy": (lambda: D.Cauchy(t64([0.0, 1.0]), t64([1.0, 2.0])), lambda: D.Cauchy(t64([1.0, 0.0]), t64([2.0, 1.0]))),
    "exponential": (lambda: D.Exponential(t64([0.5, 2.0])), lambda: D.Exponential(t64([1.0, 1.0]))),
    "gamma": (lambda: D.Gamma(t64([2.0, 0.8]), t64([3.0, 1.0])), lambda: D.Gamma(t64([1.0, 1.5]), t64([1.0, 2.0]))),
    "beta": (lambda: D.Beta(t64([2.0, 0.7]), t64([3.0, 0.9])), lambda: D.Beta(t64([1.0, 0.5]), t64([1.0, 0.7]))),
    "uniform": (lambda: D.Uniform(t64([0.0, 1.0]), t64([1.0, 2.0])),
                lambda: D.Uniform(t64([-1.0, 0.0]), t64([2.0, 4.0]))),
}


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_closed_form_kl_matches_a_monte_carlo_estimate(name):
    paddle.seed(0)
    p, q = PAIRS[name][0](), PAIRS[name][1]()
    x = p.sample([N])
    ratio = (p.log_prob(x) - q.log_prob(x)).numpy()
    kl = D.kl_divergence(p, q).numpy()
    assert kl.shape == (2,)
    np.testing.assert_array_less(np.abs(ratio.mean(0) - kl), 5 * ratio.std(0) / np.sqrt(N) + 1e-9)


def test_multivariate_kls_match_monte_carlo():
    paddle.seed(0)
    p = D.Dirichlet(t64([[1.0, 2.0, 3.0], [0.5, 0.5, 4.0]]))
    q = D.Dirichlet(t64([[2.0, 2.0, 2.0], [1.0, 1.0, 1.0]]))
    x = p.sample([N])
    ratio = (p.log_prob(x) - q.log_prob(x)).numpy()
    np.testing.assert_array_less(np.abs(ratio.mean(0) - D.kl_divergence(p, q).numpy()), 5 * ratio.std(0) / np.sqrt(N))
    mp = D.MultivariateNormal(t64([0.0, 1.0]), covariance_matrix=t64([[2.0, 0.5], [0.5, 1.0]]))
    mq = D.MultivariateNormal(t64([1.0, 0.0]), scale_tril=t64([[1.0, 0.0], [0.3, 2.0]]))
    y = mp.sample([N])
    ratio = (mp.log_prob(y) - mq.log_prob(y)).numpy()
    assert abs(ratio.mean() - float(D.kl_divergence(mp, mq).numpy())) < 5 * ratio.std() / np.sqrt(N)


def exact_discrete_kl(p_pmf, q_pmf) -> float:
    inside = p_pmf > 0
    return float(np.sum(p_pmf[inside] * (np.log(p_pmf[inside]) - np.log(q_pmf[inside]))))


def test_discrete_kls_equal_exact_sums():
    k = np.arange(200)
    rates = ([2.0, 5.0], [3.0, 4.0])
    got = D.kl_divergence(D.Poisson(t64(rates[0])), D.Poisson(t64(rates[1]))).numpy()
    want = [exact_discrete_kl(stats.poisson(a).pmf(k), stats.poisson(b).pmf(k)) for a, b in zip(*rates)]
    np.testing.assert_allclose(got, want, rtol=1e-8)
    got = D.kl_divergence(D.Binomial(t64([10.0]), t64([0.3])), D.Binomial(t64([10.0]), t64([0.5]))).numpy()
    np.testing.assert_allclose(got, [exact_discrete_kl(stats.binom(10, 0.3).pmf(k), stats.binom(10, 0.5).pmf(k))],
                               rtol=1e-8)
    got = D.kl_divergence(D.Geometric(t64([0.3])), D.Geometric(t64([0.6]))).numpy()
    want = exact_discrete_kl(stats.geom(0.3, loc=-1).pmf(k), stats.geom(0.6, loc=-1).pmf(k))
    np.testing.assert_allclose(got, [want], rtol=1e-8)
    got = D.kl_divergence(D.Bernoulli(t64([0.3])), D.Bernoulli(t64([0.8]))).numpy()
    np.testing.assert_allclose(got, [0.3 * np.log(0.3 / 0.8) + 0.7 * np.log(0.7 / 0.2)], rtol=1e-10)


def test_categorical_kl_keeps_the_category_axis_like_paddle():
    p, q = np.array([[0.2, 0.3, 0.5]]), np.array([[0.6, 0.2, 0.2]])
    got = D.kl_divergence(D.Categorical(t64(np.log(p))), D.Categorical(t64(np.log(q))))
    assert got.shape == [1, 1]
    np.testing.assert_allclose(got.numpy()[0, 0], exact_discrete_kl(p[0], q[0]), rtol=1e-12)


def test_kl_of_a_distribution_with_itself_is_zero_and_kl_has_gradients():
    loc = paddle.to_tensor(np.array([0.3]), stop_gradient=False)
    p, q = D.Normal(loc, t64([1.0])), D.Normal(t64([0.0]), t64([1.0]))
    (g,) = paddle.grad(D.kl_divergence(p, q).sum(), [loc])
    np.testing.assert_allclose(g.numpy(), [0.3], rtol=1e-12)   # d/dmu (mu^2 / 2)
    np.testing.assert_allclose(D.kl_divergence(q, q).numpy(), [0.0], atol=1e-15)


def test_register_kl_dispatches_on_the_most_specific_pair():
    class MyNormal(D.Normal):
        pass

    @D.register_kl(MyNormal, D.Normal)
    def _kl_mine(p, q):
        return paddle.to_tensor(42.0)

    p = MyNormal(t64(0.0), t64(1.0))
    assert float(D.kl_divergence(p, D.Normal(t64(0.0), t64(1.0)))) == 42.0
    assert float(D.kl_divergence(D.Normal(t64(0.0), t64(1.0)), p)) == 0.0  # falls back to (Normal, Normal)
    assert float(p.kl_divergence(D.Normal(t64(0.0), t64(1.0)))) == 42.0


def test_kl_errors():
    with pytest.raises(Unimplemented, match="register_kl"):
        D.kl_divergence(D.Normal(t64(0.0), t64(1.0)), D.Laplace(t64(0.0), t64(1.0)))
    with pytest.raises(TypeError):
        D.register_kl(int, D.Normal)
    with pytest.raises(InvalidArgument, match="batch shapes differ"):
        D.kl_divergence(D.Poisson(t64([1.0])), D.Poisson(t64([1.0, 2.0])))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        D.kl_divergence(D.Gamma(t64(1.0), t64(1.0)), D.Gamma(t64(2.0), t64(1.0)))   # no ambiguity warning
