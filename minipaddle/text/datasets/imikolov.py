"""Imikolov (the Penn Treebank language-modelling text), after `paddle.text.datasets.Imikolov`: read from
`simple-examples.tgz` (as Paddle downloads it from https://dataset.bj.bcebos.com/imikolov%2Fsimple-examples.tgz)
at `<data home>/imikolov/simple-examples.tgz` or `data_file=`, member by member in memory.

As Paddle: the dictionary counts the words of ptb.train.txt and ptb.valid.txt plus a '<s>' and an '<e>'
per line, keeps those seen more than `min_word_freq` times, most frequent first, and adds '<unk>' last
(the words are bytes, the three markers str, as in Paddle). data_type "NGRAM" gives every window of
`window_size` ids of '<s>' line '<e>'; "SEQ" gives (['<s>'] + line, line + ['<e>']) id pairs, skipping
lines longer than window_size when it is positive. Mode "test" reads ptb.test.txt.
"""
from __future__ import annotations

import collections
import tarfile

import numpy as np

from ...framework.errors import invalid_argument
from ...io.dataset import Dataset
from ...vision.datasets.cifar import check_mode_and_backend, locate

__all__ = ["Imikolov"]

URL = "https://dataset.bj.bcebos.com/imikolov%2Fsimple-examples.tgz"
_DATA = "./simple-examples/data/ptb.{}.txt"


class Imikolov(Dataset):
    """Penn Treebank sentences as n-grams or (source, target) sequences of word ids."""

    def __init__(self, data_file: str | None = None, data_type: str = "NGRAM", window_size: int = -1,
                 mode: str = "train", min_word_freq: int = 50, download: bool = True) -> None:
        name = "Imikolov"
        if not isinstance(data_type, str) or data_type.upper() not in ("NGRAM", "SEQ"):
            raise invalid_argument(name, f"data_type got {data_type!r}, expected 'NGRAM' or 'SEQ'.")
        self.data_type = data_type.upper()
        self.mode, _ = check_mode_and_backend(name, mode, None)
        if self.data_type == "NGRAM" and window_size < 1:
            raise invalid_argument(name, f"data_type 'NGRAM' needs window_size >= 1 (the n of the n-grams), got "
                                         f"{window_size}.")
        self.window_size, self.min_word_freq = window_size, min_word_freq
        self.data_file = locate(name, data_file, "imikolov", "simple-examples.tgz", URL, download, "data_file")
        self.word_idx = self._build_word_dict()
        self._load_anno()

    def _lines(self, split: str) -> list[bytes]:
        member = _DATA.format(split)
        try:
            with tarfile.open(self.data_file) as archive:
                names = {m.name: m for m in archive.getmembers()}
                found = names.get(member) or names.get(member[2:])
                if found is None:
                    raise invalid_argument("Imikolov", f"{self.data_file} has no {member[2:]}; expected the "
                                                       "simple-examples archive.")
                return archive.extractfile(found).read().splitlines()
        except (tarfile.TarError, OSError) as e:
            raise invalid_argument("Imikolov", f"{self.data_file} is not a readable tar archive ({e}).") from None

    def _build_word_dict(self) -> dict:
        freq: dict = collections.defaultdict(int)
        for split in ("train", "valid"):
            for line in self._lines(split):
                for word in line.strip().split():
                    freq[word] += 1
                freq["<s>"] += 1
                freq["<e>"] += 1
        freq.pop(b"<unk>", None)
        freq.pop("<unk>", None)
        kept = [item for item in freq.items() if item[1] > self.min_word_freq]
        # most frequent first, ties by spelling (str markers compared as bytes: Paddle fails on such a tie)
        kept.sort(key=lambda x: (-x[1], x[0] if isinstance(x[0], bytes) else x[0].encode()))
        word_idx = {word: i for i, (word, _) in enumerate(kept)}
        word_idx["<unk>"] = len(kept)
        return word_idx

    def _load_anno(self) -> None:
        unk = self.word_idx["<unk>"]
        self.data = []
        for line in self._lines(self.mode):
            if self.data_type == "NGRAM":
                words = ["<s>", *line.strip().split(), "<e>"]
                if len(words) >= self.window_size:
                    ids = [self.word_idx.get(w, unk) for w in words]
                    self.data += [tuple(ids[i - self.window_size:i]) for i in range(self.window_size, len(ids) + 1)]
            else:
                ids = [self.word_idx.get(w, unk) for w in line.strip().split()]
                source, target = [self.word_idx.get("<s>", unk), *ids], [*ids, self.word_idx.get("<e>", unk)]
                if self.window_size > 0 and len(source) > self.window_size:
                    continue
                self.data.append((source, target))

    def __getitem__(self, idx):
        return tuple(np.array(d) for d in self.data[idx])

    def __len__(self) -> int:
        return len(self.data)
