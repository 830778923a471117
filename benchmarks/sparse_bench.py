"""Sparse (CSR) x dense matmul: minipaddle's numba CSR kernel against scipy.sparse, numpy dense and torch.sparse.

    .venv/bin/python benchmarks/sparse_bench.py [--rounds 3] [--json PATH]

Every framework runs in its own process (benchmarks/harness.py), the order rotating each round; the
table shows each case's median time per product over the rounds, float32 throughout. "numpy dense"
multiplies the same matrix stored densely: the product sparsity is meant to beat. The same seed
builds the same CSR arrays in every process.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness  # noqa: E402

CASES = {  # name: (rows = cols of the sparse matrix, density, columns of the dense operand)
    "1000x1000 @1% x 64": (1000, 0.01, 64),
    "1000x1000 @10% x 64": (1000, 0.10, 64),
    "10000x10000 @0.1% x 64": (10000, 0.001, 64),
}


def csr_arrays(n: int, density: float, seed: int = 0):
    """(crows, cols, values) of an n x n matrix with about density * n^2 entries at random places."""
    rng = np.random.default_rng(seed)
    keys = np.unique(rng.integers(0, n * n, int(density * n * n)))
    rows, cols = keys // n, keys % n
    crows = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=n))]).astype(np.int64)
    return crows, cols.astype(np.int64), rng.standard_normal(keys.size).astype(np.float32)


def dense_operand(n: int, k: int) -> np.ndarray:
    return np.random.default_rng(1).standard_normal((n, k)).astype(np.float32)


def minipaddle_case(n, density, k):
    import minipaddle as paddle
    crows, cols, values = csr_arrays(n, density)
    a = paddle.sparse.sparse_csr_tensor(crows, cols, values, [n, n])
    b = paddle.to_tensor(dense_operand(n, k))
    return lambda: paddle.sparse.matmul(a, b), f"minipaddle {paddle.__version__}"


def scipy_case(n, density, k):
    import scipy
    import scipy.sparse as sp
    crows, cols, values = csr_arrays(n, density)
    a = sp.csr_matrix((values, cols, crows), shape=(n, n))
    b = dense_operand(n, k)
    return lambda: a @ b, f"scipy {scipy.__version__}"


def numpy_dense_case(n, density, k):
    import scipy.sparse as sp
    crows, cols, values = csr_arrays(n, density)
    a = sp.csr_matrix((values, cols, crows), shape=(n, n)).toarray()
    b = dense_operand(n, k)
    return lambda: a @ b, f"numpy {np.__version__}"


def torch_case(n, density, k):
    import torch
    crows, cols, values = csr_arrays(n, density)
    a = torch.sparse_csr_tensor(torch.from_numpy(crows), torch.from_numpy(cols), torch.from_numpy(values), (n, n))
    b = torch.from_numpy(dense_operand(n, k))
    return lambda: a @ b, f"torch {torch.__version__} ({torch.get_num_threads()} threads)"


WORKERS = {"minipaddle": minipaddle_case, "scipy": scipy_case, "numpy dense": numpy_dense_case,
           "torch": torch_case}


def worker(name: str) -> None:
    """In a worker process: time every case, print one JSON line of milliseconds per product."""
    times, version = {}, ""
    for case, (n, density, k) in CASES.items():
        step, version = WORKERS[name](n, density, k)
        times[case] = 1000.0 / harness.steps_per_second(step, seconds=0.3, windows=3, warmup=3)
    print(json.dumps({"version": version, "ms": times, "steps_per_s": 0.0}))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", metavar="PATH")
    parser.add_argument("--worker", choices=list(WORKERS), help=argparse.SUPPRESS)
    parser.add_argument("--mode", default="speed", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.worker)
        return 0
    names = [n for n in WORKERS if harness.available(n.split()[0], {})]
    results: dict = {n: [] for n in names}
    for r in range(args.rounds):
        for n in names[r % len(names):] + names[:r % len(names)]:
            results[n].append(harness.run_worker(__file__, n, "speed", {}))
        print(f"round {r + 1}/{args.rounds} done", flush=True)
    medians = {n: {c: statistics.median(res["ms"][c] for res in results[n]) for c in CASES} for n in names}
    print(f"\nCSR x dense matmul, float32, median ms per product over {args.rounds} rounds; {harness.machine()}")
    print("versions: " + "; ".join(results[n][-1]["version"] for n in names))
    print(f"{'case':26}" + "".join(f"{n:>14}" for n in names))
    for c in CASES:
        print(f"{c:26}" + "".join(f"{medians[n][c]:>14.3f}" for n in names))
    if args.json:
        Path(args.json).write_text(json.dumps({"machine": harness.machine(), "ms": medians}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
