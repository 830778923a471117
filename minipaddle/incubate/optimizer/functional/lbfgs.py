"""minimize_lbfgs: limited-memory BFGS (Nocedal & Wright, Algorithms 7.4 and 7.5).

BFGS keeps an N x N inverse Hessian estimate. L-BFGS keeps only the last `history_size` pairs
(s_i, y_i) and applies the same updates to the gradient on the fly, by the two-loop recursion:
O(history_size * N) memory and work per step instead of O(N^2), which is what makes quasi-Newton
methods usable for many parameters.
"""
from __future__ import annotations

from collections import deque
from typing import Callable

from ....framework.creation import full, to_tensor
from ....framework.ops.linalg import dot, matmul
from ....framework.tensor import Tensor
from .common import check_arguments, inf_norm, search_along, value_and_gradient

__all__ = ["minimize_lbfgs"]


def minimize_lbfgs(objective_func: Callable[[Tensor], Tensor], initial_position: Tensor, history_size: int = 100,
                   max_iters: int = 50, tolerance_grad: float = 1e-8, tolerance_change: float = 1e-8,
                   initial_inverse_hessian_estimate: Tensor | None = None, line_search_fn: str = "strong_wolfe",
                   max_line_search_iters: int = 50, initial_step_length: float = 1.0, dtype: str = "float32",
                   name: str | None = None):
    """Minimise `objective_func` (a 1-D Tensor -> one value) from `initial_position` by L-BFGS.

    Returns `(is_converge, num_func_calls, position, objective_value, objective_gradient)`; the
    stopping rules are minimize_bfgs's. `initial_inverse_hessian_estimate` (default identity) is
    the H0 the two-loop recursion starts from at every iteration.

        >>> converged, calls, x, fx, g = paddle.incubate.optimizer.functional.minimize_lbfgs(
        ...     f, paddle.to_tensor([0.0, 0.0]), history_size=10)
    """
    api = "minimize_lbfgs"
    check_arguments(api, initial_position, dtype, line_search_fn, initial_inverse_hessian_estimate)
    H0 = None if initial_inverse_hessian_estimate is None else initial_inverse_hessian_estimate.detach()
    history: deque = deque(maxlen=max(int(history_size), 1))   # (s, y, rho), oldest first
    x = initial_position.detach().clone()   # a copy: the result never aliases the caller's tensor
    value, g = value_and_gradient(api, objective_func, x)
    num_calls = 1
    converged = inf_norm(g) < tolerance_grad
    for _ in range(max_iters):
        if converged:
            break
        p = -two_loop_recursion(g, history, H0)
        found = search_along(api, objective_func, x, p, value, g, initial_step_length, tolerance_change,
                             max_line_search_iters)
        num_calls += found.num_evals
        s, y = found.step * p, found.grad - g
        sy = float(dot(s, y))
        if sy > 0.0:   # a pair without positive curvature would spoil the estimate: leave it out
            history.append((s, y, 1.0 / sy))
        x, g, value = x + s, found.grad, full([], found.loss, dtype=dtype)
        converged = inf_norm(g) < tolerance_grad or inf_norm(p) < tolerance_change
        if found.step == 0.0:
            break
    return to_tensor([converged]), to_tensor([num_calls], dtype="int64"), x, value, g


def two_loop_recursion(g: Tensor, history, H0: Tensor | float | None = None) -> Tensor:
    """H g for the L-BFGS inverse Hessian estimate H built from `history` (s, y, rho), oldest first.

    Newest to oldest, strip from g its components along each y (alpha_i); apply H0 (a matrix, a
    scale gamma for gamma * I, or None for I); then oldest to newest, add back along each s what
    BFGS's update would have put there. paddle.optimizer.LBFGS uses it too, with gamma = s^T y / y^T y."""
    q = g
    alphas = []
    for s, y, rho in reversed(history):
        alpha = rho * float(dot(s, q))
        q = q - alpha * y
        alphas.append(alpha)
    if H0 is None:
        r = q
    elif isinstance(H0, Tensor):
        r = matmul(H0, q)
    else:
        r = H0 * q
    for (s, y, rho), alpha in zip(history, reversed(alphas)):
        beta = rho * float(dot(y, r))
        r = r + (alpha - beta) * s
    return r
