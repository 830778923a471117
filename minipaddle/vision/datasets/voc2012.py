"""VOC2012 segmentation, after `paddle.vision.datasets.VOC2012`: read from `VOCtrainval_11-May-2012.tar` (as
Paddle downloads it from https://dataset.bj.bcebos.com/voc/VOCtrainval_11-May-2012.tar) at
`<data home>/voc2012/` or `data_file=`, member by member.

The split lists are VOCdevkit/VOC2012/ImageSets/Segmentation/{trainval,train,val}.txt; as in Paddle, mode
"train" reads trainval, "test" reads train and "valid" reads val. A sample is (image, label): the JPEG
photo and the PNG class map, decoded by Pillow when it is installed (minipaddle does not depend on it) --
uint8 arrays with backend "pil" (the pixels of Paddle's PIL images), float32 with "cv2".
"""
from __future__ import annotations

import io
import os
import tarfile

import numpy as np

from ...framework.errors import invalid_argument, unimplemented
from ...io.dataset import Dataset
from .cifar import check_mode_and_backend, locate

__all__ = ["VOC2012"]

VOC_URL = "https://dataset.bj.bcebos.com/voc/VOCtrainval_11-May-2012.tar"
SET_FILE = "VOCdevkit/VOC2012/ImageSets/Segmentation/{}.txt"
DATA_FILE = "VOCdevkit/VOC2012/JPEGImages/{}.jpg"
LABEL_FILE = "VOCdevkit/VOC2012/SegmentationClass/{}.png"
MODE_FLAG_MAP = {"train": "trainval", "test": "train", "valid": "val"}


def _decode(data: bytes, what: str) -> np.ndarray:
    try:
        from PIL import Image
    except ImportError:
        raise unimplemented("VOC2012", f"reading {what} needs an image decoder; minipaddle uses Pillow when it is "
                                       "installed, and it is not.", hint="pip install pillow") from None
    with Image.open(io.BytesIO(data)) as image:
        return np.asarray(image).copy()          # a palette PNG gives its class indices, as np.array(PIL) does


class VOC2012(Dataset):
    """PASCAL VOC 2012 semantic segmentation: photos and per-pixel class maps (21 classes, 255 = border)."""

    def __init__(self, data_file: str | None = None, mode: str = "train", transform=None, download: bool = True,
                 backend: str | None = None) -> None:
        name = "VOC2012"
        self.mode, self.backend = check_mode_and_backend(name, mode, backend, ("train", "valid", "test"))
        self.flag = MODE_FLAG_MAP[self.mode]
        self.data_file = locate(name, data_file, "voc2012", os.path.basename(VOC_URL), VOC_URL, download,
                                "data_file")
        self.transform = transform
        self.dtype = "float32"
        self._archive, self._pid = None, None
        members = self._members()
        set_file = SET_FILE.format(self.flag)
        if set_file not in members:
            raise invalid_argument(name, f"{self.data_file} has no {set_file}; expected the VOC2012 trainval archive.")
        lines = self._archive.extractfile(members[set_file]).read().decode("utf-8").split()
        self.data = [DATA_FILE.format(n) for n in lines]
        self.labels = [LABEL_FILE.format(n) for n in lines]

    def _members(self) -> dict:
        """The archive's members by name; the archive is reopened in each process (DataLoader workers)."""
        if self._archive is None or self._pid != os.getpid():
            try:
                self._archive = tarfile.open(self.data_file)
            except (tarfile.TarError, OSError) as e:
                raise invalid_argument("VOC2012", f"{self.data_file} is not a readable tar archive ({e}).") from None
            self._pid = os.getpid()
            self._by_name = {m.name: m for m in self._archive.getmembers()}
        return self._by_name

    def _read(self, name: str) -> bytes:
        member = self._members().get(name)
        if member is None:
            raise invalid_argument("VOC2012", f"{self.data_file} has no {name}.")
        return self._archive.extractfile(member).read()

    def __getitem__(self, idx):
        data = _decode(self._read(self.data[idx]), self.data[idx])
        label = _decode(self._read(self.labels[idx]), self.labels[idx])
        if self.transform is not None:
            data = self.transform(data)
        if self.backend == "cv2":
            return np.asarray(data).astype(self.dtype), label.astype(self.dtype)
        return data, label

    def __len__(self) -> int:
        return len(self.data)

    def __getstate__(self):           # a DataLoader worker started by spawn reopens the archive itself
        state = dict(self.__dict__)
        state["_archive"], state["_pid"] = None, None
        return state
