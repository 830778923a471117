"""benchmarks/gpu.py: --quick runs every path (both frameworks' workers, training, tiny op, both Adam updates)
and writes every figure; the launch-bound verdict is the arithmetic the notes show; without a GPU it says
so and exits cleanly."""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numba
import pytest

BENCH = Path(__file__).resolve().parents[3] / "benchmarks" / "gpu.py"


def load_bench():
    spec = importlib.util.spec_from_file_location("gpu_training_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


def _positive(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0


def test_quick_run_writes_every_figure(tmp_path, capsys):
    bench = load_bench()
    out = tmp_path / "gpu.json"
    assert bench.main(["--quick", "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["quick"] is True and result["rounds"] == 1 and result["failures"] == []
    assert result["simulator"] is bool(numba.config.ENABLE_CUDASIM)
    assert result["torch_device"] is not None, "PyTorch ran on no device: no peer figures"
    assert [(r["model"], r["batch"]) for r in result["training"]] == [
        ("mlp", 1), ("mlp", 2), ("lenet", 1), ("lenet", 2)]
    for row in result["training"]:
        for key in ("minipaddle_steps_per_s", "torch_steps_per_s", "of_torch", "minipaddle_step_ms", "torch_step_ms",
                    "kernels_per_step", "launch_ms_per_step", "launch_share"):
            assert _positive(row[key]), (row["model"], row["batch"], key, row[key])
        assert row["of_torch"] == pytest.approx(row["minipaddle_steps_per_s"] / row["torch_steps_per_s"])
        assert isinstance(row["launch_bound"], bool)
    assert result["training"][2]["kernels_per_step"] > result["training"][0]["kernels_per_step"]  # convs, pools
    tiny = result["tiny_op"]
    for key in ("minipaddle_us", "torch_us", "minipaddle_synced_us", "torch_synced_us", "times_torch"):
        assert _positive(tiny[key]), key
    adam = result["adam"]
    assert adam["parameters"] == 8 * 4 + 4 and adam["tensors"] == 2
    assert adam["fused_kernels"] == 2 and adam["unfused_kernels"] == 24  # one kernel per parameter vs 12 ops
    assert adam["relative_difference"] <= 1e-6
    for key in ("fused_ms", "unfused_ms", "torch_ms", "unfused_over_fused", "fused_times_torch"):
        assert _positive(adam[key]), key
    pool = result["memory_pool"]
    assert [(r["model"], r["batch"]) for r in pool["rows"]] == [(r["model"], r["batch"]) for r in result["training"]]
    for row in pool["rows"]:
        assert _positive(row["no_pool_steps_per_s"]) and _positive(row["pool_speedup"])
    assert (pool["hit_rate"] is None) is bool(numba.config.ENABLE_CUDASIM)  # the simulator has no pool
    printed = capsys.readouterr().out
    assert "kernels/step" in printed and "Adam, 36 parameters in 2 tensors" in printed
    assert "memory pool, lenet batch 2:" in printed


def test_the_launch_bound_verdict_is_kernels_times_the_tiny_op_against_the_step():
    bench = load_bench()
    mine = {"version": "0", "device": "d", "tiny_add_us": 10.0, "tiny_add_synced_us": 20.0}
    for model in bench.MODELS:
        mine[f"steps_per_s/{model}/1"], mine[f"steps_per_s/{model}/2"] = 800.0, 50.0
        mine[f"kernels_per_step/{model}/1"] = mine[f"kernels_per_step/{model}/2"] = 100.0
    result = bench.assemble(mine, {"version": "t", "device": None}, bench.QUICK, 1, [])
    fast, slow = result["training"][:2]
    # 100 kernels x 10 us = 1 ms of launches: 80% of a 1.25 ms step, 5% of a 20 ms one
    assert fast["launch_ms_per_step"] == pytest.approx(1.0) and fast["launch_share"] == pytest.approx(0.8)
    assert fast["launch_bound"] is True and slow["launch_bound"] is False
    assert fast["torch_steps_per_s"] is None and fast["of_torch"] is None and result["tiny_op"]["times_torch"] is None
    assert any("mlp batch 1: 100 kernels/step x 10.0 us" in n and ": launch-bound (80% of the step)" in n
               for n in result["notes"])
    assert "PyTorch: not installed here, or without CUDA: no peer figures" in result["notes"]


def test_without_a_gpu_it_says_so_and_exits_cleanly(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    env["NUMBA_DISABLE_CUDA"] = "1"  # numba.cuda then sees no device, on a GPU machine too
    out = tmp_path / "gpu.json"
    done = subprocess.run([sys.executable, str(BENCH), "--json", str(out)], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert "no GPU: not measured" in done.stdout and not out.exists()
