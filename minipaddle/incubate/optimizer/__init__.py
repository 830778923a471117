"""paddle.incubate.optimizer: here, `functional` (minimize_bfgs, minimize_lbfgs).

The LBFGS optimizer for a Layer's parameters is paddle.optimizer.LBFGS (minipaddle/optimizer/lbfgs.py).
"""
from __future__ import annotations

from . import functional  # noqa: F401

__all__ = ["functional"]
