"""Training on the GPU end to end: minipaddle against PyTorch CUDA on the same GPU, in the same run.

    python benchmarks/gpu.py [--rounds 3] [--json benchmarks/results/gpu.json]
    NUMBA_ENABLE_CUDASIM=1 python benchmarks/gpu.py --quick --json out.json    # every path, tiny sizes

What it measures, each framework in a process of its own, the two alternating over `--rounds`, medians:
- training steps/s (forward, cross-entropy, backward, SGD step; float32, TF32 off in PyTorch) of the MLP
  784-256-10 of train_mlp.py and LeNet-5 of train_lenet.py, built as nn.Layers after
  `paddle.set_device("gpu")`, at batch 64 and 512; each window of steps ends with a synchronize;
- the kernels a minipaddle step launches (counted in kernels/cuda/launch.launch);
- launch overhead: microseconds per add of two 16-float tensors, back to back (synchronized once at the
  end) and one at a time (synchronized after each);
- the optimizer: Adam on a 1M-parameter MLP (784-1024-256-10), minipaddle's fused update (one kernel
  per parameter, kernels/cuda/optimizer.py) against the same rule written as a chain of minipaddle
  elementwise ops (AdamByOps, 12 ops per parameter), and PyTorch's fused Adam. The first update of each
  is compared: the two minipaddle updates must agree to float32 rounding;
- the memory pool: the training steps again in a process with FLAGS_allocator_strategy="naive_best_fit"
  (every array from numba's allocator), and the pool's hit rate and peak reserved memory.
The notes say where minipaddle is launch-bound: kernels per step x the tiny op's time against the step.

`--quick` runs one round on tiny sizes in float64 (the simulator's cheapest matmul), so the whole script
runs under numba's CUDA simulator in well under a minute; PyTorch then runs on its CPU. Timings there
mean nothing: the run checks that every path works and every figure is written. Without a GPU (and
without the simulator) it prints "no GPU: not measured" and exits with status 0.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
import types
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness  # noqa: E402
import train_lenet  # noqa: E402
import train_mlp  # noqa: E402

LR = 0.01
MODELS = ("mlp", "lenet")
LAUNCH_BOUND_SHARE = 0.5   # launches' estimated host time over half the step: the GPU waits on the host


def tiny_lenet(nn):
    """LeNet's layers (two conv + pool stages, three Linear) on 1x8x8 inputs: the simulator runs it in seconds."""
    return nn.Sequential(
        nn.Conv2D(1, 2, 3, stride=1, padding=1), nn.ReLU(), nn.MaxPool2D(2, 2),
        nn.Conv2D(2, 2, 3, stride=1, padding=0), nn.ReLU(), nn.MaxPool2D(2, 2),
        nn.Flatten(), nn.Linear(2, 4), nn.Linear(4, 4), nn.Linear(4, 10))


def mlp(nn, widths):
    """Linear layers of the given widths with ReLU between: mlp(nn, (784, 256, 10)) is train_mlp's model."""
    layers = []
    for n_in, n_out in zip(widths[:-1], widths[1:]):
        layers += [nn.Linear(n_in, n_out), nn.ReLU()]
    return nn.Sequential(*layers[:-1])


@dataclass(frozen=True)
class Sizes:
    batches: tuple
    mlp: tuple            # widths of the MLP
    lenet: object         # builder: nn -> the LeNet model
    image: tuple          # one LeNet input
    adam: tuple           # widths of the MLP whose parameters Adam updates
    dtype: str
    warmup: int           # untimed steps first (compile or load numba's cache, clocks up)
    windows: int          # timing windows; the best counts
    seconds: float        # each window's length (at least one step)
    tiny_calls: int


FULL = Sizes(batches=(64, 512), mlp=(train_mlp.N_IN, train_mlp.N_HIDDEN, train_mlp.N_OUT), lenet=train_lenet.lenet,
             image=(1, 28, 28), adam=(784, 1024, 256, 10), dtype="float32", warmup=5, windows=3, seconds=0.5,
             tiny_calls=2000)
QUICK = Sizes(batches=(1, 2), mlp=(16, 8, 4), lenet=tiny_lenet, image=(1, 8, 8), adam=(8, 4), dtype="float64",
              warmup=0, windows=1, seconds=0.0, tiny_calls=3)


