"""Static Programs in the trace document: programs, pass diffs, recorded Executor runs, drawings."""
from __future__ import annotations

import json
import re
import sys
import time

import jsonschema
import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework import instrument
from minipaddle.framework.errors import InvalidArgument
from minipaddle.framework.static import builder, executor
from minipaddle.framework.static.passes import apply_passes
from minipaddle.framework.static.program import Program
from minipaddle.notebook.display import MIME_TYPE
from minipaddle.visualizer import Trace, dangling_references, load_schema, pass_diffs_section, program_to_dict
from minipaddle.visualizer.dot import dot_available, program_digraph, program_to_svg
from minipaddle.visualizer.program import ProgramCollector, show_program, source_of
from minipaddle.visualizer.trace import program_document

from .conftest import validated


@pytest.fixture(autouse=True)
def fresh_static_state():
    builder._main_program, builder._startup_program = Program(), Program()
    executor._global_scope = executor.Scope()
    yield
    paddle.disable_static()


def mlp_program(with_while: bool = False):
    """A small MLP training program with a cond (and a while_loop) off the loss path."""
    paddle.enable_static()
    paddle.seed(0)
    main, startup = Program(), Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 4], "float32")
        y = paddle.static.data("y", [None, 1], "float32")
        h = paddle.tanh(paddle.static.nn.fc(x, 8)) * 1.0   # algebraic simplification drops the * 1
        h = paddle.nn.functional.sigmoid(h) * h + h         # fused by fuse_elementwise
        out = paddle.static.nn.fc(h, 1)
        loss = paddle.mean((out - y) ** 2)
        m = paddle.mean(out)
        metric = paddle.static.nn.cond(m > 0, lambda: paddle.max(out) * 2.0, lambda: paddle.min(out) - 1.0)
        fetch = [loss, metric]
        if with_while:
            i0, s0 = paddle.full([], 0, "int64"), paddle.full([], 0.0, "float32")
            _, total = paddle.static.nn.while_loop(lambda i, s: i < 3, lambda i, s: [i + 1, s + m], [i0, s0])
            fetch.append(total)
        paddle.optimizer.SGD(0.1, parameters=main.all_parameters()).minimize(loss)
    paddle.disable_static()
    return main, startup, fetch


def feed():
    rng = np.random.default_rng(0)
    return {"x": rng.standard_normal((5, 4)).astype("float32"), "y": rng.standard_normal((5, 1)).astype("float32")}


def check(doc: dict) -> dict:
    jsonschema.Draft202012Validator(load_schema()).validate(doc)
    assert dangling_references(doc) == []
    json.dumps(doc, allow_nan=False)
    return doc


# ---- one program as data ------------------------------------------------------------------------

def test_program_to_dict_has_blocks_vars_ops_sources_and_json_safe_attrs():
    main, _, _ = mlp_program()
    d = program_to_dict(main, "P0", "main", "main")
    assert d["id"] == "P0" and d["role"] == "main" and d["text"] == main.to_string() and d["origin"] is None
    assert [b["idx"] for b in d["blocks"]] == [0, 1, 2] and [b["parent"] for b in d["blocks"]] == [-1, 0, 0]
    gb = d["blocks"][0]
    x = next(v for v in gb["vars"] if v["name"] == "x")
    assert x == {"name": "x", "shape": [-1, 4], "dtype": "float32", "persistable": False, "stop_gradient": True,
                 "is_parameter": False, "is_data": True}
    w = next(v for v in gb["vars"] if v["name"] == main.all_parameters()[0].name)
    assert w["is_parameter"] and w["persistable"] and w["shape"] == [4, 8]
    ops = gb["ops"]
    assert [op["index"] for op in ops] == list(range(len(main.global_block().ops)))
    cond = next(op for op in ops if op["type"] == "cond")
    assert cond["sub_blocks"] == [1, 2] and cond["inputs"]["Cond"] and cond["attrs"]["true_outs"]
    assert {op["role"] for op in ops} == {"forward", "backward", "optimize"}
    src = ops[0]["source"]
    assert src["file"] == __file__ and "paddle.static.nn.fc(x, 8)" in src["code"] and src["line"] > 0
    fill = next(op for op in ops if op["type"] == "fill_constant")
    assert fill["attrs"]["dtype"] == "float32" and fill["attrs"]["shape"] == []  # a dtype and a tuple, as JSON
    json.dumps(d, allow_nan=False)


