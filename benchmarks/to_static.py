"""@to_static vs eager: conversion + first-call time, steady-state training-step speed, per-call overhead.

    python benchmarks/to_static.py [--rounds 5] [--json out.json] [--separate] [--cpu]

Four models, each trained eagerly and converted with `paddle.jit.to_static` (one decorator):
  - mlp:    the train_mlp model (784-256-10, ReLU, cross-entropy, SGD, batch 128);
  - branch: the same shapes with a data-dependent `if` on a tensor in forward (a `cond` op once
            converted; both branches are taken during the timed steps);
  - gelu:   static_vs_eager's GELU MLP training step (512-512-512-10, GELU by its tanh formula);
  - lenet:  train_lenet's LeNet-5 (batch 64, 1x28x28).
A converted model that trains runs its forward and backward Programs -- optimized by the default
passes (fusion, CSE, dead code, buffer reuse) -- through the Executor as one `run_program` op.
Targets: gelu >= 1.3x eager, mlp >= 1.05x, branch >= 1.0x, lenet >= 1.0x; and a tiny converted call
(Linear(4, 4) + ReLU, forward with grad) at most 1.5x the eager call.
And the GELU MLP's forward under no_grad (eval): a converted call that needs no gradient runs the
optimized forward Program too (fused GELU).
Also, in a new process (after eager steps, so kernel compilation is not counted): the time of
`to_static` itself, and the first converted call minus the second (AST conversion + Program build).
Steady state: the variants share one worker process and take turns in short windows (a burst of load
on a shared machine hits all alike); steps/s is a variant's best window, and a target's ratio is the
median over back-to-back pairs of ~10 ms bursts, eager then converted or the other way round (a paired
measurement: steadier than a ratio of two best windows on a machine whose speed drifts).
--separate runs one process per variant instead, alternating over rounds; --cpu counts each step's
CPU time (time.process_time, one BLAS thread) instead: both take medians over rounds.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness  # noqa: E402
from train_mlp import LR, N_HIDDEN, N_IN, N_OUT, data  # noqa: E402

KINDS = ("mlp", "branch", "gelu", "lenet")
TARGETS = {"mlp": 1.05, "branch": 1.0, "gelu": 1.3, "lenet": 1.0}
GELU_WIDTH = 512


def _paddle():
    sys.path.insert(0, str(harness.REPO_ROOT))
    import minipaddle
    return minipaddle


def _models(paddle):
    nn, F = paddle.nn, paddle.nn.functional

    class MLP(nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc1, self.fc2 = nn.Linear(N_IN, N_HIDDEN), nn.Linear(N_HIDDEN, N_OUT)

        def forward(self, x):
            return self.fc2(F.relu(self.fc1(x)))

    class Branch(nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc1, self.fc2 = nn.Linear(N_IN, N_HIDDEN), nn.Linear(N_HIDDEN, N_OUT)

        def forward(self, x):
            h = F.relu(self.fc1(x))
            if paddle.mean(x) > 0:  # data-dependent: the sign of the batch mean picks the branch
                h = h * 0.5
            else:
                h = h + 1.0
            return self.fc2(h)

    class GeluMLP(nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc1, self.fc2 = nn.Linear(GELU_WIDTH, GELU_WIDTH), nn.Linear(GELU_WIDTH, GELU_WIDTH)
            self.out = nn.Linear(GELU_WIDTH, N_OUT)

        def forward(self, x):
            for fc in (self.fc1, self.fc2):
                h = fc(x)
                x = 0.5 * h * (1.0 + paddle.tanh(0.7978845608 * (h + 0.044715 * h * h * h)))
            return self.out(x)

    def lenet():
        from train_lenet import lenet as build
        return build(nn)
    return {"mlp": MLP, "branch": Branch, "gelu": GeluMLP, "lenet": lenet}


def _batches(paddle, kind: str):
    """Two batches (one per branch of the data-dependent model; both are taken while timing)."""
    import numpy as np
    if kind == "lenet":
        from train_lenet import data as lenet_data
        xs, ys = lenet_data()
    elif kind == "gelu":
        rng = np.random.default_rng(0)
        xs = rng.standard_normal((128, GELU_WIDTH)).astype(np.float32)
        ys = rng.integers(0, N_OUT, 128).astype(np.int64)
    else:
        xs, ys = data()
    return [(paddle.to_tensor(xs + 0.5), paddle.to_tensor(ys)), (paddle.to_tensor(xs - 0.5), paddle.to_tensor(ys))]


def _build(kind: str, converted: bool):
    """(step, version, timings): one SGD training step of `kind`, eager or converted."""
    paddle = _paddle()
    F = paddle.nn.functional
    paddle.seed(0)
    model = _models(paddle)[kind]()
    timings = {}
    if converted:
        start = time.perf_counter()
        model = paddle.jit.to_static(model)
        timings["to_static_s"] = time.perf_counter() - start
    opt = paddle.optimizer.SGD(learning_rate=LR, parameters=model.parameters())
    batches = _batches(paddle, kind)
    state = {"i": 0}

    def step():
        x, y = batches[state["i"] % 2]
        state["i"] += 1
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
    return step, paddle.__version__, timings


BUILDERS = {f"{mode}_{kind}": (kind, mode == "static") for kind in KINDS for mode in ("eager", "static")}


def tiny_call_us(rounds: int = 7, calls: int = 2000) -> dict:
    """CPU µs per call of a tiny Linear(4, 4) + ReLU, eager and converted, with grad and under no_grad
    (medians of rounds taking turns in one process)."""
    paddle = _paddle()
    nn = paddle.nn
    paddle.seed(0)
    eager = nn.Sequential(nn.Linear(4, 4), nn.ReLU())
    paddle.seed(0)
    conv = paddle.jit.to_static(nn.Sequential(nn.Linear(4, 4), nn.ReLU()))
    x = paddle.ones([2, 4])
    times: dict = {}
    for model in (eager, conv):
        for _ in range(50):
            model(x)
    for _ in range(rounds):
        for grad in (True, False):
            for label, model in (("eager", eager), ("static", conv)):
                with paddle.set_grad_enabled(grad):
                    start = time.process_time()   # this process's CPU time: others share the machine
                    for _ in range(calls):
                        model(x)
                    us = (time.process_time() - start) / calls * 1e6
                times.setdefault(f"{label}_{'grad' if grad else 'no_grad'}", []).append(us)
    return {k: statistics.median(v) for k, v in times.items()}


def no_grad_forward_ms(rounds: int = 7, calls: int = 50) -> dict:
    """CPU ms per GELU MLP forward under no_grad, eager and converted (medians of rounds taking turns)."""
    paddle = _paddle()
    models = {}
    for label in ("eager", "static"):
        paddle.seed(0)
        model = _models(paddle)["gelu"]()
        models[label] = paddle.jit.to_static(model) if label == "static" else model
    x = _batches(paddle, "gelu")[0][0]
    times: dict = {}
    with paddle.no_grad():
        for model in models.values():
            for _ in range(5):
                model(x)
        for _ in range(rounds):
            for label, model in models.items():
                start = time.process_time()
                for _ in range(calls):
                    model(x)
                times.setdefault(label, []).append((time.process_time() - start) / calls * 1e3)
    return {k: statistics.median(v) for k, v in times.items()}


def worker(name: str, mode: str) -> None:
    if mode == "interleaved":
        print(json.dumps(interleaved(int(name))))
        return
    if mode == "tiny":
        print(json.dumps(tiny_call_us()))
        return
    if mode == "no_grad":
        print(json.dumps(no_grad_forward_ms()))
        return
    kind, converted = BUILDERS[name]
    if mode == "first":
        # eager steps first, so numba's kernel loading and the autotuner's trials are paid before the
        # clock starts: what is left on the converted model's first call is the conversion and the build
        warm = _build(kind, False)[0]
        for _ in range(30):
            warm()
        step, version, timings = _build(kind, converted)
        start = time.perf_counter()
        step()
        first = time.perf_counter() - start
        later = []
        for _ in range(10):
            start = time.perf_counter()
            step()
            later.append(time.perf_counter() - start)
        print(json.dumps({"version": version, "first_step_s": first, "later_step_s": statistics.median(later),
                          **timings}))
        return
    step, version, _ = _build(kind, converted)
    clock = time.process_time if mode == "cpu" else time.perf_counter
    print(json.dumps({"version": version, "steps_per_s": harness.steps_per_second(step, seconds=0.5, clock=clock)}))


def interleaved(rounds: int, seconds: float = 0.25) -> dict:
    """All variants in one process, short windows in rotating order: a burst of load on this
    shared machine hits every variant alike. Best window per variant (as harness's best-of-windows);
    then, per model, the paired ratio of its converted and eager steps (`paired_ratio`)."""
    steps = {n: _build(kind, conv)[0] for n, (kind, conv) in BUILDERS.items()}
    names = list(steps)
    best = dict.fromkeys(names, 0.0)
    for r in range(rounds * 3):
        for n in names[r % len(names):] + names[:r % len(names)]:
            rate = harness.steps_per_second(steps[n], seconds=seconds, windows=1, warmup=2 if r == 0 else 0)
            best[n] = max(best[n], rate)
    paired = {kind: paired_ratio(steps[f"eager_{kind}"], steps[f"static_{kind}"], best[f"eager_{kind}"],
                                 seconds=1.0 * rounds) for kind in KINDS}
    return {"steps_per_s": best, "paired": paired}


def paired_ratio(eager, converted, rate: float, seconds: float, burst_s: float = 0.01) -> float:
    """Median over back-to-back pairs of ~10 ms bursts (which goes first alternates) of the eager burst's
    time / the converted burst's: both halves of a pair see the machine in one state, so its drift
    (this VM has bursts many times slower) cancels in each ratio instead of landing on one variant."""
    burst = max(1, round(burst_s * rate))
    ratios: list[float] = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end or len(ratios) < 5:
        took = {}
        for name, step in ((("e", eager), ("c", converted)) if len(ratios) % 2 else (("c", converted), ("e", eager))):
            start = time.perf_counter()
            for _ in range(burst):
                step()
            took[name] = time.perf_counter() - start
        ratios.append(took["e"] / took["c"])
    return statistics.median(ratios)


def _alternate(names: list[str], rounds: int, mode: str, env: dict | None = None) -> dict:
    """One process per variant and round, the order rotating; the median steps/s of each variant."""
    results: dict = {n: [] for n in names}
    for r in range(rounds):
        for n in names[r % len(names):] + names[:r % len(names)]:
            results[n].append(harness.run_worker(__file__, n, mode, {}, env)["steps_per_s"])
        print(f"round {r + 1}/{rounds}: " + ", ".join(f"{n} {results[n][-1]:.1f}" for n in names), flush=True)
    return {n: statistics.median(v) for n, v in results.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", metavar="PATH")
    parser.add_argument("--separate", action="store_true",
                        help="one process per variant, alternating, instead of interleaved windows")
    parser.add_argument("--cpu", action="store_true",
                        help="separate processes counting CPU time (one BLAS thread): for a shared machine")
    parser.add_argument("--kinds", default=",".join(KINDS), help="which models (comma-separated)")
    parser.add_argument("--no-first", action="store_true", help="skip the first-call timings")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--mode", default="speed", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.worker, args.mode)
        return 0
    kinds = [k for k in args.kinds.split(",") if k]
    names = [n for n in BUILDERS if BUILDERS[n][0] in kinds]
    first = {} if args.no_first else {n: harness.run_worker(__file__, n, "first", {}) for n in names}
    if args.cpu:
        one_thread = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
        speeds = _alternate(names, args.rounds, "cpu", one_thread)
        how = f"median over {args.rounds} rounds of one process per variant, steps per CPU-second (1 thread)"
    elif args.separate:
        speeds = _alternate(names, args.rounds, "speed")
        how = f"median over {args.rounds} rounds of one process per variant (best of 3 windows each)"
    else:
        result = harness.run_worker(__file__, str(args.rounds), "interleaved", {})
        speeds, paired = result["steps_per_s"], result["paired"]
        how = (f"best of {args.rounds * 3} interleaved 0.25 s windows in one process; ratios: the median of "
               "paired back-to-back bursts")
    tiny = harness.run_worker(__file__, "tiny", "tiny", {})
    no_grad = harness.run_worker(__file__, "no_grad", "no_grad", {})
    print(f"\nto_static: training steps/s, {how}; {harness.machine()}")
    print(f"{'variant':16}{'steps/s':>10}{'first call ms':>15}{'later calls ms':>16}{'to_static ms':>14}")
    for n in names:
        f = first.get(n, {})
        conv = f"{f['to_static_s'] * 1000:.0f}" if "to_static_s" in f else "-"
        firsts = f"{f['first_step_s'] * 1000:>15.1f}{f['later_step_s'] * 1000:>16.1f}" if f else f"{'-':>15}{'-':>16}"
        print(f"{n:16}{speeds[n]:>10.1f}{firsts}{conv:>14}")
    ratios = {}
    for kind in kinds:
        best_ratio = speeds[f"static_{kind}"] / speeds[f"eager_{kind}"]
        if args.cpu or args.separate:   # (medians over rounds already)
            ratios[kind], note = best_ratio, ""
        else:
            ratios[kind], note = paired[kind], f" (best windows: {best_ratio:.2f}x)"
        verdict = "ok" if ratios[kind] >= TARGETS[kind] else "MISSED"
        print(f"target static_{kind} / eager_{kind} >= {TARGETS[kind]}x: {ratios[kind]:.2f}x {verdict}{note}")
        f = first.get(f"static_{kind}")
        if f:
            extra = f["first_step_s"] - f["later_step_s"]
            print(f"  {kind}: to_static() {f['to_static_s'] * 1000:.0f} ms; conversion + Program build on the "
                  f"first call {extra * 1000:.0f} ms")
    for grad in ("grad", "no_grad"):
        ratio = tiny[f"static_{grad}"] / tiny[f"eager_{grad}"]
        verdict = "" if grad == "no_grad" else (" ok" if ratio <= 1.5 else " MISSED (target <= 1.5x)")
        print(f"tiny call ({grad}): eager {tiny[f'eager_{grad}']:.1f} us, converted {tiny[f'static_{grad}']:.1f} us, "
              f"{ratio:.2f}x{verdict}")
    print(f"gelu forward under no_grad: eager {no_grad['eager']:.2f} ms, converted {no_grad['static']:.2f} ms "
          f"(CPU time), {no_grad['eager'] / no_grad['static']:.2f}x")
    if args.json:
        Path(args.json).write_text(json.dumps({"machine": harness.machine(), "steps_per_s": speeds, "ratios": ratios,
                                               "first": first,
                                               "tiny_call_us": tiny, "no_grad_forward_ms": no_grad}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
