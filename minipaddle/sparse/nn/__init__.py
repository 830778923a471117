"""paddle.sparse.nn: activation layers for sparse tensors (functional forms in .functional)."""
from __future__ import annotations

from . import functional  # noqa: F401
from .layer import LeakyReLU, ReLU, ReLU6, Softmax  # noqa: F401

__all__ = ["ReLU", "ReLU6", "LeakyReLU", "Softmax", "functional"]
