"""A GPU op in the debugger (issue 17): its node names the CUDA kernels it launched, their grid and
block, and its time on the device (CUDA events); the autotuner tunes GPU candidates by measurement.

Runs on a real GPU where there is one, else under numba's simulator (conftest.py): there the events
carry no time, and the device time is the host's.
"""
from __future__ import annotations

import ast
from pathlib import Path

import jsonschema
import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework import autotune, gpu, instrument
from minipaddle.framework.kernel_launches import kernel_name, launch_log
from minipaddle.framework.kernels.cuda import launch as launch_module
from minipaddle.framework.kernels.cuda import matmul as matmul_kernels
from minipaddle.framework.kernels.cuda.launch import THREADS, blocks_for
from minipaddle.visualizer import dangling_references, load_schema
from minipaddle.visualizer.html import to_html

MATMUL_CANDIDATES = list(matmul_kernels.CANDIDATES)


@pytest.fixture(autouse=True)
def _untuned():
    autotune.reset()
    yield
    autotune.reset()


def _on_gpu(*shape, seed=0):
    rng = np.random.default_rng(seed)
    return paddle.to_tensor(rng.standard_normal(shape).astype(np.float32), place="gpu")


def _validated(rec) -> dict:
    doc = rec.trace.to_dict()
    jsonschema.Draft202012Validator(load_schema()).validate(doc)
    assert dangling_references(doc) == [] and doc["recording"]["errors"] == []
    return doc


def _node(doc: dict, op: str) -> dict:
    return next(n for n in doc["graph"]["forward"]["nodes"] if n["op"] == op)


def test_a_gpu_matmul_node_shows_its_kernel_launch_and_device_time():
    x, y = _on_gpu(5, 7), _on_gpu(7, 3, seed=1)
    with paddle.debug.record() as rec:
        paddle.matmul(x, y)
    kernel = _node(_validated(rec), "matmul")["kernel"]
    assert kernel["backend"] == "gpu" and kernel["device"] == "gpu"
    assert kernel["name"] == "cuda_bankfree" and kernel["reason"] == "priority"  # the highest priority
    assert kernel["candidates"] == ["cuda_bankfree", "cuda_prefetch", "cuda_regblock", "cuda_tiled", "cuda_naive"]
    # one block of 128x128 outputs covers 5x3; the register-blocked kernels run 256 threads per block
    assert kernel["launches"] == [{"kernel": "matmul_bankfree_kernel", "grid": [1, 1, 1], "block": [256, 1, 1]}]
    assert kernel["grid"] == [1, 1, 1] and kernel["block"] == [256, 1, 1]
    assert isinstance(kernel["device_time_ns"], int) and kernel["device_time_ns"] > 0
    page = to_html(rec.trace)  # the HTML export says the same under the kernel's name
    assert "matmul_bankfree_kernel: grid (1,1,1) × block (256,1,1)" in page and "(CUDA events)" in page


def test_an_elementwise_node_shows_a_grid_stride_launch():
    x = _on_gpu(3000)
    with paddle.debug.record() as rec:
        paddle.exp(x)
    kernel = _node(_validated(rec), "exp")["kernel"]
    assert kernel["launches"] == [{"kernel": kernel["launches"][0]["kernel"], "grid": [blocks_for(3000), 1, 1],
                                   "block": [THREADS, 1, 1]}]
    assert kernel["launches"][0]["kernel"].startswith("exp")  # made from the exp primitive by specialize()


def test_every_launch_of_an_op_is_listed_and_grid_block_are_the_last_ones():
    x, y = _on_gpu(5, 7), _on_gpu(3, 7, seed=1)
    with paddle.debug.record() as rec:
        paddle.matmul(x, y, transpose_y=True)  # (c)-(e) copy a transposed operand first
    kernel = _node(_validated(rec), "matmul")["kernel"]
    assert [launch["kernel"] for launch in kernel["launches"]] == ["transpose_kernel", "matmul_bankfree_kernel"]
    assert kernel["block"] == kernel["launches"][-1]["block"] == [256, 1, 1]


def test_kernels_of_every_module_are_noted_indexing_and_manipulation_too():
    x, index = _on_gpu(6, 4), paddle.to_tensor(np.array([4, 0, 2]), place="gpu")
    with paddle.debug.record() as rec:
        paddle.gather(x, index)
        paddle.concat([x, x])
        paddle.cumsum(x, axis=1)
    nodes = _validated(rec)["graph"]["forward"]["nodes"]
    assert [n["op"] for n in nodes] == ["gather", "concat", "cumsum"]
    assert all(n["kernel"]["launches"] and n["kernel"]["grid"] for n in nodes)


