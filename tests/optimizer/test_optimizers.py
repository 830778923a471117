"""Each optimizer's trajectory over several steps against torch.optim (where the math is the same)
or a numpy transcription of Paddle's formulas (where Paddle and torch differ)."""
from __future__ import annotations

import math

import numpy as np
import pytest

import minipaddle as paddle
from tests.ops.opcheck import torch_or_skip

from .common import W0, assert_same_history, make_params, run_numpy, run_paddle, run_torch

optim = paddle.optimizer


def test_sgd_matches_torch():
    torch = torch_or_skip()
    got = run_paddle(lambda ps: optim.SGD(0.3, parameters=ps))
    want = run_torch(torch, lambda ps: torch.optim.SGD(ps, lr=0.3))
    assert_same_history(got, want)


def test_sgd_float_weight_decay_is_l2_like_torch():
    torch = torch_or_skip()
    got = run_paddle(lambda ps: optim.SGD(0.3, parameters=ps, weight_decay=0.05))
    want = run_torch(torch, lambda ps: torch.optim.SGD(ps, lr=0.3, weight_decay=0.05))
    assert_same_history(got, want)


@pytest.mark.parametrize("nesterov", [False, True])
def test_momentum_matches_torch(nesterov):
    torch = torch_or_skip()
    got = run_paddle(lambda ps: optim.Momentum(0.1, momentum=0.8, parameters=ps, use_nesterov=nesterov,
                                               weight_decay=0.01), steps=6)
    want = run_torch(torch, lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.8, nesterov=nesterov,
                                                       weight_decay=0.01), steps=6)
    assert_same_history(got, want)


@pytest.mark.parametrize("amsgrad", [False, True])
def test_adam_matches_torch(amsgrad):
    torch = torch_or_skip()
    # Paddle's epsilon * sqrt(1 - beta2^t) inside the kernel is exactly torch's eps on v_hat; a large
    # epsilon makes any misplacement visible.
    got = run_paddle(lambda ps: optim.Adam(0.05, beta1=0.8, beta2=0.9, epsilon=1e-2, parameters=ps,
                                           amsgrad=amsgrad), steps=8)
    want = run_torch(torch, lambda ps: torch.optim.Adam(ps, lr=0.05, betas=(0.8, 0.9), eps=1e-2,
                                                        amsgrad=amsgrad), steps=8)
    assert_same_history(got, want)


def test_adam_weight_decay_is_added_to_the_gradient_like_torch():
    torch = torch_or_skip()
    got = run_paddle(lambda ps: optim.Adam(0.05, parameters=ps, weight_decay=0.1))
    want = run_torch(torch, lambda ps: torch.optim.Adam(ps, lr=0.05, weight_decay=0.1))
    assert_same_history(got, want)


def test_adamw_matches_torch_decoupled_decay():
    torch = torch_or_skip()
    got = run_paddle(lambda ps: optim.AdamW(0.05, parameters=ps, weight_decay=0.3), steps=6)
    want = run_torch(torch, lambda ps: torch.optim.AdamW(ps, lr=0.05, weight_decay=0.3), steps=6)
    assert_same_history(got, want)


def test_adamw_apply_decay_param_fun_and_lr_ratio():
    torch = torch_or_skip()
    params = make_params()
    w_name = params[0].name
    got = run_paddle(lambda ps: optim.AdamW(0.05, parameters=ps, weight_decay=0.3,
                                            apply_decay_param_fun=lambda name: name == w_name,
                                            lr_ratio=lambda p: 0.5 if p.name == w_name else 1.0), params=params)
    want = run_torch(torch, lambda ps: torch.optim.AdamW([{"params": [ps[0]], "lr": 0.025, "weight_decay": 0.3},
                                                          {"params": [ps[1]], "weight_decay": 0.0}], lr=0.05))
    assert_same_history(got, want)


