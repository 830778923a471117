"""Threads or processes for DataLoader workers? A measurement, not a test (run it by hand):

    .venv/bin/python tests/io/bench_workers.py [n_images]

(a) a numpy transform pipeline on MNIST-sized uint8 images (pad+random crop, flip, ToTensor, Normalize);
(b) a pure-Python per-sample transform (a loop over the pixels' values).
Prints seconds per epoch (best of 3) for num_workers=0 and 2 workers as threads and as processes.
"""
from __future__ import annotations

import sys
import time

import numpy as np

import minipaddle as paddle
from minipaddle.io import DataLoader, Dataset
from minipaddle.vision import transforms as T


class Images(Dataset):
    def __init__(self, n: int, transform) -> None:
        self.images = np.random.default_rng(0).integers(0, 256, (n, 28, 28), dtype=np.uint8)
        self.labels = np.arange(n) % 10
        self.transform = transform

    def __len__(self) -> int:
        return len(self.images)

    def __getitem__(self, i):
        return self.transform(self.images[i]), int(self.labels[i])


def python_transform(image: np.ndarray) -> np.ndarray:
    """Histogram equalisation written as plain Python loops: the kind of code threads cannot overlap."""
    pixels = image.ravel().tolist()
    counts = [0] * 256
    for p in pixels:
        counts[p] += 1
    total, cdf = 0, []
    for c in counts:
        total += c
        cdf.append(total)
    lut = [255 * v // len(pixels) for v in cdf]
    return np.array([lut[p] for p in pixels], dtype=np.float32).reshape(image.shape) / 255.0


def epoch_seconds(dataset, num_workers: int, mode: str) -> float:
    best = float("inf")
    for _ in range(3):
        loader = DataLoader(dataset, batch_size=64, shuffle=True, num_workers=num_workers, worker_mode=mode)
        start = time.perf_counter()
        for _batch in loader:
            pass
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
    paddle.seed(0)
    numpy_pipeline = T.Compose([T.RandomCrop(28, padding=2), T.RandomHorizontalFlip(), T.ToTensor(),
                                T.Normalize(mean=[0.5], std=[0.5])])
    workloads = {"(a) numpy transforms": Images(n, numpy_pipeline), "(b) pure-Python transform":
                 Images(n, python_transform)}
    print(f"{n} images 28x28, batch 64, seconds per epoch (best of 3)")
    print(f"{'workload':28s} {'workers=0':>10s} {'2 threads':>10s} {'2 processes':>12s}")
    for name, ds in workloads.items():
        t0 = epoch_seconds(ds, 0, "process")
        tt = epoch_seconds(ds, 2, "thread")
        tp = epoch_seconds(ds, 2, "process")
        print(f"{name:28s} {t0:10.3f} {tt:10.3f} {tp:12.3f}")


if __name__ == "__main__":
    main()
