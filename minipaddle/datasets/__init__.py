"""minipaddle.datasets: small data sets that need no download: the bundled 8x8 Digits and synthetic 2-D sets."""
from __future__ import annotations

from .digits import *  # noqa: F401,F403
from .digits import __all__ as _digits_all
from .synthetic import *  # noqa: F401,F403
from .synthetic import __all__ as _synthetic_all

__all__ = [*_digits_all, *_synthetic_all]
