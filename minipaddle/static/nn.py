"""paddle.static.nn: fc and the control-flow ops cond / while_loop / case / switch_case (see
framework/static/nn.py)."""
from __future__ import annotations

from ..framework.static.nn import case, cond, fc, switch_case, while_loop

__all__ = ["fc", "cond", "while_loop", "case", "switch_case"]
