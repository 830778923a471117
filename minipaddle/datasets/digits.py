"""Digits: scikit-learn's 8x8 handwritten digits (1797 images, pixel values 0..16), bundled with minipaddle.

Source: the UCI Machine Learning Repository's "Optical Recognition of Handwritten Digits" data set
(E. Alpaydin, C. Kaynak, 1998; https://archive.ics.uci.edu/dataset/80), licensed CC BY 4.0, in the
form scikit-learn ships it (sklearn/datasets/data/digits.csv.gz: 64 pixel columns then the label).
`digits.npz` beside this file holds it as `images` (1797, 8, 8) uint8, `labels` (1797,) uint8 and a
fixed split made once: for each digit, 20% of its images (seeded shuffle, numpy default_rng(0)) are
the test set, `test_index` (359 images); the rest are `train_index` (1438 images).

    train = minipaddle.datasets.Digits(mode="train")
    image, label = train[0]      # float32 [8, 8] with values 0..16, int64 [1]
"""
from __future__ import annotations

import os

import numpy as np

from ..framework.errors import invalid_argument, precondition_not_met
from ..io.dataset import Dataset

__all__ = ["Digits", "load_digits"]

_PATH = os.path.join(os.path.dirname(__file__), "digits.npz")
_cache: dict[str, np.ndarray] = {}


def load_digits() -> dict[str, np.ndarray]:
    """All the bundled arrays: images, labels, train_index, test_index (read once, then cached)."""
    if not _cache:
        if not os.path.isfile(_PATH):
            raise precondition_not_met("Digits", f"the bundled data file {_PATH} is missing from this install.",
                                       hint="the package was built without its package data (*.npz); reinstall "
                                            "minipaddle from a wheel built with it.")
        with np.load(_PATH) as f:
            _cache.update({k: f[k] for k in f.files})
    return _cache


class Digits(Dataset):
    """The bundled 8x8 digits: samples are (image float32 [8, 8] in 0..16, label int64 [1]).

    Divide by 16 (or use Normalize) to scale pixels to [0, 1].
    """

    def __init__(self, mode: str = "train", transform=None) -> None:
        if mode not in ("train", "test"):
            raise invalid_argument("Digits", f"mode got {mode!r}, expected 'train' or 'test'.")
        data = load_digits()
        index = data[f"{mode}_index"].astype(np.intp)
        self.mode = mode
        self.transform = transform
        self.images = data["images"][index].astype(np.float32)
        self.labels = data["labels"][index].astype(np.int64).reshape(-1, 1)

    def __getitem__(self, idx):
        image = self.images[idx]
        if self.transform is not None:
            image = self.transform(image)
        return image, self.labels[idx]

    def __len__(self) -> int:
        return len(self.labels)
