"""Golden cases: distribution (issue: scientific computing).

Values and shapes of log_prob, entropy, mean, variance, cdf and KL, never samples (the random
streams differ); sample shapes and dtypes are compared.
"""
from __future__ import annotations

from .harness import case, outcome  # noqa: F401


def _t(paddle, values):
    return paddle.to_tensor(values, dtype="float32")


def _summary(dist, value, extra=()):
    out = {"batch_shape": list(dist.batch_shape), "event_shape": list(dist.event_shape),
           "log_prob": dist.log_prob(value), "prob": dist.prob(value)}
    for name in extra:
        attr = getattr(dist, name)
        out[name] = attr() if callable(attr) else attr
    return out


@case
def normal_batch(paddle):
    d = paddle.distribution.Normal(_t(paddle, [0.5, 1.0]), _t(paddle, [2.0, 3.0]))
    return _summary(d, _t(paddle, [0.3, -1.0]), ("mean", "variance", "entropy"))


@case
def normal_python_floats(paddle):
    d = paddle.distribution.Normal(0.5, 2.0)
    return {**_summary(d, _t(paddle, 0.3), ("mean", "variance", "entropy")),
            "sample_shape": d.sample([3, 2]).shape, "rsample_shape": d.rsample([4]).shape}


@case
def normal_kl(paddle):
    p = paddle.distribution.Normal(_t(paddle, [0.0, 1.0]), _t(paddle, [1.0, 0.5]))
    q = paddle.distribution.Normal(_t(paddle, [1.0, 1.0]), _t(paddle, [2.0, 1.5]))
    return {"kl": paddle.distribution.kl_divergence(p, q), "method": p.kl_divergence(q)}


@case
def uniform_inside_and_outside(paddle):
    d = paddle.distribution.Uniform(_t(paddle, [0.0, 1.0]), _t(paddle, [2.0, 4.0]))
    return {"log_prob_inside": d.log_prob(_t(paddle, [0.5, 3.0])), "probs": d.probs(_t(paddle, [0.5, 3.0])),
            "prob_outside": d.prob(_t(paddle, [2.5, 0.5])), "entropy": d.entropy(),
            "sample_shape": d.sample([5]).shape}


@case
def bernoulli(paddle):
    d = paddle.distribution.Bernoulli(_t(paddle, [0.3, 0.8]))
    q = paddle.distribution.Bernoulli(_t(paddle, [0.5, 0.1]))
    return {**_summary(d, _t(paddle, [1.0, 0.0]), ("mean", "variance", "entropy")),
            "cdf": d.cdf(_t(paddle, [0.5, 1.0])), "kl": paddle.distribution.kl_divergence(d, q)}


@case
def categorical(paddle):
    logits = _t(paddle, [[0.2, 0.3, 0.5], [1.0, 2.0, 3.0]])
    d = paddle.distribution.Categorical(logits)
    q = paddle.distribution.Categorical(_t(paddle, [[0.5, 0.25, 0.25], [0.3, 0.3, 0.4]]))
    value = paddle.to_tensor([2, 0])
    return {"entropy": d.entropy(), "probs": d.probs(value), "log_prob": d.log_prob(value),
            "kl": d.kl_divergence(q), "sample": {"shape": d.sample([4]).shape, "dtype": str(d.sample([4]).dtype)}}


@case
def categorical_one_dim(paddle):
    d = paddle.distribution.Categorical(_t(paddle, [0.1, 0.2, 0.7]))
    value = paddle.to_tensor([0, 2, 2])
    return {"probs": d.probs(value), "entropy": d.entropy(), "sample_shape": d.sample([2, 3]).shape}


@case
def multinomial(paddle):
    d = paddle.distribution.Multinomial(5, _t(paddle, [0.2, 0.3, 0.5]))
    return {**_summary(d, _t(paddle, [1.0, 1.0, 3.0]), ("mean", "variance", "entropy")),
            "sample_shape": d.sample([4]).shape}


@case
def binomial(paddle):
    d = paddle.distribution.Binomial(paddle.to_tensor([10, 6]), _t(paddle, [0.3, 0.6]))
    q = paddle.distribution.Binomial(paddle.to_tensor([10, 6]), _t(paddle, [0.5, 0.5]))
    return {**_summary(d, _t(paddle, [3.0, 4.0]), ("mean", "variance", "entropy")),
            "kl": paddle.distribution.kl_divergence(d, q)}


