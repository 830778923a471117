"""Functional API: the activations (relu, gelu, softmax, ...)."""
from __future__ import annotations

__all__: list[str] = []