def test_attrs_that_json_cannot_hold_become_text():
    paddle.enable_static()
    main = Program()
    with paddle.static.program_guard(main, Program()):
        x = paddle.static.data("x", [2, 3], "float32")
        paddle.scale(x, 2.0)
    paddle.disable_static()
    op = main.global_block().ops[0]
    op.attrs.update(big=np.arange(100.0), small=np.array([1.0, np.inf]), fn=print, nan=float("nan"))
    attrs = program_to_dict(main, "P3", "m", "main")["blocks"][0]["ops"][0]["attrs"]
    assert attrs["small"] == [1.0, "Infinity"] and attrs["nan"] == "NaN"
    assert isinstance(attrs["big"], str) and attrs["big"].startswith("array(") and "print" in attrs["fn"]
    check(program_document([program_to_dict(main, "P3", "m", "main")]))


def test_source_of_reads_the_line_and_survives_unknown_files():
    assert source_of(None) is None
    assert source_of("/no/such/file.py:3") == {"file": "/no/such/file.py", "line": 3, "code": ""}
    assert source_of("<stdin>") == {"file": "<stdin>", "line": 0, "code": ""}
    here = source_of(f"{__file__}:1")
    assert here["code"].startswith('"""Static Programs in the trace document')


def test_program_to_dict_rejects_bad_id_role_and_origin():
    main, _, _ = mlp_program()
    with pytest.raises(InvalidArgument, match=r"id='X1', expected 'P' and a number"):
        program_to_dict(main, "X1", "main", "main")
    with pytest.raises(InvalidArgument, match=r"role='training', expected one of main, startup"):
        program_to_dict(main, "P0", "main", "training")
    with pytest.raises(InvalidArgument, match=r"origin lacks \['function'"):
        program_to_dict(main, "P0", "f", "dy2static", origin={"kind": "dy2static"})
    with pytest.raises(InvalidArgument, match="program must be a static.Program, got Tensor"):
        program_to_dict(paddle.ones([2]), "P0", "main", "main")


def test_dy2static_origin_goes_into_the_document():
    main, _, _ = mlp_program()
    origin = {"kind": "dy2static", "function": "forward", "file": __file__, "first_line": 10,
              "original_source": "def forward(self, x):\n    return x\n",
              "transformed_source": "def forward(self, x):\n    return x  # transformed\n"}
    bundle = show_program(main, origin=origin, name="to_static: forward")
    doc = check(bundle[MIME_TYPE])
    (p,) = doc["programs"]
    assert p["role"] == "dy2static" and p["name"] == "to_static: forward" and p["origin"] == origin
    assert "transformed" in bundle["text/html"] and "def forward" in bundle["text/html"]


# ---- pass diffs ---------------------------------------------------------------------------------

def test_pass_diffs_section_chains_programs_and_diffs():
    main, _, fetch = mlp_program()
    optimized, report = apply_passes(main, fetch_list=fetch)
    assert report.input_program is main and report.passes[-1].program is optimized
    col = ProgramCollector()
    sections = pass_diffs_section(report, col)
    diffs = sections["pass_diffs"]
    assert [d["pass"] for d in diffs] == [p.name for p in report.passes] and [d["step"] for d in diffs] == list(
        range(len(diffs)))
    assert diffs[0]["before"] == "P0" and sections["programs"][0]["role"] == "main"
    for a, b in zip(diffs, diffs[1:]):
        assert b["before"] == a["after"]  # one chain of programs
    for d in diffs:
        if not d["changed"]:
            assert d["after"] == d["before"]  # an identical output is not repeated
    programs = {p["id"]: p for p in sections["programs"]}
    fusion = next(d for d in diffs if d["pass"] == "fuse_elementwise")
    assert fusion["changed"] and fusion["fused"] and fusion["added"]
    after_ops = programs[fusion["after"]]["blocks"][0]["ops"]
    before_ops = programs[fusion["before"]]["blocks"][0]["ops"]
    for ref in fusion["added"]:   # fused kernels, and the product of a linear whose bias add joined one
        assert after_ops[ref["index"]]["type"] == ref["type"] in ("fused_elementwise", "matmul")
    for ref in fusion["removed"]:
        assert before_ops[ref["index"]]["type"] == ref["type"]
    last = programs[diffs[-1]["after"]]
    assert sum(len(b["ops"]) for b in last["blocks"]) == optimized.num_ops()
    check(program_document(**sections))


