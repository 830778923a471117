"""paddle.tensor.attribute: what a tensor is -- its shape, as a tensor."""
from __future__ import annotations

from ..framework.creation import shape

__all__ = ["shape"]
