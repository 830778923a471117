"""MNIST and Fashion-MNIST, after `paddle.vision.datasets`: read from the standard IDX files on disk.

minipaddle never downloads anything at run time. Place the four standard files (gzip or not)
in `<data home>/mnist/` (or `fashion-mnist/`), where the data home is $MINIPADDLE_DATA_HOME or,
as in Paddle, ~/.cache/paddle/dataset, or pass `image_path=` and `label_path=`:

    train-images-idx3-ubyte.gz  train-labels-idx1-ubyte.gz    (mode="train", 60 000 images)
    t10k-images-idx3-ubyte.gz   t10k-labels-idx1-ubyte.gz     (mode="test",  10 000 images)

A sample is `(image, label)`: label is an int64 array of shape [1]; image is a HxW numpy array,
uint8 with backend "pil" (what np.asarray of Paddle's PIL image holds; the default), float32 with
backend "cv2" (Paddle's cv2 backend returns float32 pixel values 0..255, so ToTensor does not
divide those by 255).
"""
from __future__ import annotations

import os

import numpy as np

from ...framework.errors import MinipaddleError, invalid_argument
from ...io.dataset import Dataset
from .idx import read_idx

__all__ = ["MNIST", "FashionMNIST", "DatasetFileNotFound", "data_home"]


class DatasetFileNotFound(MinipaddleError, FileNotFoundError):
    """A dataset's file is not on disk (minipaddle does not download it)."""


def data_home() -> str:
    """Where datasets are looked for: $MINIPADDLE_DATA_HOME, else Paddle's ~/.cache/paddle/dataset."""
    return os.environ.get("MINIPADDLE_DATA_HOME") or os.path.expanduser(os.path.join("~", ".cache", "paddle",
                                                                                     "dataset"))


class MNIST(Dataset):
    """The MNIST handwritten digits (28x28 grey images, labels 0..9)."""

    NAME = "mnist"
    FILES = {"train": ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"),
             "test": ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz")}

    def __init__(self, image_path: str | None = None, label_path: str | None = None, mode: str = "train",
                 transform=None, download: bool = True, backend: str | None = None) -> None:
        name = type(self).__name__
        self.mode = mode.lower() if isinstance(mode, str) else mode
        if self.mode not in self.FILES:
            raise invalid_argument(name, f"mode got {mode!r}, expected 'train' or 'test'.")
        self.backend = "pil" if backend is None else backend
        if self.backend not in ("pil", "cv2"):
            raise invalid_argument(name, f"backend got {backend!r}, expected 'pil', 'cv2' or None.")
        self.transform = transform
        self.dtype = "float32"
        image_file, label_file = self.FILES[self.mode]
        self.image_path = self._locate(image_path, image_file, download)
        self.label_path = self._locate(label_path, label_file, download)
        self.images = self._read(self.image_path, ndim=3, what="images")
        labels = self._read(self.label_path, ndim=1, what="labels")
        if len(labels) != len(self.images):
            raise invalid_argument(name, f"{self.image_path} holds {len(self.images)} images but {self.label_path} "
                                         f"holds {len(labels)} labels; expected one label per image.")
        self.labels = labels.astype(np.int64).reshape(-1, 1)

    def _locate(self, path: str | None, filename: str, download: bool) -> str:
        if path is not None:
            if not os.path.isfile(path):
                raise DatasetFileNotFound(f"NotFound: {type(self).__name__}: {path} does not exist.")
            return path
        folder = os.path.join(data_home(), self.NAME)
        for candidate in (filename, filename[:-3]):   # gzip, or already uncompressed
            if os.path.isfile(os.path.join(folder, candidate)):
                return os.path.join(folder, candidate)
        files = [f for pair in self.FILES.values() for f in pair]
        listing = "\n".join(f"    {os.path.join(folder, f)}" for f in files)
        why = ("minipaddle never downloads data at run time (download=True cannot fetch it)" if download
               else "download=False and no image_path/label_path was given")
        raise DatasetFileNotFound(
            f"NotFound: {type(self).__name__}: {filename} was not found in {folder}; {why}. Place the standard "
            f"{type(self).__name__} files (gzip or uncompressed) at:\n{listing}\nor pass image_path= and "
            "label_path=, or point $MINIPADDLE_DATA_HOME at a folder holding "
            f"{self.NAME}/.")

    def _read(self, path: str, ndim: int, what: str) -> np.ndarray:
        array = read_idx(path)
        if array.ndim != ndim or array.dtype != np.uint8:
            raise invalid_argument(type(self).__name__, f"{path} holds {array.dtype} data of shape "
                                                        f"{list(array.shape)}, expected uint8 {what} with {ndim} "
                                                        "dims.", hint="are image_path and label_path swapped?")
        return array

    def __getitem__(self, idx):
        image, label = self.images[idx], self.labels[idx]
        if self.backend == "cv2":
            image = image.astype(np.float32)
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == "cv2" and isinstance(image, np.ndarray):
            image = image.astype(self.dtype, copy=False)
        return image, label

    def __len__(self) -> int:
        return len(self.labels)


class FashionMNIST(MNIST):
    """Fashion-MNIST (Zalando's 28x28 clothing images, labels 0..9): the same files and format as MNIST."""

    NAME = "fashion-mnist"