def test_pass_diffs_section_needs_the_input_program():
    main, _, fetch = mlp_program()
    _, report = apply_passes(main, fetch_list=fetch)
    report.input_program = None
    with pytest.raises(InvalidArgument, match="does not know the program the passes started from"):
        pass_diffs_section(report)
    assert pass_diffs_section(report, program=main)["programs"][0]["id"] == "P0"


def test_show_program_with_passes_and_a_feed_runs_in_a_scratch_scope():
    main, startup, fetch = mlp_program()
    exe = paddle.static.Executor()
    exe.run(startup)
    w_name = main.all_parameters()[0].name
    w_before = np.array(paddle.static.global_scope().find_var(w_name).get_tensor()).copy()
    bundle = show_program(main, passes=True, feed=feed(), fetch_list=fetch)
    doc = check(bundle[MIME_TYPE])
    assert len(doc["pass_diffs"]) == 6 and len(doc["program_runs"]) == 1
    run = doc["program_runs"][0]
    assert run["program"] == doc["pass_diffs"][-1]["after"]  # the optimized program ran
    assert set(run["fetch"]) == {v.name for v in fetch}
    w_after = np.array(paddle.static.global_scope().find_var(w_name).get_tensor())
    np.testing.assert_array_equal(w_before, w_after)  # the sgd ops updated a copy only
    assert bundle["text/plain"].startswith(f"minipaddle program main: 3 blocks, {main.num_ops()} ops; 6 passes: ")
    assert "Pass diffs" in bundle["text/html"] and "fuse_elementwise" in bundle["text/html"]
    assert not instrument.subscribers


def test_show_program_rejects_what_is_not_a_program():
    with pytest.raises(InvalidArgument, match="show_program: program must be a static.Program or a to_static "
                                              "function, got dict"):
        show_program({})


# ---- recording Executor runs --------------------------------------------------------------------

def test_recorder_keeps_programs_passes_and_each_executed_op():
    main, startup, fetch = mlp_program(with_while=True)
    exe = paddle.static.Executor()
    with paddle.debug.record() as rec:
        exe.run(startup)
        optimized, _ = apply_passes(main, fetch_list=fetch)
        values = [exe.run(optimized, feed=feed(), fetch_list=fetch) for _ in range(2)]
    doc = validated(rec.trace)
    assert doc["graph"]["forward"]["nodes"] == []  # eager ops a static op runs belong to its step
    roles = [p["role"] for p in doc["programs"]]
    assert roles[:2] == ["startup", "main"] and set(roles[2:]) == {"pass"}
    assert len(doc["pass_diffs"]) == 6
    startup_run, run0, run1 = doc["program_runs"]
    assert startup_run["program"] == "P0" and [s["type"] for s in startup_run["steps"]] == [
        op.type for op in startup.global_block().ops]
    assert run0["program"] == run1["program"] == doc["pass_diffs"][-1]["after"] and (run0["run"], run1["run"]) == (0, 1)
    assert set(run0["feed"]) == {"x", "y"} and run0["feed"]["x"]["shape"] == [5, 4]
    np.testing.assert_allclose(run1["fetch"][fetch[0].name]["values"], [float(values[1][0])], rtol=1e-6)
    steps = run0["steps"]
    assert [s["step"] for s in steps] == list(range(len(steps))) and run0["steps_dropped"] == 0
    # the control-flow op comes before its sub-block's ops; a while's cond runs once more than its body
    program = next(p for p in doc["programs"] if p["id"] == run0["program"])
    blocks = [(s["block"], s["type"]) for s in steps]
    cond_at = next(i for i, s in enumerate(steps) if s["type"] == "cond")
    assert steps[cond_at + 1]["block"] in (1, 2)
    while_op = next(op for op in program["blocks"][0]["ops"] if op["type"] == "while")
    cond_block, body_block = while_op["sub_blocks"]
    cond_ops = len(program["blocks"][cond_block]["ops"])
    body_ops = len(program["blocks"][body_block]["ops"])
    assert sum(b == cond_block for b, _ in blocks) == 4 * cond_ops
    assert sum(b == body_block for b, _ in blocks) == 3 * body_ops
    for s in steps:  # each step names an op of its program, and summarizes what it wrote
        op = program["blocks"][s["block"]]["ops"][s["op"]]
        assert op["type"] == s["type"] and s["time_ns"] >= 0
        assert set(s["outputs"]) <= {n for names in op["outputs"].values() for n in names}
    w_name = main.all_parameters()[0].name  # the first fc's weight, [4, 8]
    sgd = next(s for s in steps if s["type"] == "sgd" and w_name in s["outputs"])
    assert sgd["outputs"][w_name]["shape"] == [4, 8] and sgd["outputs"][w_name]["values"] is not None
    assert steps[-1]["type"] == "sgd"
    assert [s["type"] for s in steps if s["block"] == 0] == [op["type"] for op in program["blocks"][0]["ops"]]


