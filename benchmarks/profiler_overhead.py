"""What the profiler costs: the MLP training step with paddle.profiler off, recording, and outside its window.

    python benchmarks/profiler_overhead.py [--rounds 5] [--json out.json]

The step is benchmarks/train_mlp.py's (784-256-10, ReLU, cross-entropy, SGD, batch 128, float32).
Variants, each in its own worker process, alternating over rounds (medians in the table):

    off        no profiler
    on         one Profiler(with_flops=True) recording every step (prof.step() after each), as a
               learner profiles a few steps of a loop; its summary is built after the timing, untimed
    closed     a Profiler whose scheduler window is over (scheduler=(0, 1)): the cost of a started
               profiler outside its window (the step timer and the phase hooks only)

Workers run single-threaded and are timed in process CPU time, best of 3 windows (as in
instrument_overhead.py: what is compared is Python-side overhead). Target: on <= 1.3x off.
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
import train_mlp  # noqa: E402

VARIANTS = ("off", "on", "closed")
TARGET = 1.3
ENV = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"}


def worker(name: str) -> None:
    sys.path.insert(0, str(harness.REPO_ROOT))
    import minipaddle as paddle
    step, version = train_mlp.minipaddle_step()
    prof = None
    if name != "off":
        prof = paddle.profiler.Profiler(with_flops=True, scheduler=(0, 1) if name == "closed" else None)
        prof.start()
        plain = step

        def step():
            plain()
            prof.step(num_samples=train_mlp.BATCH)
    result = {"version": version, "steps_per_s": harness.steps_per_second(step, clock=time.process_time)}
    if prof is not None:
        prof.stop()
        start = time.perf_counter()
        prof.result.summary_text()
        result["summary_s"] = time.perf_counter() - start
        result["recorded_steps"] = len(prof.result.collector.steps)
    print(json.dumps(result))


def measure(rounds: int) -> dict:
    results = harness.alternate(__file__, list(VARIANTS), rounds, env=ENV)
    on = results["on"]
    return {"samples": {n: [r["steps_per_s"] for r in rs] for n, rs in results.items()},
            "recorded_steps": on[-1]["recorded_steps"], "summary_s": [r["summary_s"] for r in on],
            "version": on[-1]["version"]}


def report(data: dict, rounds: int, json_path: str | None) -> None:
    s = data["samples"]
    median = {n: statistics.median(v) for n, v in s.items()}
    on_cost = statistics.median(a / b for a, b in zip(s["off"], s["on"]))  # paired per round
    closed_cost = statistics.median(a / b for a, b in zip(s["off"], s["closed"]))
    print(f"\nprofiler_overhead: MLP training step, median over {rounds} rounds (CPU time, 1 thread, best of 3 "
          f"windows each); {harness.machine()}")
    print(f"minipaddle {data.get('version')}")
    print(f"{'variant':10}{'steps/s':>10}{'ms/step':>10}{'x off':>10}")
    for v in VARIANTS:
        print(f"{v:10}{median[v]:>10.1f}{1e3 / median[v]:>10.2f}{median['off'] / median[v]:>9.3f}x")
    print(f"(the last 'on' worker recorded {data.get('recorded_steps')} steps; building its summary took "
          f"{statistics.median(data.get('summary_s', [0])):.2f} s)")
    print(f"target: profiler on <= {TARGET:.1f}x off (paired median): {on_cost:.3f}x "
          f"{'ok' if on_cost <= TARGET else 'MISSED'}; outside its window: {closed_cost:.3f}x")
    if json_path:
        Path(json_path).write_text(json.dumps({"machine": harness.machine(), "samples": s, "on_cost": on_cost,
                                               "closed_cost": closed_cost}, indent=2))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", metavar="PATH")
    parser.add_argument("--worker", choices=VARIANTS, help=argparse.SUPPRESS)
    parser.add_argument("--mode", default="speed", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.worker)
        return 0
    report(measure(args.rounds), args.rounds, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
