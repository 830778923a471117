"""paddle.tensor.attribute: what a tensor is -- its shape, as a tensor; its dtype's kind; its parts."""
from __future__ import annotations

from ..framework.creation import shape
from ..framework.ops.complex import imag, is_complex, is_floating_point, is_integer, real

__all__ = ["shape", "is_complex", "is_floating_point", "is_integer", "real", "imag"]
