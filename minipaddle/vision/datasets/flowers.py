"""Flowers (Oxford 102 Flowers), after `paddle.vision.datasets.Flowers`: read from the three files Paddle
downloads, at `<data home>/flowers/` or given as arguments:

    102flowers.tgz   the JPEG images (jpg/image_00001.jpg, ...), extracted once beside the archive
                     (102flowers/jpg/, as Paddle does) -- only members named jpg/image_NNNNN.jpg
    imagelabels.mat  "labels": the class (1..102) of each image
    setid.mat        "trnid", "valid", "tstid": the image numbers of each split

As in Paddle, mode "train" reads "tstid" (6 149 images) and "test" reads "trnid" (1 020): Paddle swaps them
so that training gets the larger split. The .mat files are read by `matfile.read_mat` (no scipy). The
JPEG images need a JPEG decoder: Pillow, when it is installed (minipaddle itself does not depend on it);
without it, reading an image raises an error saying so. A sample is (image, label [1] int64): an HxWx3
uint8 array with backend "pil" (the pixels of Paddle's PIL image), float32 with "cv2".
"""
from __future__ import annotations

import io
import os
import re
import tarfile

import numpy as np

from ...framework.errors import invalid_argument, unimplemented
from ...io.dataset import Dataset
from .cifar import check_mode_and_backend, locate
from .matfile import read_mat

__all__ = ["Flowers"]

DATA_URL = "http://paddlemodels.bj.bcebos.com/flowers/102flowers.tgz"
LABEL_URL = "http://paddlemodels.bj.bcebos.com/flowers/imagelabels.mat"
SETID_URL = "http://paddlemodels.bj.bcebos.com/flowers/setid.mat"
MODE_FLAG_MAP = {"train": "tstid", "test": "trnid", "valid": "valid"}
_IMAGE_NAME = re.compile(r"^jpg/image_\d{5}\.jpg$")


def extract_images(data_file: str, folder: str) -> None:
    """Write the archive's jpg/image_NNNNN.jpg members into folder/jpg/, once, in one pass over the archive.

    Only names of exactly that form are written (never a path the archive chooses), so a crafted archive
    cannot write anywhere else."""
    target = os.path.join(folder, "jpg")
    if os.path.isdir(target) and os.listdir(target):
        return
    os.makedirs(target, exist_ok=True)
    try:
        with tarfile.open(data_file) as archive:
            for member in archive:
                name = member.name[2:] if member.name.startswith("./") else member.name
                if member.isfile() and _IMAGE_NAME.match(name):
                    with open(os.path.join(target, os.path.basename(name)), "wb") as out:
                        out.write(archive.extractfile(member).read())
    except (tarfile.TarError, OSError) as e:
        raise invalid_argument("Flowers", f"{data_file} is not a readable tar archive ({e}).") from None


def decode_jpeg(data: bytes, what: str) -> np.ndarray:
    try:
        from PIL import Image
    except ImportError:
        raise unimplemented("Flowers", f"reading {what} needs a JPEG decoder; minipaddle uses Pillow for it when it "
                                       "is installed, and it is not.", hint="pip install pillow") from None
    with Image.open(io.BytesIO(data)) as image:
        return np.asarray(image.convert("RGB") if image.mode not in ("RGB", "L") else image).copy()


class Flowers(Dataset):
    """Oxford 102 Flowers: 8 189 images of 102 kinds of flowers."""

    def __init__(self, data_file: str | None = None, label_file: str | None = None, setid_file: str | None = None,
                 mode: str = "train", transform=None, download: bool = True, backend: str | None = None) -> None:
        name = "Flowers"
        self.mode, self.backend = check_mode_and_backend(name, mode, backend, ("train", "valid", "test"))
        self.data_file = locate(name, data_file, "flowers", "102flowers.tgz", DATA_URL, download, "data_file")
        self.label_file = locate(name, label_file, "flowers", "imagelabels.mat", LABEL_URL, download, "label_file")
        self.setid_file = locate(name, setid_file, "flowers", "setid.mat", SETID_URL, download, "setid_file")
        self.transform = transform
        labels, splits = read_mat(self.label_file), read_mat(self.setid_file)
        flag = MODE_FLAG_MAP[self.mode]
        if "labels" not in labels or flag not in splits:
            raise invalid_argument(name, f"expected 'labels' in {self.label_file} and {flag!r} in {self.setid_file}; "
                                         f"found {sorted(labels)} and {sorted(splits)}.")
        self.labels = labels["labels"].reshape(-1)
        self.indexes = splits[flag].reshape(-1)
        base = self.data_file[:-4] if self.data_file.endswith(".tgz") else self.data_file + "_images"
        self.data_path = base + os.sep
        extract_images(self.data_file, self.data_path)

    def __getitem__(self, idx):
        index = int(self.indexes[idx])
        label = np.array([self.labels[index - 1]])
        path = os.path.join(self.data_path, "jpg", f"image_{index:05}.jpg")
        if not os.path.isfile(path):
            raise invalid_argument("Flowers", f"{path} does not exist: {self.data_file} has no image {index}.")
        with open(path, "rb") as f:
            image = decode_jpeg(f.read(), path)
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == "pil":
            return image, label.astype("int64")
        return np.asarray(image).astype("float32"), label.astype("int64")

    def __len__(self) -> int:
        return len(self.indexes)
