"""paddle.nn.utils: weight_norm / spectral_norm reparametrize and differentiate correctly (central
differences), vectors of parameters round-trip, in-place gradient clipping; Orthogonal and Dirac.
Paddle's own numbers: tests/compat/cases_nn_utils.py."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument, PreconditionNotMet
from minipaddle.nn import utils
from minipaddle.nn.utils.weight_norm_hook import _weight_norm
from tests.ops.opcheck import check_grad

RNG = np.random.default_rng(7)


@pytest.mark.parametrize("shape, dim", [([3, 4], 0), ([3, 4], 1), ([3, 4], -1), ([4, 2, 3], 1), ([4, 2, 3], 2)])
def test_weight_norm_formula_and_gradients(shape, dim):
    v = RNG.standard_normal(shape)
    g_shape = [] if dim == -1 else [shape[dim]]
    g = RNG.uniform(0.5, 2.0, g_shape)
    axes = tuple(a for a in range(len(shape)) if a != dim) if dim != -1 else None
    keep = [1] * len(shape)
    if dim != -1:
        keep[dim] = shape[dim]
    want = g.reshape(keep) * v / np.sqrt((v ** 2).sum(axis=axes, keepdims=True))
    got = _weight_norm(paddle.to_tensor(v), paddle.to_tensor(g), dim)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10)
    check_grad(lambda vv, gg: _weight_norm(vv, gg, dim), [v, g])


def test_weight_norm_keeps_the_weight_and_trains_g_and_v():
    fc = paddle.nn.Linear(3, 4)
    x = paddle.rand([2, 3])
    before = fc(x).numpy()
    utils.weight_norm(fc)
    assert list(fc.state_dict()) == ["bias", "weight_v", "weight_g"]
    np.testing.assert_allclose(fc(x).numpy(), before, rtol=1e-5, atol=1e-6)
    fc(x).sum().backward()
    assert fc.weight_g.grad is not None and fc.weight_v.grad is not None
    opt = paddle.optimizer.SGD(0.1, parameters=fc.parameters())
    opt.step()
    after = fc(x).numpy()                      # the pre-hook rebuilt the weight from the new g and v
    assert not np.allclose(after, before)
    utils.remove_weight_norm(fc)
    assert list(fc.state_dict()) == ["bias", "weight"]
    np.testing.assert_allclose(fc(x).numpy(), after, rtol=1e-5, atol=1e-6)


def test_weight_norm_errors_name_the_problem():
    fc = utils.weight_norm(paddle.nn.Linear(3, 4))
    with pytest.raises(PreconditionNotMet, match="already has a weight_norm hook"):
        utils.weight_norm(fc)
    with pytest.raises(InvalidArgument, match="dim got 2"):
        utils.weight_norm(paddle.nn.Linear(3, 4), dim=2)
    with pytest.raises(InvalidArgument, match="no parameter named 'kernel'"):
        utils.weight_norm(paddle.nn.Linear(3, 4), name="kernel")
    with pytest.raises(InvalidArgument, match="weight_norm of 'weight' not found"):
        utils.remove_weight_norm(paddle.nn.Linear(3, 4))


def test_spectral_norm_divides_by_the_largest_singular_value():
    fc = utils.spectral_norm(paddle.nn.Linear(5, 3), n_power_iterations=30)
    assert list(fc.state_dict()) == ["bias", "weight_orig", "weight_u", "weight_v"]
    assert fc.weight_u.shape == [3] and fc.weight_v.shape == [5]    # Linear: dim=1 (weights are [in, out])
    fc(paddle.rand([1, 5]))
    assert np.linalg.svd(fc.weight.numpy(), compute_uv=False)[0] == pytest.approx(1.0, rel=1e-4)


def test_spectral_norm_gradient_matches_central_differences():
    layer = utils.spectral_norm(paddle.nn.Linear(4, 3, weight_attr=paddle.ParamAttr(initializer=None)))
    hook = next(iter(layer._forward_pre_hooks.values()))
    u, v = layer.weight_u, layer.weight_v

    def normalized(w):
        matrix = hook.reshape_weight_to_matrix(w)
        from minipaddle import dot, mv
        return w / dot(u.astype(w.dtype), mv(matrix, v.astype(w.dtype)))

    check_grad(normalized, [RNG.standard_normal([4, 3])])


def test_spectral_norm_power_iteration_runs_only_in_training():
    conv = utils.spectral_norm(paddle.nn.Conv2D(2, 3, 3))
    x = paddle.rand([1, 2, 5, 5])
    u0 = conv.weight_u.numpy().copy()
    conv.eval()
    conv(x)
    np.testing.assert_array_equal(conv.weight_u.numpy(), u0)
    conv.train()
    conv(x)
    assert not np.allclose(conv.weight_u.numpy(), u0)
    with pytest.raises(InvalidArgument, match="n_power_iterations must be a positive int"):
        utils.spectral_norm(paddle.nn.Linear(2, 2), n_power_iterations=0)


def test_parameters_to_vector_and_back_round_trip():
    net = paddle.nn.Sequential(paddle.nn.Linear(3, 4), paddle.nn.Linear(4, 2))
    vec = utils.parameters_to_vector(net.parameters())
    assert vec.shape == [3 * 4 + 4 + 4 * 2 + 2] and not vec.stop_gradient
    other = paddle.nn.Sequential(paddle.nn.Linear(3, 4), paddle.nn.Linear(4, 2))
    utils.vector_to_parameters(vec, other.parameters())
    for a, b in zip(net.parameters(), other.parameters()):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    with pytest.raises(InvalidArgument, match="vec has 5 elements but the parameters need 26"):
        utils.vector_to_parameters(paddle.ones([5]), other.parameters())
    with pytest.raises(InvalidArgument, match="vec must be a 1-D Tensor"):
        utils.vector_to_parameters(paddle.ones([5, 6]), other.parameters())


def _grads(values):
    params = []
    for v in values:
        p = paddle.create_parameter([len(v)], "float64")
        p.grad = paddle.to_tensor(np.array(v, dtype="float64"))
        params.append(p)
    return params


@pytest.mark.parametrize("norm_type, total", [(2, 5.0), (1, 7.0), (float("inf"), 4.0), (0, 2.0)])
def test_clip_grad_norm_scales_every_gradient_by_the_total_norm(norm_type, total):
    params = _grads([[3.0], [0.0, -4.0]])
    got = utils.clip_grad_norm_(params, max_norm=1.0, norm_type=norm_type)
    assert float(got) == pytest.approx(total)
    np.testing.assert_allclose(params[1].grad.numpy(), [0.0, -4.0 / (total + 1e-6)])


def test_clip_grad_norm_leaves_small_gradients_and_rejects_bad_norms():
    params = _grads([[0.3, 0.4]])
    assert float(utils.clip_grad_norm_(params, 1.0)) == pytest.approx(0.5)
    np.testing.assert_allclose(params[0].grad.numpy(), [0.3, 0.4])
    with pytest.raises(InvalidArgument, match="norm_type got 3"):
        utils.clip_grad_norm_(params, 1.0, norm_type=3)
    bad = _grads([[np.inf, 1.0]])
    with pytest.raises(PreconditionNotMet, match="error_if_nonfinite=False"):
        utils.clip_grad_norm_(bad, 1.0, error_if_nonfinite=True)


def test_clip_grad_value_clips_in_place():
    params = _grads([[-3.0, 0.5, 2.0]])
    assert utils.clip_grad_value_(params, 1.0) is None
    np.testing.assert_array_equal(params[0].grad.numpy(), [-1.0, 0.5, 1.0])


@pytest.mark.parametrize("shape", [[3, 5], [5, 3], [4, 2, 3, 3]])
def test_orthogonal_gives_orthonormal_rows_or_columns(shape):
    p = paddle.create_parameter(shape, "float64", default_initializer=paddle.nn.initializer.Orthogonal(gain=3.0))
    m = p.numpy().reshape(shape[0], -1)
    gram = m @ m.T if m.shape[0] <= m.shape[1] else m.T @ m
    np.testing.assert_allclose(gram, 9.0 * np.eye(min(m.shape)), atol=1e-10)
    with pytest.raises(InvalidArgument, match="2 or more dimensions"):
        paddle.create_parameter([4], "float32", default_initializer=paddle.nn.initializer.Orthogonal())


def test_dirac_makes_a_convolution_that_copies_its_input():
    conv = paddle.nn.Conv2D(3, 3, 3, padding=1, bias_attr=False,
                            weight_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Dirac()))
    x = paddle.rand([2, 3, 4, 4])
    np.testing.assert_allclose(conv(x).numpy(), x.numpy(), rtol=1e-6)
    with pytest.raises(InvalidArgument, match="divisible by groups"):
        paddle.create_parameter([3, 2, 3], "float32", default_initializer=paddle.nn.initializer.Dirac(groups=2))
    with pytest.raises(InvalidArgument, match="3-, 4- or 5-D"):
        paddle.create_parameter([3, 2], "float32", default_initializer=paddle.nn.initializer.Dirac())
