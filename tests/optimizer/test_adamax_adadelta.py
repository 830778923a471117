"""Adamax and Adadelta: trajectories against Paddle's formulas in numpy (and torch where the math agrees),
state_dict names, argument errors. Paddle's own numbers are in tests/compat/cases_optim.py."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
from tests.ops.opcheck import torch_or_skip

from .common import assert_same_history, make_params, run_numpy, run_paddle, run_torch

optim = paddle.optimizer


def test_adamax_follows_paddles_formula():
    beta1, beta2, eps, lr = 0.8, 0.9, 1e-3, 0.05

    def update(i, p, g, state, t):
        m = state.setdefault("m", np.zeros_like(p))
        u = state.setdefault("u", np.zeros_like(p))
        m[...] = beta1 * m + (1 - beta1) * g
        u[...] = np.maximum(beta2 * u + eps, np.abs(g))       # epsilon inside the max (torch: on |g|)
        p -= lr / (1 - beta1 ** t) * m / u

    got = run_paddle(lambda ps: optim.Adamax(lr, beta1=beta1, beta2=beta2, epsilon=eps, parameters=ps), steps=6)
    assert_same_history(got, run_numpy(update, steps=6))


def test_adadelta_matches_torch():
    torch = torch_or_skip()
    got = run_paddle(lambda ps: optim.Adadelta(0.7, rho=0.9, epsilon=1e-4, parameters=ps), steps=6)
    want = run_torch(torch, lambda ps: torch.optim.Adadelta(ps, lr=0.7, rho=0.9, eps=1e-4), steps=6)
    assert_same_history(got, want)


def test_adadelta_with_learning_rate_one_is_the_papers_method():
    rho, eps = 0.95, 1e-6

    def update(i, p, g, state, t):
        eg = state.setdefault("eg", np.zeros_like(p))
        ex = state.setdefault("ex", np.zeros_like(p))
        eg[...] = rho * eg + (1 - rho) * g * g
        dx = -np.sqrt(ex + eps) / np.sqrt(eg + eps) * g
        ex[...] = rho * ex + (1 - rho) * dx * dx
        p += dx

    assert_same_history(run_paddle(lambda ps: optim.Adadelta(1.0, parameters=ps)), run_numpy(update))


@pytest.mark.parametrize("make, kinds", [
    (lambda ps: optim.Adamax(0.1, parameters=ps), ["moment", "inf_norm", "beta1_pow_acc"]),
    (lambda ps: optim.Adadelta(0.1, parameters=ps), ["_avg_squared_grad", "_avg_squared_update"]),
])
def test_state_dict_round_trip_continues_the_same_trajectory(make, kinds):
    params = make_params()
    opt = make(params)
    run_paddle(lambda ps: opt, steps=2, params=params)
    state, values = opt.state_dict(), [p.numpy().copy() for p in params]
    assert all(any(k.endswith(f"{kind}_0") for k in state) for kind in kinds), sorted(state)
    later = run_paddle(lambda ps: opt, steps=2, params=params)

    fresh = make_params()
    for p, v in zip(fresh, values):
        p.set_value(v)
    renamed = {}
    for k, v in state.items():
        for old, new in zip(params, fresh):
            k = k.replace(old.name, new.name)
        renamed[k] = v
    opt2 = make(fresh)
    opt2.set_state_dict(renamed)
    assert_same_history(run_paddle(lambda ps: opt2, steps=2, params=fresh), later)


@pytest.mark.parametrize("make, message", [
    (lambda ps: optim.Adamax(beta1=1.0, parameters=ps), "beta1 must be in"),
    (lambda ps: optim.Adamax(epsilon=-1.0, parameters=ps), "epsilon must be >= 0"),
    (lambda ps: optim.Adadelta(rho=1.5, parameters=ps), "rho must be in"),
    (lambda ps: optim.Adadelta(epsilon="small", parameters=ps), "epsilon must be a number"),
])
def test_bad_hyper_parameters_say_which(make, message):
    with pytest.raises(ValueError, match=message):
        make(make_params())
