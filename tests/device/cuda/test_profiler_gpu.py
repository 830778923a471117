"""The profiler on the GPU: each GPU op keeps its time on the device (CUDA events) and its kernels;
the Chrome trace and the Profile tab draw them on a gpu lane, the launch linked to its kernel by a
flow arrow, and the Operator table splits CPU and GPU time.

Runs on a real GPU where there is one, else under numba's simulator (conftest.py): there the events
carry no time, and the device time is the host's.
"""
from __future__ import annotations

import jsonschema
import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.profiler import Profiler
from minipaddle.profiler.chrome_trace import LANES
from minipaddle.profiler.collector import EXTRA, KERNEL, NAME, NODE, START
from minipaddle.profiler.summary import all_ops
from minipaddle.visualizer import load_schema


def _on_gpu(*shape, seed=0):
    rng = np.random.default_rng(seed)
    return paddle.to_tensor(rng.standard_normal(shape).astype(np.float32), place="gpu")


@pytest.fixture(scope="module")
def profiled():
    x, y = _on_gpu(4, 5), _on_gpu(5, 3, seed=1)
    c = paddle.to_tensor(np.ones((2, 2), np.float32))  # a CPU op beside them: no GPU figures
    x.stop_gradient = False
    with Profiler() as prof:
        paddle.exp(paddle.matmul(x, y)).sum().backward()
        paddle.add(c, c)
    return prof


def _gpu_ops(prof):
    return [op for op in all_ops(prof.result.collector) if "gpu_ns" in (op[EXTRA] or {})]


def test_gpu_ops_keep_their_device_time_and_kernels(profiled):
    c = profiled.result.collector
    forward = {op[NAME]: op for op in c.ops}
    for name in ("matmul", "exp", "sum"):
        extra = forward[name][EXTRA]
        assert extra["gpu_ns"] > 0 and extra["kernels"] and all(isinstance(k, str) for k in extra["kernels"])
    assert forward["matmul"][EXTRA]["kernels"][0].startswith("matmul_")
    assert "gpu_ns" not in (forward["add"][EXTRA] or {})  # ran on the CPU
    inner = [i for b in c.backward for i in b[4]]
    assert any("gpu_ns" in (i[EXTRA] or {}) for i in inner)  # backward rules' ops ran on the GPU too


def test_chrome_trace_has_a_gpu_span_and_a_launch_arrow_per_gpu_op(profiled):
    events = profiled.result.chrome_trace()["traceEvents"]
    gpu_ops = _gpu_ops(profiled)
    spans = [e for e in events if e.get("ph") == "X" and e["tid"] == LANES["gpu"]]
    assert len(spans) == len(gpu_ops) and all(e["cat"] == "Kernel" for e in spans)
    t0 = profiled.result.collector.t0
    for op, span in zip(gpu_ops, spans):
        assert span["name"] == " + ".join(op[EXTRA]["kernels"]) and span["args"]["op"] == op[NAME]
        assert span["ts"] == pytest.approx((op[START] - t0) / 1000, abs=1e-3)
        assert span["dur"] == pytest.approx(op[EXTRA]["gpu_ns"] / 1000, abs=1e-3)
    starts = {e["id"]: e for e in events if e.get("ph") == "s" and e["name"] == "launch"}
    ends = {e["id"]: e for e in events if e.get("ph") == "f" and e["name"] == "launch"}
    assert len(starts) == len(gpu_ops) and starts.keys() == ends.keys()
    grad_ids = {e["id"] for e in events if e.get("ph") == "s" and e["name"] == "grad"}
    assert not grad_ids & starts.keys()  # flow ids are unique across kinds of arrow
    for span, flow in zip(spans, starts.values()):
        assert flow["tid"] != LANES["gpu"] and ends[flow["id"]]["tid"] == LANES["gpu"]
        assert flow["ts"] == ends[flow["id"]]["ts"] == span["ts"]


def test_profile_section_draws_gpu_spans_and_validates(profiled):
    doc = profiled.result.trace_document()
    jsonschema.Draft202012Validator(load_schema()).validate(doc)
    gpu = [s for s in doc["profile"]["spans"] if s["lane"] == "gpu"]
    gpu_ops = _gpu_ops(profiled)
    assert len(gpu) == len(gpu_ops)
    forward = [op for op in gpu_ops if op[NODE] is not None]
    assert [s["node"] for s in gpu if s["node"]] == [op[NODE] for op in forward]
    assert all(s["end_ns"] - s["start_ns"] == op[EXTRA]["gpu_ns"] and s["kernel"] == op[KERNEL]
               for s, op in zip(gpu, gpu_ops))
    assert any(s["forward_node"] is not None for s in gpu)  # a backward rule's op names its forward node


def test_operator_table_shows_gpu_time_per_op(profiled):
    table = next(t for t in profiled.result.tables(time_unit="ns") if t.title == "Operator Summary")
    assert table.header[3] == "GPU Total (ns)"
    rows = {cells[0]: cells for depth, cells in table.rows if depth == 0}
    matmul = [op for op in profiled.result.collector.ops if op[NAME] == "matmul"][0]
    assert rows["matmul"][3] == f"{matmul[EXTRA]['gpu_ns']:.2f}"
    assert rows["add"][3] == "-"
    assert float(rows["exp_grad"][3]) > 0  # the rule's GPU ops, summed
    assert "GPU Total (ms)" in profiled.result.summary_text()


def test_cpu_only_profiles_have_no_gpu_column():
    a = paddle.to_tensor(np.ones((2, 2), np.float32))
    with Profiler() as prof:
        paddle.add(a, a)
    table = next(t for t in prof.result.tables() if t.title == "Operator Summary")
    assert not any("GPU" in h for h in table.header)
    assert not [e for e in prof.result.chrome_trace()["traceEvents"] if e.get("tid") == LANES["gpu"]
                and e.get("ph") == "X"]
