"""paddle.amp: mixed-precision tools. Here: `debugging`, the NaN/Inf tensor checker.

    paddle.amp.debugging.enable_tensor_checker(paddle.amp.debugging.TensorCheckerConfig(enable=True))
"""
from __future__ import annotations

from . import debugging  # noqa: F401

__all__ = ["debugging"]
