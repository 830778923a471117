"""Eager op overhead: microseconds per call of tiny ops, minipaddle vs numpy, PyTorch (CPU) and Paddle.

    python benchmarks/op_overhead.py [--rounds 5] [--json out.json] [--paddle-python PATH]

PaddlePaddle is measured when it imports here, or with `--paddle-python` naming the interpreter of
an environment that has it (Paddle pins its own numpy/protobuf, so it often lives in a venv of its own).

For tiny tensors the arithmetic is nothing; what is measured is the framework's path from a Python
call to a kernel and back (argument checks, dispatch, output wrapping, graph recording). Cases:

    (a) add of two 16-element float32 tensors, no gradient recorded
    (b) the same add with inputs that need gradients (a grad node is recorded each call)
    (c) forward + backward of (a*b + a).sum() on 16-element inputs, grads cleared each iteration
    (d) matmul of two 64x64 float32 matrices

Each framework runs in its own subprocess: two OpenMP runtimes in one process slow PyTorch tenfold.
Frameworks alternate over several rounds so that a busy moment of the machine hits all of them;
within a round each case is timed timeit-style (warm-up, then the best of 5 repeats), and the table
shows the median over rounds.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import timeit
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
CASES = {
    "a": "add 16 f32, no grad",
    "b": "add 16 f32, recording grad",
    "c": "fwd+bwd (a*b+a).sum(), 16",
    "d": "matmul 64x64 f32",
}
# the ratio vs PyTorch each case should stay at or under
TARGETS = {"a": 1.0, "b": 1.0, "c": 0.5, "d": 1.0}   # minipaddle / PyTorch CPU, median time per call
FRAMEWORKS = ("minipaddle", "numpy", "torch", "paddle")
REPEATS = 5
REPEAT_SECONDS = 0.1
# framework -> the Python interpreter its worker runs under (default: this one)
INTERPRETERS: dict[str, str] = {}


# ---- inside a worker subprocess: one framework ----

def time_call(fn) -> float:
    """Microseconds per call of fn(): warm up and size the loop with autorange, then best of REPEATS."""
    timer = timeit.Timer(fn)
    number, elapsed = timer.autorange()  # also the warm-up: caches, kernel selection, first compile
    number = max(1, int(number * REPEAT_SECONDS / max(elapsed, 1e-9)))
    return min(timer.repeat(repeat=REPEATS, number=number)) / number * 1e6


def minipaddle_cases() -> dict:
    sys.path.insert(0, str(REPO_ROOT))  # measure this checkout, installed or not
    import minipaddle as paddle
    x = paddle.to_tensor([float(i) for i in range(16)], dtype="float32")
    y = paddle.to_tensor([1.0] * 16, dtype="float32")
    xg = paddle.to_tensor([float(i) for i in range(16)], dtype="float32", stop_gradient=False)
    yg = paddle.to_tensor([1.0] * 16, dtype="float32", stop_gradient=False)

    def forward_backward():
        xg.clear_grad()
        yg.clear_grad()
        (xg * yg + xg).sum().backward()

    cases = {"a": lambda: paddle.add(x, y), "b": lambda: paddle.add(xg, yg), "c": forward_backward}
    if hasattr(paddle, "matmul"):
        m1, m2 = paddle.rand([64, 64], dtype="float32"), paddle.rand([64, 64], dtype="float32")
        cases["d"] = lambda: paddle.matmul(m1, m2)
    return cases


def numpy_cases() -> dict:
    import numpy as np
    x, y = np.arange(16, dtype=np.float32), np.ones(16, dtype=np.float32)
    m1, m2 = np.random.rand(64, 64).astype(np.float32), np.random.rand(64, 64).astype(np.float32)
    return {"a": lambda: np.add(x, y), "d": lambda: np.matmul(m1, m2)}


def torch_cases() -> dict:
    import torch
    torch.set_num_threads(2)
    x, y = torch.arange(16, dtype=torch.float32), torch.ones(16, dtype=torch.float32)
    xg = torch.arange(16, dtype=torch.float32).requires_grad_()
    yg = torch.ones(16, dtype=torch.float32).requires_grad_()

    def forward_backward():
        xg.grad = None  # what optimizer.zero_grad() does by default
        yg.grad = None
        (xg * yg + xg).sum().backward()

    m1, m2 = torch.rand(64, 64), torch.rand(64, 64)
    return {"a": lambda: torch.add(x, y), "b": lambda: torch.add(xg, yg), "c": forward_backward,
            "d": lambda: torch.matmul(m1, m2)}


def paddle_cases() -> dict:
    import paddle
    paddle.set_device("cpu")
    x = paddle.arange(16, dtype="float32")
    y = paddle.ones([16], dtype="float32")
    xg = paddle.arange(16, dtype="float32")
    yg = paddle.ones([16], dtype="float32")
    xg.stop_gradient = False
    yg.stop_gradient = False

    def forward_backward():
        xg.clear_grad()
        yg.clear_grad()
        (xg * yg + xg).sum().backward()

    m1, m2 = paddle.rand([64, 64], dtype="float32"), paddle.rand([64, 64], dtype="float32")
    return {"a": lambda: paddle.add(x, y), "b": lambda: paddle.add(xg, yg), "c": forward_backward,
            "d": lambda: paddle.matmul(m1, m2)}


def framework_version(name: str) -> str:
    if name == "minipaddle":
        import minipaddle
        return minipaddle.__version__
    return __import__(name).__version__


def worker(name: str) -> None:
    """Time every case this framework has; print one JSON line {case: µs}."""
    cases = {"minipaddle": minipaddle_cases, "numpy": numpy_cases, "torch": torch_cases,
             "paddle": paddle_cases}[name]()
    results = {case: time_call(fn) for case, fn in cases.items()}
    print(json.dumps({"version": framework_version(name), "us": results}))


# ---- the driver: rounds of subprocesses, then the table ----

def available(name: str) -> bool:
    if name == "minipaddle" or name in INTERPRETERS:
        return True
    return importlib.util.find_spec(name) is not None


def run_worker(name: str) -> dict:
    python = INTERPRETERS.get(name, sys.executable)
    out = subprocess.run([python, __file__, "--worker", name], check=False, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"{name} worker failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure(frameworks: list[str], rounds: int) -> tuple[dict, dict]:
    samples: dict = {fw: {} for fw in frameworks}
    versions = {}
    for r in range(rounds):
        order = frameworks[r % len(frameworks):] + frameworks[:r % len(frameworks)]
        for fw in order:
            result = run_worker(fw)
            versions[fw] = result["version"]
            for case, us in result["us"].items():
                samples[fw].setdefault(case, []).append(us)
        print(f"round {r + 1}/{rounds} done", flush=True)
    medians = {fw: {case: statistics.median(v) for case, v in cases.items()} for fw, cases in samples.items()}
    return medians, versions


def table(medians: dict) -> str:
    frameworks = list(medians)
    with_paddle = "paddle" in medians
    head = f"{'case':32}" + "".join(f"{fw:>12}" for fw in frameworks)
    head += f"{'mp/torch':>10}{'target':>9}  " + (f"{'mp/paddle':>11} (target < 1)" if with_paddle else "")
    lines = [head, "-" * len(head)]
    for case, label in CASES.items():
        row = f"({case}) {label:28}"
        for fw in frameworks:
            us = medians[fw].get(case)
            row += f"{'n/a' if us is None else f'{us:.2f} µs':>12}"
        mp, pt = medians.get("minipaddle", {}).get(case), medians.get("torch", {}).get(case)
        if mp is not None and pt is not None:
            ratio = mp / pt
            verdict = "ok    " if ratio <= TARGETS[case] else "MISSED"
            row += f"{ratio:>9.2f}x{'<= ' + str(TARGETS[case]) + 'x':>9}  {verdict}"
        else:
            row += f"{'n/a':>10}{'<= ' + str(TARGETS[case]) + 'x':>9}        "
        pd = medians.get("paddle", {}).get(case)
        if mp is not None and pd is not None:
            row += f"{mp / pd:>10.2f}x  {'ok' if mp < pd else 'MISSED'}"
        lines.append(row)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Eager op overhead, minipaddle vs numpy/PyTorch/Paddle.")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    parser.add_argument("--paddle-python", metavar="PATH", help="interpreter of an environment with paddlepaddle")
    parser.add_argument("--worker", choices=FRAMEWORKS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.worker)
        return 0
    if args.paddle_python:
        INTERPRETERS["paddle"] = args.paddle_python

    frameworks = [fw for fw in FRAMEWORKS if available(fw)]
    medians, versions = measure(frameworks, args.rounds)
    cpu = platform.processor() or platform.machine()
    machine = f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}"
    # other work on a 2-core machine moves these figures a lot: say how busy it was
    load = os.getloadavg()[0]
    print(f"\nmedian over {args.rounds} rounds of best-of-{REPEATS}; {machine}; load average {load:.2f}")
    print("versions: " + ", ".join(f"{fw} {v}" for fw, v in versions.items()))
    print(table(medians))
    if args.json:
        Path(args.json).write_text(json.dumps({
            "machine": machine, "load_average": load, "rounds": args.rounds, "versions": versions, "cases": CASES,
            "targets_vs_torch": TARGETS, "median_us": medians}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