@case
def poisson(paddle):
    d = paddle.distribution.Poisson(_t(paddle, [2.0, 5.0]))
    q = paddle.distribution.Poisson(_t(paddle, [3.0, 4.0]))
    scalar = paddle.distribution.Poisson(2.0)
    return {**_summary(d, _t(paddle, [1.0, 6.0]), ("mean", "variance", "entropy")),
            "kl": paddle.distribution.kl_divergence(d, q), "scalar_batch_shape": list(scalar.batch_shape)}


@case
def geometric(paddle):
    d = paddle.distribution.Geometric(_t(paddle, [0.3, 0.6]))
    k = _t(paddle, [2.0, 0.0])
    return {"pmf": d.pmf(k), "log_pmf": d.log_pmf(k), "cdf": d.cdf(k), "entropy": d.entropy(),
            "mean": d.mean, "variance": d.variance, "stddev": d.stddev}


@case(differs="Paddle 3.3.1's Geometric KL is the Bernoulli KL of the success probabilities, "
              "p log(p/q) + (1-p) log((1-p)/(1-q)); the geometric one weights the second term by E[k] = (1-p)/p "
              "(tests/distribution/test_kl.py checks it against the exact sum)")
def geometric_kl(paddle):
    d = paddle.distribution.Geometric(_t(paddle, [0.3, 0.6]))
    q = paddle.distribution.Geometric(_t(paddle, [0.5, 0.2]))
    return paddle.distribution.kl_divergence(d, q)


@case
def beta(paddle):
    d = paddle.distribution.Beta(_t(paddle, [2.0, 0.5]), _t(paddle, [3.0, 0.5]))
    q = paddle.distribution.Beta(_t(paddle, [1.0, 0.3]), _t(paddle, [1.0, 0.7]))
    return {**_summary(d, _t(paddle, [0.3, 0.9]), ("mean", "variance", "entropy")),
            "kl": paddle.distribution.kl_divergence(d, q)}


@case
def beta_docs_kl(paddle):
    p = paddle.distribution.Beta(alpha=0.5, beta=0.5)
    q = paddle.distribution.Beta(alpha=0.3, beta=0.7)
    return paddle.distribution.kl_divergence(p, q)


@case
def dirichlet(paddle):
    d = paddle.distribution.Dirichlet(_t(paddle, [[1.0, 2.0, 3.0], [0.5, 0.5, 4.0]]))
    q = paddle.distribution.Dirichlet(_t(paddle, [[2.0, 2.0, 2.0], [1.0, 1.0, 1.0]]))
    return {**_summary(d, _t(paddle, [[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]]), ("mean", "variance", "entropy")),
            "kl": paddle.distribution.kl_divergence(d, q), "sample_shape": d.sample([4]).shape}


@case
def exponential(paddle):
    d = paddle.distribution.Exponential(_t(paddle, [0.5, 2.0]))
    q = paddle.distribution.Exponential(_t(paddle, [1.0, 1.0]))
    return {**_summary(d, _t(paddle, [0.3, 1.5]), ("mean", "variance", "entropy")),
            "cdf": d.cdf(_t(paddle, [0.3, 1.5])), "icdf": d.icdf(_t(paddle, [0.2, 0.9])),
            "kl": paddle.distribution.kl_divergence(d, q)}


@case
def gamma(paddle):
    d = paddle.distribution.Gamma(_t(paddle, [2.0, 0.5]), _t(paddle, [3.0, 1.0]))
    q = paddle.distribution.Gamma(_t(paddle, [1.0, 1.5]), _t(paddle, [1.0, 2.0]))
    return {**_summary(d, _t(paddle, [0.3, 1.5]), ("mean", "variance", "entropy")),
            "kl": paddle.distribution.kl_divergence(d, q)}


