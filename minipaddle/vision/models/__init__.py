"""paddle.vision.models: ready-made networks (LeNet)."""
from __future__ import annotations

from .lenet import LeNet

__all__ = ["LeNet"]
