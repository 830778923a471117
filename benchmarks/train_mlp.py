"""Training speed of an MLP (784-256-10, ReLU, cross-entropy, SGD, batch 128, float32, synthetic data).

    python benchmarks/train_mlp.py [--rounds 5] [--json out.json] [--paddle-python PATH] [--no-first]

Steps per second for minipaddle, a hand-written numpy forward/backward (the floor for any
numpy-based framework: the same BLAS calls with no framework around them), PyTorch CPU (2 threads)
and PaddlePaddle when it imports (or with --paddle-python naming an interpreter that has it).
Each framework runs in its own process; frameworks alternate over rounds; the table shows medians.
Also: the first training step's time in a new minipaddle process, with a cold and a warm numba cache.

Targets: minipaddle >= 1.0x PyTorch, and >= 0.8x the numpy floor (within 1.25x of its step time).
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness  # noqa: E402

BATCH, N_IN, N_HIDDEN, N_OUT, LR = 128, 784, 256, 10, 0.01


def data(seed: int = 0):
    return harness.classification_data((BATCH, N_IN), N_OUT, seed)


def minipaddle_step():
    sys.path.insert(0, str(harness.REPO_ROOT))
    import minipaddle as paddle
    import minipaddle.nn.functional as F
    from minipaddle import nn
    paddle.seed(0)
    model = nn.Sequential(nn.Linear(N_IN, N_HIDDEN), nn.ReLU(), nn.Linear(N_HIDDEN, N_OUT))
    opt = paddle.optimizer.SGD(learning_rate=LR, parameters=model.parameters())
    xs, ys = data()
    x, y = paddle.to_tensor(xs), paddle.to_tensor(ys)

    def step():
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
    return step, paddle.__version__


def numpy_step():
    import numpy as np
    rng = np.random.default_rng(0)
    w1 = (rng.standard_normal((N_IN, N_HIDDEN)) * 0.05).astype(np.float32)
    b1 = np.zeros(N_HIDDEN, np.float32)
    w2 = (rng.standard_normal((N_HIDDEN, N_OUT)) * 0.05).astype(np.float32)
    b2 = np.zeros(N_OUT, np.float32)
    x, y = data()
    rows = np.arange(BATCH)

    def step():
        h = x @ w1 + b1
        a = np.maximum(h, 0)
        logits = a @ w2 + b2
        z = logits - logits.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        _loss = -np.log(p[rows, y]).mean()
        dlogits = p
        dlogits[rows, y] -= 1
        dlogits /= BATCH
        dw2 = a.T @ dlogits
        db2 = dlogits.sum(axis=0)
        dh = (dlogits @ w2.T) * (h > 0)
        dw1 = x.T @ dh
        db1 = dh.sum(axis=0)
        for p_, g in ((w1, dw1), (b1, db1), (w2, dw2), (b2, db2)):
            p_ -= LR * g
    return step, np.__version__


def torch_step():
    import torch
    torch.set_num_threads(2)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(N_IN, N_HIDDEN), torch.nn.ReLU(), torch.nn.Linear(N_HIDDEN, N_OUT))
    opt = torch.optim.SGD(model.parameters(), lr=LR)
    xs, ys = data()
    x, y = torch.from_numpy(xs), torch.from_numpy(ys)

    def step():
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
    return step, torch.__version__


def paddle_step():
    import paddle
    paddle.set_device("cpu")
    paddle.seed(0)
    nn = paddle.nn
    model = nn.Sequential(nn.Linear(N_IN, N_HIDDEN), nn.ReLU(), nn.Linear(N_HIDDEN, N_OUT))
    opt = paddle.optimizer.SGD(learning_rate=LR, parameters=model.parameters())
    xs, ys = data()
    x, y = paddle.to_tensor(xs), paddle.to_tensor(ys)

    def step():
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
    return step, paddle.__version__


BUILDERS = {"minipaddle": minipaddle_step, "numpy": numpy_step, "torch": torch_step, "paddle": paddle_step}


def main(argv: list[str] | None = None) -> int:
    return harness.training_benchmark(__file__, __doc__, BUILDERS, "train_mlp",
                                      [("minipaddle", "torch", 1.0, "PyTorch CPU"),
                                       ("minipaddle", "numpy", 0.8, "the numpy floor")],
                                      window_seconds=0.5, argv=argv)


if __name__ == "__main__":
    sys.exit(main())
