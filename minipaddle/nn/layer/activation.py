"""Activations as layers: ReLU, GELU, Sigmoid, Tanh, Softmax, LeakyReLU, ..."""
from __future__ import annotations

__all__: list[str] = []
