"""Random sparse test data: a dense numpy array with a chosen density, and its COO pieces."""
from __future__ import annotations

import numpy as np


def random_sparse(shape, density: float, seed: int = 0, dtype=np.float64) -> np.ndarray:
    """A dense array whose entries are non-zero (in [-2, 2] away from 0) with probability `density`."""
    rng = np.random.default_rng(seed)
    values = rng.uniform(0.5, 2.0, shape) * rng.choice([-1.0, 1.0], shape)
    return np.where(rng.random(shape) < density, values, 0.0).astype(dtype)


def coo_parts(dense: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(indices [ndim, nnz], values [nnz]) of a dense array's non-zeros, row-major."""
    index = np.stack(np.nonzero(dense)).astype(np.int64).reshape(dense.ndim, -1)
    return index, dense[tuple(index)]
