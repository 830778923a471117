"""Convolution layers: Conv1D, Conv2D, Conv2DTranspose."""
from __future__ import annotations

__all__: list[str] = []
