"""Cifar10 and Cifar100, after `paddle.vision.datasets`: read from the python-version archives on disk.

minipaddle never downloads anything. Place the archive Paddle downloads (or pass `data_file=`):

    <data home>/cifar/cifar-10-python.tar.gz      (from https://dataset.bj.bcebos.com/cifar/)
    <data home>/cifar/cifar-100-python.tar.gz

where the data home is $MINIPADDLE_DATA_HOME or, as in Paddle, ~/.cache/paddle/dataset. The batches
inside are pickles; they are read by `batch_reader.read_pickled_batch`, which understands only plain
data and numeric arrays and never unpickles (a pickle can run code). The archive is read member by
member in memory; nothing is extracted to disk.

A sample is `(image, label)`: image is a 32x32x3 (HWC) array -- uint8 with backend "pil" (the pixels
of Paddle's PIL image), float32 with backend "cv2", as Paddle returns it -- and label a 0-D int64 array.
"""
from __future__ import annotations

import os
import tarfile

import numpy as np

from ...framework.errors import invalid_argument
from ...io.dataset import Dataset
from .batch_reader import read_pickled_batch
from .mnist import DatasetFileNotFound, data_home

__all__ = ["Cifar10", "Cifar100"]

URL_PREFIX = "https://dataset.bj.bcebos.com/cifar/"
# which archive members a mode reads: Paddle's MODE_FLAG_MAP (a substring of the member's name)
MODE_FLAG_MAP = {"train10": "data_batch", "test10": "test_batch", "train100": "train", "test100": "test"}


def check_mode_and_backend(name: str, mode, backend, modes=("train", "test")) -> tuple[str, str]:
    mode = mode.lower() if isinstance(mode, str) else mode
    if mode not in modes:
        raise invalid_argument(name, f"mode got {mode!r}, expected one of {list(modes)}.")
    backend = "pil" if backend is None else backend
    if backend not in ("pil", "cv2"):
        raise invalid_argument(name, f"backend got {backend!r}, expected 'pil', 'cv2' or None.")
    return mode, backend


def locate(name: str, path: str | None, folder: str, filename: str, url: str, download: bool, arg: str) -> str:
    """`path` if given (it must exist), else <data home>/<folder>/<filename>; a clear error otherwise."""
    if path:
        if not os.path.isfile(path):
            raise DatasetFileNotFound(f"NotFound: {name}: {path} does not exist.")
        return path
    candidate = os.path.join(data_home(), folder, filename)
    if os.path.isfile(candidate):
        return candidate
    why = ("minipaddle never downloads data at run time (download=True cannot fetch it)" if download
           else f"download=False and no {arg}= was given")
    raise DatasetFileNotFound(
        f"NotFound: {name}: {candidate} was not found; {why}. Download {url} (what Paddle fetches) and place it "
        f"there, or pass {arg}=, or point $MINIPADDLE_DATA_HOME at a folder holding {folder}/.")


class Cifar10(Dataset):
    """CIFAR-10: 60 000 32x32 colour images in 10 classes (50 000 train, 10 000 test)."""

    ARCHIVE = "cifar-10-python.tar.gz"
    CLASSES = "10"
    LABEL_KEYS = (b"labels", b"fine_labels")

    def __init__(self, data_file: str | None = None, mode: str = "train", transform=None, download: bool = True,
                 backend: str | None = None) -> None:
        name = type(self).__name__
        self.mode, self.backend = check_mode_and_backend(name, mode, backend)
        self.flag = MODE_FLAG_MAP[self.mode + self.CLASSES]
        self.data_file = locate(name, data_file, "cifar", self.ARCHIVE, URL_PREFIX + self.ARCHIVE, download,
                                "data_file")
        self.transform = transform
        self.dtype = "float32"
        self.images, self.labels = self._load()

    def _load(self) -> tuple[np.ndarray, np.ndarray]:
        name = type(self).__name__
        try:
            archive = tarfile.open(self.data_file, mode="r")
        except (tarfile.TarError, OSError) as e:
            raise invalid_argument(name, f"{self.data_file} is not a readable tar archive ({e}).") from None
        images, labels = [], []
        with archive:
            members = sorted((m for m in archive.getmembers() if m.isfile() and self.flag in m.name),
                             key=lambda m: m.name)
            for member in members:
                batch = read_pickled_batch(archive.extractfile(member).read(), what=f"{self.data_file}:{member.name}")
                data, batch_labels = self._fields(batch, member.name)
                images.append(data)
                labels.append(batch_labels)
        if not images:
            raise invalid_argument(name, f"{self.data_file} holds no member whose name contains {self.flag!r}; "
                                         f"expected the {name} python-version archive.")
        return np.concatenate(images), np.concatenate(labels)

    def _fields(self, batch, member: str) -> tuple[np.ndarray, np.ndarray]:
        name = type(self).__name__
        if not isinstance(batch, dict) or b"data" not in batch:
            raise invalid_argument(name, f"{member} is not a CIFAR batch (a dict with b'data').")
        labels = next((batch[k] for k in self.LABEL_KEYS if k in batch), None)
        data = batch[b"data"]
        if labels is None or not isinstance(data, np.ndarray) or data.ndim != 2 or data.shape[1] != 3072:
            raise invalid_argument(name, f"{member} does not hold CIFAR data ([N, 3072] pixels and N labels).")
        labels = np.asarray(labels, dtype=np.int64)
        if len(labels) != len(data):
            raise invalid_argument(name, f"{member} holds {len(data)} images but {len(labels)} labels.")
        return data.astype(np.uint8, copy=False), labels

    def __getitem__(self, idx):
        image = self.images[idx].reshape(3, 32, 32).transpose(1, 2, 0)      # CHW planes -> HWC
        label = np.array(self.labels[idx]).astype("int64")
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == "pil":
            return image, label
        return np.asarray(image).astype(self.dtype), label

    def __len__(self) -> int:
        return len(self.labels)


class Cifar100(Cifar10):
    """CIFAR-100: the same images in 100 fine classes (the label is `fine_labels`)."""

    ARCHIVE = "cifar-100-python.tar.gz"
    CLASSES = "100"
