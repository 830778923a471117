"""paddle.tensor.random: tensors of random numbers (seeded by paddle.seed)."""
from __future__ import annotations

from ..framework.creation import normal, rand, randint, randn, randperm, uniform

__all__ = ["normal", "rand", "randint", "randn", "randperm", "uniform"]
