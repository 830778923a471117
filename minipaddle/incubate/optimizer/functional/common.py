"""What minimize_bfgs and minimize_lbfgs share: f and its gradient at a point, the line search along a
direction, and their argument checks."""
from __future__ import annotations

from typing import Callable

import numpy as np

from ....framework.autograd import grad
from ....framework.creation import zeros_like
from ....framework.dtype import convert_dtype
from ....framework.errors import invalid_argument, unimplemented
from ....framework.tensor import Tensor
from .line_search import strong_wolfe

__all__ = ["value_and_gradient", "search_along", "check_arguments", "inf_norm"]


def value_and_gradient(api: str, f: Callable[[Tensor], Tensor], x: Tensor) -> tuple[Tensor, Tensor]:
    """f(x) and its gradient at x, both detached: the optimiser's iterates carry no graph."""
    x = x.detach()
    x.stop_gradient = False
    value = f(x)
    if not isinstance(value, Tensor) or value.size != 1:
        got = f"shape {value.shape}" if isinstance(value, Tensor) else type(value).__name__
        raise invalid_argument(api, f"objective_func must return a Tensor with one value, got {got}.",
                               hint="reduce it, e.g. return loss.mean().")
    value = value.reshape([])
    gradient = None
    if not value.stop_gradient:
        (gradient,) = grad(value, x, allow_unused=True)
    if gradient is None:   # f does not depend on x
        gradient = zeros_like(x)
    return value.detach(), gradient.detach()


def search_along(api: str, objective_func: Callable[[Tensor], Tensor], x: Tensor, p: Tensor, value: Tensor,
                 g: Tensor, initial_step_length: float, tolerance_change: float, max_iters: int):
    """The strong-Wolfe line search from x along direction p (f(x) = value, gradient g there)."""

    def along(t: float):
        fx, gx = value_and_gradient(api, objective_func, x + t * p)
        return float(fx), gx

    return strong_wolfe(along, initial_step_length, float(value), g, p, tolerance_change=tolerance_change,
                        max_iters=max_iters)


def inf_norm(x: Tensor) -> float:
    return float(x.abs().max())


def check_arguments(api: str, initial_position, dtype: str, line_search_fn: str,
                    initial_inverse_hessian_estimate) -> None:
    """Paddle's checks, with messages that say what was expected."""
    if dtype not in ("float32", "float64"):
        raise invalid_argument(api, f"dtype must be 'float32' or 'float64', got {dtype!r}.")
    if not isinstance(initial_position, Tensor):
        raise invalid_argument(api, f"initial_position must be a Tensor, got {type(initial_position).__name__}.")
    if initial_position.ndim != 1:
        raise invalid_argument(api, f"initial_position must be 1-D, got shape {initial_position.shape}.",
                               hint="optimise x.flatten() and reshape inside objective_func.")
    if convert_dtype(initial_position.dtype) != np.dtype(dtype):
        raise invalid_argument(api, f"initial_position has dtype {initial_position.dtype}, but dtype={dtype!r}; "
                                    "they must agree.", hint=f"pass dtype='{convert_dtype(initial_position.dtype)}'.")
    if line_search_fn != "strong_wolfe":
        raise unimplemented(api, f"line_search_fn={line_search_fn!r}; only 'strong_wolfe' is implemented, as in "
                                 "Paddle.")
    h0 = initial_inverse_hessian_estimate
    if h0 is None:
        return
    n = initial_position.shape[0]
    if not isinstance(h0, Tensor):
        raise invalid_argument(api, f"initial_inverse_hessian_estimate must be a Tensor, got {type(h0).__name__}.")
    if h0.shape != [n, n]:
        raise invalid_argument(api, f"initial_inverse_hessian_estimate has shape {h0.shape}, expected [{n}, {n}] "
                                    f"for an initial_position of size {n}.")
    if convert_dtype(h0.dtype) != np.dtype(dtype):
        raise invalid_argument(api, f"initial_inverse_hessian_estimate has dtype {h0.dtype}, expected {dtype}.")
    h = h0.numpy()
    # symmetric up to rounding: an inverse computed in floating point is rarely exactly symmetric
    if np.abs(h - h.T).max() > 100 * np.finfo(h.dtype).eps * np.abs(h).max():
        raise invalid_argument(api, "initial_inverse_hessian_estimate must be symmetric and positive definite; "
                                    "it is not symmetric.")
    try:
        np.linalg.cholesky(h)
    except np.linalg.LinAlgError:
        raise invalid_argument(api, "initial_inverse_hessian_estimate must be symmetric and positive definite; "
                                    "it is not positive definite (Cholesky fails).") from None
