"""MNIST / FashionMNIST from tiny IDX files: round trips (gzip and raw), backends, and every error."""
from __future__ import annotations

import gzip

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument
from minipaddle.io import DataLoader
from minipaddle.vision import transforms as T
from minipaddle.vision.datasets import MNIST, DatasetFileNotFound, FashionMNIST, read_idx, write_idx


@pytest.fixture
def tiny(tmp_path):
    """Five 28x28 images and their labels, written as the standard gzip IDX files."""
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, (5, 28, 28), dtype=np.uint8)
    labels = np.array([3, 1, 4, 1, 5], np.uint8)
    image_path, label_path = tmp_path / "imgs-idx3-ubyte.gz", tmp_path / "lbls-idx1-ubyte.gz"
    write_idx(image_path, images)
    write_idx(label_path, labels)
    return images, labels, str(image_path), str(label_path)


def test_idx_header_is_the_standard_one(tmp_path):
    write_idx(tmp_path / "a", np.zeros((2, 3, 4), np.uint8))
    raw = (tmp_path / "a").read_bytes()
    assert raw[:4] == bytes.fromhex("00000803") and raw[4:8] == (2).to_bytes(4, "big") and len(raw) == 16 + 24


@pytest.mark.parametrize("name", ["x.gz", "x"])
@pytest.mark.parametrize("dtype", ["uint8", "int16", "int32", "float32", "float64"])
def test_idx_round_trip(tmp_path, name, dtype):
    a = (np.arange(24).reshape(2, 3, 4) - 5).astype(dtype) if dtype != "uint8" else np.arange(24, dtype=np.uint8)
    write_idx(tmp_path / name, a)
    back = read_idx(tmp_path / name)
    assert back.dtype == a.dtype and back.shape == a.shape
    np.testing.assert_array_equal(back, a)


def test_mnist_samples_pil_backend_uint8_image_int64_label(tiny):
    images, labels, image_path, label_path = tiny
    ds = MNIST(image_path=image_path, label_path=label_path, mode="train")
    assert len(ds) == 5
    img, label = ds[2]
    assert img.shape == (28, 28) and img.dtype == np.uint8
    np.testing.assert_array_equal(img, images[2])
    assert label.shape == (1,) and label.dtype == np.int64 and label[0] == 4


def test_mnist_cv2_backend_gives_float32_pixel_values(tiny):
    images, _, image_path, label_path = tiny
    img, _ = MNIST(image_path=image_path, label_path=label_path, backend="cv2")[0]
    assert img.dtype == np.float32
    np.testing.assert_array_equal(img, images[0].astype(np.float32))


def test_mnist_with_transform_through_a_dataloader(tiny):
    images, labels, image_path, label_path = tiny
    ds = MNIST(image_path=image_path, label_path=label_path,
               transform=T.Compose([T.ToTensor(), T.Normalize(mean=[0.5], std=[0.5])]))
    x, y = next(iter(DataLoader(ds, batch_size=4)))
    assert x.shape == [4, 1, 28, 28] and x.dtype == paddle.float32 and y.shape == [4, 1]
    np.testing.assert_allclose(x.numpy()[1, 0], images[1] / 255.0 * 2 - 1, atol=1e-6)
    assert y.numpy().ravel().tolist() == labels[:4].tolist()


def test_default_location_gzip_or_raw_and_fashion_folder(tmp_path, monkeypatch, tiny):
    images, labels, _, _ = tiny
    monkeypatch.setenv("MINIPADDLE_DATA_HOME", str(tmp_path / "home"))
    (tmp_path / "home" / "fashion-mnist").mkdir(parents=True)
    write_idx(tmp_path / "home" / "fashion-mnist" / "t10k-images-idx3-ubyte", images)       # uncompressed
    write_idx(tmp_path / "home" / "fashion-mnist" / "t10k-labels-idx1-ubyte.gz", labels)    # gzip
    ds = FashionMNIST(mode="test")
    assert len(ds) == 5 and ds[4][1][0] == 5


