"""paddle.incubate.optimizer.functional: minimise a function of a 1-D Tensor by quasi-Newton methods.

    converged, calls, x, fx, g, H = minimize_bfgs(f, x0)     # bfgs.py: a full inverse-Hessian estimate
    converged, calls, x, fx, g = minimize_lbfgs(f, x0)       # lbfgs.py: the last history_size steps only

Both take steps found by the strong-Wolfe line search in line_search.py.
"""
from __future__ import annotations

from .bfgs import minimize_bfgs
from .lbfgs import minimize_lbfgs

__all__ = ["minimize_bfgs", "minimize_lbfgs"]