@case
def laplace(paddle):
    d = paddle.distribution.Laplace(_t(paddle, [0.0, 1.0]), _t(paddle, [1.0, 2.0]))
    q = paddle.distribution.Laplace(_t(paddle, [1.0, 0.0]), _t(paddle, [2.0, 1.0]))
    return {**_summary(d, _t(paddle, [0.5, -1.0]), ("mean", "variance", "stddev", "entropy")),
            "cdf": d.cdf(_t(paddle, [0.5, -1.0])), "icdf": d.icdf(_t(paddle, [0.2, 0.9])),
            "kl": paddle.distribution.kl_divergence(d, q)}


@case
def lognormal(paddle):
    d = paddle.distribution.LogNormal(_t(paddle, [0.0, 0.5]), _t(paddle, [1.0, 0.5]))
    q = paddle.distribution.LogNormal(_t(paddle, [1.0, 0.0]), _t(paddle, [0.5, 1.0]))
    return {**_summary(d, _t(paddle, [0.7, 2.0]), ("mean", "variance", "entropy")),
            "probs": d.probs(_t(paddle, [0.7, 2.0])), "kl": paddle.distribution.kl_divergence(d, q)}


@case
def gumbel(paddle):
    d = paddle.distribution.Gumbel(_t(paddle, [0.0, 1.0]), _t(paddle, [1.0, 2.0]))
    return {**_summary(d, _t(paddle, [0.5, -1.0]), ("mean", "variance", "stddev", "entropy")),
            "cdf": d.cdf(_t(paddle, [0.5, -1.0]))}


@case
def cauchy(paddle):
    d = paddle.distribution.Cauchy(_t(paddle, [0.0, 1.0]), _t(paddle, [1.0, 2.0]))
    q = paddle.distribution.Cauchy(_t(paddle, [1.0, 0.0]), _t(paddle, [2.0, 1.0]))
    return {**_summary(d, _t(paddle, [0.5, -1.0]), ("entropy",)), "cdf": d.cdf(_t(paddle, [0.5, -1.0])),
            "kl": paddle.distribution.kl_divergence(d, q), "mean": outcome(lambda: d.mean)}


@case
def student_t(paddle):
    d = paddle.distribution.StudentT(_t(paddle, [3.0, 1.5]), _t(paddle, [0.0, 1.0]), _t(paddle, [1.0, 2.0]))
    return _summary(d, _t(paddle, [0.5, -1.0]), ("mean", "variance", "entropy"))


@case
def student_t_negative_scale(paddle):
    return outcome(lambda: paddle.distribution.StudentT(_t(paddle, [3.0]), _t(paddle, [0.0]), _t(paddle, [-1.0])))


@case
def multivariate_normal(paddle):
    loc = _t(paddle, [0.0, 1.0])
    cov = _t(paddle, [[2.0, 0.5], [0.5, 1.0]])
    d = paddle.distribution.MultivariateNormal(loc, covariance_matrix=cov)
    q = paddle.distribution.MultivariateNormal(_t(paddle, [1.0, 0.0]), scale_tril=_t(paddle, [[1.0, 0.0], [0.3, 2.0]]))
    return {**_summary(d, _t(paddle, [[0.5, 0.5], [1.0, -1.0]]), ("mean", "variance", "entropy")),
            "kl": paddle.distribution.kl_divergence(d, q), "sample_shape": d.sample([3]).shape}


@case
def multivariate_normal_two_matrices(paddle):
    cov = _t(paddle, [[1.0, 0.0], [0.0, 1.0]])
    return outcome(lambda: paddle.distribution.MultivariateNormal(_t(paddle, [0.0, 0.0]), covariance_matrix=cov,
                                                                  precision_matrix=cov))


@case
def independent(paddle):
    base = paddle.distribution.Normal(_t(paddle, [[0.0, 1.0], [2.0, 3.0]]), _t(paddle, [[1.0, 2.0], [1.0, 0.5]]))
    d = paddle.distribution.Independent(base, 1)
    return _summary(d, _t(paddle, [[0.5, 0.5], [1.0, 1.0]]), ("entropy", "mean"))


@case
def independent_bad_rank(paddle):
    base = paddle.distribution.Normal(_t(paddle, [0.0, 1.0]), _t(paddle, [1.0, 2.0]))
    return outcome(lambda: paddle.distribution.Independent(base, 2))


