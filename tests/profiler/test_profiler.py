"""Profiler: what a recorded training step holds (ops, counts, phases, kernels, FLOPs, memory, JIT),
its summary tables, its Chrome trace, RecordEvent, the scheduler's windows and timer_only."""
from __future__ import annotations

import json

import numpy as np
import pytest

import minipaddle as paddle
import minipaddle.nn.functional as F
from minipaddle import nn, profiler
from minipaddle.framework import instrument
from minipaddle.framework.errors import InvalidArgument, PreconditionNotMet
from minipaddle.profiler import Profiler, RecordEvent, SortedKeys, SummaryView
from minipaddle.profiler.chrome_trace import LANES

BATCH = 6


def make_step():
    paddle.seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
    rng = np.random.default_rng(0)
    x = paddle.to_tensor(rng.standard_normal((BATCH, 8)).astype("float32"))
    y = paddle.to_tensor(rng.integers(0, 3, BATCH))

    def step():
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
    return step


@pytest.fixture(scope="module")
def recorded():
    step = make_step()
    step()  # kernels loaded before the window
    with Profiler(with_flops=True, record_shapes=True, profile_memory=True) as prof:
        for _ in range(3):
            with RecordEvent("train_step"):
                step()
            prof.step(num_samples=BATCH)
    return prof


def names(rows):
    return [cells[0].strip() for _, cells in rows]


def table(prof, title, **kwargs):
    return next(t for t in prof.result.tables(**kwargs) if t.title == title)


def test_ops_counted_per_step(recorded):
    c = recorded.result.collector
    assert len(c.steps) == 3 and [s[0] for s in c.steps] == [0, 1, 2]
    assert [op[0] for op in c.ops].count("linear") == 6
    assert [op[0] for op in c.ops].count("relu") == 3
    rows = dict((cells[0], cells) for depth, cells in table(recorded, "Operator Summary").rows if depth == 0)
    assert rows["linear"][1] == "6" and rows["relu"][1] == "3"
    assert rows["linear_grad"][1] == "6" and rows["relu_grad"][1] == "3"
    assert rows["accumulate_grad"][1] == "12"  # 4 parameters x 3 steps


def test_op_detail_lists_kernels_and_backward_rule_ops(recorded):
    rows = table(recorded, "Operator Summary").rows
    i = names(rows).index("linear_grad")
    children = []
    for depth, cells in rows[i + 1:]:
        if depth == 0:
            break
        children.append(cells[0])
    assert any(c.startswith("matmul (") for c in children)
    plain = table(recorded, "Operator Summary", op_detail=False).rows
    assert all(depth == 0 for depth, _ in plain)


def test_layer_path_and_node_ids(recorded):
    ops = recorded.result.collector.ops
    linear = [op for op in ops if op[0] == "linear"]
    assert linear[0][5].endswith(".0") and linear[1][5].endswith(".2")
    assert [op[6] for op in ops[:3]] == ["n1", "n2", "n3"]


def test_phases_in_model_table(recorded):
    rows = {cells[0]: cells for _, cells in table(recorded, "Model Summary").rows}
    assert list(rows) == ["ProfileStep", "Dataloader", "Forward", "Backward", "Optimization", "Others"]
    assert rows["ProfileStep"][1] == "3" and rows["Backward"][1] == "3" and rows["Optimization"][1] == "3"
    assert rows["Forward"][1] == "3" and rows["Dataloader"][1] == "0"
    spans = recorded.result.collector.phase_spans
    assert [name for phase, name, _, _ in spans if phase == "optimization"] == ["SGD.step"] * 3


def test_flops_of_linear(recorded):
    flops = [op[7]["flops"] for op in recorded.result.collector.ops if op[0] == "linear"]
    assert flops[:2] == [2 * BATCH * 16 * 8, 2 * BATCH * 3 * 16]
    header = table(recorded, "Operator Summary").header
    assert header[-1] == "FLOPs"


