"""Normalization layers: BatchNorm1D/2D, LayerNorm, GroupNorm."""
from __future__ import annotations

__all__: list[str] = []