@case
def transformed_distribution(paddle):
    base = paddle.distribution.Normal(_t(paddle, [0.0, 1.0]), _t(paddle, [1.0, 2.0]))
    T = paddle.distribution
    d = T.TransformedDistribution(base, [T.AffineTransform(_t(paddle, 1.0), _t(paddle, 2.0)), T.ExpTransform()])
    return {**_summary(d, _t(paddle, [1.5, 4.0])), "sample_shape": d.sample([3]).shape}


@case
def elementwise_transforms(paddle):
    T = paddle.distribution
    x = _t(paddle, [0.5, -1.0, 2.0])
    y = _t(paddle, [0.25, 0.5, 0.75])
    out = {}
    for name, t in [("exp", T.ExpTransform()), ("sigmoid", T.SigmoidTransform()), ("tanh", T.TanhTransform()),
                    ("affine", T.AffineTransform(_t(paddle, 1.0), _t(paddle, -2.0)))]:
        out[name] = {"forward": t.forward(x), "inverse": t.inverse(y), "fldj": t.forward_log_det_jacobian(x),
                     "ildj": t.inverse_log_det_jacobian(y)}
    power = T.PowerTransform(_t(paddle, 2.0))
    out["power"] = {"forward": power.forward(y), "inverse": power.inverse(y),
                    "fldj": power.forward_log_det_jacobian(y)}
    out["abs"] = {"forward": T.AbsTransform().forward(x), "inverse": list(T.AbsTransform().inverse(y))}
    return out


@case
def vector_transforms(paddle):
    T = paddle.distribution
    x = _t(paddle, [[0.5, -1.0, 2.0], [0.0, 0.0, 0.0]])
    sb = T.StickBreakingTransform()
    y = sb.forward(x)
    reshape = T.ReshapeTransform((3,), (3, 1))
    chain = T.ChainTransform([T.AffineTransform(_t(paddle, 0.0), _t(paddle, 2.0)), T.ExpTransform()])
    affine = T.AffineTransform(_t(paddle, [1.0, 1.0, 1.0]), _t(paddle, [3.0, 3.0, 3.0]))
    stack = T.StackTransform([T.ExpTransform(), affine], axis=0)
    return {"stick_forward": y, "stick_inverse": sb.inverse(y), "stick_fldj": sb.forward_log_det_jacobian(x),
            "stick_shape": list(sb.forward_shape([4, 3])), "softmax": T.SoftmaxTransform().forward(x),
            "reshape": reshape.forward(x).shape, "reshape_fldj": reshape.forward_log_det_jacobian(x),
            "reshape_shape": list(reshape.inverse_shape([5, 3, 1])),
            "chain": chain.forward(x), "chain_fldj": chain.forward_log_det_jacobian(x),
            "stack": stack.forward(x), "stack_fldj": stack.forward_log_det_jacobian(x)}


@case
def multinomial_bad_total_count(paddle):
    return outcome(lambda: paddle.distribution.Multinomial(0, _t(paddle, [0.5, 0.5])))


@case
def dirichlet_zero_dim(paddle):
    return outcome(lambda: paddle.distribution.Dirichlet(_t(paddle, 1.0)))


@case
def kl_not_registered(paddle):
    p = paddle.distribution.Normal(_t(paddle, [0.0]), _t(paddle, [1.0]))
    q = paddle.distribution.Laplace(_t(paddle, [0.0]), _t(paddle, [1.0]))
    return outcome(lambda: paddle.distribution.kl_divergence(p, q))


@case(differs="Paddle 3.3.1's kl_divergence raises KeyError once a (Subclass, Base) pair is registered beside "
              "(Base, Base): its dispatch unpacks the reversed best match as (p, q) instead of (q, p); minipaddle "
              "picks the most specific entry, as the lookup intends")
def register_kl_reversed_subclass(paddle):
    class MyNormal(paddle.distribution.Normal):
        pass

    @paddle.distribution.register_kl(MyNormal, paddle.distribution.Normal)
    def _kl_mine(p, q):
        return paddle.to_tensor(42.0)

    p = MyNormal(_t(paddle, 0.0), _t(paddle, 1.0))
    q = paddle.distribution.Normal(_t(paddle, 0.0), _t(paddle, 1.0))
    return {"subclass_first": outcome(lambda: paddle.distribution.kl_divergence(p, q)),
            "base_first": outcome(lambda: paddle.distribution.kl_divergence(q, p))}
