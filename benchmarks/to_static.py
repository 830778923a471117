"""@to_static vs eager: conversion + first-call time, and steady-state training-step speed.

    python benchmarks/to_static.py [--rounds 5] [--json out.json] [--separate]

Two models, each trained eagerly and converted with `paddle.jit.to_static` (one decorator):
  - mlp:    the train_mlp model (784-256-10, ReLU, cross-entropy, SGD, batch 128);
  - branch: the same shapes with a data-dependent `if` on a tensor in forward (a `cond` op once
            converted; both branches are taken during the timed steps).
A converted model's forward runs its Program through `run_program` (ops dispatched eagerly, so
autograd records them); the same kernels run, so the target is parity: converted >= 0.9x eager.
Also, in a new process (after one eager step, so kernel compilation is not counted): the time of
`to_static` itself, and the first converted call minus the second (AST conversion + Program build).
Steady state: the four variants share one worker process and take turns in short windows (a
burst of load on a shared machine hits all alike); --separate runs one process per variant instead,
alternating over rounds as the other training benchmarks do.
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
    return {"mlp": MLP, "branch": Branch}


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
    xs, ys = data()
    # two batches, one per branch of the data-dependent model (both are taken while timing)
    batches = [(paddle.to_tensor(xs + 0.5), paddle.to_tensor(ys)), (paddle.to_tensor(xs - 0.5), paddle.to_tensor(ys))]
    state = {"i": 0}

    def step():
        x, y = batches[state["i"] % 2]
        state["i"] += 1
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
    return step, paddle.__version__, timings


BUILDERS = {f"{mode}_{kind}": (kind, mode == "static") for kind in ("mlp", "branch") for mode in ("eager", "static")}


def worker(name: str, mode: str) -> None:
    if mode == "interleaved":
        print(json.dumps(interleaved(int(name))))
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
    print(json.dumps({"version": version, "steps_per_s": harness.steps_per_second(step, seconds=0.5)}))


def interleaved(rounds: int, seconds: float = 0.25) -> dict:
    """All four variants in one process, short windows in rotating order: a burst of load on this
    shared machine hits every variant alike. Best window per variant (as harness's best-of-windows)."""
    steps = {n: _build(kind, conv)[0] for n, (kind, conv) in BUILDERS.items()}
    names = list(steps)
    best = dict.fromkeys(names, 0.0)
    for r in range(rounds * 3):
        for n in names[r % len(names):] + names[:r % len(names)]:
            rate = harness.steps_per_second(steps[n], seconds=seconds, windows=1, warmup=2 if r == 0 else 0)
            best[n] = max(best[n], rate)
    return {"steps_per_s": best}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", metavar="PATH")
    parser.add_argument("--separate", action="store_true",
                        help="one process per variant, alternating (harness.alternate) instead of interleaved windows")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--mode", default="speed", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.worker, args.mode)
        return 0
    names = list(BUILDERS)
    first = {n: harness.run_worker(__file__, n, "first", {}) for n in names}
    if args.separate:
        results = harness.alternate(__file__, names, args.rounds)
        speeds = {n: statistics.median(r["steps_per_s"] for r in rs) for n, rs in results.items()}
        how = f"median over {args.rounds} rounds of one process per variant (best of 3 windows each)"
    else:
        speeds = harness.run_worker(__file__, str(args.rounds), "interleaved", {})["steps_per_s"]
        how = f"best of {args.rounds * 3} interleaved 0.25 s windows in one process"
    print(f"\nto_static: training steps/s, {how}; {harness.machine()}")
    print(f"{'variant':16}{'steps/s':>10}{'first call ms':>15}{'later calls ms':>16}{'to_static ms':>14}")
    for n in names:
        f = first[n]
        conv = f"{f['to_static_s'] * 1000:.0f}" if "to_static_s" in f else "-"
        print(f"{n:16}{speeds[n]:>10.1f}{f['first_step_s'] * 1000:>15.1f}{f['later_step_s'] * 1000:>16.1f}{conv:>14}")
    for kind in ("mlp", "branch"):
        ratio = speeds[f"static_{kind}"] / speeds[f"eager_{kind}"]
        verdict = "ok" if ratio >= 0.9 else "MISSED"
        print(f"target static_{kind} / eager_{kind} >= 0.9x (parity): {ratio:.2f}x {verdict}")
        f = first[f"static_{kind}"]
        extra = f["first_step_s"] - f["later_step_s"]
        print(f"{kind}: to_static() {f['to_static_s'] * 1000:.0f} ms (the jit package's first import); "
              f"conversion + Program build on the first call {extra * 1000:.0f} ms")
    if args.json:
        Path(args.json).write_text(json.dumps({"machine": harness.machine(), "steps_per_s": speeds,
                                               "first": first}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