def test_input_shapes_recorded(recorded):
    first = recorded.result.collector.ops[0]
    assert first[0] == "linear" and first[7]["shapes"] == [[BATCH, 8], [8, 16], [16]]
    assert "shapes [6, 8], [8, 16], [16]" in names(table(recorded, "Operator Summary").rows)


def test_memory_counts_output_bytes(recorded):
    c = recorded.result.collector
    linear = [op for op in c.ops if op[0] == "linear"]
    assert linear[0][7]["bytes"] == BATCH * 16 * 4
    assert c.peak_bytes > 0 and c.memory
    assert "Memory Summary" in [t.title for t in recorded.result.tables()]


def test_user_defined_and_overview(recorded):
    rows = {cells[0]: cells for _, cells in table(recorded, "UserDefined Summary").rows}
    assert rows["train_step"][1] == "3"
    overview = {cells[0]: cells for _, cells in table(recorded, "Overview Summary").rows}
    assert overview["ProfileStep"][1] == "3" and overview["UserDefined"][1] == "3"


def test_summary_prints_tables_sorted(recorded, capsys):
    recorded.summary(sorted_by=SortedKeys.CPUMax, time_unit="us")
    out = capsys.readouterr().out
    for title in ("Overview Summary", "Model Summary", "Operator Summary", "Kernel Summary", "Memory Summary",
                  "UserDefined Summary"):
        assert title in out
    assert "(us)" in out
    rows = table(recorded, "Kernel Summary", sorted_by=SortedKeys.CPUMax).rows
    maxes = [float(cells[2].split(" / ")[2]) for _, cells in rows]
    assert maxes == sorted(maxes, reverse=True)
    recorded.summary(views=SummaryView.ModelView)
    out = capsys.readouterr().out
    assert "Model Summary" in out and "Operator Summary" not in out


def test_summary_bad_arguments(recorded):
    with pytest.raises(InvalidArgument, match="time_unit='hours'"):
        recorded.summary(time_unit="hours")
    with pytest.raises(InvalidArgument, match="sorted_by='total'"):
        recorded.summary(sorted_by="total")


def test_chrome_trace_lanes_args_and_flows(recorded, tmp_path):
    path = recorded.export(str(tmp_path / "t.json"))
    doc = json.loads(open(path).read())
    events = doc["traceEvents"]
    lanes = {e["args"]["name"]: e["tid"] for e in events if e.get("name") == "thread_name"}
    assert set(lanes) == set(LANES)
    ops = [e for e in events if e.get("ph") == "X" and e["cat"] == "Operator"]
    assert all(e["tid"] == lanes["forward"] and e["args"]["node"].startswith("n") for e in ops)
    assert all(e["dur"] >= 0 for e in events if e.get("ph") == "X")
    starts = {e["id"]: e for e in events if e.get("ph") == "s"}
    ends = {e["id"]: e for e in events if e.get("ph") == "f"}
    assert starts and set(starts) == set(ends)
    assert all(ends[i]["tid"] == lanes["backward"] and ends[i]["ts"] >= starts[i]["ts"] for i in starts)
    assert sum(1 for e in events if e.get("ph") == "X" and e["cat"] == "ProfileStep") == 3
    assert sum(1 for e in events if e.get("ph") == "X" and e["cat"] == "Forward") == 3
    assert any(e.get("ph") == "C" and e["name"] == "memory" for e in events)
    backward = [e for e in events if e.get("ph") == "X" and e["cat"] == "Backward" and e["name"] == "linear_grad"]
    assert backward and all(e["args"]["forward_node"] for e in backward)


def test_trace_document_profile_section_validates(recorded):
    import jsonschema

    from minipaddle.visualizer import load_schema
    doc = recorded.result.trace_document()
    jsonschema.Draft202012Validator(load_schema()).validate(doc)
    section = doc["profile"]
    assert [p["name"] for p in section["phases"]][0] == "ProfileStep"
    assert {s["lane"] for s in section["spans"]} >= {"python", "forward", "backward", "optimizer"}
    assert section["spans_dropped"] == 0 and section["memory"]["peak_bytes"] > 0


