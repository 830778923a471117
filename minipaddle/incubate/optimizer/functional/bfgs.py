"""minimize_bfgs: the BFGS quasi-Newton method (Nocedal & Wright, Algorithm 6.1).

Newton's step is -H g with H the inverse Hessian. BFGS never forms the Hessian: it keeps an
estimate H_k and, after each step s = x_{k+1} - x_k that changed the gradient by y = g_{k+1} - g_k,
corrects it so that H_{k+1} y = s (the secant condition: H acts like the inverse Hessian did along
the step just taken), staying symmetric and positive definite:

    H_{k+1} = (I - rho s y^T) H_k (I - rho y s^T) + rho s s^T,      rho = 1 / (y^T s)

Each iteration: direction p = -H g, a strong-Wolfe line search for the step t (its curvature
condition guarantees y^T s > 0, which keeps H positive definite), x += t p, update H.
"""
from __future__ import annotations

from typing import Callable

from ....framework.creation import eye, full, to_tensor
from ....framework.ops.linalg import dot, matmul, outer
from ....framework.tensor import Tensor
from .common import check_arguments, inf_norm, search_along, value_and_gradient

__all__ = ["minimize_bfgs"]


def minimize_bfgs(objective_func: Callable[[Tensor], Tensor], initial_position: Tensor, max_iters: int = 50,
                  tolerance_grad: float = 1e-7, tolerance_change: float = 1e-9,
                  initial_inverse_hessian_estimate: Tensor | None = None, line_search_fn: str = "strong_wolfe",
                  max_line_search_iters: int = 50, initial_step_length: float = 1.0, dtype: str = "float32",
                  name: str | None = None):
    """Minimise `objective_func` (a 1-D Tensor -> one value) from `initial_position` by BFGS.

    Returns `(is_converge, num_func_calls, position, objective_value, objective_gradient,
    inverse_hessian_estimate)`. It has converged when the gradient's largest entry is below
    `tolerance_grad`, or the search direction's below `tolerance_change`; it stops unconverged
    after `max_iters` iterations or when the line search finds no step that decreases f.

        >>> def f(x):
        ...     return ((x - paddle.to_tensor([1.0, 2.0])) ** 2).sum()
        >>> converged, calls, x, fx, g, H = paddle.incubate.optimizer.functional.minimize_bfgs(
        ...     f, paddle.to_tensor([0.0, 0.0]))      # x -> [1, 2]

    Paddle 3.3.1 applies the two (I - rho ...) factors the other way round, so its H breaks the
    secant condition and it may stop short (Rosenbrock from (-1.2, 1)); this follows eq. 6.17.
    """
    api = "minimize_bfgs"
    check_arguments(api, initial_position, dtype, line_search_fn, initial_inverse_hessian_estimate)
    identity = eye(initial_position.shape[0], dtype=dtype)
    H = identity if initial_inverse_hessian_estimate is None else initial_inverse_hessian_estimate.detach()
    x = initial_position.detach().clone()   # a copy: the result never aliases the caller's tensor
    value, g = value_and_gradient(api, objective_func, x)
    num_calls = 1
    converged = inf_norm(g) < tolerance_grad
    for _ in range(max_iters):
        if converged:
            break
        p = -matmul(H, g)                       # the quasi-Newton direction
        found = search_along(api, objective_func, x, p, value, g, initial_step_length, tolerance_change,
                             max_line_search_iters)
        num_calls += found.num_evals
        s, y = found.step * p, found.grad - g
        x, g, value = x + s, found.grad, full([], found.loss, dtype=dtype)
        H = bfgs_update(H, s, y, identity)
        converged = inf_norm(g) < tolerance_grad or inf_norm(p) < tolerance_change
        if found.step == 0.0:                   # no step decreased f: nothing more to learn here
            break
    return (to_tensor([converged]), to_tensor([num_calls], dtype="int64"), x, value, g, H)


def bfgs_update(H: Tensor, s: Tensor, y: Tensor, identity: Tensor) -> Tensor:
    """The BFGS update of the inverse Hessian estimate H (Nocedal & Wright eq. 6.17).

    Skipped when y^T s <= 0 (the line search stopped short of the curvature condition): the update
    would make H indefinite, and -H g might then point uphill."""
    sy = float(dot(s, y))
    if sy <= 0.0:
        return H
    rho = 1.0 / sy
    left = identity - rho * outer(s, y)          # (I - rho s y^T)
    return matmul(matmul(left, H), left.t()) + rho * outer(s, s)
