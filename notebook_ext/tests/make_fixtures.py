"""Writes the trace documents the extension's unit tests read.

Run: .venv/bin/python notebook_ext/tests/make_fixtures.py

mlp.json: tutorial 03's training step (MLP 4 -> 8 -> 3, SGD, values kept);
blocks.json: four residual blocks of the same structure (folded into "Block x4" in the layers view);
train.json: five training iterations of the MLP (SGD, summaries only); the fourth adds an L2 penalty,
so it has a structure of its own.
"""
import json
from pathlib import Path

import numpy as np

import minipaddle as paddle
import minipaddle.nn.functional as F
from minipaddle import nn

OUT = Path(__file__).resolve().parent / "fixtures"


class MLP(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 3)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


class Block(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 6)

    def forward(self, x):
        return x + F.relu(self.fc(x))


class Deep(nn.Layer):
    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(4, 6)
        self.blocks = nn.LayerList([Block() for _ in range(4)])
        self.head = nn.Linear(6, 3)

    def forward(self, x):
        x = self.inp(x)
        for b in self.blocks:
            x = b(x)
        return self.head(x)


def record(model, values):
    paddle.seed(0)
    rng = np.random.default_rng(0)
    x = paddle.to_tensor(rng.standard_normal((16, 4)).astype("float32"))
    y = paddle.to_tensor(rng.integers(0, 3, 16))
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
    with paddle.debug.record(values=values) as rec:
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
    return rec.trace.to_dict()


def record_training(model, iterations=5, penalty_at=3):
    paddle.seed(0)
    rng = np.random.default_rng(0)
    x = paddle.to_tensor(rng.standard_normal((16, 4)).astype("float32"))
    y = paddle.to_tensor(rng.integers(0, 3, 16))
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
    with paddle.debug.record(values="none") as rec:
        for it in range(iterations):
            loss = F.cross_entropy(model(x), y)
            if it == penalty_at:  # a data-dependent branch: this iteration runs two more ops
                loss = loss + 0.01 * (model.fc1.weight ** 2).sum()
            loss.backward()
            opt.step()
            opt.clear_grad()
    return rec.trace.to_dict()


if __name__ == "__main__":
    OUT.mkdir(exist_ok=True)
    paddle.seed(0)
    (OUT / "mlp.json").write_text(json.dumps(record(MLP(), "all")), encoding="utf-8")
    paddle.seed(0)
    (OUT / "blocks.json").write_text(json.dumps(record(Deep(), "none")), encoding="utf-8")
    paddle.seed(0)
    (OUT / "train.json").write_text(json.dumps(record_training(MLP())), encoding="utf-8")
