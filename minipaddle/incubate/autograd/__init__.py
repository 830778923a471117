"""paddle.incubate.autograd: functional derivatives, `vjp`, `jvp`, `Jacobian`, `Hessian` (functional.py).

    y, v_jacobian = paddle.incubate.autograd.vjp(func, x, v)
"""
from __future__ import annotations

from .functional import Hessian, Jacobian, jvp, vjp

__all__ = ["vjp", "jvp", "Jacobian", "Hessian"]
