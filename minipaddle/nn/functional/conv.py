"""Functional API: conv1d, conv2d, conv2d_transpose."""
from __future__ import annotations

__all__: list[str] = []
