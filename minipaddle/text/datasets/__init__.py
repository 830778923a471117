"""paddle.text.datasets: UCIHousing, Imdb, Imikolov, Movielens and WMT14 from local files in Paddle's
download formats."""
from __future__ import annotations

from .imdb import Imdb
from .imikolov import Imikolov
from .movielens import Movielens
from .uci_housing import UCIHousing
from .wmt14 import WMT14

__all__ = ["Imdb", "Imikolov", "Movielens", "UCIHousing", "WMT14"]