def test_record_event_nesting_and_begin_end():
    with Profiler() as prof:
        with RecordEvent("outer"):
            inner = RecordEvent("inner")
            inner.begin()
            paddle.add(paddle.ones([2]), paddle.ones([2]))
            inner.end()
            inner.end()  # a second end records nothing
    events = {name: (start, end) for name, _, start, end in prof.result.collector.user_events}
    assert list(events) == ["inner", "outer"]
    assert events["outer"][0] <= events["inner"][0] <= events["inner"][1] <= events["outer"][1]
    ev = RecordEvent("no profiler")
    ev.begin()
    ev.end()  # nothing is recording: nothing happens


def test_scheduler_window_and_on_trace_ready():
    step = make_step()
    windows = []
    prof = Profiler(scheduler=profiler.make_scheduler(closed=1, ready=1, record=2, repeat=2),
                    on_trace_ready=lambda p: windows.append(p.result))
    prof.start()
    for i in range(9):
        if i in (0, 1, 4, 5, 8):
            assert not instrument.subscribers  # closed and ready steps: nobody listens
        step()
        prof.step()
    prof.stop()
    assert len(windows) == 2
    assert [s[0] for s in windows[0].collector.steps] == [2, 3]
    assert [s[0] for s in windows[1].collector.steps] == [6, 7]
    assert [op[0] for op in windows[0].collector.ops].count("relu") == 2


def test_tuple_scheduler_and_export_chrome_tracing(tmp_path):
    step = make_step()
    with Profiler(scheduler=(1, 3), on_trace_ready=profiler.export_chrome_tracing(str(tmp_path), "w0")) as prof:
        for _ in range(5):
            step()
            prof.step()
    files = list(tmp_path.glob("w0_time_*.paddle_trace.json"))
    assert len(files) == 1
    doc = json.loads(files[0].read_text())
    assert sorted(e["name"] for e in doc["traceEvents"] if e.get("cat") == "ProfileStep") == ["ProfileStep#1",
                                                                                            "ProfileStep#2"]


def test_timer_only_reports_step_costs(capsys):
    step = make_step()
    prof = Profiler(timer_only=True)
    prof.start()
    for _ in range(3):
        assert not instrument.subscribers  # no op is recorded
        step()
        prof.step(num_samples=BATCH)
    info = prof.step_info()
    prof.stop()
    assert info.startswith("reader_cost: ") and "batch_cost: " in info and info.endswith("samples/s")
    prof.summary()
    out = capsys.readouterr().out
    assert "Perf Summary" in out and "reader_cost" in out and "batch_cost" in out and "ips" in out


def test_dataloader_phase_and_reader_cost():
    class Squares(paddle.io.Dataset):
        def __getitem__(self, i):
            return np.full(4, i, "float32")

        def __len__(self):
            return 8
    loader = paddle.io.DataLoader(Squares(), batch_size=4)
    next_batch = type(iter(loader)).__next__
    with Profiler() as prof:
        for batch in loader:
            assert type(iter(loader)).__next__ is next_batch  # heard on the bus, nothing patched
            paddle.sum(batch)
            prof.step()
    c = prof.result.collector
    assert [name for phase, name, _, _ in c.phase_spans if phase == "dataloader"] == ["Dataloader"] * 2
    rows = {cells[0]: cells for _, cells in table(prof, "Model Summary").rows}
    assert rows["Dataloader"][1] == "2"
    assert all(reader > 0 for reader, _, _ in prof.timings)
    assert not any(instrument.listeners.values())  # nobody listens after stop


