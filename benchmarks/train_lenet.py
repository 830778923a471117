"""Training speed of LeNet-5 (Paddle's vision.models.LeNet) on 1x28x28 inputs, batch 64, float32.

    python benchmarks/train_lenet.py [--rounds 5] [--json out.json] [--paddle-python PATH] [--no-first]

Conv(1->6, 3x3, pad 1) ReLU MaxPool(2) Conv(6->16, 5x5) ReLU MaxPool(2) Flatten Linear(400,120)
Linear(120,84) Linear(84,10), cross-entropy, SGD. Frameworks: minipaddle, a hand-written numpy
version (im2col + BLAS, the same algorithm minipaddle's kernels use, with no framework around it),
PyTorch CPU (2 threads), PaddlePaddle when available. Each in its own process, alternated, medians.

Targets: minipaddle >= 1.0x Paddle; >= 1.0x PyTorch (the issue "convolutional training on the CPU at
PyTorch's speed": LeNet's step is mostly pooling and convolution kernels, kernels/cpu/pooling_fast.py
and conv_fast.py). The machine is shared: run several rounds and read the spread, not one number.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness  # noqa: E402

BATCH, LR = 64, 0.01


def data(seed: int = 0):
    return harness.classification_data((BATCH, 1, 28, 28), 10, seed)


def lenet(nn):
    """The same network in any Paddle-shaped API (minipaddle or Paddle)."""
    return nn.Sequential(
        nn.Conv2D(1, 6, 3, stride=1, padding=1), nn.ReLU(), nn.MaxPool2D(2, 2),
        nn.Conv2D(6, 16, 5, stride=1, padding=0), nn.ReLU(), nn.MaxPool2D(2, 2),
        nn.Flatten(), nn.Linear(400, 120), nn.Linear(120, 84), nn.Linear(84, 10))


def paddle_like_step(paddle):
    paddle.seed(0)
    return harness.sgd_classifier_step(paddle, lenet(paddle.nn), *data(), LR)


def minipaddle_step():
    return paddle_like_step(harness.import_minipaddle())


def paddle_step():
    return paddle_like_step(harness.import_paddle())


def torch_step():
    import torch
    torch.set_num_threads(2)
    torch.manual_seed(0)
    nn = torch.nn
    model = nn.Sequential(
        nn.Conv2d(1, 6, 3, stride=1, padding=1), nn.ReLU(), nn.MaxPool2d(2, 2),
        nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2, 2),
        nn.Flatten(), nn.Linear(400, 120), nn.Linear(120, 84), nn.Linear(84, 10))
    opt = torch.optim.SGD(model.parameters(), lr=LR)
    xs, ys = data()
    x, y = torch.from_numpy(xs), torch.from_numpy(ys)

    def step():
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
    return step, torch.__version__


# ---- the numpy floor: conv by im2col + one matmul, pooling by reshape ----

def _im2col(x, k, pad):
    import numpy as np
    if pad:
        x = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    win = np.lib.stride_tricks.sliding_window_view(x, (k, k), axis=(2, 3))  # N C OH OW k k
    n, c, oh, ow = win.shape[:4]
    return np.ascontiguousarray(win.transpose(0, 2, 3, 1, 4, 5)).reshape(n * oh * ow, c * k * k), oh, ow


def _col2im(cols, shape, k, pad, oh, ow):
    import numpy as np
    n, c, h, w = shape
    out = np.zeros((n, c, h + 2 * pad, w + 2 * pad), cols.dtype)
    cols = cols.reshape(n, oh, ow, c, k, k)
    for i in range(k):
        for j in range(k):
            out[:, :, i:i + oh, j:j + ow] += cols[:, :, :, :, i, j].transpose(0, 3, 1, 2)
    return out[:, :, pad:pad + h, pad:pad + w] if pad else out


def numpy_step():
    import numpy as np
    rng = np.random.default_rng(0)

    def param(*shape):
        return (rng.standard_normal(shape) * 0.1).astype(np.float32)
    p = {"c1": param(6, 9), "cb1": np.zeros(6, np.float32), "c2": param(16, 150), "cb2": np.zeros(16, np.float32),
         "f1": param(400, 120), "fb1": np.zeros(120, np.float32), "f2": param(120, 84),
         "fb2": np.zeros(84, np.float32), "f3": param(84, 10), "fb3": np.zeros(10, np.float32)}
    x, y = data()
    rows = np.arange(BATCH)

    def conv(inp, w, b, k, pad):
        cols, oh, ow = _im2col(inp, k, pad)
        out = (cols @ w.T + b).reshape(inp.shape[0], oh, ow, -1).transpose(0, 3, 1, 2)
        return np.ascontiguousarray(out), cols, oh, ow

    def pool(a):
        n, c, h, w = a.shape
        r = a.reshape(n, c, h // 2, 2, w // 2, 2)
        m = r.max(axis=(3, 5))
        mask = r == m[:, :, :, None, :, None]
        return m, mask

    def unpool(d, mask):
        return (mask * d[:, :, :, None, :, None]).reshape(mask.shape[0], mask.shape[1], mask.shape[2] * 2, -1)

    def conv_back(d, inp_shape, cols, w, k, pad, oh, ow):
        d2 = d.transpose(0, 2, 3, 1).reshape(-1, w.shape[0])
        return _col2im(d2 @ w, inp_shape, k, pad, oh, ow), d2.T @ cols, d2.sum(axis=0)

    def step():
        h1, cols1, oh1, ow1 = conv(x, p["c1"], p["cb1"], 3, 1)
        a1 = np.maximum(h1, 0)
        m1, mask1 = pool(a1)
        h2, cols2, oh2, ow2 = conv(m1, p["c2"], p["cb2"], 5, 0)
        a2 = np.maximum(h2, 0)
        m2, mask2 = pool(a2)
        f = m2.reshape(BATCH, -1)
        z1 = f @ p["f1"] + p["fb1"]
        z2 = z1 @ p["f2"] + p["fb2"]
        z3 = z2 @ p["f3"] + p["fb3"]
        e = np.exp(z3 - z3.max(axis=1, keepdims=True))
        prob = e / e.sum(axis=1, keepdims=True)
        d3 = prob
        d3[rows, y] -= 1
        d3 /= BATCH
        g = {"f3": z2.T @ d3, "fb3": d3.sum(0)}
        d2 = d3 @ p["f3"].T
        g["f2"], g["fb2"] = z1.T @ d2, d2.sum(0)
        d1 = d2 @ p["f2"].T
        g["f1"], g["fb1"] = f.T @ d1, d1.sum(0)
        df = (d1 @ p["f1"].T).reshape(m2.shape)
        da2 = unpool(df, mask2) * (h2 > 0)
        dm1, g["c2"], g["cb2"] = conv_back(da2, m1.shape, cols2, p["c2"], 5, 0, oh2, ow2)
        da1 = unpool(dm1, mask1) * (h1 > 0)
        _, g["c1"], g["cb1"] = conv_back(da1, x.shape, cols1, p["c1"], 3, 1, oh1, ow1)
        for name, grad in g.items():
            p[name] -= LR * grad
    return step, np.__version__


BUILDERS = {"minipaddle": minipaddle_step, "numpy": numpy_step, "torch": torch_step, "paddle": paddle_step}


def main(argv: list[str] | None = None) -> int:
    return harness.training_benchmark(__file__, __doc__, BUILDERS, "train_lenet",
                                      [("minipaddle", "paddle", 1.0, "PaddlePaddle"),
                                       ("minipaddle", "torch", 1.0, "PyTorch CPU")],
                                      window_seconds=1.0, argv=argv)


if __name__ == "__main__":
    sys.exit(main())
