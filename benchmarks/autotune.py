"""Kernel autotuning: the default kernel vs the tuned choice on the MLP and LeNet-5 benchmark shapes.

    python benchmarks/autotune.py [--rounds 3] [--json out.json]

Cases are the products those training steps run (MLP 784-256-10 at batch 128, LeNet-5 at batch 64):
each forward matmul, the backward's transposed ones, and LeNet's two convolutions with the grads the
backward pass computes for them (conv1's image needs no grad, so it has no dX case). For each case a
"default" process times the op with autotune off, and a "tuned" process turns kernel tuning on
(tuning range [0, 1), no disk cache, so every round tunes from scratch), times the first call --
the tuning cost: every candidate warmed up (numba compiles or loads from its cache) and timed on
the real inputs -- and then the steady per-call time of the winner. The two kinds of process
alternate over rounds, so a busy moment of the shared machine hits both; tables show medians.
Candidates: matmul BLAS vs the numba tiled loop; each conv op im2col+BLAS vs direct numba loops;
elementwise add (numpy's ufunc, the serial numba loop, the prange loop) and gelu (the serial numba
loop vs the prange loop) on a small (1k) and a large (4M) float32 array: the two sizes fall in
different shape classes, so each is decided on its own. Both kinds of process register the
activations' parallel candidates (ops/activation.py: register_parallel_candidates), so gelu has one.
The last rows time whole training steps (benchmarks/train_mlp.py and train_lenet.py) with the same
default / tuned processes: kernels chosen one op at a time must also pay off together (a numba
thread pool that just ran can slow the next BLAS call down, which no single-op timing sees).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import timeit
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent

# name -> (op, shapes, attrs): x/w shapes as the training steps see them
CASES = {
    "mlp fc1 fwd":   ("matmul", [(128, 784), (784, 256)], {}),
    "mlp fc2 fwd":   ("matmul", [(128, 256), (256, 10)], {}),
    "mlp fc1 dW":    ("matmul", [(128, 784), (128, 256)], {"transpose_x": True}),
    "mlp fc2 dX":    ("matmul", [(128, 10), (256, 10)], {"transpose_y": True}),
    "lenet fc1 fwd": ("matmul", [(64, 400), (400, 120)], {}),
    "lenet fc2 fwd": ("matmul", [(64, 120), (120, 84)], {}),
    "lenet conv1":   ("conv2d", [(64, 1, 28, 28), (6, 1, 3, 3)], {"paddings": (1, 1, 1, 1)}),
    "lenet conv1 dW": ("conv2d_grad_filter", [(64, 1, 28, 28), (64, 6, 28, 28)],
                       {"paddings": (1, 1, 1, 1), "filter_size": (3, 3)}),
    "lenet conv2":   ("conv2d", [(64, 6, 14, 14), (16, 6, 5, 5)], {}),
    "lenet conv2 dX": ("conv2d_transpose", [(64, 16, 10, 10), (16, 6, 5, 5)], {"output_size": (14, 14)}),
    "lenet conv2 dW": ("conv2d_grad_filter", [(64, 6, 14, 14), (64, 16, 10, 10)], {"filter_size": (5, 5)}),
    "add 1k":        ("add", [(1024,), (1024,)], {}),
    "add 4M":        ("add", [(1 << 22,), (1 << 22,)], {}),
    "gelu 1k":       ("gelu", [(1024,)], {}),
    "gelu 4M":       ("gelu", [(1 << 22,)], {}),
}


def _call(paddle, op: str, tensors: list, attrs: dict):
    if op == "matmul":
        return lambda: paddle.matmul(*tensors, **attrs)
    if op == "add":
        return lambda: paddle.add(*tensors)
    if op == "gelu":
        return lambda: paddle.nn.functional.gelu(*tensors, **attrs)
    # the conv ops as the backward pass dispatches them (attrs in the op's own NCHW geometry)
    from minipaddle.framework.dispatch import dispatch
    from minipaddle.framework.registry import OPS
    return lambda: dispatch(OPS[op], tuple(tensors), attrs)


def worker(mode: str) -> dict:
    import numba  # noqa: F401 - both kinds of process pay numba's import up front: no case is charged with it
    import numpy as np

    import minipaddle as paddle
    from minipaddle.framework import instrument
    from minipaddle.framework.ops.activation import register_parallel_candidates
    register_parallel_candidates()
    # numba's runtime starts with the first machine code a process loads (~0.15 s): pay it here, in both
    # kinds of process, so that no case's first call is charged with it
    paddle.nn.functional.relu(paddle.to_tensor(np.ones(4, np.float32)))
    if mode == "tuned":
        paddle.incubate.autotune.set_config({"kernel": {"enable": True, "tuning_range": [0, 1], "cache_dir": None}})
    decisions = {}
    def note(e: instrument.AutotuneEvent) -> None:
        decisions[e.op] = e
    unsubscribe = instrument.subscribe(note, kinds=("autotune",))
    rng = np.random.default_rng(0)
    results = {}
    for name, (op, shapes, attrs) in CASES.items():
        tensors = [paddle.to_tensor(rng.standard_normal(s).astype(np.float32)) for s in shapes]
        fn = _call(paddle, op, tensors, attrs)
        decisions.pop(op, None)
        start = time.perf_counter()
        fn()  # tuned: this call tunes
        first = time.perf_counter() - start
        if mode == "tuned":  # the bus is only needed for the decision: time the op path as users run it
            unsubscribe()
        start = time.perf_counter()
        fn()  # the second call sizes the timing loops (the first one loads kernels, and tunes)
        number = max(1, int(0.02 / max(time.perf_counter() - start, 1e-6)))
        per_call = min(timeit.repeat(fn, number=number, repeat=7)) / number
        event = decisions.get(op)
        results[name] = {"first_ms": first * 1e3, "us": per_call * 1e6,
                         "winner": event.winner if event else None,
                         "candidates": {c["name"]: c["time_ns"] for c in event.candidates} if event else None}
        if mode == "tuned":
            unsubscribe = instrument.subscribe(note, kinds=("autotune",))
    unsubscribe()
    return results


# whole training steps, from the training benchmarks: does the per-op choice pay off end to end?
STEPS = {"mlp train step": "train_mlp", "lenet train step": "train_lenet"}
TUNING_STEPS = 2   # the tuned process tunes during the first two steps (the second one meets the backward's
                   # shapes of the first step's ops again: all hits), then runs the winners


def step_worker(mode: str) -> dict:
    """Per training step: the first TUNING_STEPS steps (tuning in "tuned") and the steady time after them."""
    import importlib
    sys.path.insert(0, str(REPO_ROOT / "benchmarks"))
    import minipaddle as paddle
    from minipaddle.framework import autotune
    from minipaddle.framework.ops.activation import register_parallel_candidates
    register_parallel_candidates()
    results = {}
    for name, module in STEPS.items():
        autotune.reset()
        if mode == "tuned":
            paddle.incubate.autotune.set_config({"kernel": {"enable": True, "tuning_range": [0, TUNING_STEPS],
                                                            "cache_dir": None}})
        step, _ = importlib.import_module(module).minipaddle_step()
        start = time.perf_counter()
        for _ in range(TUNING_STEPS):
            step()
        first = time.perf_counter() - start
        start = time.perf_counter()
        step()
        number = max(1, int(0.1 / max(time.perf_counter() - start, 1e-6)))
        per_step = min(timeit.repeat(step, number=number, repeat=7)) / number
        winners = sorted({f"{k.split('|')[0]}:{v['winner']}" for k, v in autotune.cache_entries().items()
                          if v["winner"] not in ("blas", "im2col", "col2im", "numpy")})
        results[name] = {"first_ms": first * 1e3, "us": per_step * 1e6,
                         "winner": ",".join(w for w in winners if w.split(":")[0] in ("conv2d", "conv2d_transpose",
                                                                                      "conv2d_grad_filter", "matmul"))
                         or ("defaults" if mode == "tuned" else None)}
    autotune.reset()
    return results


def run(mode: str) -> dict:
    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", "2")
    out = subprocess.run([sys.executable, __file__, "--worker", mode], capture_output=True, text=True, env=env,
                         cwd=REPO_ROOT, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"{mode} worker failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", help="also write the medians here")
    parser.add_argument("--no-steps", action="store_true", help="skip the whole training steps")
    parser.add_argument("--worker", choices=("default", "tuned", "default-steps", "tuned-steps"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        mode, _, steps = args.worker.partition("-")
        print(json.dumps(step_worker(mode) if steps else worker(mode)))
        return
    runs = {"default": [], "tuned": []}
    for _ in range(args.rounds):
        for mode in runs:
            runs[mode].append({**run(mode), **({} if args.no_steps else run(f"{mode}-steps"))})
    rows = []
    for name in [*CASES, *({} if args.no_steps else STEPS)]:
        default_us = statistics.median(r[name]["us"] for r in runs["default"])
        tuned_us = statistics.median(r[name]["us"] for r in runs["tuned"])
        winners = sorted({r[name]["winner"] or "(one kernel)" for r in runs["tuned"]})
        cost_ms = statistics.median(r[name]["first_ms"] for r in runs["tuned"])
        plain_first = statistics.median(r[name]["first_ms"] for r in runs["default"])
        rows.append({"case": name, "default_us": default_us, "tuned_winner": "/".join(winners),
                     "tuned_us": tuned_us, "speedup": default_us / tuned_us,
                     "tuning_cost_ms": cost_ms - plain_first})
    print(f"autotune benchmark: {platform.processor() or platform.machine()}, {os.cpu_count()} cpus, "
          f"{args.rounds} rounds, medians")
    print(f"{'case':<17}{'default µs':>12}{'tuned µs':>10}{'speedup':>9}{'tuning ms':>11}  tuned winner")
    for r in rows:
        print(f"{r['case']:<17}{r['default_us']:>12.1f}{r['tuned_us']:>10.1f}"
              f"{r['speedup']:>8.2f}x{r['tuning_cost_ms']:>11.1f}  {r['tuned_winner']}")
    print(f"train steps: the first {TUNING_STEPS} steps tune (tuning ms: their extra time), µs is a steady step; "
          "the winner column lists the non-default conv/matmul choices")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