def test_adagrad_matches_torch():
    torch = torch_or_skip()
    got = run_paddle(lambda ps: optim.Adagrad(0.2, epsilon=1e-3, parameters=ps, initial_accumulator_value=0.1))
    want = run_torch(torch, lambda ps: torch.optim.Adagrad(ps, lr=0.2, eps=1e-3, initial_accumulator_value=0.1))
    assert_same_history(got, want)


@pytest.mark.parametrize("centered", [False, True])
def test_rmsprop_follows_paddles_formula(centered):
    lr, rho, eps, mu = 0.05, 0.9, 1e-2, 0.5

    def update(i, p, g, s, t):
        s.setdefault("ms", np.zeros_like(p))
        s.setdefault("mg", np.zeros_like(p))
        s.setdefault("mom", np.zeros_like(p))
        s["ms"] = rho * s["ms"] + (1 - rho) * g * g
        s["mg"] = rho * s["mg"] + (1 - rho) * g
        denom = s["ms"] - s["mg"] ** 2 if centered else s["ms"]
        s["mom"] = mu * s["mom"] + lr * g / np.sqrt(denom + eps)  # epsilon inside the square root
        p -= s["mom"]

    got = run_paddle(lambda ps: optim.RMSProp(lr, rho=rho, epsilon=eps, momentum=mu, centered=centered,
                                              parameters=ps), steps=6)
    assert_same_history(got, run_numpy(update, steps=6))


def test_rmsprop_differs_from_torch_only_by_epsilon_placement():
    torch = torch_or_skip()
    # with epsilon ~ 0 both formulas agree
    got = run_paddle(lambda ps: optim.RMSProp(0.01, rho=0.9, epsilon=1e-30, parameters=ps))
    want = run_torch(torch, lambda ps: torch.optim.RMSprop(ps, lr=0.01, alpha=0.9, eps=0.0))
    assert_same_history(got, want, rtol=1e-7)


@pytest.mark.parametrize("exclude_bias", [False, True])
def test_lamb_follows_paddles_formula(exclude_bias):
    lr, wd, b1, b2, eps = 0.02, 0.1, 0.9, 0.99, 1e-6

    def update(i, p, g, s, t):
        m = s["m"] = b1 * s.get("m", 0) + (1 - b1) * g
        v = s["v"] = b2 * s.get("v", 0) + (1 - b2) * g * g
        r = (m / (1 - b1 ** t)) / (np.sqrt(v / (1 - b2 ** t)) + eps)
        decay = 0.0 if exclude_bias and i == 1 else wd
        r = r + decay * p
        ratio = np.linalg.norm(p) / np.linalg.norm(r)
        p -= lr * ratio * r

    params = make_params()
    bias = params[1]
    fn = (lambda p: p is bias) if exclude_bias else None
    got = run_paddle(lambda ps: optim.Lamb(lr, lamb_weight_decay=wd, beta1=b1, beta2=b2, epsilon=eps,
                                           parameters=ps, exclude_from_weight_decay_fn=fn), params=params, steps=6)
    assert_same_history(got, run_numpy(update, steps=6))


def test_lamb_trust_ratio_is_one_for_a_zero_parameter():
    w = paddle.create_parameter([3], "float64", attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(0.0)))
    w.grad = paddle.to_tensor([1.0, -2.0, 0.5], dtype="float64")
    opt = optim.Lamb(0.1, lamb_weight_decay=0.0, parameters=[w])
    opt.step()
    # first step: m_hat = g, v_hat = g^2, r = g / (|g| + eps) ~ sign(g), ratio 1
    np.testing.assert_allclose(w.numpy(), -0.1 * np.sign([1.0, -2.0, 0.5]), rtol=1e-5)