def simulator_on() -> bool:
    return os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")


def batch_of(model: str, batch: int, sizes: Sizes):
    """Synthetic inputs and labels for one step of `model` (the same numbers in both frameworks)."""
    import numpy as np
    rng = np.random.default_rng(0)
    shape, classes = ((batch, sizes.mlp[0]), sizes.mlp[-1]) if model == "mlp" else ((batch, *sizes.image), 10)
    return rng.standard_normal(shape).astype(sizes.dtype), rng.integers(0, classes, size=batch).astype("int64")


def build(nn, model: str, sizes: Sizes):
    return mlp(nn, sizes.mlp) if model == "mlp" else sizes.lenet(nn)


def torch_nn_as_paddle(torch_nn):
    """torch.nn under Paddle's layer names, so one builder makes the same network in both frameworks."""
    return types.SimpleNamespace(Sequential=torch_nn.Sequential, Linear=torch_nn.Linear, ReLU=torch_nn.ReLU,
                                 Conv2D=torch_nn.Conv2d, MaxPool2D=torch_nn.MaxPool2d, Flatten=torch_nn.Flatten)


# ---- timing ---------------------------------------------------------------------------------------------
def steps_per_second(step, sync, sizes: Sizes) -> tuple[float, int]:
    """(best steps/s over the windows, steps timed). Kernels queue asynchronously, so a window runs steps
    for `seconds` of host time, then waits for the GPU: the rate counts the work, not the queueing."""
    best, steps = 0.0, 0
    for _ in range(sizes.windows):
        n, start = 0, time.perf_counter()
        while True:
            step()
            n += 1
            if time.perf_counter() - start >= sizes.seconds:
                break
        sync()
        best = max(best, n / (time.perf_counter() - start))
        steps += n
    return best, steps


def warm_up(step, sync, n: int) -> None:
    for _ in range(n):
        step()
    sync()