def test_every_cuda_kernel_starts_through_launch():
    """A kernel started as `kernel[grid, block](...)` would be missing from its op's node."""
    for path in sorted(Path(launch_module.__file__).parent.glob("*.py")):
        if path.name == "launch.py":
            continue
        tree = ast.parse(path.read_text())
        direct = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Subscript)]
        assert direct == [], f"{path.name}, lines {direct}: start kernels with launch(kernel, grid, block, *args)"


def test_a_cpu_op_in_the_same_recording_has_no_device_fields():
    with paddle.debug.record() as rec:
        paddle.exp(paddle.to_tensor(np.ones(4, np.float32)))
        paddle.exp(_on_gpu(4))
    cpu, on_gpu = [n["kernel"] for n in _validated(rec)["graph"]["forward"]["nodes"]]
    assert cpu["backend"] == "cpu" and "device" not in cpu and "device_time_ns" not in cpu
    assert on_gpu["backend"] == "gpu" and on_gpu["device"] == "gpu"


def test_backward_steps_list_the_device_time_of_their_gpu_ops():
    x = _on_gpu(6)
    x.stop_gradient = False
    with paddle.debug.record() as rec:
        paddle.exp(x).sum().backward()
    steps = [s for s in _validated(rec)["steps"] if s["kind"] == "backward_step"]
    inner = [op for s in steps for op in s["ops"]]  # exp's rule multiplies by exp(x), on the GPU
    assert inner and all(op["device_time_ns"] > 0 for op in inner)


def test_launches_are_noted_only_while_an_op_is_traced():
    x = _on_gpu(8)
    paddle.exp(x)
    assert launch_log.launches is None
    seen = []
    unsubscribe = instrument.subscribe(lambda e: seen.append(launch_log.launches), kinds=("op",))
    try:
        paddle.exp(x)
    finally:
        unsubscribe()
    assert seen == [None]  # the op's list is handed back before its event is emitted
    assert launch_log.launches is None


def test_the_autotuner_times_the_gpu_matmul_candidates_and_the_node_shows_the_decision(tmp_path):
    paddle.incubate.autotune.set_config({"kernel": {"enable": True, "tuning_range": [0, 5],
                                                    "cache_dir": str(tmp_path / "cache")}})
    x, y = _on_gpu(5, 7), _on_gpu(7, 3, seed=1)
    with paddle.debug.record() as rec:
        out = paddle.matmul(x, y)
    np.testing.assert_allclose(out.numpy(), x.numpy() @ y.numpy(), rtol=1e-5, atol=1e-5)
    doc = _validated(rec)
    (decision,) = doc["autotune"]
    assert decision["key"] == f"matmul|float32|4x4,4x2|{{}}|gpu:{gpu.device_name()}"
    assert decision["default"] == "cuda_bankfree" and decision["source"] == "tuned"
    timed = {c["name"]: c["time_ns"] for c in decision["candidates"]}
    assert sorted(timed) == sorted(MATMUL_CANDIDATES) and all(t > 0 for t in timed.values())
    kernel = _node(doc, "matmul")["kernel"]
    assert kernel["name"] == decision["winner"] and kernel["tuning"]["winner"] == decision["winner"]
    assert kernel["reason"] == "preferred" and kernel["device"] == "gpu"
    # of all the launches tuning made, the node shows the winner's run, whose result it returned
    assert [launch["kernel"] for launch in kernel["launches"]] == [
        kernel_name(matmul_kernels.KERNELS[decision["winner"]])]


def test_tuning_a_gpu_op_waits_for_each_timed_kernel(tmp_path, monkeypatch):
    waits = []
    monkeypatch.setattr(gpu, "synchronize", lambda: waits.append(1))
    paddle.incubate.autotune.set_config({"kernel": {"enable": True, "tuning_range": [0, 5], "cache_dir": None}})
    paddle.matmul(_on_gpu(5, 7), _on_gpu(7, 3, seed=1))
    # two blocks per candidate, each an untimed call and at least one timed one
    assert len(waits) >= 2 * 2 * len(MATMUL_CANDIDATES)
