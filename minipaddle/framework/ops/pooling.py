"""Pooling ops: max_pool2d, avg_pool2d, adaptive pools."""
from __future__ import annotations

__all__: list[str] = []