def test_missing_files_say_where_to_put_them_and_that_nothing_is_downloaded(tmp_path, monkeypatch):
    monkeypatch.setenv("MINIPADDLE_DATA_HOME", str(tmp_path))
    with pytest.raises(DatasetFileNotFound) as info:
        MNIST(mode="train")
    text = str(info.value)
    assert "never downloads data at run time" in text
    for name in ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz", "t10k-images-idx3-ubyte.gz",
                 "t10k-labels-idx1-ubyte.gz"):
        assert str(tmp_path / "mnist" / name) in text
    assert isinstance(info.value, FileNotFoundError)
    with pytest.raises(DatasetFileNotFound, match="download=False"):
        MNIST(mode="test", download=False)
    with pytest.raises(DatasetFileNotFound, match="nowhere.gz does not exist"):
        MNIST(image_path=str(tmp_path / "nowhere.gz"), label_path=str(tmp_path / "nowhere.gz"))


def test_bad_magic_number(tmp_path, tiny):
    _, _, _, label_path = tiny
    bad = tmp_path / "bad"
    bad.write_bytes(b"PK\x03\x04 not an idx file")
    with pytest.raises(InvalidArgument, match="does not start with an IDX magic number: got 0x504b0304"):
        MNIST(image_path=str(bad), label_path=label_path)


def test_truncated_raw_file_reports_the_size_mismatch(tmp_path, tiny):
    images, _, _, label_path = tiny
    write_idx(tmp_path / "full", images)
    data = (tmp_path / "full").read_bytes()
    (tmp_path / "short").write_bytes(data[:-100])
    with pytest.raises(InvalidArgument, match=r"has 3836 bytes, but its header \(dims \[5, 28, 28\], uint8\) needs "
                                              r"exactly 3936: the file is truncated"):
        MNIST(image_path=str(tmp_path / "short"), label_path=label_path)


def test_truncated_gzip_file(tmp_path, tiny):
    _, _, image_path, label_path = tiny
    with open(image_path, "rb") as f:
        data = f.read()
    (tmp_path / "cut.gz").write_bytes(data[: len(data) // 2])
    with pytest.raises(InvalidArgument, match="gzip-compressed but cannot be decompressed"):
        MNIST(image_path=str(tmp_path / "cut.gz"), label_path=label_path)


def test_swapped_paths_and_count_mismatch(tmp_path, tiny):
    images, labels, image_path, label_path = tiny
    with pytest.raises(InvalidArgument, match="expected uint8 images with 3 dims.*swapped"):
        MNIST(image_path=label_path, label_path=image_path)
    with gzip.open(tmp_path / "four.gz", "wb") as f:
        f.write(bytes([0, 0, 8, 1]) + (4).to_bytes(4, "big") + bytes(4))
    with pytest.raises(InvalidArgument, match="holds 5 images but .* holds 4 labels"):
        MNIST(image_path=image_path, label_path=str(tmp_path / "four.gz"))


def test_bad_mode_and_backend(tiny):
    _, _, image_path, label_path = tiny
    with pytest.raises(InvalidArgument, match="mode got 'valid'"):
        MNIST(image_path=image_path, label_path=label_path, mode="valid")
    with pytest.raises(InvalidArgument, match="backend got 'skimage'"):
        MNIST(image_path=image_path, label_path=label_path, backend="skimage")


def test_write_idx_rejects_unsupported_dtypes(tmp_path):
    with pytest.raises(InvalidArgument, match="dtype int64 has no IDX type code"):
        write_idx(tmp_path / "x", np.zeros(2, np.int64))


def test_beginner_pipeline_normalize_then_conv2d_gets_n_1_28_28(tiny):
    """Paddle's first MNIST example: Normalize(data_format='CHW') on MNIST, batches straight into conv2d."""
    _, _, image_path, label_path = tiny
    transform = T.Normalize(mean=[127.5], std=[127.5], data_format="CHW")
    ds = MNIST(image_path=image_path, label_path=label_path, mode="train", transform=transform)
    assert ds[0][0].shape == (1, 28, 28) and ds[0][0].dtype == np.float32
    images, labels = next(iter(DataLoader(ds, batch_size=4)))
    assert images.shape == [4, 1, 28, 28] and labels.shape == [4, 1]
    out = paddle.nn.Conv2D(1, 6, 5)(images)
    assert out.shape == [4, 6, 24, 24]
