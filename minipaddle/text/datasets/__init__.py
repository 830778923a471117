"""paddle.text.datasets: UCIHousing, Imdb, Imikolov and Movielens from local files in Paddle's download formats."""
from __future__ import annotations

from .imdb import Imdb
from .imikolov import Imikolov
from .movielens import Movielens
from .uci_housing import UCIHousing

__all__ = ["Imdb", "Imikolov", "Movielens", "UCIHousing"]
