"""Shared pieces for the recorder tests: a small MLP with layer paths, and schema validation."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle import nn


class MLP(nn.Layer):
    def __init__(self, inputs: int = 4, hidden: int = 8, outputs: int = 3) -> None:
        super().__init__()
        self.fc1 = nn.Linear(inputs, hidden)
        self.fc2 = nn.Linear(hidden, outputs)

    def forward(self, x):
        return self.fc2(nn.functional.relu(self.fc1(x)))


@pytest.fixture
def mlp():
    paddle.seed(0)
    return MLP()


@pytest.fixture
def batch():
    rng = np.random.default_rng(0)
    return (paddle.to_tensor(rng.standard_normal((5, 4)).astype("float32")),
            paddle.to_tensor(rng.standard_normal((5, 3)).astype("float32")))


def train_step(model, x, y, lr: float = 0.1):
    """forward, backward, and an SGD update reported the way minipaddle's optimizers report it."""
    from minipaddle.framework import instrument
    diff = model(x) - y
    loss = (diff * diff).mean()
    loss.backward()
    for p in model.parameters():
        before = p.numpy().copy()
        p._data -= lr * p.grad.numpy()
        p._bump_version()
        p.clear_grad()
        if instrument.subscribers:
            instrument.emit(instrument.OptimizerUpdate("SGD", p.name, lr,
                                                       grad_norm=float(np.linalg.norm(before - p.numpy()) / lr),
                                                       update_norm=float(np.linalg.norm(p.numpy() - before))))
    return loss


def validated(trace):
    """The document after checking it against the JSON Schema and its own references."""
    import jsonschema
    from minipaddle.visualizer import dangling_references, load_schema
    doc = trace.to_dict()
    jsonschema.Draft202012Validator(load_schema()).validate(doc)
    assert dangling_references(doc) == []
    assert doc["recording"]["errors"] == []
    return doc
