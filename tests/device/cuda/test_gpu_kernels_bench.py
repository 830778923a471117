"""benchmarks/gpu_kernels_bench.py: every path runs (and checks its results) on a tiny size; without a GPU
or the simulator it says so and exits cleanly."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numba
import pytest

BENCH = Path(__file__).resolve().parents[3] / "benchmarks" / "gpu_kernels_bench.py"


def load_bench():
    import importlib.util
    spec = importlib.util.spec_from_file_location("gpu_kernels_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_tiny_run_writes_json_and_a_table(tmp_path, capsys):
    bench = load_bench()
    out = tmp_path / "gpu_kernels.json"
    assert bench.main([str(out), "--size", "1024", "--repeats", "1", "--warmup", "1", "--tiny-calls", "10"]) == 0
    result = json.loads(out.read_text())
    assert [row["op"] for row in result["rows"]] == ["copy", "add", "gelu", "sum", "add_row"]
    assert result["simulator"] is bool(numba.config.ENABLE_CUDASIM)
    assert result["rows"][1]["relative_error"] <= 1e-6
    assert "GPU kernels, 1,024 float32 elements" in capsys.readouterr().out


@pytest.mark.skipif(os.path.exists("/dev/nvidiactl"), reason="a GPU is present")
def test_without_a_gpu_it_says_so_and_exits_cleanly():
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    done = subprocess.run([sys.executable, str(BENCH), "unused.json"], capture_output=True, text=True, env=env)
    assert done.returncode == 0 and "no CUDA GPU here" in done.stdout
