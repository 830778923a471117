"""conv1d/conv2d/conv2d_transpose ops: im2col + BLAS kernels."""
from __future__ import annotations

__all__: list[str] = []