def test_a_failing_run_is_recorded_up_to_the_error():
    paddle.enable_static()
    main = Program()
    with paddle.static.program_guard(main, Program()):
        x = paddle.static.data("x", [None, 3], "float32")
        y = paddle.static.data("y", [None, 3], "float32")
        z = paddle.exp(x) + y
    paddle.disable_static()
    with paddle.debug.record() as rec:
        with pytest.raises(Exception, match="add"):
            paddle.static.Executor().run(main, feed={"x": np.ones((2, 3), "float32"), "y": np.ones((4, 3), "float32")},
                                         fetch_list=[z])
    doc = validated(rec.trace)
    (run,) = doc["program_runs"]
    assert [s["type"] for s in run["steps"]] == ["exp"] and run["fetch"] == {}


def test_values_follow_the_recorders_settings_and_runs_are_bounded(monkeypatch):
    from minipaddle.visualizer import program
    assert program.MAX_RUNS == 20
    monkeypatch.setattr(program, "MAX_RUNS", 3)  # (a smaller document validates faster)
    main, startup, fetch = mlp_program()
    exe = paddle.static.Executor()
    exe.run(startup)
    with paddle.debug.record(values="none") as rec:
        for _ in range(5):
            exe.run(main, feed=feed(), fetch_list=fetch)
    doc = validated(rec.trace)
    assert len(doc["program_runs"]) == 3 and doc["program_runs"][0]["run"] == 2
    assert len(doc["programs"]) == 1  # one program, one version
    out = doc["program_runs"][0]["steps"][0]["outputs"]
    (summary,) = out.values()
    assert summary["values"] is None and summary["values_omitted"] == "mode" and summary["summary"]["numel"] == 40
    assert any("2 Executor run(s) were not kept" in n for n in doc["recording"]["notes"])


def test_a_changed_program_is_written_again():
    main, startup, fetch = mlp_program()
    exe = paddle.static.Executor()
    exe.run(startup)
    with paddle.debug.record() as rec:
        exe.run(main, feed=feed(), fetch_list=fetch)
        paddle.enable_static()
        with paddle.static.program_guard(main):
            extra = paddle.mean(main.global_block().var("x"))
        paddle.disable_static()
        exe.run(main, feed=feed(), fetch_list=[extra])
    doc = validated(rec.trace)
    assert [r["program"] for r in doc["program_runs"]] == ["P0", "P1"]
    assert sum(len(b["ops"]) for b in doc["programs"][1]["blocks"]) == main.num_ops()


def test_no_subscriber_costs_the_executor_one_check_per_run(monkeypatch):
    main, startup, fetch = mlp_program()
    exe = paddle.static.Executor()
    exe.run(startup)
    calls = []
    monkeypatch.setattr(instrument, "emit", lambda event: calls.append(event.kind))
    exe.run(main, feed=feed(), fetch_list=fetch)
    assert calls == [] and exe._observed is False
    instrument.subscribers.append(lambda e: None)
    try:
        exe.run(main, feed=feed(), fetch_list=fetch)
    finally:
        instrument.subscribers.pop()
    assert calls[0] == "executor_run_begin" and calls[-1] == "executor_run_end"
    # every op of the global block, and the three ops of the cond branch taken
    assert calls.count("executor_op") == len(main.global_block().ops) + 3
    assert exe._observed is False


