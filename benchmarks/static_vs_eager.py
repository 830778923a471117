"""Eager vs static graphs: the MLP training step (784-256-10, ReLU, cross-entropy, SGD, batch 128) run
eagerly, as a static Program, and as a static Program after the default optimizing passes; and an
elementwise-heavy "GELU MLP" forward (GELU written out as its tanh formula: eight elementwise ops per
activation; and as its erf formula: four) where elementwise fusion turns each GELU into one generated
kernel. PyTorch CPU (2 threads) for reference.

    python benchmarks/static_vs_eager.py [--rounds 5] [--json out.json] [--no-first]
    python benchmarks/static_vs_eager.py --cpu [--rounds 3]    # CPU time per step: for a shared machine

Targets: static >= eager on the MLP step; with the passes (fusion) >= 1.2x eager on the GELU MLP.
Each variant runs in its own process, alternating; medians of each round's best window.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness  # noqa: E402
from train_mlp import BATCH, LR, N_HIDDEN, N_IN, N_OUT, data  # noqa: E402
from train_mlp import minipaddle_step as eager_mlp  # noqa: E402  the same eager step

GELU_WIDTH, GELU_DEPTH = 512, 4


def _paddle():
    sys.path.insert(0, str(harness.REPO_ROOT))
    import minipaddle
    return minipaddle


def _mlp(paddle):
    nn = paddle.nn
    return nn.Sequential(nn.Linear(N_IN, N_HIDDEN), nn.ReLU(), nn.Linear(N_HIDDEN, N_OUT))


def _static_mlp(with_passes: bool):
    paddle = _paddle()
    static = paddle.static
    paddle.seed(0)
    paddle.enable_static()
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [BATCH, N_IN], "float32")
        y = static.data("y", [BATCH], "int64")
        model = _mlp(paddle)
        loss = paddle.nn.functional.cross_entropy(model(x), y)
        paddle.optimizer.SGD(learning_rate=LR, parameters=model.parameters()).minimize(loss)
    exe = static.Executor(paddle.CPUPlace())
    exe.run(startup)
    if with_passes:
        from minipaddle.framework.static.passes import apply_passes
        main, report = apply_passes(main, fetch_list=[loss])
        REPORTS["MLP training step"] = report
    xs, ys = data()
    feed = {"x": xs, "y": ys}

    def step():
        exe.run(main, feed=feed, fetch_list=[loss])
    return step, paddle.__version__


def static_mlp():
    return _static_mlp(False)


def static_mlp_passes():
    return _static_mlp(True)


def _gelu_tanh(paddle, h):
    """GELU by its tanh formula, op by op: the chain elementwise fusion turns into one kernel."""
    return 0.5 * h * (1.0 + paddle.tanh(0.7978845608 * (h + 0.044715 * h * h * h)))


def _gelu_erf(paddle, h):
    """GELU by its erf formula: four elementwise ops, erf among them."""
    return 0.5 * h * (1.0 + paddle.erf(h * 0.7071067811865476))


def _gelu_forward(paddle, static_mode: bool, with_passes: bool, gelu=_gelu_tanh):
    import numpy as np
    nn = paddle.nn
    paddle.seed(0)
    layers = [nn.Linear(GELU_WIDTH, GELU_WIDTH) for _ in range(GELU_DEPTH)]
    xs = np.random.default_rng(0).standard_normal((BATCH, GELU_WIDTH)).astype(np.float32)

    def forward(h):
        for layer in layers:
            h = gelu(paddle, layer(h))
        return h.mean()
    if not static_mode:
        x = paddle.to_tensor(xs)

        def step():
            with paddle.no_grad():
                forward(x)
        return step, paddle.__version__
    static = paddle.static
    paddle.enable_static()
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        out = forward(static.data("x", [BATCH, GELU_WIDTH], "float32"))
    exe = static.Executor(paddle.CPUPlace())
    exe.run(startup)
    if with_passes:
        from minipaddle.framework.static.passes import apply_passes
        main, _report = apply_passes(main, fetch_list=[out])

    def step():
        exe.run(main, feed={"x": xs}, fetch_list=[out])
    return step, paddle.__version__


def eager_gelu():
    return _gelu_forward(_paddle(), False, False)


def static_gelu():
    return _gelu_forward(_paddle(), True, False)


def static_gelu_passes():
    return _gelu_forward(_paddle(), True, True)


def _gelu_train(static_mode: bool, with_passes: bool):
    """A GELU MLP *training* step (tanh formula): the backward of each fused GELU is itself a chain of
    elementwise ops in the training program, and fuses too."""
    import numpy as np
    paddle = _paddle()
    nn, F = paddle.nn, paddle.nn.functional
    paddle.seed(0)
    layers = [nn.Linear(GELU_WIDTH, GELU_WIDTH) for _ in range(2)] + [nn.Linear(GELU_WIDTH, N_OUT)]
    params = [p for layer in layers for p in layer.parameters()]
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((BATCH, GELU_WIDTH)).astype(np.float32)
    ys = rng.integers(0, N_OUT, BATCH).astype(np.int64)

    def loss_of(x, y):
        h = x
        for layer in layers[:-1]:
            h = _gelu_tanh(paddle, layer(h))
        return F.cross_entropy(layers[-1](h), y)
    if not static_mode:
        opt = paddle.optimizer.SGD(learning_rate=LR, parameters=params)
        x, y = paddle.to_tensor(xs), paddle.to_tensor(ys)

        def step():
            loss_of(x, y).backward()
            opt.step()
            opt.clear_grad()
        return step, paddle.__version__
    static = paddle.static
    paddle.enable_static()
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        loss = loss_of(static.data("x", [BATCH, GELU_WIDTH], "float32"), static.data("y", [BATCH], "int64"))
        paddle.optimizer.SGD(learning_rate=LR, parameters=params).minimize(loss)
    exe = static.Executor(paddle.CPUPlace())
    exe.run(startup)
    if with_passes:
        from minipaddle.framework.static.passes import apply_passes
        main, report = apply_passes(main, fetch_list=[loss])
        REPORTS["GELU MLP training step"] = report

    def step():
        exe.run(main, feed={"x": xs, "y": ys}, fetch_list=[loss])
    return step, paddle.__version__


def eager_gelu_train():
    return _gelu_train(False, False)


def static_gelu_train_passes():
    return _gelu_train(True, True)


def eager_gelu_erf():
    return _gelu_forward(_paddle(), False, False, _gelu_erf)


def static_gelu_erf():
    return _gelu_forward(_paddle(), True, False, _gelu_erf)


def static_gelu_erf_passes():
    return _gelu_forward(_paddle(), True, True, _gelu_erf)


def torch_mlp():
    from train_mlp import torch_step
    return torch_step()


BUILDERS = {"eager_mlp": eager_mlp, "static_mlp": static_mlp, "static_mlp_passes": static_mlp_passes,
            "torch": torch_mlp, "eager_gelu": eager_gelu, "static_gelu": static_gelu,
            "static_gelu_passes": static_gelu_passes, "eager_gelu_erf": eager_gelu_erf,
            "static_gelu_erf": static_gelu_erf, "static_gelu_erf_passes": static_gelu_erf_passes,
            "eager_gelu_train": eager_gelu_train, "static_gelu_train_passes": static_gelu_train_passes}


# ---- CPU time: steps per CPU-second, for a machine whose wall clock others share ---------------
def cpu_worker(name: str, seconds: float = 0.4, windows: int = 5) -> None:
    """Print the best CPU time (time.process_time, one BLAS thread) per step of one variant."""
    import json
    import time
    step, _ = BUILDERS[name]()
    for _ in range(5):
        step()
    best = float("inf")
    for _ in range(windows):
        start, n = time.process_time(), 0
        while time.process_time() - start < seconds:
            step()
            n += 1
        best = min(best, (time.process_time() - start) / n)
    print(json.dumps({"cpu_ms": best * 1e3}))


def cpu_table(rounds: int) -> int:
    """`--cpu`: each variant in its own single-threaded process, alternating; median CPU ms per step."""
    import json
    import os
    import statistics
    import subprocess
    names = [n for n in BUILDERS if n != "torch"]
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    times: dict = {n: [] for n in names}
    for _ in range(rounds):
        for n in names:
            out = subprocess.run([sys.executable, __file__, "--cpu-worker", n], capture_output=True, text=True,
                                 env=env, check=True)
            times[n].append(json.loads(out.stdout.strip().splitlines()[-1])["cpu_ms"])
    med = {n: statistics.median(v) for n, v in times.items()}
    print(f"static_vs_eager --cpu: median CPU ms per step over {rounds} rounds (1 thread, best of 5 windows)")
    for n in names:
        print(f"{n:24} {med[n]:8.3f} ms  {1e3 / med[n]:8.1f} steps per CPU-second")
    for fast, slow in (("static_mlp", "eager_mlp"), ("static_mlp_passes", "eager_mlp"),
                       ("static_gelu_passes", "eager_gelu"), ("static_gelu_erf_passes", "eager_gelu_erf"),
                       ("static_gelu_train_passes", "eager_gelu_train")):
        print(f"{fast} / {slow}: {med[slow] / med[fast]:.2f}x")
    return 0


REPORTS: dict = {}   # program -> the PassPipelineReport of its default passes


def print_pass_times() -> None:
    """What each default pass did and how long it took, on the two training programs."""
    static_mlp_passes()
    static_gelu_train_passes()
    _paddle().disable_static()
    for name, report in REPORTS.items():
        print(f"passes on the {name} ({report.passes[0].ops_before} ops):\n{report}\n")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--cpu-worker"]:
        cpu_worker(argv[1])
        return 0
    if "--cpu" in argv:
        rounds = int(argv[argv.index("--rounds") + 1]) if "--rounds" in argv else 3
        return cpu_table(rounds)
    if "--worker" not in argv and "--passes-only" not in argv:
        print_pass_times()
    if "--passes-only" in argv:
        print_pass_times()
        return 0
    return harness.training_benchmark(
        __file__, __doc__, BUILDERS, "static_vs_eager",
        [("static_mlp", "eager_mlp", 1.0, "static >= eager"),
         ("static_mlp_passes", "eager_mlp", 1.0, "static with passes >= eager"),
         ("static_gelu_passes", "eager_gelu", 1.2, "fusion on an elementwise-heavy model"),
         ("static_gelu_erf_passes", "eager_gelu_erf", 1.2, "fusion, GELU by its erf formula"),
         ("static_gelu_train_passes", "eager_gelu_train", 1.0, "GELU MLP training: forward and backward fused"),
         ("eager_mlp", "torch", 1.0, "eager vs PyTorch, for reference")],
        window_seconds=0.5, argv=argv)


if __name__ == "__main__":
    sys.exit(main())
