"""Small synthetic 2-D classification sets for first experiments: moons, spirals, blobs.

Each `make_*` returns `(X float32 [n, 2], y int64 [n])`, reproducible from `seed`; the Dataset
wrappers (Moons, Spirals, Blobs) serve the same arrays as (x [2], y [1]) samples:

    X, y = make_moons(200, noise=0.1, seed=0)
    loader = paddle.io.DataLoader(Moons(200, noise=0.1), batch_size=32, shuffle=True)
"""
from __future__ import annotations

import numbers

import numpy as np

from ..framework.errors import invalid_argument
from ..io.dataset import Dataset

__all__ = ["make_moons", "make_spirals", "make_blobs", "Moons", "Spirals", "Blobs"]


def _check(op: str, n_samples, noise) -> None:
    if not isinstance(n_samples, numbers.Integral) or isinstance(n_samples, bool) or n_samples <= 0:
        raise invalid_argument(op, f"n_samples got {n_samples!r}, expected a positive int.")
    if not isinstance(noise, numbers.Real) or noise < 0:
        raise invalid_argument(op, f"noise got {noise!r}, expected a number >= 0.")


def _shuffled(rng: np.random.Generator, X: np.ndarray, y: np.ndarray):
    order = rng.permutation(len(y))
    return X[order].astype(np.float32), y[order].astype(np.int64)


def make_moons(n_samples: int = 100, noise: float = 0.0, seed: int | None = None):
    """Two interleaving half circles (as scikit-learn's make_moons), shuffled; `noise` is Gaussian std."""
    _check("make_moons", n_samples, noise)
    rng = np.random.default_rng(seed)
    n_out = n_samples // 2
    n_in = n_samples - n_out
    t_out = np.linspace(0, np.pi, n_out)
    t_in = np.linspace(0, np.pi, n_in)
    X = np.concatenate([np.stack([np.cos(t_out), np.sin(t_out)], 1),
                        np.stack([1 - np.cos(t_in), 1 - np.sin(t_in) - 0.5], 1)])
    y = np.concatenate([np.zeros(n_out), np.ones(n_in)])
    X = X + rng.normal(0.0, noise, X.shape) if noise else X
    return _shuffled(rng, X, y)


def make_spirals(n_samples: int = 300, n_classes: int = 3, noise: float = 0.2, seed: int | None = None):
    """`n_classes` interleaved spiral arms (CS231n's toy set); `noise` jitters the angle."""
    _check("make_spirals", n_samples, noise)
    if not isinstance(n_classes, numbers.Integral) or not 1 <= n_classes <= n_samples:
        raise invalid_argument("make_spirals", f"n_classes got {n_classes!r}, expected an int in [1, n_samples].")
    rng = np.random.default_rng(seed)
    sizes = [n_samples // n_classes + (c < n_samples % n_classes) for c in range(n_classes)]
    X, y = [], []
    for c, n in enumerate(sizes):
        r = np.linspace(0.0, 1.0, n)
        t = np.linspace(c * 4.0, (c + 1) * 4.0, n) + rng.normal(0.0, noise, n)
        X.append(np.stack([r * np.sin(t), r * np.cos(t)], 1))
        y.append(np.full(n, c))
    return _shuffled(rng, np.concatenate(X), np.concatenate(y))


def make_blobs(n_samples: int = 100, centers=3, std: float = 1.0, seed: int | None = None, n_features: int = 2):
    """Gaussian blobs around `centers` (an int: that many centers drawn in [-10, 10]^n_features)."""
    _check("make_blobs", n_samples, std)
    rng = np.random.default_rng(seed)
    if isinstance(centers, numbers.Integral) and not isinstance(centers, bool):
        if centers <= 0:
            raise invalid_argument("make_blobs", f"centers got {centers}, expected a positive int or an array.")
        centers = rng.uniform(-10.0, 10.0, (int(centers), n_features))
    centers = np.asarray(centers, dtype=np.float64)
    if centers.ndim != 2 or len(centers) == 0:
        raise invalid_argument("make_blobs", f"centers has shape {list(centers.shape)}, expected [k, n_features].")
    k = len(centers)
    y = np.arange(n_samples) % k
    X = centers[y] + rng.normal(0.0, std, (n_samples, centers.shape[1]))
    return _shuffled(rng, X, y)


class _ArrayDataset(Dataset):
    def __init__(self, X: np.ndarray, y: np.ndarray, transform=None) -> None:
        self.X, self.y = X, y.reshape(-1, 1)
        self.transform = transform

    def __getitem__(self, idx):
        x = self.X[idx]
        return (self.transform(x) if self.transform is not None else x), self.y[idx]

    def __len__(self) -> int:
        return len(self.y)


class Moons(_ArrayDataset):
    """make_moons as a Dataset of (x float32 [2], y int64 [1])."""

    def __init__(self, n_samples: int = 100, noise: float = 0.1, seed: int | None = 0, transform=None) -> None:
        super().__init__(*make_moons(n_samples, noise, seed), transform)


class Spirals(_ArrayDataset):
    """make_spirals as a Dataset of (x float32 [2], y int64 [1])."""

    def __init__(self, n_samples: int = 300, n_classes: int = 3, noise: float = 0.2, seed: int | None = 0,
                 transform=None) -> None:
        super().__init__(*make_spirals(n_samples, n_classes, noise, seed), transform)


class Blobs(_ArrayDataset):
    """make_blobs as a Dataset of (x float32 [n_features], y int64 [1])."""

    def __init__(self, n_samples: int = 100, centers=3, std: float = 1.0, seed: int | None = 0,
                 n_features: int = 2, transform=None) -> None:
        super().__init__(*make_blobs(n_samples, centers, std, seed, n_features), transform)