def test_recording_off_and_on_give_the_same_results():
    main, startup, fetch = mlp_program(with_while=True)
    exe = paddle.static.Executor()
    exe.run(startup)
    params = {k: v.copy() for k, v in paddle.static.global_scope().values().items()}
    plain = exe.run(main, feed=feed(), fetch_list=fetch)
    for k, v in params.items():
        paddle.static.global_scope().var(k).get_tensor().set(v)
    with paddle.debug.record():
        recorded = exe.run(main, feed=feed(), fetch_list=fetch)
    for a, b in zip(plain, recorded):
        np.testing.assert_array_equal(a, b)


def test_executor_overhead_with_nobody_listening_is_small():
    main, startup, fetch = mlp_program()
    exe = paddle.static.Executor()
    exe.run(startup)
    f = feed()
    exe.run(main, feed=f, fetch_list=fetch)

    def best(n: int = 30) -> float:
        times = []
        for _ in range(n):
            t = time.perf_counter()
            exe.run(main, feed=f, fetch_list=fetch)
            times.append(time.perf_counter() - t)
        return min(times)

    off = best()
    with paddle.debug.record():
        on = best(5)
    assert on > off  # recording does work per op; off pays only the one check
    assert off < 5e-3


# ---- schema and references ----------------------------------------------------------------------

def test_schema_rejects_malformed_program_sections():
    main, _, _ = mlp_program()
    good = program_document([program_to_dict(main, "P0", "main", "main")])
    check(good)
    validator = jsonschema.Draft202012Validator(load_schema())
    bad_id = json.loads(json.dumps(good))
    bad_id["programs"][0]["id"] = "main"
    assert not validator.is_valid(bad_id)
    bad_role = json.loads(json.dumps(good))
    bad_role["programs"][0]["role"] = "train"
    assert not validator.is_valid(bad_role)
    bad_run = json.loads(json.dumps(good))
    bad_run["program_runs"] = [{"program": "P0", "run": 0, "feed": {}, "steps": [], "fetch": {}}]
    assert not validator.is_valid(bad_run)  # steps_dropped is required
    older = json.loads(json.dumps(good))
    del older["program_runs"]
    assert validator.is_valid(older)  # optional: 1.0 documents stay valid
    assert load_schema()["properties"]["program_runs"]["items"] == {"$ref": "#/$defs/programRun"}


def test_dangling_program_references_are_found():
    main, _, fetch = mlp_program()
    _, report = apply_passes(main, fetch_list=fetch)
    sections = pass_diffs_section(report)
    doc = program_document(**sections, program_runs=[{"program": "P9", "run": 0, "feed": {}, "steps": [],
                                                      "steps_dropped": 0, "fetch": {}}])
    doc["pass_diffs"][0]["after"] = "P42"
    doc["pass_diffs"][-1]["removed"] = [{"block": 0, "index": 999, "type": "relu", "outputs": []}]
    problems = dangling_references(doc)
    assert any("P42" in p for p in problems) and any("P9" in p for p in problems)
    assert any("index': 999" in p for p in problems)
    with pytest.raises(InvalidArgument, match="dangling reference"):
        Trace(doc).validate()


# ---- drawings -----------------------------------------------------------------------------------

def test_program_digraph_draws_ops_vars_and_sub_block_clusters():
    main, _, _ = mlp_program()
    d = program_to_dict(main, "P7", "main", "main")
    dot = program_digraph(d, highlight={"removed": [(0, 1)]}).source
    assert 'id="P7:b0:op0"' in dot and 'id="P7:b0:v:x"' in dot and 'id="P7:b1"' in dot
    assert "subgraph cluster_P7_b1_block" in dot and "subgraph cluster_P7_b2_block" in dot
    assert "lhead=cluster_P7_b1_block" in dot and "label=true" in dot and "label=false" in dot
    assert dot.count("removed") == 1
    ops_only = program_digraph(d, max_nodes=10).source
    assert "v:x" not in ops_only and "variables not drawn" in ops_only
    with pytest.raises(InvalidArgument, match="id_prefix"):
        program_digraph(d, id_prefix="a b")


