"""VOC2012: the split lists of the real archive layout, Paddle's mode mapping, and clear errors
(decoding the JPEG/PNG images needs Pillow, which minipaddle does not depend on)."""
from __future__ import annotations

import io
import tarfile

import pytest

from minipaddle.framework.errors import InvalidArgument, Unimplemented
from minipaddle.vision.datasets import DatasetFileNotFound, VOC2012


def _voc(tmp_path):
    path = str(tmp_path / "VOCtrainval_11-May-2012.tar")
    root = "VOCdevkit/VOC2012/"
    files = {root + "ImageSets/Segmentation/trainval.txt": b"2007_000032\n2007_000039\n",
             root + "ImageSets/Segmentation/train.txt": b"2007_000032\n",
             root + "ImageSets/Segmentation/val.txt": b"2007_000039\n",
             root + "JPEGImages/2007_000032.jpg": b"jpeg", root + "SegmentationClass/2007_000032.png": b"png"}
    with tarfile.open(path, "w") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def test_voc2012_reads_paddles_split_lists(tmp_path):
    path = _voc(tmp_path)
    train, test, valid = (VOC2012(path, mode=m) for m in ("train", "test", "valid"))
    assert (len(train), len(test), len(valid)) == (2, 1, 1)            # "train" is trainval, as in Paddle
    assert train.data[1] == "VOCdevkit/VOC2012/JPEGImages/2007_000039.jpg"
    assert valid.labels == ["VOCdevkit/VOC2012/SegmentationClass/2007_000039.png"]
    try:
        import PIL  # noqa: F401
    except ImportError:
        with pytest.raises(Unimplemented, match="needs an image decoder"):
            test[0]
    with pytest.raises(InvalidArgument, match="has no VOCdevkit/VOC2012/JPEGImages/2007_000039.jpg"):
        valid[0]


def test_voc2012_errors(tmp_path, monkeypatch):
    monkeypatch.setenv("MINIPADDLE_DATA_HOME", str(tmp_path))
    with pytest.raises(DatasetFileNotFound, match="voc2012/VOCtrainval_11-May-2012.tar was not found"):
        VOC2012()
    with pytest.raises(InvalidArgument, match="mode got 'val'"):
        VOC2012(_voc(tmp_path), mode="val")
