"""Functional API: the losses (cross_entropy, mse_loss, ...)."""
from __future__ import annotations

__all__: list[str] = []
