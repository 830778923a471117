"""paddle.text.datasets: UCIHousing, Imdb, Imikolov, Movielens, WMT14 and Conll05st from local files in Paddle's
download formats."""
from __future__ import annotations

from .conll05 import Conll05st
from .imdb import Imdb
from .imikolov import Imikolov
from .movielens import Movielens
from .uci_housing import UCIHousing
from .wmt14 import WMT14

__all__ = ["Conll05st", "Imdb", "Imikolov", "Movielens", "UCIHousing", "WMT14"]
