"""Autotune decisions in the trace document (issue 8): kernel.tuning on op nodes, the top-level
autotune list, the schema, and the HTML fallback's tuning table."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework import autotune, instrument
from minipaddle.framework.errors import InvalidArgument
from minipaddle.visualizer import builder as builder_mod
from minipaddle.visualizer.builder import TraceBuilder
from minipaddle.visualizer.trace import Trace


@pytest.fixture(autouse=True)
def fresh():
    autotune.reset()
    yield
    autotune.reset()
    paddle.incubate.autotune.set_config({"kernel": {"enable": False}})


def _enable(tmp_path, tuning_range=(1, 3)):
    paddle.incubate.autotune.set_config({"kernel": {"enable": True, "tuning_range": list(tuning_range),
                                                    "cache_dir": str(tmp_path / "cache")}})


class MatmulMLP(paddle.nn.Layer):
    """An MLP written with paddle.matmul, the op with two kernels (BLAS, numba)."""

    def __init__(self) -> None:
        super().__init__()
        self.w1 = self.create_parameter([24, 32])
        self.w2 = self.create_parameter([32, 8])

    def forward(self, x):
        return paddle.matmul(paddle.nn.functional.relu(paddle.matmul(x, self.w1)), self.w2)


def _train(net, x, steps: int) -> None:
    opt = paddle.optimizer.SGD(learning_rate=0.01, parameters=net.parameters())
    for _ in range(steps):
        loss = net(x).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()


def _x(*shape):
    return paddle.to_tensor(np.random.default_rng(0).standard_normal(shape).astype(np.float32))


def _tuned(trace: Trace, op: str) -> list[dict]:
    return [n for n in trace.nodes if n["op"] == op and n["kernel"]["tuning"] is not None]


def test_steps_tuned_while_recording_put_the_decision_on_the_matmul_nodes(tmp_path):
    _enable(tmp_path)
    net, x = MatmulMLP(), _x(16, 24)
    _train(net, x, 1)  # step 0: untuned
    with paddle.debug.record() as rec:
        _train(net, x, 2)  # step 1 tunes, step 2 runs the winners
    trace = rec.trace
    trace.validate()
    nodes = _tuned(trace, "matmul")
    assert len(nodes) == 4  # two matmuls per step, both steps
    for n in nodes:
        t = n["kernel"]["tuning"]
        assert t["source"] == "tuned" and t["step"] == 1 and t["default"] == "blas"
        assert n["kernel"]["name"] == t["winner"] and n["kernel"]["reason"] == "preferred"
        names = [c["name"] for c in t["candidates"]]
        assert sorted(names) == ["blas", "numba"]
        assert all(isinstance(c["time_ns"], int) and c["time_ns"] > 0 and c["error"] is None
                   for c in t["candidates"])
    assert {n["kernel"]["tuning"]["shape_class"] for n in nodes} == {"16x16,16x32", "16x32,32x8"}
    doc = trace.to_dict()
    decisions = {d["key"]: d for d in doc["autotune"]}  # forward, backward (transposed matmuls) and relu
    assert "relu|float32|16x32|{}" in decisions and len(decisions) >= 5
    d = decisions["matmul|float32|16x16,16x32|{}"]
    assert d["shapes"] == [[16, 24], [24, 32]] and d["dtype"] == "float32" and d["op"] == "matmul"
    # the node carries exactly the decision the tuner reported
    first = next(n for n in nodes if n["kernel"]["tuning"]["shape_class"] == "16x16,16x32")["kernel"]["tuning"]
    assert first["candidates"] == d["candidates"] and first["winner"] == d["winner"]


def test_backward_steps_name_the_tuned_kernels_their_rules_ran(tmp_path):
    _enable(tmp_path)
    net, x = MatmulMLP(), _x(16, 24)
    _train(net, x, 1)
    with paddle.debug.record() as rec:
        _train(net, x, 2)
    inner = [o for s in rec.trace.steps if s["kind"] == "backward_step" for o in s["ops"] if o["op"] == "matmul"]
    assert inner and all("tuning" in o for o in inner)  # matmul's grad rule runs (transposed) matmuls
    assert all(o["kernel"] == o["tuning"]["winner"] and len(o["tuning"]["candidates"]) == 2 for o in inner)
    assert {o["tuning"]["step"] for o in inner} == {1}
    every = [o for s in rec.trace.steps if s["kind"] == "backward_step" for o in s["ops"]]
    assert any("tuning" not in o for o in every)  # mean's grad rule has one kernel: nothing to tune
    assert all(o["kernel"] == o["tuning"]["winner"] for o in every if "tuning" in o)
    page = rec.trace.to_html(scripts=False)
    assert page.count('class="mp-tuning"') >= len(inner) + 4  # the forward matmuls and relus, and these


def test_a_decision_made_before_the_recording_reads_as_from_the_cache(tmp_path):
    _enable(tmp_path, (0, 3))
    a, b = _x(8, 12), _x(12, 4)
    paddle.matmul(a, b)  # tuned, outside any recording
    with paddle.debug.record() as rec:
        paddle.matmul(a, b)
    rec.trace.validate()
    (node,) = _tuned(rec.trace, "matmul")
    t = node["kernel"]["tuning"]
    assert t["source"] == "cache" and t["step"] is None and t["shape_class"] == "8x8,8x4"
    assert node["kernel"]["name"] == t["winner"] and len(t["candidates"]) == 2
    assert rec.trace.to_dict()["autotune"] == []  # nothing was decided while recording


def test_without_autotune_no_node_is_tuned(tmp_path):
    net, x = MatmulMLP(), _x(4, 24)
    with paddle.debug.record() as rec:
        _train(net, x, 1)
    doc = rec.trace.to_dict()
    rec.trace.validate()
    assert doc["autotune"] == []
    assert doc["graph"]["forward"]["nodes"] and all(n["kernel"]["tuning"] is None
                                                      for n in doc["graph"]["forward"]["nodes"])


def test_a_class_not_tuned_runs_the_default_with_no_tuning(tmp_path):
    _enable(tmp_path, (5, 6))  # tuning never starts in this test
    with paddle.debug.record() as rec:
        paddle.matmul(_x(4, 6), _x(6, 3))
    (node,) = [n for n in rec.trace.nodes if n["op"] == "matmul"]
    assert node["kernel"]["tuning"] is None and node["kernel"]["name"] == "blas"
    assert node["kernel"]["reason"] == "priority"


def test_lenet_conv_nodes_carry_their_tuning(tmp_path):
    _enable(tmp_path)
    net = paddle.nn.Sequential(paddle.nn.Conv2D(1, 4, 3), paddle.nn.ReLU(), paddle.nn.MaxPool2D(2),
                               paddle.nn.Flatten(), paddle.nn.Linear(4 * 3 * 3, 10))
    x = _x(2, 1, 8, 8)
    _train(net, x, 1)
    with paddle.debug.record() as rec:
        _train(net, x, 2)
    rec.trace.validate()
    nodes = _tuned(rec.trace, "conv2d")
    assert len(nodes) == 2
    t = nodes[0]["kernel"]["tuning"]
    assert len(t["candidates"]) >= 2 and t["winner"] in [c["name"] for c in t["candidates"]]
    assert any(d["op"].startswith("conv2d") and d["op"] != "conv2d" for d in rec.trace.to_dict()["autotune"])


def _event(key: str, **over) -> instrument.AutotuneEvent:
    e = {"op": "probe", "key": key, "dtype": "float32", "shape_class": "4", "shapes": [[4]],
         "candidates": [{"name": "a", "time_ns": 1200}, {"name": "b", "time_ns": None,
                                                          "error": "result differs from the default's"}],
         "winner": "a", "default": "a", "source": "tuned", "step": 2}
    e.update(over)
    return instrument.AutotuneEvent(**e)


def test_decisions_are_bounded_and_left_out_candidates_say_why(monkeypatch):
    monkeypatch.setattr(builder_mod, "MAX_AUTOTUNE", 2)
    b = TraceBuilder()
    for i in range(4):
        b.on_event(_event(f"probe|float32|{i}|{{}}"))
    b.on_event(_event("probe|float32|0|{}", winner="b", source="cache"))  # a known class: replaced, not dropped
    trace = Trace(b.build())
    trace.validate()
    doc = trace.to_dict()
    assert [d["key"] for d in doc["autotune"]] == ["probe|float32|0|{}", "probe|float32|1|{}"]
    assert doc["autotune"][0]["winner"] == "b" and doc["autotune"][0]["source"] == "cache"
    assert doc["autotune"][1]["candidates"][1] == {"name": "b", "time_ns": None,
                                                   "error": "result differs from the default's"}
    assert any("2 autotune decisions" in note for note in doc["recording"]["notes"])


def test_the_schema_refuses_a_malformed_tuning_record(tmp_path):
    _enable(tmp_path, (0, 3))
    with paddle.debug.record() as rec:
        paddle.matmul(_x(4, 6), _x(6, 3))
    doc = rec.trace.to_dict()
    node = next(n for n in doc["graph"]["forward"]["nodes"] if n["op"] == "matmul")
    node["kernel"]["tuning"]["source"] = "guessed"
    with pytest.raises(InvalidArgument, match="source"):
        Trace(doc).validate()
    node["kernel"]["tuning"]["source"] = "tuned"
    doc["autotune"][0]["candidates"][0]["time_ns"] = "fast"
    with pytest.raises(InvalidArgument, match="time_ns"):
        Trace(doc).validate()


def test_html_shows_the_tuning_table_with_the_winner_marked(tmp_path):
    _enable(tmp_path, (0, 3))
    with paddle.debug.record() as rec:
        paddle.matmul(_x(4, 6), _x(6, 3))
    page = rec.trace.to_html(scripts=False)
    (node,) = _tuned(rec.trace, "matmul")
    winner = node["kernel"]["tuning"]["winner"]
    assert 'class="mp-tuning"' in page and "measured at step 0" in page
    assert f'<tr class="mp-winner"><td>{winner} ✔' in page
    assert "<h3>Autotune (1 decision)</h3>" in page and "left out because" in page


def test_a_dataloader_decision_is_kept_and_validates():
    b = TraceBuilder()
    b.on_event(instrument.AutotuneEvent(
        op="DataLoader", key="num_workers", dtype=None, shape_class=None, shapes=None,
        candidates=[{"name": "num_workers=0", "time_ns": 900_000, "error": None},
                    {"name": "num_workers=4", "time_ns": 300_000, "error": None}],
        winner="num_workers=4", default="num_workers=0", source="tuned", step=0))
    trace = Trace(b.build())
    trace.validate()
    (d,) = trace.to_dict()["autotune"]
    assert d["op"] == "DataLoader" and d["shapes"] == [] and d["winner"] == "num_workers=4"
    assert "<h3>Autotune (1 decision)</h3>" in trace.to_html(scripts=False)
