"""Shared helpers for the optimizer tests: a tiny regression problem run in minipaddle and in torch."""
from __future__ import annotations

import numpy as np

import minipaddle as paddle
from minipaddle.framework.parameter import create_parameter

RNG = np.random.default_rng(1234)
W0 = RNG.standard_normal((3, 2))
B0 = RNG.standard_normal(2)
X = RNG.standard_normal((5, 3))
Y = RNG.standard_normal((5, 2))


def make_params(dtype: str = "float64", **attrs) -> list:
    """[w, b] as Parameters holding W0, B0."""
    w = create_parameter([3, 2], dtype, attr=paddle.ParamAttr(**attrs) if attrs else None)
    b = create_parameter([2], dtype, is_bias=True)
    w.set_value(W0.astype(dtype))
    b.set_value(B0.astype(dtype))
    return [w, b]


def loss_of(w, b):
    """A smooth loss whose gradient changes as the parameters move."""
    out = paddle.tanh(paddle.matmul(paddle.to_tensor(X, dtype=w.dtype), w) + b)
    return ((out - paddle.to_tensor(Y, dtype=w.dtype)) ** 2).mean()


def run_paddle(make_opt, steps: int = 5, params=None, scheduler=None) -> list:
    """Train for `steps`; return the parameter values after each step."""
    params = params if params is not None else make_params()
    opt = make_opt(params)
    history = []
    for _ in range(steps):
        loss_of(*params).backward()
        opt.step()
        opt.clear_grad()
        if scheduler is not None:
            scheduler.step()
        history.append([p.numpy().copy() for p in params])
    return history


def run_torch(torch, make_opt, steps: int = 5) -> list:
    w = torch.tensor(W0, requires_grad=True)
    b = torch.tensor(B0, requires_grad=True)
    opt = make_opt([w, b])
    x, y = torch.tensor(X), torch.tensor(Y)
    history = []
    for _ in range(steps):
        opt.zero_grad()
        loss = ((torch.tanh(x @ w + b) - y) ** 2).mean()
        loss.backward()
        opt.step()
        history.append([w.detach().numpy().copy(), b.detach().numpy().copy()])
    return history


def assert_same_history(got: list, want: list, rtol: float = 1e-9, atol: float = 1e-12) -> None:
    assert len(got) == len(want)
    for step, (g, w) in enumerate(zip(got, want)):
        for gp, wp in zip(g, w):
            np.testing.assert_allclose(gp, wp, rtol=rtol, atol=atol, err_msg=f"step {step}")


def grads_numpy(w: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The loss's gradient by hand, for the numpy reference optimizers."""
    z = X @ w + b
    out = np.tanh(z)
    dout = 2 * (out - Y) / out.size
    dz = dout * (1 - out ** 2)
    return X.T @ dz, dz.sum(axis=0)


def run_numpy(update, steps: int = 5) -> list:
    """`update(i, param, grad, state, t)` changes param in place; returns the history like run_paddle."""
    params = [W0.copy(), B0.copy()]
    states = [{}, {}]
    history = []
    for t in range(1, steps + 1):
        grads = grads_numpy(*params)
        for i, (p, g) in enumerate(zip(params, grads)):
            update(i, p, g, states[i], t)
        history.append([p.copy() for p in params])
    return history
