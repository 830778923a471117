"""Flowers: the MATLAB v5 reader (plain and compressed elements, small elements, column-major data),
the split files, safe extraction of the image archive, and the clear error without a JPEG decoder."""
from __future__ import annotations

import io
import os
import struct
import tarfile
import zlib

import numpy as np
import pytest

from minipaddle.framework.errors import InvalidArgument, Unimplemented
from minipaddle.vision.datasets import DatasetFileNotFound, Flowers
from minipaddle.vision.datasets.matfile import read_mat

MI = {"i1": 1, "u1": 2, "u2": 4, "i4": 5, "u4": 6, "f8": 9}
CLASS = {"f8": 6, "u1": 9, "u2": 11}


def _element(kind: int, payload: bytes) -> bytes:
    if len(payload) <= 4 and kind != 14:       # small element, as MATLAB writes short names and flags
        return struct.pack("<HH", kind, len(payload)) + payload.ljust(4, b"\0")
    return struct.pack("<II", kind, len(payload)) + payload + b"\0" * ((-len(payload)) % 8)


def _matrix(name: str, array: np.ndarray, cls: str, stored: str) -> bytes:
    flags = _element(MI["u4"], struct.pack("<II", CLASS[cls], 0))
    dims = _element(MI["i4"], np.array(array.shape, "<i4").tobytes())
    body = flags + dims + _element(MI["i1"], name.encode()) + \
        _element(MI[stored], np.asarray(array, f"<{stored}").tobytes(order="F"))
    return struct.pack("<II", 14, len(body)) + body


def write_mat(path, variables: dict, compress: bool) -> str:
    header = b"MATLAB 5.0 MAT-file, written by a test".ljust(116, b" ") + b"\0" * 8 + struct.pack("<H", 0x0100) + b"IM"
    data = header
    for name, (array, cls, stored) in variables.items():
        element = _matrix(name, array, cls, stored)
        if compress:
            packed = zlib.compress(element)
            element = struct.pack("<II", 15, len(packed)) + packed
        data += element
    with open(path, "wb") as f:
        f.write(data)
    return str(path)


@pytest.mark.parametrize("compress", [False, True])
def test_read_mat_gives_numeric_matrices_column_major(tmp_path, compress):
    grid = np.arange(6).reshape(2, 3)
    path = write_mat(tmp_path / "m.mat", {"labels": (np.array([[3, 1, 102]]), "u1", "u1"),
                                          "grid": (grid, "f8", "u1"), "ids": (np.array([[1, 300, 2]]), "u2", "u2")},
                     compress)
    got = read_mat(path)
    assert got["labels"].dtype == np.uint8 and got["labels"].tolist() == [[3, 1, 102]]
    assert got["grid"].dtype == np.float64 and got["grid"].tolist() == grid.tolist()   # stored as uint8, class double
    assert got["ids"].tolist() == [[1, 300, 2]]


def test_read_mat_refuses_other_files(tmp_path):
    (tmp_path / "x.mat").write_bytes(b"not a mat file" * 20)
    with pytest.raises(InvalidArgument, match="is not a MATLAB 5.0 .mat file"):
        read_mat(str(tmp_path / "x.mat"))


def _flowers_files(tmp_path):
    labels = write_mat(tmp_path / "imagelabels.mat", {"labels": (np.array([[5, 7, 9, 11]]), "u1", "u1")}, True)
    setid = write_mat(tmp_path / "setid.mat", {"trnid": (np.array([[1]]), "u2", "u2"),
                                               "valid": (np.array([[2]]), "u2", "u2"),
                                               "tstid": (np.array([[4, 3]]), "u2", "u2")}, True)
    data = str(tmp_path / "102flowers.tgz")
    with tarfile.open(data, "w:gz") as tar:
        for name, payload in (("jpg/image_00001.jpg", b"jpeg 1"), ("jpg/image_00003.jpg", b"jpeg 3"),
                              ("jpg/image_00004.jpg", b"jpeg 4"), ("../evil.jpg", b"x"), ("jpg/../../evil2", b"y")):
            info = tarfile.TarInfo(name)
            info.size = len(payload)
            tar.addfile(info, io.BytesIO(payload))
    return data, labels, setid


def test_flowers_splits_labels_and_a_safe_extraction(tmp_path):
    data, labels, setid = _flowers_files(tmp_path)
    train = Flowers(data, labels, setid, mode="train")            # Paddle's "train" is the tstid split
    assert len(train) == 2 and train.indexes.tolist() == [4, 3]
    assert len(Flowers(data, labels, setid, mode="test")) == 1 and len(Flowers(data, labels, setid, mode="valid")) == 1
    assert sorted(os.listdir(tmp_path / "102flowers" / "jpg")) == ["image_00001.jpg", "image_00003.jpg",
                                                                   "image_00004.jpg"]
    assert not (tmp_path / "evil.jpg").exists() and not (tmp_path.parent / "evil2").exists()
    try:
        import PIL  # noqa: F401
    except ImportError:
        with pytest.raises(Unimplemented, match="needs a JPEG decoder.*pillow"):
            train[0]


def test_flowers_decodes_jpegs_with_pillow_when_installed(tmp_path):
    Image = pytest.importorskip("PIL.Image")
    _, labels, setid = _flowers_files(tmp_path)
    picture = np.zeros((4, 6, 3), np.uint8)
    picture[:, :3] = 200
    jpeg = io.BytesIO()
    Image.fromarray(picture).save(jpeg, format="JPEG", quality=95)
    data = str(tmp_path / "real.tgz")
    with tarfile.open(data, "w:gz") as tar:
        info = tarfile.TarInfo("jpg/image_00004.jpg")
        info.size = len(jpeg.getvalue())
        tar.addfile(info, io.BytesIO(jpeg.getvalue()))
    image, label = Flowers(data, labels, setid, backend="cv2")[0]
    assert image.shape == (4, 6, 3) and image.dtype == np.float32 and label.tolist() == [11]


def test_flowers_without_files_says_where_they_go(tmp_path, monkeypatch):
    monkeypatch.setenv("MINIPADDLE_DATA_HOME", str(tmp_path))
    with pytest.raises(DatasetFileNotFound, match="flowers/102flowers.tgz was not found.*102flowers.tgz"):
        Flowers()