def tiny_op_us(add, a, b, sync, calls: int) -> tuple[float, float]:
    """Microseconds per add(a, b): back to back, synchronized at the end; and synchronized after each."""
    warm_up(lambda: add(a, b), sync, min(calls, 100))
    start = time.perf_counter()
    for _ in range(calls):
        add(a, b)
    sync()
    back_to_back = (time.perf_counter() - start) / calls * 1e6
    one_at_a_time = max(1, calls // 4)
    start = time.perf_counter()
    for _ in range(one_at_a_time):
        add(a, b)
        sync()
    return back_to_back, (time.perf_counter() - start) / one_at_a_time * 1e6


# ---- minipaddle ---------------------------------------------------------------------------------------------
class AdamByOps:
    """Adam as a chain of minipaddle elementwise ops -- 12 kernels per parameter where the fused update
    launches one. The same rule as optimizer/adam.py (bias corrections folded into lr and epsilon)."""

    def __init__(self, parameters, learning_rate=1e-3, beta1=0.9, beta2=0.999, epsilon=1e-8):
        import minipaddle as paddle
        self.parameters, self.lr, self.epsilon = parameters, learning_rate, epsilon
        self.beta1, self.beta2 = beta1, beta2
        self.moments = [(paddle.zeros_like(p), paddle.zeros_like(p)) for p in parameters]
        self.t = 0

    def step(self) -> None:
        import minipaddle as paddle
        self.t += 1
        b1, b2 = self.beta1, self.beta2
        bias2 = math.sqrt(1 - b2 ** self.t)
        lr_t, eps_t = self.lr * bias2 / (1 - b1 ** self.t), self.epsilon * bias2
        with paddle.no_grad():
            for i, p in enumerate(self.parameters):
                g, (m, v) = p.grad, self.moments[i]
                m = m * b1 + g * (1 - b1)
                v = v * b2 + g * g * (1 - b2)
                paddle.assign(p - m / (paddle.sqrt(v) + eps_t) * lr_t, output=p)
                self.moments[i] = (m, v)


def timed_with_kernels(step, sync, sizes: Sizes) -> tuple[float, float]:
    """(steps/s, kernels launched per step) of `step` after its warm-up; the launches are counted where
    kernels/cuda/launch.launch notes them, one list append each: far below the launch itself."""
    from minipaddle.framework.kernel_launches import launch_log
    warm_up(step, sync, sizes.warmup)
    launch_log.launches = []
    try:
        rate, steps = steps_per_second(step, sync, sizes)
        return rate, len(launch_log.launches) / steps
    finally:
        launch_log.launches = None


def minipaddle_training(paddle, model: str, batch: int, sizes: Sizes, sync) -> dict:
    """Steps/s of one model and batch, and the kernels launched per timed step."""
    paddle.seed(0)
    net = build(paddle.nn, model, sizes)
    net.to(dtype=sizes.dtype)
    opt = paddle.optimizer.SGD(learning_rate=LR, parameters=net.parameters())
    xs, ys = batch_of(model, batch, sizes)
    x, y = paddle.to_tensor(xs), paddle.to_tensor(ys)

    def step():
        loss = paddle.nn.functional.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
    rate, kernels = timed_with_kernels(step, sync, sizes)
    return {f"steps_per_s/{model}/{batch}": rate, f"kernels_per_step/{model}/{batch}": kernels}


def minipaddle_adam(paddle, sizes: Sizes, sync) -> dict:
    """Fused Adam against AdamByOps on one model's parameters (their gradients kept from one backward)."""
    import numpy as np
    paddle.seed(0)
    net = mlp(paddle.nn, sizes.adam)
    net.to(dtype=sizes.dtype)
    params = net.parameters()
    x = paddle.to_tensor(np.random.default_rng(1).standard_normal((8, sizes.adam[0])).astype(sizes.dtype))
    net(x).sum().backward()
    start = [p.numpy() for p in params]
    fused, by_ops = paddle.optimizer.Adam(learning_rate=1e-3, parameters=params), AdamByOps(params, 1e-3)
    updates, out = {}, {"adam/parameters": sum(int(p.size) for p in params), "adam/tensors": len(params)}
    for name, opt in (("fused", fused), ("unfused", by_ops)):
        with paddle.no_grad():
            for p, values in zip(params, start):
                paddle.assign(paddle.to_tensor(values), output=p)
        opt.step()
        updates[name] = [p.numpy() - values for p, values in zip(params, start)]
    out["adam/relative_difference"] = max(float(np.abs(u - f).max() / (np.abs(f).max() or 1.0))
                                          for u, f in zip(updates["unfused"], updates["fused"]))
    for name, opt in (("fused", fused), ("unfused", by_ops)):
        rate, out[f"adam/{name}_kernels"] = timed_with_kernels(opt.step, sync, sizes)
        out[f"adam/{name}_ms"] = 1e3 / rate
    return out


def minipaddle_worker(sizes: Sizes) -> dict:
    if simulator_on():
        sys.setswitchinterval(1e-5)  # the simulator's GPU threads meet at barriers (tests/device/cuda/conftest.py)
    sys.path.insert(0, str(harness.REPO_ROOT))
    import minipaddle as paddle
    from minipaddle.framework import gpu
    paddle.set_device("gpu")
    sync = paddle.device.cuda.synchronize
    out = {"version": paddle.__version__, "device": gpu.device_name()}
    for model in MODELS:
        for batch in sizes.batches:
            out.update(minipaddle_training(paddle, model, batch, sizes, sync))
    a, b = paddle.ones([16], dtype="float32"), paddle.ones([16], dtype="float32")
    out["tiny_add_us"], out["tiny_add_synced_us"] = tiny_op_us(paddle.add, a, b, sync, sizes.tiny_calls)
    out.update(minipaddle_adam(paddle, sizes, sync))
    stats = paddle.device.cuda.memory_stats()
    if stats:
        out["pool/hit_rate"], out["pool/peak_reserved_mb"] = stats["hit_rate"], stats["peak_reserved"] / 2**20
    return out


def minipaddle_nopool_worker(sizes: Sizes) -> dict:
    """The training steps again with every array from numba's own allocator (no caching pool)."""
    sys.path.insert(0, str(harness.REPO_ROOT))
    import minipaddle as paddle
    paddle.set_flags({"FLAGS_allocator_strategy": "naive_best_fit"})  # before the GPU's first use
    paddle.set_device("gpu")
    out = {}
    for model in MODELS:
        for batch in sizes.batches:
            rate = minipaddle_training(paddle, model, batch, sizes, paddle.device.cuda.synchronize)
            out[f"nopool/steps_per_s/{model}/{batch}"] = rate[f"steps_per_s/{model}/{batch}"]
    return out


# ---- PyTorch ---------------------------------------------------------------------------------------------------
def torch_training(torch, model: str, batch: int, sizes: Sizes, device: str, sync) -> float:
    torch.manual_seed(0)
    net = build(torch_nn_as_paddle(torch.nn), model, sizes).to(device)
    opt = torch.optim.SGD(net.parameters(), lr=LR)
    xs, ys = batch_of(model, batch, sizes)
    x, y = torch.from_numpy(xs).to(device), torch.from_numpy(ys).to(device)

    def step():
        loss = torch.nn.functional.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
    warm_up(step, sync, sizes.warmup)
    return steps_per_second(step, sync, sizes)[0]


def torch_worker(sizes: Sizes) -> dict:
    """PyTorch on the GPU; on its CPU under the simulator (only to run the paths); nothing on a GPU
    machine whose torch has no CUDA."""
    import torch
    cuda = torch.cuda.is_available()
    if not cuda and not simulator_on():
        return {"version": torch.__version__, "device": None}
    out = {"version": torch.__version__, "device": torch.cuda.get_device_name() if cuda else "cpu"}
    device = "cuda" if cuda else "cpu"
    torch.backends.cuda.matmul.allow_tf32 = False   # true float32, as minipaddle computes
    torch.backends.cudnn.allow_tf32 = False
    torch.set_default_dtype(getattr(torch, sizes.dtype))
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    for model in MODELS:
        for batch in sizes.batches:
            out[f"steps_per_s/{model}/{batch}"] = torch_training(torch, model, batch, sizes, device, sync)
    a, b = torch.ones(16, device=device, dtype=torch.float32), torch.ones(16, device=device, dtype=torch.float32)
    out["tiny_add_us"], out["tiny_add_synced_us"] = tiny_op_us(torch.add, a, b, sync, sizes.tiny_calls)
    net = mlp(torch_nn_as_paddle(torch.nn), sizes.adam).to(device)
    net(torch.randn(8, sizes.adam[0], device=device)).sum().backward()
    opt = torch.optim.Adam(net.parameters(), lr=1e-3, fused=True if cuda else None)
    warm_up(opt.step, sync, max(sizes.warmup, 1))
    out["adam/torch_ms"] = 1e3 / steps_per_second(opt.step, sync, sizes)[0]
    return out


WORKERS = {"minipaddle": minipaddle_worker, "minipaddle_nopool": minipaddle_nopool_worker, "torch": torch_worker}


# ---- the driver -------------------------------------------------------------------------------------------------
def gpu_present() -> bool:
    """Whether there is anything to measure: a GPU numba.cuda sees, or its simulator switched on."""
    sys.path.insert(0, str(harness.REPO_ROOT))
    from minipaddle.framework import gpu
    return gpu.available()


def run_round(names: list[str], r: int, mode: str, results: dict, failures: list[str]) -> None:
    """Every worker once, the order rotating with the round `r` so a busy moment hits both; a failing
    worker is noted in `failures` and left out: the other's figures still count."""
    for name in names[r % len(names):] + names[:r % len(names)]:
        try:
            results[name].append(harness.run_worker(__file__, name, mode, {}))
        except RuntimeError as error:
            failures.append(f"round {r + 1}: {error}")


def medians(rounds: list[dict]) -> dict:
    """Each figure's median over the rounds; the text fields (version, device) of the last round."""
    if not rounds:
        return {}
    out = dict(rounds[-1])
    for key, value in rounds[-1].items():
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            out[key] = statistics.median(r[key] for r in rounds if r.get(key) is not None)
    return out


def ratio(a, b):
    return a / b if a is not None and b else None


def training_rows(mine: dict, peer: dict, sizes: Sizes) -> list[dict]:
    """One row per model and batch; the launch estimate is kernels/step x the tiny op's time."""
    rows = []
    for model in MODELS:
        for batch in sizes.batches:
            rate, kernels = mine.get(f"steps_per_s/{model}/{batch}"), mine.get(f"kernels_per_step/{model}/{batch}")
            peer_rate = peer.get(f"steps_per_s/{model}/{batch}")
            launch_ms = kernels * mine["tiny_add_us"] / 1e3 if kernels is not None and "tiny_add_us" in mine else None
            step_ms = ratio(1e3, rate)
            share = ratio(launch_ms, step_ms)
            rows.append({"model": model, "batch": batch, "dtype": sizes.dtype,
                         "minipaddle_steps_per_s": rate, "torch_steps_per_s": peer_rate,
                         "of_torch": ratio(rate, peer_rate), "minipaddle_step_ms": step_ms,
                         "torch_step_ms": ratio(1e3, peer_rate), "kernels_per_step": kernels,
                         "launch_ms_per_step": launch_ms, "launch_share": share,
                         "launch_bound": None if share is None else share >= LAUNCH_BOUND_SHARE})
    return rows


def pool_rows(mine: dict, nopool: dict, sizes: Sizes) -> list[dict]:
    """Steps/s with the caching pool (the default) and with numba's allocator, per model and batch."""
    rows = []
    for model in MODELS:
        for batch in sizes.batches:
            pooled, plain = mine.get(f"steps_per_s/{model}/{batch}"), nopool.get(f"nopool/steps_per_s/{model}/{batch}")
            rows.append({"model": model, "batch": batch, "pool_steps_per_s": pooled, "no_pool_steps_per_s": plain,
                         "pool_speedup": ratio(pooled, plain)})
    return rows


def assemble(mine: dict, peer: dict, sizes: Sizes, rounds: int, failures: list[str],
             nopool: dict | None = None) -> dict:
    tiny = {"op": "add of two 16-float float32 tensors", "minipaddle_us": mine.get("tiny_add_us"),
            "torch_us": peer.get("tiny_add_us"), "minipaddle_synced_us": mine.get("tiny_add_synced_us"),
            "torch_synced_us": peer.get("tiny_add_synced_us")}
    tiny["times_torch"] = ratio(tiny["minipaddle_us"], tiny["torch_us"])
    adam = {key.split("/", 1)[1]: value for key, value in {**mine, **peer}.items() if key.startswith("adam/")}
    adam["unfused_over_fused"] = ratio(adam.get("unfused_ms"), adam.get("fused_ms"))
    adam["fused_times_torch"] = ratio(adam.get("fused_ms"), adam.get("torch_ms"))
    result = {"quick": sizes is QUICK, "simulator": simulator_on(), "rounds": rounds, "machine": harness.machine(),
              "device": mine.get("device"), "torch_device": peer.get("device"),
              "versions": {"minipaddle": mine.get("version"), "torch": peer.get("version")},
              "training": training_rows(mine, peer, sizes), "tiny_op": tiny, "adam": adam, "failures": failures,
              "memory_pool": {"rows": pool_rows(mine, nopool or {}, sizes), "hit_rate": mine.get("pool/hit_rate"),
                              "peak_reserved_mb": mine.get("pool/peak_reserved_mb")}}
    result["notes"] = notes(result)
    return result


def notes(result: dict) -> list[str]:
    out = []
    if result["simulator"]:
        out.append("simulator: every path ran; the timings mean nothing (GPU threads are Python threads, "
                   "PyTorch ran on its CPU)")
    if result["torch_device"] is None:
        out.append("PyTorch: not installed here, or without CUDA: no peer figures")
    tiny = result["tiny_op"]
    for row in result["training"]:
        if row["launch_share"] is None:
            continue
        verdict = "launch-bound" if row["launch_bound"] else "not launch-bound"
        out.append(f"{row['model']} batch {row['batch']}: {row['kernels_per_step']:.0f} kernels/step x "
                   f"{tiny['minipaddle_us']:.1f} us per tiny op = {row['launch_ms_per_step']:.2f} ms of launch "
                   f"overhead vs {row['minipaddle_step_ms']:.2f} ms per step measured: {verdict} "
                   f"({row['launch_share']:.0%} of the step)")
    adam = result["adam"]
    if adam.get("unfused_over_fused") is not None:
        out.append(f"Adam, {adam['parameters']:,} parameters in {adam['tensors']} tensors: fused "
                   f"{adam['fused_ms']:.3f} ms ({adam['fused_kernels']:.0f} kernels) vs unfused "
                   f"{adam['unfused_ms']:.3f} ms ({adam['unfused_kernels']:.0f} kernels): "
                   f"fused is {adam['unfused_over_fused']:.1f}x faster")
    pool = result["memory_pool"]
    if pool["hit_rate"] is None:
        out.append("memory pool: off here (the simulator has no device memory to pool)")
    for row in pool["rows"]:
        if row["pool_speedup"] is not None:
            out.append(f"memory pool, {row['model']} batch {row['batch']}: {row['pool_steps_per_s']:.1f} steps/s with "
                       f"it, {row['no_pool_steps_per_s']:.1f} without ({row['pool_speedup']:.2f}x)")
    return out + [f"failed: {f.strip().splitlines()[-1]}" for f in result["failures"]]


def table(result: dict) -> str:
    def cell(value, fmt):
        return "-" if value is None else format(value, fmt)
    lines = [f"GPU training on {result['device']} ({result['training'][0]['dtype']}, "
             f"median of {result['rounds']} round(s)); PyTorch on {result['torch_device']}",
             "versions: " + ", ".join(f"{k} {v}" for k, v in result["versions"].items()),
             f"{'model':<6}{'batch':>6}{'minipaddle/s':>13}{'torch/s':>10}{'of torch':>9}{'kernels':>8}{'launch':>7}"]
    for r in result["training"]:
        lines.append(f"{r['model']:<6}{r['batch']:>6}{cell(r['minipaddle_steps_per_s'], '.1f'):>13}"
                     f"{cell(r['torch_steps_per_s'], '.1f'):>10}{cell(r['of_torch'], '.2f'):>9}"
                     f"{cell(r['kernels_per_step'], '.0f'):>8}{cell(r['launch_share'], '.0%'):>7}")
    tiny, adam = result["tiny_op"], result["adam"]
    lines.append(f"tiny add (16 floats): minipaddle {cell(tiny['minipaddle_us'], '.1f')} us back to back, "
                 f"{cell(tiny['minipaddle_synced_us'], '.1f')} us synchronized; PyTorch {cell(tiny['torch_us'], '.1f')}"
                 f" / {cell(tiny['torch_synced_us'], '.1f')} us")
    lines.append(f"Adam update: fused {cell(adam.get('fused_ms'), '.3f')} ms, "
                 f"unfused {cell(adam.get('unfused_ms'), '.3f')} ms, PyTorch fused {cell(adam.get('torch_ms'), '.3f')} "
                 "ms; unfused vs fused first update: "
                 f"{cell(adam.get('relative_difference'), '.1e')} relative")
    return "\n".join(lines + ["notes:"] + [f"  {n}" for n in result["notes"]])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", metavar="PATH", help="write every figure here")
    parser.add_argument("--quick", action="store_true", help="tiny sizes, one round (runs under the simulator)")
    parser.add_argument("--worker", choices=list(WORKERS), help=argparse.SUPPRESS)
    parser.add_argument("--mode", default="full", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(WORKERS[args.worker](QUICK if args.mode == "quick" else FULL)))
        return 0
    if not gpu_present():
        print("no GPU: not measured (numba.cuda sees no device; NUMBA_ENABLE_CUDASIM=1 runs --quick "
              "under the simulator)")
        return 0
    sizes, rounds = (QUICK, 1) if args.quick else (FULL, max(1, args.rounds))
    names = [n for n in WORKERS if harness.available(n, {})]
    results, failures = {n: [] for n in names}, []
    for r in range(rounds):
        run_round(names, r, "quick" if args.quick else "full", results, failures)
        print(f"round {r + 1}/{rounds} done", flush=True)
        result = assemble(medians(results["minipaddle"]), medians(results.get("torch", [])), sizes, r + 1, failures,
                          medians(results.get("minipaddle_nopool", [])))
        if args.json:  # after every round: a run stopped by a time limit keeps the rounds it finished
            Path(args.json).parent.mkdir(parents=True, exist_ok=True)
            Path(args.json).write_text(json.dumps(result, indent=1) + "\n")
    print(table(result))
    if args.json:
        print(f"wrote {args.json}")
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
