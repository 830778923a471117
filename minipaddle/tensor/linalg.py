"""paddle.tensor.linalg: matrix products, transposes and norms (the functions paddle.matmul & co. name)."""
from __future__ import annotations

from ..framework.ops.counting import bincount, histogram
from ..framework.ops.linalg import bmm, dist, dot, matmul, mv, t
from ..framework.ops.manipulation import transpose
from ..framework.ops.reduction import norm

__all__ = ["bincount", "bmm", "dist", "dot", "histogram", "matmul", "mv", "norm", "t", "transpose"]