def test_program_svg_escapes_user_names():
    paddle.enable_static()
    main = Program()
    with paddle.static.program_guard(main, Program()):
        x = paddle.static.data('<b>"x"\\n</b>', [2], "float32")
        paddle.nn.functional.relu(x)
    paddle.disable_static()
    if not dot_available():
        pytest.skip("Graphviz's dot is not installed")
    svg = program_to_svg(main)
    assert "<b>" not in svg and "&lt;b&gt;" in svg
    assert re.search(r'id="P0:b0:op0"', svg)


def test_trace_html_shows_programs_diffs_and_runs():
    main, startup, fetch = mlp_program()
    exe = paddle.static.Executor()
    exe.run(startup)
    with paddle.debug.record() as rec:
        optimized, _ = apply_passes(main, fetch_list=fetch)
        exe.run(optimized, feed=feed(), fetch_list=fetch)
    html = rec.trace.to_html(scripts=False, full_page=False)
    assert "Static programs" in html and "Pass diffs" in html and "Executor runs (1)" in html
    assert "<script" not in html
    if dot_available():
        assert html.count("<svg") >= 2


# ---- dy2static ----------------------------------------------------------------------------------

class _Branchy(paddle.nn.Layer):
    def __init__(self) -> None:
        super().__init__()
        self.fc = paddle.nn.Linear(4, 3)

    @paddle.jit.to_static
    def forward(self, x):
        y = self.fc(x)
        if paddle.mean(y) > 0:
            y = y * 2
        else:
            y = y - 1
        return paddle.nn.functional.relu(y)


def test_a_to_static_function_shows_as_a_dy2static_program_with_its_sources():
    from minipaddle.visualizer.program import dy2static_origin
    net = _Branchy()
    net(paddle.ones([2, 4]))
    origin = dy2static_origin(net.forward)
    assert origin["function"] == "_Branchy.forward" and origin["file"] == __file__
    assert origin["original_source"].startswith("@paddle.jit.to_static\ndef forward(self, x):")
    assert "convert_ifelse" in origin["transformed_source"]
    lines = open(__file__).read().splitlines()
    assert lines[origin["first_line"] - 1].strip() == "@paddle.jit.to_static"
    doc = check(show_program(net.forward)[MIME_TYPE])
    (p,) = doc["programs"]
    assert p["role"] == "dy2static" and p["name"] == "to_static: _Branchy.forward" and p["origin"] == origin
    cond = next(op for op in p["blocks"][0]["ops"] if op["type"] == "cond")
    assert cond["source"]["file"] == __file__ and cond["source"]["code"] == "if paddle.mean(y) > 0:"
    with pytest.raises(InvalidArgument, match="expected a StaticFunction"):
        dy2static_origin(lambda x: x)


def test_a_program_built_event_adds_the_program_to_a_recording():
    net = _Branchy()
    net(paddle.ones([2, 4]))
    from minipaddle.visualizer.program import dy2static_origin
    with paddle.debug.record() as rec:
        instrument.emit(instrument.ProgramBuilt(net.forward.concrete_program.main_program, "dy2static",
                                                "to_static: forward", dy2static_origin(net.forward)))
    doc = validated(rec.trace)
    assert [(p["role"], p["name"]) for p in doc["programs"]] == [("dy2static", "to_static: forward")]


def test_a_to_static_call_inside_a_recording_adds_its_program_once():
    net = _Branchy()
    net(paddle.ones([2, 4]))          # built before the recording: still shown, as its to_static program
    with paddle.debug.record() as rec:
        net(paddle.ones([2, 4]))      # the weights need gradients: one run_program op runs both Programs
        with paddle.no_grad():        # no gradient needed: the optimized forward, a Program of its own
            net(-paddle.ones([2, 4]))
    doc = validated(rec.trace)
    names = [(p["role"], p["name"]) for p in doc["programs"]]
    assert names[0] == ("dy2static", "to_static: _Branchy.forward") and len(names) == 4
    assert [n.split(":")[0].split()[-1] for _, n in names[1:]] == ["forward", "backward", "forward"]
    assert names[3][1].startswith("to_static ") and "no_grad forward" in names[3][1]
    assert doc["programs"][0]["origin"]["original_source"].startswith("@paddle.jit.to_static")
    (node,) = [n for n in doc["graph"]["forward"]["nodes"] if n["op"] == "run_program"]
    assert node["attrs"]["forward_program"] == names[1][1] and node["attrs"]["backward_program"] == names[2][1]
    forward_run, no_grad_run = doc["program_runs"]
    assert forward_run["program"] == "P1" and no_grad_run["program"] == "P3"
    assert "cond" in [s["type"] for s in forward_run["steps"]] and "cond" in [s["type"] for s in no_grad_run["steps"]]