def test_optimizers_work_in_float32_and_keep_the_dtype():
    for make in (lambda ps: optim.SGD(0.1, parameters=ps), lambda ps: optim.Adam(0.1, parameters=ps),
                 lambda ps: optim.Momentum(0.1, parameters=ps), lambda ps: optim.RMSProp(0.1, parameters=ps),
                 lambda ps: optim.Adagrad(0.1, parameters=ps), lambda ps: optim.AdamW(0.1, parameters=ps),
                 lambda ps: optim.Lamb(0.1, parameters=ps)):
        params = make_params("float32")
        history = run_paddle(make, steps=2, params=params)
        assert all(p.numpy().dtype == np.float32 for p in params)
        assert not np.allclose(history[-1][0], W0.astype(np.float32))


def test_parameter_learning_rate_multiplies_the_optimizers():
    torch = torch_or_skip()
    params = make_params(learning_rate=0.5)  # w's ParamAttr(learning_rate=0.5)
    got = run_paddle(lambda ps: optim.SGD(0.2, parameters=ps), params=params)
    want = run_torch(torch, lambda ps: torch.optim.SGD([{"params": [ps[0]], "lr": 0.1}, {"params": [ps[1]]}],
                                                       lr=0.2))
    assert_same_history(got, want)


def test_scheduler_drives_the_learning_rate():
    torch = torch_or_skip()
    sched = optim.lr.StepDecay(0.4, step_size=2, gamma=0.5)
    got = run_paddle(lambda ps: optim.SGD(sched, parameters=ps), steps=6, scheduler=sched)
    assert_same_history(got, _torch_with_scheduler(torch, steps=6))


def _torch_with_scheduler(torch, steps):
    from .common import B0, X, Y
    w = torch.tensor(W0, requires_grad=True)
    b = torch.tensor(B0, requires_grad=True)
    opt = torch.optim.SGD([w, b], lr=0.4)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    history = []
    for _ in range(steps):
        opt.zero_grad()
        ((torch.tanh(torch.tensor(X) @ w + b) - torch.tensor(Y)) ** 2).mean().backward()
        opt.step()
        sched.step()
        history.append([w.detach().numpy().copy(), b.detach().numpy().copy()])
    return history


def test_adam_bias_correction_first_step_moves_by_lr():
    # on step 1 Adam moves every element by ~lr * sign(grad), whatever the gradient's scale
    w = paddle.create_parameter([4], "float64")
    w.set_value(np.zeros(4))
    w.grad = paddle.to_tensor([1e-3, -5.0, 200.0, -0.1], dtype="float64")
    optim.Adam(0.01, parameters=[w]).step()
    np.testing.assert_allclose(w.numpy(), -0.01 * np.sign([1e-3, -5.0, 200.0, -0.1]), rtol=1e-4)
    assert math.isclose(float(np.abs(w.numpy()).max()), 0.01, rel_tol=1e-4)


@pytest.mark.parametrize("make", [
    lambda ps: optim.SGD(0.1, parameters=ps), lambda ps: optim.Momentum(0.05, parameters=ps),
    lambda ps: optim.Adam(0.05, parameters=ps), lambda ps: optim.AdamW(0.05, parameters=ps),
    lambda ps: optim.RMSProp(0.1, parameters=ps), lambda ps: optim.Adagrad(0.3, parameters=ps),
    lambda ps: optim.Lamb(0.05, parameters=ps),
], ids=["sgd", "momentum", "adam", "adamw", "rmsprop", "adagrad", "lamb"])
def test_training_a_linear_layer_reduces_the_loss(make):
    paddle.seed(0)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((32, 4)).astype("float32")
    y = x @ np.array([[1.0], [-2.0], [0.5], [3.0]], "float32") + 0.5
    model = paddle.nn.Linear(4, 1)
    opt = make(model.parameters())
    xt, yt = paddle.to_tensor(x), paddle.to_tensor(y)
    losses = []
    for _ in range(60):
        loss = ((model(xt) - yt) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(loss.item())
    assert losses[-1] < 0.2 * losses[0]
    for name in opt.state_dict():
        assert name.startswith(model.weight.name + "_") or name.startswith(model.bias.name + "_")
