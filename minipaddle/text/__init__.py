"""paddle.text: text data sets read from the files Paddle downloads (never downloaded here), and CRF decoding
(viterbi_decode, ViterbiDecoder).

    from minipaddle.text import Imdb, UCIHousing, Movielens
"""
from __future__ import annotations

from . import datasets  # noqa: F401
from .datasets import WMT14, Conll05st, Imdb, Imikolov, Movielens, UCIHousing  # noqa: F401
from .viterbi_decode import ViterbiDecoder, viterbi_decode  # noqa: F401

__all__ = ["datasets", "Conll05st", "Imdb", "Imikolov", "Movielens", "UCIHousing", "WMT14", "ViterbiDecoder",
           "viterbi_decode"]
