"""Shared driver for the training benchmarks: one subprocess per framework, alternated over rounds.

A benchmark script defines `WORKERS = {framework: fn(args) -> dict}`; each worker prints one JSON
line. Two OpenMP runtimes in one process slow PyTorch tenfold, and this VM has short bursts up to
20x slower, so frameworks run in separate processes, alternate, and the table shows medians.
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
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent


def import_minipaddle():
    """This checkout's minipaddle (installed or not), for a worker."""
    sys.path.insert(0, str(REPO_ROOT))
    import minipaddle
    return minipaddle


def import_paddle():
    """PaddlePaddle on the CPU, for a worker."""
    import paddle
    paddle.set_device("cpu")
    return paddle


def classification_data(shape: tuple, classes: int, seed: int = 0):
    """A synthetic batch: float32 inputs of `shape` (normal) and one int64 label in [0, classes) per row."""
    import numpy as np
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape).astype(np.float32), rng.integers(0, classes, size=shape[0]).astype(np.int64)


def sgd_classifier_step(paddle, model, xs, ys, lr: float):
    """(step, version): one cross-entropy SGD step of `model` on (xs, ys) in a Paddle-shaped API."""
    opt = paddle.optimizer.SGD(learning_rate=lr, parameters=model.parameters())
    x, y = paddle.to_tensor(xs), paddle.to_tensor(ys)

    def step():
        loss = paddle.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
    return step, paddle.__version__


def available(name: str, interpreters: dict) -> bool:
    """Peers (torch, paddle) run when importable here or given an interpreter; our own variants always."""
    if name not in ("torch", "paddle") or name in interpreters:
        return True
    return importlib.util.find_spec(name) is not None


def run_worker(script: str, name: str, mode: str, interpreters: dict, env: dict | None = None) -> dict:
    python = interpreters.get(name, sys.executable)
    full_env = dict(os.environ, **(env or {}))
    full_env.setdefault("OMP_NUM_THREADS", "2")
    out = subprocess.run([python, script, "--worker", name, "--mode", mode], check=False,
                         capture_output=True, text=True, env=full_env)
    if out.returncode != 0:
        raise RuntimeError(f"{name} worker ({mode}) failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def steps_per_second(step, seconds: float = 0.5, windows: int = 3, warmup: int = 5,
                     clock=time.perf_counter) -> float:
    """Best of `windows` timing windows of about `seconds` each (by `clock`), after `warmup` steps."""
    for _ in range(warmup):
        step()
    best = 0.0
    for _ in range(windows):
        n, start = 0, clock()
        while True:
            step()
            n += 1
            elapsed = clock() - start
            if elapsed >= seconds:
                break
        best = max(best, n / elapsed)
    return best


def first_step_seconds(script: str, cache_dir: str | None) -> dict:
    """Time of the first training step in a new minipaddle process, with the given numba cache dir."""
    env = {"NUMBA_CACHE_DIR": cache_dir} if cache_dir else {}
    return run_worker(script, "minipaddle", "first", {}, env)


def alternate(script: str, names: list[str], rounds: int, interpreters: dict | None = None,
              env: dict | None = None) -> dict[str, list[dict]]:
    """Run every worker once per round, the order rotating so a busy moment hits all of them;
    returns each worker's results, round by round."""
    results: dict = {n: [] for n in names}
    for r in range(rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        for n in order:
            results[n].append(run_worker(script, n, "speed", interpreters or {}, env))
        print(f"round {r + 1}/{rounds}: " + ", ".join(f"{n} {results[n][-1]['steps_per_s']:.1f}" for n in order),
              flush=True)
    return results


def measure(script: str, frameworks: list[str], rounds: int, interpreters: dict) -> tuple[dict, dict]:
    results = alternate(script, frameworks, rounds, interpreters)
    medians = {fw: statistics.median(r["steps_per_s"] for r in rs) for fw, rs in results.items()}
    return medians, {fw: rs[-1]["version"] for fw, rs in results.items()}


def measure_first_steps(script: str, runs: int) -> dict:
    """Cold: an empty numba cache per run. Warm: a cache filled by a previous process."""
    cold, warm = [], []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as cache:
            cold.append(first_step_seconds(script, cache)["first_step_s"])
            warm.append(first_step_seconds(script, cache)["first_step_s"])
    return {"cold_s": statistics.median(cold), "warm_s": statistics.median(warm)}


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, load {os.getloadavg()[0]:.2f}"


def report(title: str, medians: dict, versions: dict, targets: list, first: dict | None, json_path: str | None):
    """The table, then one line per target (subject, peer, at least this ratio, label)."""
    print(f"\n{title}; {machine()}")
    print("versions: " + ", ".join(f"{fw} {v}" for fw, v in sorted(set(versions.items()))))
    print(f"{'variant':20}{'steps/s':>10}")
    for fw, v in medians.items():
        print(f"{fw:20}{v:>10.1f}")
    for subject, peer, target, label in targets:
        if subject in medians and peer in medians:
            ratio = medians[subject] / medians[peer]
            print(f"target {subject} / {peer} >= {target}x ({label}): {ratio:.2f}x "
                  f"{'ok' if ratio >= target else 'MISSED'}")
    if first:
        print(f"first training step in a new process: cold numba cache {first['cold_s']:.2f} s (target <= 5 s), "
              f"warm cache {first['warm_s']:.2f} s (target <= 1 s)")
    if json_path:
        Path(json_path).write_text(json.dumps({"machine": machine(), "versions": versions,
                                               "steps_per_s": medians, "first_step": first}, indent=2))


def worker(builders: dict, name: str, mode: str, window_seconds: float) -> None:
    """Inside a worker process: build the step, then time the first step or the steady state."""
    if mode == "first":
        start = time.perf_counter()
        step, version = builders[name]()
        built = time.perf_counter()
        step()
        done = time.perf_counter()
        print(json.dumps({"version": version, "build_s": built - start, "first_step_s": done - built}))
        return
    step, version = builders[name]()
    print(json.dumps({"version": version, "steps_per_s": steps_per_second(step, seconds=window_seconds)}))


def training_benchmark(script: str, doc: str, builders: dict, name: str, targets: list,
                       window_seconds: float = 0.5, argv: list[str] | None = None) -> int:
    """The command line shared by the training benchmarks: drive workers, or be one."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", metavar="PATH")
    parser.add_argument("--paddle-python", metavar="PATH")
    parser.add_argument("--no-first", action="store_true", help="skip the first-step (compile time) runs")
    parser.add_argument("--worker", choices=list(builders), help=argparse.SUPPRESS)
    parser.add_argument("--mode", default="speed", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(builders, args.worker, args.mode, window_seconds)
        return 0
    interpreters = {"paddle": args.paddle_python} if args.paddle_python else {}
    frameworks = [fw for fw in builders if available(fw, interpreters)]
    medians, versions = measure(script, frameworks, args.rounds, interpreters)
    first = None if args.no_first or "minipaddle" not in builders else measure_first_steps(script, runs=3)
    report(f"{name}: median steps/s over {args.rounds} rounds (best of 3 windows each)", medians, versions,
           targets, first, args.json)
    return 0