def test_timer_only_hears_batches_but_leaves_ops_untraced():
    loader = paddle.io.DataLoader(paddle.io.TensorDataset([paddle.arange(8, dtype="float32")]), batch_size=4)
    with Profiler(timer_only=True) as prof:
        for (batch,) in loader:
            assert not instrument.subscribers  # only the loop's kinds: every op keeps its fast path
            paddle.sum(batch)
            prof.step(num_samples=4)
    assert len(prof.timings) == 2 and all(reader > 0 for reader, _, _ in prof.timings)


def test_numba_compilation_is_its_own_event():
    numba = pytest.importorskip("numba")

    @numba.njit
    def fresh(a):
        return a * 3 + 1

    with Profiler() as prof:
        fresh(np.ones(3, "int16"))
    compiles = prof.result.collector.compiles
    outer = [c for c in compiles if c[0] == fresh.py_func.__qualname__]
    assert len(outer) == 1 and "int16" in outer[0][1]
    for _, _, start, end in compiles:  # helpers numba compiles on the way nest inside it
        assert outer[0][2] <= start <= end <= outer[0][3]
    events = prof.result.chrome_trace()["traceEvents"]
    jit = [e for e in events if e.get("cat") == "NumbaJIT"]
    assert jit and jit[0]["tid"] == LANES["numba-jit"]


def test_profilers_do_not_nest_and_arguments_checked():
    with Profiler():
        with pytest.raises(PreconditionNotMet, match="another Profiler is running"):
            Profiler().start()
    with pytest.raises(InvalidArgument, match="scheduler"):
        Profiler(scheduler=5)
    with pytest.raises(InvalidArgument, match="timer_only='yes'"):
        Profiler(timer_only="yes")
    with pytest.raises(PreconditionNotMet, match="not started"):
        Profiler().step()
    with pytest.raises(PreconditionNotMet, match="nothing was recorded"):
        Profiler().summary()


def test_lazy_import_from_package():
    assert paddle.profiler.Profiler is Profiler


def test_autotuned_ops_name_the_kernel_that_ran(tmp_path):
    """With kernel tuning on, an op runs the autotuner's stand-in; the tables name the candidate it chose."""
    from minipaddle.framework import autotune
    autotune.reset()
    try:
        paddle.incubate.autotune.set_config({"kernel": {"enable": True, "tuning_range": [0, 10],
                                                        "cache_dir": str(tmp_path)}})
        rng = np.random.default_rng(0)
        a = paddle.to_tensor(rng.standard_normal((16, 24)).astype("float32"), stop_gradient=False)
        b = paddle.to_tensor(rng.standard_normal((24, 8)).astype("float32"))
        paddle.matmul(a, b).sum().backward()  # tunes matmul for these shapes (and the grad's shapes)
        winners = {k.split("|")[2]: v["winner"] for k, v in autotune.cache_entries().items() if k.startswith("matmul")}
        with Profiler() as prof:
            paddle.matmul(a, b).sum().backward()
    finally:
        autotune.reset()
    forward = [op for op in prof.result.collector.ops if op[0] == "matmul"]
    assert [op[1] for op in forward] == [winners["16x16,16x8"]]
    text = prof.result.summary_text()
    assert "autotuned" not in text and f"kernel {winners['16x16,16x8']}" in text


def test_a_long_window_keeps_a_bounded_number_of_records_and_says_what_it_left_out(monkeypatch):
    from minipaddle.profiler import collector as collector_module
    monkeypatch.setattr(collector_module, "MAX_RECORDS", 30)
    paddle.seed(0)
    net = nn.Linear(4, 2)
    x = paddle.to_tensor(np.ones((3, 4), "float32"))
    with Profiler() as prof:
        for _ in range(20):
            net(x).mean().backward()
            prof.step()
    c = prof.result.collector
    assert len(c.ops) == 30 and len(c.backward) == 30
    assert c.dropped["ops"] == 20 * 2 - 30 and c.dropped["backward"] > 0
    errors = prof.result.trace_document()["profile"]["errors"]
    assert any("kept the first 30 ops records" in e and "10 later ones were not kept" in e for e in errors), errors
