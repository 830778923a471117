"""minipaddle.datasets: the bundled Digits (shapes, labels, the fixed split) and the synthetic 2-D sets."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.datasets import Blobs, Digits, Moons, Spirals, load_digits, make_blobs, make_moons, make_spirals
from minipaddle.framework.errors import InvalidArgument
from minipaddle.io import DataLoader


def test_digits_shapes_values_and_split():
    train, test = Digits("train"), Digits("test")
    assert len(train) == 1438 and len(test) == 359 and len(train) + len(test) == 1797
    image, label = train[0]
    assert image.shape == (8, 8) and image.dtype == np.float32
    assert label.shape == (1,) and label.dtype == np.int64
    assert train.images.min() == 0 and train.images.max() == 16
    data = load_digits()
    assert not set(data["train_index"].tolist()) & set(data["test_index"].tolist())
    # every digit appears in both splits in about the same proportion (the split is per digit)
    counts = np.bincount(test.labels.ravel(), minlength=10)
    assert counts.min() >= 34 and counts.max() <= 37


def test_digits_first_image_is_scikit_learns_zero():
    data = load_digits()
    assert data["labels"][0] == 0
    assert data["images"][0, 0].tolist() == [0, 0, 5, 13, 9, 1, 0, 0]   # digits.csv.gz's first row


def test_digits_split_is_fixed_and_transform_applies():
    a, b = Digits("test"), Digits("test", transform=lambda img: img / 16.0)
    np.testing.assert_array_equal(a.labels, b.labels)
    assert b[0][0].max() <= 1.0
    with pytest.raises(InvalidArgument, match="mode got 'val'"):
        Digits("val")


def test_digits_through_a_dataloader():
    x, y = next(iter(DataLoader(Digits("train"), batch_size=32, shuffle=True)))
    assert x.shape == [32, 8, 8] and y.shape == [32, 1] and y.dtype == paddle.int64


def test_make_moons_shapes_balance_and_seed():
    X, y = make_moons(101, noise=0.0, seed=0)
    assert X.shape == (101, 2) and X.dtype == np.float32 and y.dtype == np.int64
    assert np.bincount(y).tolist() == [50, 51]
    outer = X[y == 0]
    np.testing.assert_allclose(np.hypot(outer[:, 0], outer[:, 1]), 1.0, rtol=1e-6)   # the upper unit half circle
    assert np.all(outer[:, 1] >= -1e-7)
    X2, y2 = make_moons(101, noise=0.0, seed=0)
    np.testing.assert_array_equal(X, X2)
    Xn, _ = make_moons(101, noise=0.2, seed=1)
    assert not np.allclose(np.sort(Xn[:, 0]), np.sort(X[:, 0]))


def test_make_spirals_classes_and_radius():
    X, y = make_spirals(301, n_classes=3, noise=0.0, seed=0)
    assert X.shape == (301, 2) and np.bincount(y).tolist() == [101, 100, 100]
    assert np.hypot(X[:, 0], X[:, 1]).max() <= 1.0 + 1e-6
    with pytest.raises(InvalidArgument, match="n_classes got 0"):
        make_spirals(10, n_classes=0)


def test_make_blobs_centers_and_spread():
    X, y = make_blobs(3000, centers=[[0, 0], [10, 10]], std=0.5, seed=0)
    assert np.bincount(y).tolist() == [1500, 1500]
    np.testing.assert_allclose(X[y == 1].mean(0), [10, 10], atol=0.05)
    np.testing.assert_allclose(X[y == 0].std(0), [0.5, 0.5], atol=0.03)
    X3, y3 = make_blobs(30, centers=4, seed=1, n_features=3)
    assert X3.shape == (30, 3) and set(y3.tolist()) == {0, 1, 2, 3}


def test_synthetic_argument_errors():
    with pytest.raises(InvalidArgument, match="n_samples got 0"):
        make_moons(0)
    with pytest.raises(InvalidArgument, match="noise got -1"):
        make_moons(10, noise=-1)
    with pytest.raises(InvalidArgument, match="centers has shape \\[3\\]"):
        make_blobs(10, centers=[1, 2, 3])


@pytest.mark.parametrize("cls", [Moons, Spirals, Blobs])
def test_dataset_wrappers_serve_the_arrays(cls):
    ds = cls()
    x, y = ds[0]
    assert x.shape == (2,) and x.dtype == np.float32 and y.shape == (1,) and y.dtype == np.int64
    xb, yb = next(iter(DataLoader(ds, batch_size=8)))
    assert xb.shape == [8, 2] and yb.shape == [8, 1]


def test_a_missing_data_file_is_reported_clearly(monkeypatch, tmp_path):
    from minipaddle.datasets import digits
    from minipaddle.framework.errors import PreconditionNotMet
    monkeypatch.setattr(digits, "_PATH", str(tmp_path / "digits.npz"))
    monkeypatch.setattr(digits, "_cache", {})
    with pytest.raises(PreconditionNotMet, match="digits.npz is missing from this install"):
        Digits("train")
