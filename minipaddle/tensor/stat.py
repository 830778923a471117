"""paddle.tensor.stat: statistics over tensors -- mean, std, var, numel."""
from __future__ import annotations

from ..framework.creation import numel
from ..framework.ops.reduction import mean, std, var

__all__ = ["mean", "numel", "std", "var"]
