"""WMT14 (a French-English subset), after `paddle.text.datasets.WMT14`: read from `wmt14.tgz` (as Paddle
downloads it from http://paddlemodels.bj.bcebos.com/wmt/wmt14.tgz) at `<data home>/wmt14/wmt14.tgz` or
`data_file=`, member by member in memory.

The archive holds the dictionaries `src.dict` and `trg.dict` (one word per line; the first `dict_size`
lines are kept, the line number is the id) and tab-separated sentence pairs under train/train,
test/test and gen/gen. A sample is (source ids with <s> and <e>, target ids starting with <s>, target
ids ending with <e>); words outside the dictionary are <unk> (id 2), and pairs with a side longer than
80 ids are skipped, as in Paddle.
"""
from __future__ import annotations

import tarfile

import numpy as np

from ...framework.errors import invalid_argument
from ...io.dataset import Dataset
from ...vision.datasets.cifar import check_mode_and_backend, locate

__all__ = ["WMT14"]

URL = "http://paddlemodels.bj.bcebos.com/wmt/wmt14.tgz"
START, END, UNK = "<s>", "<e>", "<unk>"
UNK_IDX = 2


def _to_dict(lines: list[bytes], size: int) -> dict[str, int]:
    return {line.strip().decode(): i for i, line in enumerate(lines[:size])}


class WMT14(Dataset):
    """Sentence pairs for translation, as word ids."""

    def __init__(self, data_file: str | None = None, mode: str = "train", dict_size: int = -1,
                 download: bool = True) -> None:
        name = "WMT14"
        self.mode, _ = check_mode_and_backend(name, mode, None, ("train", "test", "gen"))
        self.data_file = locate(name, data_file, "wmt14", "wmt14.tgz", URL, download, "data_file")
        if isinstance(dict_size, bool) or not isinstance(dict_size, int) or dict_size <= 0:
            raise invalid_argument(name, f"dict_size must be a positive int (how many words of each dictionary to "
                                         f"keep), got {dict_size!r}.")
        self.dict_size = dict_size
        self._load_data()

    def _load_data(self) -> None:
        name = "WMT14"
        try:
            with tarfile.open(self.data_file, mode="r") as archive:
                members = [m for m in archive.getmembers() if m.isfile()]
                read = lambda m: archive.extractfile(m).read().splitlines()  # noqa: E731
                dicts = {}
                for suffix in ("src.dict", "trg.dict"):
                    found = [m for m in members if m.name.endswith(suffix)]
                    if len(found) != 1:
                        raise invalid_argument(name, f"{self.data_file} holds {len(found)} files ending in {suffix}, "
                                                     "expected exactly one.")
                    dicts[suffix] = _to_dict(read(found[0]), self.dict_size)
                self.src_dict, self.trg_dict = dicts["src.dict"], dicts["trg.dict"]
                pairs = [line for m in members if m.name.endswith(f"{self.mode}/{self.mode}") for line in read(m)]
        except (tarfile.TarError, OSError) as e:
            raise invalid_argument(name, f"{self.data_file} is not a readable tar archive ({e}).") from None
        self.src_ids, self.trg_ids, self.trg_ids_next = [], [], []
        for line in pairs:
            parts = line.decode().strip().split("\t")
            if len(parts) != 2:
                continue
            src = [self.src_dict.get(w, UNK_IDX) for w in [START, *parts[0].split(), END]]
            trg = [self.trg_dict.get(w, UNK_IDX) for w in parts[1].split()]
            if len(src) > 80 or len(trg) > 80:
                continue
            self.src_ids.append(src)
            self.trg_ids.append([self.trg_dict[START], *trg])
            self.trg_ids_next.append([*trg, self.trg_dict[END]])

    def __getitem__(self, idx):
        return np.array(self.src_ids[idx]), np.array(self.trg_ids[idx]), np.array(self.trg_ids_next[idx])

    def __len__(self) -> int:
        return len(self.src_ids)

    def get_dict(self, reverse: bool = False):
        """(source dictionary, target dictionary): word -> id, or id -> word with reverse=True."""
        if reverse:
            return {v: k for k, v in self.src_dict.items()}, {v: k for k, v in self.trg_dict.items()}
        return self.src_dict, self.trg_dict