def test_the_byte_budget_drops_old_runs_first_then_steps():
    main, startup, fetch = mlp_program()
    exe = paddle.static.Executor()
    exe.run(startup)
    with paddle.debug.record(max_bytes=60_000) as rec:  # about one run's worth
        for _ in range(4):
            exe.run(main, feed=feed(), fetch_list=fetch)
    doc = validated(rec.trace)
    runs = doc["program_runs"]
    assert 1 <= len(runs) < 4 and runs[-1]["run"] == 3 and runs[-1]["steps"]  # the newest run is kept
    notes = " ".join(doc["recording"]["notes"])
    assert f"{4 - len(runs)} Executor run(s) were not kept" in notes
    assert doc["recording"]["bytes_used"] <= 60_000 + 20_000
    with paddle.debug.record(max_bytes=8_000) as rec:  # not even one run fits
        exe.run(main, feed=feed(), fetch_list=fetch)
    (run,) = validated(rec.trace)["program_runs"]
    assert run["steps_dropped"] > 0 and len(run["steps"]) + run["steps_dropped"] == len(main.global_block().ops) + 3


def test_two_pipelines_in_one_recording_number_their_passes_from_zero():
    main, _, fetch = mlp_program()
    with paddle.debug.record() as rec:
        apply_passes(main, fetch_list=fetch, passes=["dce", "cse"])
        apply_passes(main, fetch_list=fetch, passes=["algebraic"])
    diffs = validated(rec.trace)["pass_diffs"]
    assert [(d["pass"], d["step"]) for d in diffs] == [("dead_code_elimination", 0),
                                                       ("common_subexpression_elimination", 1),
                                                       ("algebraic_simplification", 0)]
    assert diffs[0]["before"] == diffs[2]["before"] == "P0"  # the same input program, written once


def test_long_lists_in_a_pass_diff_are_kept_whole():
    from minipaddle.framework.static.passes import PassReport
    from minipaddle.visualizer.program import pass_diff
    refs = [{"block": 0, "index": i, "type": "relu", "outputs": [f"t{i}"]} for i in range(100)]
    report = PassReport("dead_code_elimination", removed=refs, details={"vars_removed": [f"t{i}" for i in range(100)]})
    d = pass_diff(report, "P0", "P1", 0)
    assert d["removed"] == refs and len(d["details"]["vars_removed"]) == 100


def test_sources_in_a_notebook_cell_name_the_cells_execution_count():
    from IPython.core.interactiveshell import InteractiveShell
    shell = InteractiveShell.instance()
    result = shell.run_cell("import minipaddle as paddle\n"
                            "@paddle.jit.to_static\n"
                            "def double_it(x):\n"
                            "    return x * 2 + 1\n"
                            "with paddle.debug.record() as cell_rec:\n"
                            "    double_it(paddle.ones([2]))\n", store_history=True)
    assert result.success, result.error_in_exec
    doc = shell.user_ns["cell_rec"].trace.to_dict()
    check(doc)
    (program,) = [p for p in doc["programs"] if p["role"] == "dy2static" and p["origin"]]
    count = result.execution_count
    assert program["origin"]["cell"] == count and program["origin"]["file"].startswith("<ipython-input-")
    sources = [op["source"] for block in program["blocks"] for op in block["ops"] if op["source"]]
    in_cell = [s for s in sources if s["file"] == program["origin"]["file"]]
    assert in_cell and all(s["cell"] == count for s in in_cell)
    assert "cell" not in source_of(f"{__file__}:1")  # a file is not a cell


def test_reading_sources_never_imports_ipython():
    import subprocess
    code = ("import sys, minipaddle\n"
            "from minipaddle.visualizer.program import source_of\n"
            "assert 'cell' not in source_of(minipaddle.__file__ + ':1')\n"
            "assert 'IPython' not in sys.modules\n")
    subprocess.run([sys.executable, "-c", code], check=True)
