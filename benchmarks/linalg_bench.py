"""paddle.linalg.solve and paddle.einsum: milliseconds per call, minipaddle vs numpy and PyTorch (CPU).

    python benchmarks/linalg_bench.py [--rounds 3] [--json out.json]

minipaddle's solve is one LAPACK call (numpy.linalg.solve) behind its dispatch; its einsum has no
kernel and expands into transpose / reshape / matmul (numpy.einsum and torch.einsum are single
calls), so the ratios show what the dispatch and the expansion cost at each size. Cases (float32):

    solve n        x [n, n] (diagonally dominant), y [n, 4]
    bij,bjk->bik   batched matmul
    ij,ij->        a full contraction (a dot product of two matrices)
    bhqd,bhkd->bhqk  attention scores

Each framework runs in its own subprocess (two OpenMP runtimes in one process slow PyTorch), all
with 1 BLAS thread; frameworks alternate over rounds so a busy moment hits all of them; each case
is timed timeit-style (warm-up, then the best of 5 repeats) and the table shows medians over rounds.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import timeit
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness  # noqa: E402

REPO_ROOT = harness.REPO_ROOT
SOLVE_SIZES = (16, 128, 512)
EINSUM_CASES = (   # (equation, operand shapes)
    ("bij,bjk->bik", ((8, 32, 32), (8, 32, 32))),
    ("bij,bjk->bik", ((32, 128, 128), (32, 128, 128))),
    ("ij,ij->", ((256, 256), (256, 256))),
    ("ij,ij->", ((1024, 1024), (1024, 1024))),
    ("bhqd,bhkd->bhqk", ((2, 4, 64, 32), (2, 4, 64, 32))),
    ("bhqd,bhkd->bhqk", ((4, 8, 128, 64), (4, 8, 128, 64))),
)
FRAMEWORKS = ("minipaddle", "numpy", "torch")
REPEATS = 5
REPEAT_SECONDS = 0.1
THREADS = "1"   # one BLAS thread each: on a shared 2-core machine two threads stall each other (100x outliers)
ENV = {"OMP_NUM_THREADS": THREADS, "OPENBLAS_NUM_THREADS": THREADS, "MKL_NUM_THREADS": THREADS}


def case_names() -> list[str]:
    names = [f"solve n={n}" for n in SOLVE_SIZES]
    names += [f"{eq} {'x'.join(map(str, shapes[0]))}" for eq, shapes in EINSUM_CASES]
    return names


def inputs(seed: int = 0):
    """The same float32 arrays for every framework."""
    import numpy as np
    rng = np.random.default_rng(seed)
    solves = [((rng.standard_normal((n, n)) + n * np.eye(n)).astype(np.float32),
               rng.standard_normal((n, 4)).astype(np.float32)) for n in SOLVE_SIZES]
    einsums = [(eq, [rng.standard_normal(s).astype(np.float32) for s in shapes]) for eq, shapes in EINSUM_CASES]
    return solves, einsums


# ---- inside a worker subprocess: one framework ----
def time_call(fn) -> float:
    """Milliseconds per call of fn(): warm up and size the loop with autorange, then best of REPEATS."""
    timer = timeit.Timer(fn)
    number, elapsed = timer.autorange()
    number = max(1, int(number * REPEAT_SECONDS / max(elapsed, 1e-9)))
    return min(timer.repeat(repeat=REPEATS, number=number)) / number * 1e3


def framework_calls(name: str) -> tuple[list, str]:
    """One zero-argument call per case, and the framework's version."""
    solves, einsums = inputs()
    if name == "minipaddle":
        sys.path.insert(0, str(REPO_ROOT))   # measure this checkout
        import minipaddle as fw
        solve, einsum, wrap = fw.linalg.solve, fw.einsum, fw.to_tensor
    elif name == "torch":
        import torch as fw
        fw.set_num_threads(int(THREADS))
        solve, einsum, wrap = fw.linalg.solve, fw.einsum, fw.from_numpy
    else:
        import numpy as fw
        solve, einsum, wrap = fw.linalg.solve, fw.einsum, fw.asarray
    calls = []
    for x, y in solves:
        tx, ty = wrap(x), wrap(y)
        calls.append(lambda tx=tx, ty=ty: solve(tx, ty))
    for eq, arrays in einsums:
        ts = [wrap(a) for a in arrays]
        calls.append(lambda eq=eq, ts=ts: einsum(eq, *ts))
    return calls, fw.__version__


def worker(name: str) -> None:
    calls, version = framework_calls(name)
    print(json.dumps({"version": version, "ms": [time_call(fn) for fn in calls]}))


# ---- the driver: rounds of subprocesses, then the table ----
def measure(frameworks: list[str], rounds: int) -> tuple[dict, dict]:
    samples: dict = {fw: [] for fw in frameworks}
    versions = {}
    for r in range(rounds):
        order = frameworks[r % len(frameworks):] + frameworks[:r % len(frameworks)]
        for fw in order:
            result = harness.run_worker(__file__, fw, "speed", {}, ENV)
            versions[fw] = result["version"]
            samples[fw].append(result["ms"])
        print(f"round {r + 1}/{rounds} done", flush=True)
    medians = {fw: [statistics.median(column) for column in zip(*rows)] for fw, rows in samples.items()}
    return medians, versions


def table(medians: dict) -> str:
    frameworks = list(medians)
    head = f"{'case':34}" + "".join(f"{fw + ' ms':>14}" for fw in frameworks)
    head += "".join(f"{'mp/' + fw:>11}" for fw in frameworks if fw != "minipaddle")
    lines = [head, "-" * len(head)]
    for i, label in enumerate(case_names()):
        row = f"{label:34}" + "".join(f"{medians[fw][i]:>14.4f}" for fw in frameworks)
        row += "".join(f"{medians['minipaddle'][i] / medians[fw][i]:>10.2f}x" for fw in frameworks
                       if fw != "minipaddle")
        lines.append(row)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="linalg.solve and einsum, minipaddle vs numpy and PyTorch.")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    parser.add_argument("--worker", choices=FRAMEWORKS, help=argparse.SUPPRESS)
    parser.add_argument("--mode", default="speed", help=argparse.SUPPRESS)   # (harness.run_worker passes it)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.worker)
        return 0
    import importlib.util
    frameworks = [fw for fw in FRAMEWORKS if fw == "minipaddle" or importlib.util.find_spec(fw) is not None]
    medians, versions = measure(frameworks, args.rounds)
    machine = f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, " \
              f"Python {platform.python_version()}, BLAS threads: {THREADS}"
    load = os.getloadavg()[0]
    print(f"\nmedian over {args.rounds} rounds of best-of-{REPEATS}; {machine}; load average {load:.2f}")
    print("versions: " + ", ".join(f"{fw} {v}" for fw, v in versions.items()))
    print(table(medians))
    if args.json:
        Path(args.json).write_text(json.dumps({"machine": machine, "load_average": load, "rounds": args.rounds,
                                               "versions": versions, "cases": case_names(), "median_ms": medians},
                                              indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
