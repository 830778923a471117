"""paddle.vision: image transforms and image datasets.

    from minipaddle.vision import transforms as T
    from minipaddle.vision.datasets import MNIST
"""
from __future__ import annotations

from . import datasets, models, ops, transforms  # noqa: F401

__all__ = ["datasets", "models", "ops", "transforms"]
