"""Imdb movie reviews, after `paddle.text.datasets.Imdb`: read from `aclImdb_v1.tar.gz` (as Paddle downloads
it from https://dataset.bj.bcebos.com/imdb%2FaclImdb_v1.tar.gz) at `<data home>/imdb/aclImdb_v1.tar.gz`
or `data_file=`, member by member in memory.

As Paddle: a review is lower-cased, stripped of ASCII punctuation and split on whitespace (as bytes);
the dictionary holds every word seen more than `cutoff` times in train and test together, most
frequent first (ties alphabetically), plus '<unk>' last. A sample is (word ids, label [1]), where the
label is 0 for a positive review and 1 for a negative one (Paddle's convention).
"""
from __future__ import annotations

import collections
import re
import string
import tarfile

import numpy as np

from ...framework.errors import invalid_argument
from ...io.dataset import Dataset
from ...vision.datasets.cifar import check_mode_and_backend, locate

__all__ = ["Imdb"]

URL = "https://dataset.bj.bcebos.com/imdb%2FaclImdb_v1.tar.gz"
_PUNCTUATION = string.punctuation.encode("latin-1")


class Imdb(Dataset):
    """Sentiment classification of 50 000 IMDB reviews (25 000 train, 25 000 test)."""

    def __init__(self, data_file: str | None = None, mode: str = "train", cutoff: int = 150,
                 download: bool = True) -> None:
        self.mode, _ = check_mode_and_backend("Imdb", mode, None)
        self.data_file = locate("Imdb", data_file, "imdb", "aclImdb_v1.tar.gz", URL, download, "data_file")
        self.word_idx = self._build_word_dict(cutoff)
        self._load_anno()

    def _tokenize(self, pattern: re.Pattern) -> list[list[bytes]]:
        docs = []
        try:
            with tarfile.open(self.data_file) as archive:
                for member in archive:                       # archive order, as Paddle reads it
                    if member.isfile() and pattern.match(member.name):
                        text = archive.extractfile(member).read().rstrip(b"\n\r")
                        docs.append(text.translate(None, _PUNCTUATION).lower().split())
        except (tarfile.TarError, OSError) as e:
            raise invalid_argument("Imdb", f"{self.data_file} is not a readable tar archive ({e}).") from None
        return docs

    def _build_word_dict(self, cutoff: int) -> dict:
        freq: dict = collections.defaultdict(int)
        for doc in self._tokenize(re.compile(r"aclImdb/((train)|(test))/((pos)|(neg))/.*\.txt$")):
            for word in doc:
                freq[word] += 1
        kept = sorted((item for item in freq.items() if item[1] > cutoff), key=lambda x: (-x[1], x[0]))
        if not kept:
            raise invalid_argument("Imdb", f"no word of {self.data_file} occurs more than cutoff={cutoff} times; "
                                           "expected the aclImdb archive (aclImdb/train|test/pos|neg/*.txt).",
                                   hint="lower cutoff for a small archive.")
        word_idx = {word: i for i, (word, _) in enumerate(kept)}
        word_idx["<unk>"] = len(kept)
        return word_idx

    def _load_anno(self) -> None:
        unk = self.word_idx["<unk>"]
        self.docs, self.labels = [], []
        for label, kind in ((0, "pos"), (1, "neg")):
            for doc in self._tokenize(re.compile(rf"aclImdb/{self.mode}/{kind}/.*\.txt$")):
                self.docs.append([self.word_idx.get(w, unk) for w in doc])
                self.labels.append(label)

    def __getitem__(self, idx):
        return np.array(self.docs[idx], dtype=np.int64), np.array([self.labels[idx]], dtype=np.int64)

    def __len__(self) -> int:
        return len(self.docs)
