"""paddle.text.datasets: UCIHousing, Imdb and Movielens from local files in Paddle's download formats."""
from __future__ import annotations

from .imdb import Imdb
from .movielens import Movielens
from .uci_housing import UCIHousing

__all__ = ["Imdb", "Movielens", "UCIHousing"]
