"""DatasetFolder and ImageFolder, after `paddle.vision.datasets`: samples found by walking a folder.

    root/cat/001.png, root/cat/x/002.jpg, root/dog/003.png   ->   DatasetFolder(root):
        classes ['cat', 'dog'], samples [(root/cat/001.png, 0), (root/cat/x/002.jpg, 0), (root/dog/003.png, 1)]

Class folders and files are taken in sorted order (subfolders of a class folder included), as Paddle
does; ImageFolder lists every image file under root without classes. A sample is read by `loader(path)`:
by default Pillow decodes the image into an HxWx3 uint8 array (the pixels of Paddle's PIL image) when
Pillow is installed -- minipaddle does not depend on it; without it, pass your own `loader`.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Sequence

import numpy as np

from ...framework.errors import invalid_argument, unimplemented
from ...io.dataset import Dataset

__all__ = ["DatasetFolder", "ImageFolder", "IMG_EXTENSIONS", "default_loader", "has_valid_extension"]

IMG_EXTENSIONS = (".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp")


def has_valid_extension(filename: str, extensions: Sequence[str]) -> bool:
    if not isinstance(extensions, (list, tuple)):
        raise invalid_argument("has_valid_extension", f"extensions must be a list or tuple, got "
                                                      f"{type(extensions).__name__}.")
    return filename.lower().endswith(tuple(x.lower() for x in extensions))


def default_loader(path: str) -> np.ndarray:
    """The image at `path` as an HxWx3 uint8 array, decoded by Pillow."""
    try:
        from PIL import Image
    except ImportError:
        raise unimplemented("default_loader", f"decoding {path} needs an image decoder; minipaddle uses Pillow when "
                                              "it is installed, and it is not.",
                            hint="pip install pillow, or pass loader= (a function of the path).") from None
    with open(path, "rb") as f, Image.open(f) as image:
        return np.asarray(image.convert("RGB")).copy()


def _valid_file_check(name: str, extensions, is_valid_file) -> Callable[[str], bool]:
    if extensions is not None and is_valid_file is not None:
        raise invalid_argument(name, "extensions and is_valid_file cannot both be given; pass one.")
    if is_valid_file is not None:
        return is_valid_file
    extensions = IMG_EXTENSIONS if extensions is None else extensions
    return lambda path: has_valid_extension(path, extensions)


def _files_under(folder: str, valid: Callable[[str], bool]) -> list[str]:
    found = []
    for root, _, names in sorted(os.walk(folder, followlinks=True)):
        found += [os.path.join(root, n) for n in sorted(names) if valid(os.path.join(root, n))]
    return found


def _check_root(name: str, root: str) -> str:
    path = os.path.expanduser(root)
    if not os.path.isdir(path):
        raise invalid_argument(name, f"root {root!r} is not a folder.")
    return path


class DatasetFolder(Dataset):
    """(sample, class index) for every valid file in root's class subfolders."""

    def __init__(self, root: str, loader: Callable | None = None, extensions: Sequence[str] | None = None,
                 transform=None, is_valid_file: Callable[[str], bool] | None = None) -> None:
        name = type(self).__name__
        self.root = root
        path = _check_root(name, root)
        valid = _valid_file_check(name, extensions, is_valid_file)
        self.classes, self.class_to_idx = self._find_classes(path)
        self.samples = [(f, self.class_to_idx[c]) for c in self.classes for f in _files_under(os.path.join(path, c),
                                                                                               valid)]
        if not self.samples:
            raise invalid_argument(name, f"found no valid file in the class subfolders of {root!r}.",
                                   hint=f"supported extensions: {', '.join(extensions or IMG_EXTENSIONS)}.")
        self.loader = default_loader if loader is None else loader
        self.extensions = IMG_EXTENSIONS if extensions is None and is_valid_file is None else extensions
        self.transform = transform
        self.targets = [target for _, target in self.samples]
        self.dtype = "float32"

    def _find_classes(self, folder: str) -> tuple[list[str], dict[str, int]]:
        classes = sorted(entry.name for entry in os.scandir(folder) if entry.is_dir())
        return classes, {c: i for i, c in enumerate(classes)}

    def __getitem__(self, index):
        path, target = self.samples[index]
        sample = self.loader(path)
        if self.transform is not None:
            sample = self.transform(sample)
        return sample, target

    def __len__(self) -> int:
        return len(self.samples)


class ImageFolder(Dataset):
    """[sample] for every valid file under root (no classes: for prediction)."""

    def __init__(self, root: str, loader: Callable | None = None, extensions: Sequence[str] | None = None,
                 transform=None, is_valid_file: Callable[[str], bool] | None = None) -> None:
        name = type(self).__name__
        self.root = root
        self.samples = _files_under(_check_root(name, root), _valid_file_check(name, extensions, is_valid_file))
        if not self.samples:
            raise invalid_argument(name, f"found no valid file under {root!r}.",
                                   hint=f"supported extensions: {', '.join(extensions or IMG_EXTENSIONS)}.")
        self.loader = default_loader if loader is None else loader
        self.extensions = IMG_EXTENSIONS if extensions is None and is_valid_file is None else extensions
        self.transform = transform

    def __getitem__(self, index):
        sample = self.loader(self.samples[index])
        if self.transform is not None:
            sample = self.transform(sample)
        return [sample]

    def __len__(self) -> int:
        return len(self.samples)
