"""Threads or processes for DataLoader workers? A measurement, not a test (run it by hand):

    .venv/bin/python tests/io/bench_workers.py [n_images] [rounds]

(a) a numpy transform pipeline on MNIST-sized uint8 images (pad+random crop, flip, ToTensor, Normalize);
(b) a pure-Python per-sample transform (a loop over the pixels' values).
Prints seconds per epoch (best of 5, interleaved) for num_workers=0 and 2 workers as threads and as processes.
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
    loader = DataLoader(dataset, batch_size=64, shuffle=True, num_workers=num_workers, worker_mode=mode)
    start = time.perf_counter()
    for _batch in loader:
        pass
    return time.perf_counter() - start


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
    paddle.seed(0)
    numpy_pipeline = T.Compose([T.RandomCrop(28, padding=2), T.RandomHorizontalFlip(), T.ToTensor(),
                                T.Normalize(mean=[0.5], std=[0.5])])
    workloads = {"(a) numpy transforms": Images(n, numpy_pipeline), "(b) pure-Python transform":
                 Images(n, python_transform)}
    configs = [("workers=0", 0, "process"), ("2 threads", 2, "thread"), ("2 processes", 2, "process")]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    print(f"{n} images 28x28, batch 64, seconds per epoch (best of {rounds}, configurations interleaved)")
    print(f"{'workload':28s}" + "".join(f"{name:>13s}" for name, _, _ in configs))
    for name, ds in workloads.items():
        best = [float("inf")] * len(configs)
        for _ in range(rounds):   # interleaved, so a burst of load from elsewhere hits every configuration
            for k, (_, workers, mode) in enumerate(configs):
                best[k] = min(best[k], epoch_seconds(ds, workers, mode))
        print(f"{name:28s}" + "".join(f"{t:13.3f}" for t in best))


if __name__ == "__main__":
    main()
