"""Cifar10 / Cifar100 from tiny archives in the real format, and the pickle-free batch reader: Python 2
and 3 pickles of plain data read, anything that would run code refused. Paddle's own answers are in
tests/compat/cases_datasets.py."""
from __future__ import annotations

import io
import os
import pickle
import tarfile

import numpy as np
import pytest

from minipaddle.framework.errors import InvalidArgument
from minipaddle.vision.datasets import Cifar10, Cifar100, DatasetFileNotFound
from minipaddle.vision.datasets.batch_reader import read_pickled_batch

# {b'labels': [1, 2], b'data': uint8 [[0, 1, 2], [3, 4, 5]]} as Python 2's cPickle wrote CIFAR (protocol 2,
# str as SHORT_BINSTRING, numpy.core.multiarray._reconstruct)
PY2_BATCH = (b"\x80\x02}q\x00(U\x06labelsq\x01]q\x02(K\x01K\x02eU\x04dataq\x03cnumpy.core.multiarray\n_reconstruct"
             b"\nq\x04cnumpy\nndarray\nq\x05K\x00\x85U\x01b\x87Rq\x06(K\x01K\x02K\x03\x86cnumpy\ndtype\nq\x07U\x02u1"
             b"K\x00K\x01\x87Rq\x08(K\x03U\x01|NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK\x00tb\x89U\x06\x00\x01\x02\x03"
             b"\x04\x05tbu.")


def test_a_python2_cifar_pickle_is_read_without_unpickling():
    batch = read_pickled_batch(PY2_BATCH)
    assert batch[b"labels"] == [1, 2]
    np.testing.assert_array_equal(batch[b"data"], np.arange(6, dtype=np.uint8).reshape(2, 3))


@pytest.mark.parametrize("protocol", [2, 3, 4])
def test_python3_pickles_of_plain_data_and_arrays_are_read(protocol):
    value = {b"labels": [1, 70000, -3], b"data": np.arange(12, dtype=">i4").reshape(3, 4), "name": "x",
             b"t": (1.5, None, True), b"big": 2 ** 40}
    got = read_pickled_batch(pickle.dumps(value, protocol=protocol))
    assert got[b"labels"] == [1, 70000, -3] and got["name"] == "x" and got[b"t"] == (1.5, None, True)
    assert got[b"big"] == 2 ** 40
    np.testing.assert_array_equal(got[b"data"], value[b"data"])


class RunsCode:
    def __reduce__(self):
        return (os.system, ("echo pwned",))


@pytest.mark.parametrize("value, what", [
    ({b"x": RunsCode()}, "a reference to posix.system"),
    ({b"x": np.array([object()])}, "dtype"),
    ({b"x": {1, 2}}, "opcode"),
])
def test_anything_that_could_run_code_is_refused(value, what):
    with pytest.raises(InvalidArgument, match=f"refused without being unpickled|{what}"):
        read_pickled_batch(pickle.dumps(value, protocol=2))


def test_a_truncated_file_is_refused_clearly():
    with pytest.raises(InvalidArgument, match="truncated"):
        read_pickled_batch(PY2_BATCH[:60])


def _archive(path, top, members):
    with tarfile.open(path, "w:gz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(f"{top}/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return str(path)


def _batch(labels, key=b"labels", seed=1):
    data = ((np.arange(len(labels) * 3072) * seed) % 256).astype(np.uint8).reshape(len(labels), 3072)
    return pickle.dumps({key: labels, b"data": data, b"batch_label": b"b"}, protocol=2), data


def test_cifar10_reads_train_batches_in_order_as_hwc_images(tmp_path):
    b2, d2 = _batch([5, 6], seed=2)
    b1, d1 = _batch([1, 2, 3], seed=1)
    t, _ = _batch([9], seed=3)
    path = _archive(tmp_path / "cifar-10-python.tar.gz", "cifar-10-batches-py",
                    {"data_batch_2": b2, "data_batch_1": b1, "test_batch": t, "readme.html": b"<html>"})
    train = Cifar10(data_file=path, mode="train", backend="cv2")
    assert len(train) == 5 and [int(train[i][1]) for i in range(5)] == [1, 2, 3, 5, 6]
    image, label = train[3]
    assert image.shape == (32, 32, 3) and image.dtype == np.float32 and label.shape == () and label.dtype == np.int64
    np.testing.assert_array_equal(image, d2[0].reshape(3, 32, 32).transpose(1, 2, 0))
    pil = Cifar10(data_file=path, mode="test")          # default backend "pil": uint8 pixels
    assert len(pil) == 1 and pil[0][0].dtype == np.uint8 and int(pil[0][1]) == 9
    scaled = Cifar10(data_file=path, mode="test", backend="cv2", transform=lambda im: im / 255.0)
    assert scaled[0][0].max() <= 1.0


def test_cifar100_uses_fine_labels(tmp_path):
    train, _ = _batch([55, 12], key=b"fine_labels")
    test, _ = _batch([99], key=b"fine_labels")
    path = _archive(tmp_path / "c100.tar.gz", "cifar-100-python", {"train": train, "test": test})
    assert [int(y) for _, y in Cifar100(data_file=path)] == [55, 12]
    assert int(Cifar100(data_file=path, mode="test")[0][1]) == 99


def test_missing_or_wrong_files_say_what_to_do(tmp_path, monkeypatch):
    monkeypatch.setenv("MINIPADDLE_DATA_HOME", str(tmp_path))
    with pytest.raises(DatasetFileNotFound, match=r"cifar-10-python.tar.gz was not found.*"
                                                  r"https://dataset.bj.bcebos.com/cifar/cifar-10-python.tar.gz"):
        Cifar10()
    with pytest.raises(InvalidArgument, match="mode got 'valid'"):
        Cifar10(mode="valid")
    bad = tmp_path / "not.tar.gz"
    bad.write_bytes(b"hello")
    with pytest.raises(InvalidArgument, match="is not a readable tar archive"):
        Cifar10(data_file=str(bad))
    evil = _archive(tmp_path / "evil.tar.gz", "cifar-10-batches-py",
                    {"data_batch_1": pickle.dumps({b"data": RunsCode()}, protocol=2)})
    with pytest.raises(InvalidArgument, match="posix.system"):
        Cifar10(data_file=evil)
