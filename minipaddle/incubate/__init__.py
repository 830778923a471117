"""paddle.incubate: features Paddle keeps outside its stable API. Here: `autotune`, `autograd`
(functional derivatives: vjp, jvp, Jacobian, Hessian) and `optimizer.functional` (BFGS, L-BFGS).

    paddle.incubate.autotune.set_config({"kernel": {"enable": True, "tuning_range": [1, 10]}})
    _, g = paddle.incubate.autograd.vjp(func, x)
    paddle.incubate.optimizer.functional.minimize_bfgs(func, x0)
"""
from __future__ import annotations

from . import autograd, autotune, optimizer  # noqa: F401

__all__ = ["autotune", "autograd", "optimizer"]
