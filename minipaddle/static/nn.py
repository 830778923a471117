"""paddle.static.nn: fc and the control-flow ops cond / while_loop (see framework/static/nn.py)."""
from __future__ import annotations

from ..framework.static.nn import cond, fc, while_loop

__all__ = ["fc", "cond", "while_loop"]
