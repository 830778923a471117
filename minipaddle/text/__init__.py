"""paddle.text: text data sets read from the files Paddle downloads (never downloaded here).

    from minipaddle.text import Imdb, UCIHousing, Movielens
"""
from __future__ import annotations

from . import datasets  # noqa: F401
from .datasets import Imdb, Movielens, UCIHousing  # noqa: F401

__all__ = ["datasets", "Imdb", "Movielens", "UCIHousing"]
