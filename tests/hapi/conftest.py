"""Small synthetic problems and networks shared by the hapi tests."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle


def blobs(n: int = 128, seed: int = 0):
    """Two-class points: the label is whether x0 + x1 > 0 (linearly separable)."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 4)).astype("float32")
    y = (x[:, :1] + x[:, 1:2] > 0).astype("int64")
    return x, y


def blob_dataset(n: int = 128, seed: int = 0) -> paddle.io.TensorDataset:
    x, y = blobs(n, seed)
    return paddle.io.TensorDataset([paddle.to_tensor(x), paddle.to_tensor(y)])


def mlp() -> paddle.nn.Layer:
    return paddle.nn.Sequential(paddle.nn.Linear(4, 16), paddle.nn.ReLU(), paddle.nn.Linear(16, 2))


def prepared_model(lr: float = 0.01, metrics=None):
    paddle.seed(0)
    model = paddle.Model(mlp())
    model.prepare(paddle.optimizer.Adam(learning_rate=lr, parameters=model.parameters()),
                  paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy() if metrics is None else metrics)
    return model


@pytest.fixture
def dataset():
    return blob_dataset()
