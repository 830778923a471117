"""Functional API: linear, dropout, embedding, one_hot, pad, interpolate."""
from __future__ import annotations

__all__: list[str] = []
