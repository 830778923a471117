"""DatasetFolder / ImageFolder: classes and files in sorted order, extensions and is_valid_file, loaders,
clear errors. Paddle's own answers are in tests/compat/cases_datasets.py."""
from __future__ import annotations

import numpy as np
import pytest

from minipaddle.framework.errors import InvalidArgument, Unimplemented
from minipaddle.vision.datasets import DatasetFolder, ImageFolder


def _tree(tmp_path):
    for name in ("b/2.npy", "a/1.npy", "a/deep/3.npy"):
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        np.save(path, np.full((2, 2), len(name)))
    (tmp_path / "a" / "skip.txt").write_text("not an image")
    return str(tmp_path)


def test_dataset_folder_finds_classes_and_files_in_order(tmp_path):
    root = _tree(tmp_path)
    data = DatasetFolder(root, loader=np.load, extensions=(".npy",))
    assert data.classes == ["a", "b"] and data.targets == [0, 0, 1]
    assert [p[len(root) + 1:] for p, _ in data.samples] == ["a/1.npy", "a/deep/3.npy", "b/2.npy"]
    sample, target = data[2]
    assert target == 1 and sample.tolist() == [[7, 7], [7, 7]]
    only_deep = DatasetFolder(root, loader=np.load, is_valid_file=lambda p: "deep" in p)
    assert len(only_deep) == 1


def test_image_folder_lists_every_file_without_classes(tmp_path):
    root = _tree(tmp_path)
    images = ImageFolder(root, loader=np.load, extensions=[".npy"], transform=lambda a: a + 1)
    assert len(images) == 3 and images[0][0].tolist() == [[8, 8], [8, 8]]


def test_folder_errors_are_clear(tmp_path):
    root = _tree(tmp_path)
    with pytest.raises(InvalidArgument, match="found no valid file in the class subfolders"):
        DatasetFolder(root)                       # no image extensions here
    with pytest.raises(InvalidArgument, match="cannot both be given"):
        DatasetFolder(root, extensions=[".npy"], is_valid_file=lambda p: True)
    with pytest.raises(InvalidArgument, match="is not a folder"):
        ImageFolder(str(tmp_path / "missing"))
    (tmp_path / "a" / "x.png").write_bytes(b"not a real png")
    data = DatasetFolder(root)
    try:
        import PIL  # noqa: F401
    except ImportError:
        with pytest.raises(Unimplemented, match="needs an image decoder.*pass loader="):
            data[0]
