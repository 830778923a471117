"""Threads or processes for DataLoader workers? A measurement, not a test (run it by hand):

    .venv/bin/python tests/io/bench_workers.py [n_images] [rounds]

(a) a numpy transform pipeline on MNIST-sized uint8 images (pad + random crop, bilinear resize to 32x32,
    flip, ToTensor, Normalize);
(b) a pure-Python per-sample transform (a loop over the pixels' values).
Prints seconds per epoch (best of 5, interleaved) for num_workers=0 and 2 workers as threads and as processes,
with the CPU seconds each run used.
"""
from __future__ import annotations

import os
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


def epoch_seconds(dataset, num_workers: int, mode: str) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds of the main process (all its threads), CPU seconds of worker processes."""
    loader = DataLoader(dataset, batch_size=64, shuffle=True, num_workers=num_workers, worker_mode=mode)
    before, start = os.times(), time.perf_counter()
    for _batch in loader:
        pass
    wall = time.perf_counter() - start
    after = os.times()   # worker processes are joined at the end of the epoch, so their CPU is counted
    main_cpu = max(after.user + after.system - before.user - before.system, 0.0)
    child_cpu = max(after.children_user + after.children_system - before.children_user - before.children_system, 0.0)
    return wall, main_cpu, child_cpu


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
    paddle.seed(0)
    numpy_pipeline = T.Compose([T.RandomCrop(28, padding=4), T.Resize(32), T.RandomHorizontalFlip(), T.ToTensor(),
                                T.Normalize(mean=[0.5], std=[0.5])])
    workloads = {"(a) numpy transforms": Images(n, numpy_pipeline), "(b) pure-Python transform":
                 Images(n, python_transform)}
    configs = [("workers=0", 0, "process"), ("2 threads", 2, "thread"), ("2 processes", 2, "process")]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    print(f"{n} images 28x28, batch 64: wall seconds per epoch, best of {rounds} (configurations interleaved), "
          "and CPU seconds (main process + worker processes) of that run")
    print(f"{'workload':28s}" + "".join(f"{name:>24s}" for name, _, _ in configs))
    for name, ds in workloads.items():
        best = [(float("inf"), 0.0, 0.0)] * len(configs)
        for _ in range(rounds):   # interleaved, so a burst of load from elsewhere hits every configuration
            for k, (_, workers, mode) in enumerate(configs):
                best[k] = min(best[k], epoch_seconds(ds, workers, mode))
        print(f"{name:28s}" + "".join(f"{w:8.3f} (cpu {m:.2f}+{c:.2f})" for w, m, c in best))


if __name__ == "__main__":
    main()
