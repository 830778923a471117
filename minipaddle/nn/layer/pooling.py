"""Pooling layers: MaxPool2D, AvgPool2D, AdaptiveAvgPool2D, ..."""
from __future__ import annotations

__all__: list[str] = []
