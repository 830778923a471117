"""Linear-algebra ops beyond matmul: inverse, determinants, solves, decompositions (paddle.linalg)."""
from __future__ import annotations
