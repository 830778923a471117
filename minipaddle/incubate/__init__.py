"""paddle.incubate: features Paddle keeps outside its stable API. Here: `autotune`.

    paddle.incubate.autotune.set_config({"kernel": {"enable": True, "tuning_range": [1, 10]}})
"""
from __future__ import annotations

from . import autotune  # noqa: F401

__all__ = ["autotune"]
