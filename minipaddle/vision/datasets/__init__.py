"""paddle.vision.datasets: MNIST and FashionMNIST from local IDX files (never downloaded at run time)."""
from __future__ import annotations

from .idx import *  # noqa: F401,F403
from .idx import __all__ as _idx_all
from .mnist import *  # noqa: F401,F403
from .mnist import __all__ as _mnist_all

__all__ = [*_mnist_all, *_idx_all]
