"""paddle.debug.record: the trace of a training step, its graphs, ring buffer, budget, NaN marks, values."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle import nn
from minipaddle.framework import instrument
from minipaddle.framework.errors import InvalidArgument, PreconditionNotMet

from .conftest import MLP, train_step, validated


def test_mlp_step_document_validates_and_names_layers(mlp, batch):
    with paddle.debug.record() as rec:
        loss = train_step(mlp, *batch)
    doc = validated(rec.trace)
    assert doc["schema_version"] == "1.5" and doc["format"] == "minipaddle.trace"
    ops = [(n["op"], n["layer"]) for n in doc["graph"]["forward"]["nodes"]]
    assert ops == [("linear", "MLP.fc1"), ("relu", "MLP"), ("linear", "MLP.fc2"),
                   ("subtract", None), ("multiply", None), ("mean", None)]
    layers = {layer["path"]: layer for layer in doc["layers"]}
    assert layers["MLP.fc1"]["parent"] == "MLP" and layers["MLP.fc1"]["name"] == "fc1"
    assert layers["MLP"]["parent"] is None and layers["MLP"]["nodes"] == [doc["graph"]["forward"]["nodes"][1]["id"]]
    kinds = [s["kind"] for s in doc["steps"]]
    assert kinds[:6] == ["op"] * 6 and kinds[-4:] == ["optimizer_update"] * 4
    assert [s["index"] for s in doc["steps"]] == list(range(len(kinds)))
    mean_node = doc["graph"]["forward"]["nodes"][-1]
    loss_state = rec.trace.state(mean_node["output_states"][0])
    assert loss_state["summary"]["mean"] == pytest.approx(float(loss), rel=5e-4)  # 4 significant digits
    assert rec.trace.values(loss_state["id"]) == pytest.approx(float(loss))
    assert {t["role"] for t in doc["tensors"]} >= {"parameter", "input", "activation", "gradient"}
    timed = {(t["op"], t["phase"]) for t in doc["timings"]["ops"]}
    assert ("linear", "forward") in timed and ("matmul", "backward") in timed


def test_backward_graph_cross_links_the_forward_graph(mlp, batch):
    with paddle.debug.record() as rec:
        ((mlp(batch[0]) - batch[1]) ** 2).mean().backward()
    doc = validated(rec.trace)
    forward = {n["id"]: n for n in doc["graph"]["forward"]["nodes"]}
    backward = {g["id"]: g for g in doc["graph"]["backward"]["nodes"]}
    for node in forward.values():  # every differentiable op has its grad node, linked both ways
        assert backward[node["grad_node"]]["forward_node"] == node["id"]
        assert backward[node["grad_node"]]["name"] == node["op"] + "_grad"
    # each forward edge producer -> consumer has the backward edge consumer_grad -> producer_grad
    backward_pairs = {(e["source"], e["target"], e["index"]) for e in doc["graph"]["backward"]["edges"]}
    for e in doc["graph"]["forward"]["edges"]:
        if e["source"] is not None:
            pair = (forward[e["target"]]["grad_node"], forward[e["source"]]["grad_node"], e["index"])
            assert pair in backward_pairs
    # parameters end in accumulate nodes, and their recorded .grad equals the real one
    tensors = {t["id"]: t for t in doc["tensors"]}
    params = {t["name"]: t for t in doc["tensors"] if t["role"] == "parameter"}
    accumulate = [g for g in backward.values() if g["kind"] == "accumulate"]
    assert sorted(tensors[g["tensor"]]["name"] for g in accumulate) == sorted(p.name for p in mlp.parameters())
    for p in mlp.parameters():
        grad = tensors[params[p.name]["grad"]]
        assert grad["role"] == "gradient" and grad["grad_of"] == params[p.name]["id"]
        np.testing.assert_allclose(rec.trace.values(grad["states"][-1]), p.grad.numpy(), rtol=1e-6)
    # backward steps run newest node first and carry the grads each node sent on
    steps = [s for s in doc["steps"] if s["kind"] == "backward_step"]
    assert steps[0]["node"] == forward[doc["graph"]["forward"]["nodes"][-1]["id"]]["grad_node"]
    assert {s["node"] for s in steps} == set(backward)
    assert all(s["pass"] == 1 for s in steps)
    linear_steps = [s for s in steps if backward[s["node"]]["op"] == "linear"]
    assert all(len(s["grads_out"]) == 3 and s["ops_count"] >= 2 for s in linear_steps)


def test_ring_buffer_keeps_the_newest_steps_in_bounded_memory(mlp, batch):
    from minipaddle.visualizer.id_table import SWEEP_MIN
    with paddle.debug.record(max_steps=40) as rec:
        for _ in range(3):
            train_step(mlp, *batch)
        objects_early = len(rec._builder.objects)
        for _ in range(80):
            train_step(mlp, *batch)
    doc = validated(rec.trace)
    rec_info = doc["recording"]
    assert len(doc["steps"]) == 40
    assert rec_info["dropped_steps"] == rec_info["total_steps"] - 40 > 0
    assert rec_info["dropped_reasons"] == ["max_steps"]
    assert doc["steps"][0]["index"] == rec_info["first_step"] == rec_info["dropped_steps"]
    assert any("dropped" in note for note in rec_info["notes"])
    assert len(rec._builder.objects) <= objects_early * 1.5  # not growing with the number of steps
    made = max(int(t["id"][1:]) for t in doc["tensors"])
    assert len(rec._builder.ids.tensors) <= SWEEP_MIN + 1 < made  # dead tensors' ids were swept out


def test_over_the_byte_budget_values_go_first_then_old_steps(batch):
    big = paddle.to_tensor(np.arange(4000, dtype="float32"))
    with paddle.debug.record(values="all", max_bytes=600_000) as rec:
        for _ in range(30):
            big = big * 1.0
    doc = validated(rec.trace)
    info = doc["recording"]
    assert info["values_omitted_budget"] > 0
    assert {s["values_omitted"] for s in doc["states"]} == {None, "budget"}
    assert any("byte budget" in note for note in info["notes"])
    assert info["bytes_used"] <= info["max_bytes"]
    assert len(doc["steps"]) == 30  # summaries still fit: no step dropped yet

    with paddle.debug.record(values="none", max_bytes=20_000) as rec:
        for _ in range(100):
            big = big * 1.0
    doc = validated(rec.trace)
    assert doc["recording"]["dropped_reasons"] == ["max_bytes"]
    assert 0 < len(doc["steps"]) < 100 and doc["recording"]["bytes_used"] <= 20_000


def test_a_huge_tensor_under_values_all_is_kept_as_a_summary():
    x = paddle.ones([1000, 1000])
    with paddle.debug.record(values="all", max_bytes=1 << 20) as rec:
        y = x * 2.0
    doc = validated(rec.trace)
    state = rec.trace.state(doc["graph"]["forward"]["nodes"][0]["output_states"][0])
    assert state["values"] is None and state["values_omitted"] == "budget"
    assert state["summary"]["mean"] == 2.0 and state["summary"]["histogram"]["stride"] > 1
    assert float(y.sum()) == 2e6


def test_nan_inf_marks_the_tensor_and_the_op_that_made_it_first(mlp):
    heard = []
    unsubscribe = instrument.subscribe(heard.append, kinds=("nan_inf",))
    x = paddle.to_tensor([1.0, -1.0, 4.0])
    try:
        with paddle.debug.record() as rec:
            a = paddle.sqrt(x * 2.0)           # sqrt(-2): NaN is made here
            b = a + 1.0                        # ... and carried on here
            c = paddle.log(paddle.zeros([2]))  # -inf: a second origin, not the first
    finally:
        unsubscribe()
    doc = validated(rec.trace)
    nodes = {n["op"]: n for n in doc["graph"]["forward"]["nodes"]}
    assert nodes["sqrt"]["nan_inf"] == "produced" and nodes["sqrt"]["first_nan_inf"]
    assert nodes["add"]["nan_inf"] == "propagated" and not nodes["add"]["first_nan_inf"]
    assert nodes["log"]["nan_inf"] == "produced" and not nodes["log"]["first_nan_inf"]
    assert nodes["multiply"]["nan_inf"] is None
    first = doc["nan_inf"]["first"]
    assert (first["op"], first["node"], first["nan_count"], first["origin"]) == ("sqrt", nodes["sqrt"]["id"], 1,
                                                                                 "produced")
    assert doc["nan_inf"]["count"] == 3
    summary = rec.trace.state(nodes["sqrt"]["output_states"][0])["summary"]
    assert (summary["nan_count"], summary["inf_count"]) == (1, 0)
    assert (summary["min"], summary["max"]) == pytest.approx((np.sqrt(2), np.sqrt(8)), rel=1e-3)
    assert summary["min"] <= np.sqrt(2) and summary["max"] >= np.sqrt(8)  # rounded outward
    text = rec.trace.to_json()
    assert "NaN" in text and "-Infinity" in text
    np.testing.assert_array_equal(rec.trace.values(nodes["log"]["output_states"][0]), c.numpy())
    np.testing.assert_array_equal(rec.trace.values(nodes["add"]["output_states"][0]), b.numpy())
    assert [(e.op, e.first) for e in heard] == [("sqrt", True), ("add", False), ("log", False)]


def test_nan_inf_in_an_input_a_gradient_or_an_update_is_flagged_where_it_appears(mlp, batch):
    data = paddle.to_tensor([1.0, float("nan")])
    with paddle.debug.record() as rec:
        (data * 2.0).sum()
    doc = validated(rec.trace)
    first = doc["nan_inf"]["first"]
    assert (first["origin"], first["node"], first["op"]) == ("input", None, None)
    assert rec.trace.tensor(first["tensor"])["role"] == "input"
    assert [n["nan_inf"] for n in doc["graph"]["forward"]["nodes"]] == ["propagated", "propagated"]
    assert not any(n["first_nan_inf"] for n in doc["graph"]["forward"]["nodes"])

    x = paddle.to_tensor([0.0, 4.0], stop_gradient=False)
    with paddle.debug.record() as rec, np.errstate(divide="ignore"):
        paddle.sqrt(x).sum().backward()  # d sqrt(x) = 0.5 / sqrt(0) = inf
    doc = validated(rec.trace)
    first = doc["nan_inf"]["first"]
    assert (first["origin"], first["op"], first["inf_count"]) == ("backward", "sqrt_grad", 1)
    assert rec.trace.node(first["node"])["forward_node"] == doc["graph"]["forward"]["nodes"][0]["id"]
    assert rec.trace.tensor(first["tensor"])["grad_of"] == doc["graph"]["forward"]["nodes"][0]["inputs"][0]

    with paddle.debug.record() as rec:
        mlp(batch[0])
        weight = mlp.fc2.weight
        weight._data[0, 0] = np.inf
        instrument.emit(instrument.OptimizerUpdate("SGD", weight.name, 0.1, grad_norm=1.0, update_norm=float("inf")))
    doc = validated(rec.trace)
    first = doc["nan_inf"]["first"]
    assert (first["origin"], first["op"], first["inf_count"]) == ("update", "SGD", 1)
    assert doc["optimizer_updates"][0]["update_norm"] == "Infinity"  # JSON has no inf literal
    assert "Infinity" in rec.trace.to_json()


@pytest.mark.parametrize("values", ["none", "small", "all"])
def test_values_modes(values):
    small = paddle.to_tensor([1.0, 2.0, 3.0])
    big = paddle.to_tensor(np.linspace(0, 1, 100).astype("float32"))
    with paddle.debug.record(values=values, values_max_numel=10) as rec:
        s = small * 2.0
        b = big * 2.0
    doc = validated(rec.trace)
    n_small, n_big = doc["graph"]["forward"]["nodes"]
    got_small = rec.trace.values(n_small["output_states"][0])
    got_big = rec.trace.values(n_big["output_states"][0])
    omitted = rec.trace.state(n_big["output_states"][0])["values_omitted"]
    if values == "none":
        assert got_small is None and got_big is None and omitted == "mode"
    elif values == "small":
        np.testing.assert_array_equal(got_small, s.numpy())
        assert got_big is None and omitted == "size"
    else:
        np.testing.assert_array_equal(got_small, s.numpy())
        np.testing.assert_array_equal(got_big, b.numpy())
        assert got_big.dtype == np.float32 and got_big.shape == (100,)
    assert rec.trace.state(n_big["output_states"][0])["summary"]["max"] == pytest.approx(2.0)


def test_no_subscriber_is_left_after_the_block_even_when_it_raises():
    before = list(instrument.subscribers)
    with paddle.debug.record() as rec:
        assert len(instrument.subscribers) == len(before) + 1 and rec.recording
    assert instrument.subscribers == before and not rec.recording
    with pytest.raises(InvalidArgument, match="matmul"):
        with paddle.debug.record() as rec:
            paddle.add(paddle.ones([2]), paddle.ones([2]))
            paddle.matmul(paddle.ones([2, 3]), paddle.ones([2, 3]))
    assert instrument.subscribers == before
    assert [n["op"] for n in validated(rec.trace)["graph"]["forward"]["nodes"]] == ["add"]


def test_save_load_round_trip_keeps_user_names_raw(tmp_path, batch):
    model = MLP()
    evil = "<script>alert('x')</script>"
    model.add_sublayer(evil, nn.Linear(3, 2))

    class Outer(nn.Layer):
        def __init__(self):
            super().__init__()
            self.inner = model

        def forward(self, x):
            return getattr(self.inner, evil)(self.inner(x))

    with paddle.debug.record() as rec:
        Outer()(batch[0]).sum().backward()
    path = rec.trace.save(tmp_path / "trace.json")
    loaded = paddle.visualizer.Trace.load(path)
    assert loaded.to_dict() == rec.trace.to_dict()
    validated(loaded)
    assert f"Outer.inner.{evil}" in {layer["path"] for layer in loaded.to_dict()["layers"]}
    assert evil in path.read_text(encoding="utf-8")  # stored raw; escaping is the renderer's job


def test_tensor_ids_are_stable_and_never_reused_for_a_new_tensor():
    def use_all(tensors) -> list[int]:
        """Add each tensor to a running sum (one add node each); return their addresses."""
        nonlocal keep
        for t in tensors:
            keep = keep + t
        return [id(t) for t in tensors]

    with paddle.debug.record(values="small") as rec:
        keep = paddle.zeros([3])
        first = use_all([paddle.Tensor._wrap(np.full(3, 1.0, np.float32)) for _ in range(100)])
        second = use_all([paddle.Tensor._wrap(np.full(3, 2.0, np.float32)) for _ in range(100)])  # the 1st died
    doc = validated(rec.trace)
    adds = doc["graph"]["forward"]["nodes"]
    tids = [n["inputs"][1] for n in adds]
    first, second = dict(zip(first, tids[:100])), dict(zip(second, tids[100:]))
    recycled = set(first) & set(second)  # addresses CPython handed out again
    assert len(recycled) > 0
    assert all(first[a] != second[a] for a in recycled)
    assert len(set(tids)) == 200
    for tid in second.values():
        assert rec.trace.values(rec.trace.tensor(tid)["states"][0]).tolist() == [2.0, 2.0, 2.0]
    assert [n["inputs"][0] for n in adds[1:]] == [n["outputs"][0] for n in adds[:-1]]  # one id from op to op


def test_kernel_choice_says_why():
    from minipaddle.framework.registry import KernelKey, get_op, set_preferred_kernel
    x = paddle.rand([4, 4])
    matmul = get_op("matmul")
    other = matmul.kernels[KernelKey("cpu", np.dtype("float32"))][-1].name
    with paddle.debug.record() as rec:
        paddle.matmul(x, x)
        paddle.sum(x)
        set_preferred_kernel("matmul", KernelKey("cpu", np.dtype("float32")), other)
        try:
            paddle.matmul(x, x)
        finally:
            set_preferred_kernel("matmul", KernelKey("cpu", np.dtype("float32")), None)
    first, total, preferred = [n["kernel"] for n in validated(rec.trace)["graph"]["forward"]["nodes"]]
    assert first["reason"] == "priority" and len(first["candidates"]) > 1 and first["name"] == first["candidates"][0]
    assert total["reason"] == "only" and total["dtype"] == "float32"
    assert preferred == {**first, "name": other, "reason": "preferred"}


def test_hooks_and_optimizer_updates_are_steps(mlp, batch):
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    with paddle.debug.record() as rec:
        y = x * 3.0
        y.register_hook(lambda g: g * 10.0)
        y.sum().backward()
        train_step(mlp, *batch, lr=0.5)
    doc = validated(rec.trace)
    hook = next(s for s in doc["steps"] if s["kind"] == "hook")
    assert hook["tensor"] == doc["graph"]["forward"]["nodes"][0]["outputs"][0]
    assert rec.trace.values(hook["grad"]).tolist() == [1.0, 1.0]
    assert rec.trace.values(hook["result"]).tolist() == [10.0, 10.0]
    assert "<lambda>" in hook["hook"]
    assert x.grad.numpy().tolist() == [30.0, 30.0]
    updates = doc["optimizer_updates"]
    assert [u["param_name"] for u in updates] == [p.name for p in mlp.parameters()]
    assert all(u["optimizer"] == "SGD" and u["lr"] == 0.5 and u["update_norm"] > 0 for u in updates)
    weight = mlp.fc2.weight
    update = next(u for u in updates if u["param_name"] == weight.name)
    step = next(s for s in doc["steps"] if s.get("update") == update["id"])
    np.testing.assert_array_equal(rec.trace.values(step["states"][0]), weight.numpy())  # the value after it
    assert rec.trace.tensor(update["param"])["role"] == "parameter"


def test_in_place_result_is_linked_to_the_op_that_made_it():
    a = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    with paddle.debug.record() as rec:
        x = a * 2.0
        x.add_(paddle.ones([2]))
        y = x * 3.0
        y.sum().backward()
    doc = validated(rec.trace)
    nodes = {n["op"]: n for n in doc["graph"]["forward"]["nodes"]}
    second_mul = doc["graph"]["forward"]["nodes"][-2]
    assert second_mul["op"] == "multiply" and second_mul["inputs"][0] == nodes["add"]["outputs"][0]
    assert rec.trace.values(second_mul["input_states"][0]).tolist() == [3.0, 5.0]
    assert a.grad.numpy().tolist() == [6.0, 6.0]


def test_paddle_grad_and_a_graph_made_before_recording():
    a = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    early = a * a  # its grad node exists before the recording starts
    with paddle.debug.record() as rec:
        out = (early * 2.0).sum()
        (g,) = paddle.grad([out], [a])
    doc = validated(rec.trace)
    assert g.numpy().tolist() == [4.0, 8.0] and a.grad is None
    outside = [n for n in doc["graph"]["backward"]["nodes"] if n["outside"]]
    assert [n["name"] for n in outside] == ["multiply_grad"] and outside[0]["next"] == []
    inputs = [e for e in doc["graph"]["forward"]["edges"] if e["source"] is None]
    assert rec.trace.tensor(inputs[0]["tensor"])["role"] == "activation"  # made outside the trace


def test_backward_false_records_only_the_forward_pass(mlp, batch):
    with paddle.debug.record(backward=False) as rec:
        ((mlp(batch[0]) - batch[1]) ** 2).mean().backward()
    doc = validated(rec.trace)
    assert {s["kind"] for s in doc["steps"]} == {"op"}
    assert doc["recording"]["backward"] is False
    assert doc["recording"]["event_counts"]["backward_step"] > 0
    assert mlp.fc1.weight.grad is not None


def test_trace_while_recording_is_a_fresh_snapshot():
    with paddle.debug.record() as rec:
        paddle.ones([2]) + 1.0
        first = rec.trace
        assert rec.trace is first  # nothing new: the same object
        paddle.ones([2]) * 2.0
        second = rec.trace
    assert (len(first.nodes), len(second.nodes)) == (1, 2)
    assert "1 op nodes" in repr(first) and "recording" not in repr(rec)


def test_record_rejects_bad_arguments():
    with pytest.raises(InvalidArgument, match=r"debug.record: values='some', expected one of 'small', 'none', 'all'"):
        paddle.debug.record(values="some")
    with pytest.raises(InvalidArgument, match=r"max_bytes=-1, expected an integer >= 1024"):
        paddle.debug.record(max_bytes=-1)
    with pytest.raises(InvalidArgument, match=r"max_steps=0, expected an integer >= 1"):
        paddle.debug.record(max_steps=0)
    with pytest.raises(InvalidArgument, match=r"backward='yes', expected True or False"):
        paddle.debug.record(backward="yes")
    with pytest.raises(PreconditionNotMet, match="nothing was recorded yet"):
        _ = paddle.debug.record().trace
    rec = paddle.debug.record()
    with rec:
        with pytest.raises(PreconditionNotMet, match="already recording"):
            rec.start()


def test_a_bad_event_is_noted_in_the_trace_not_raised():
    with paddle.debug.record() as rec:
        instrument.emit(instrument.BackwardStep(node=object(), grads_in=[], grads_out=[]))
        paddle.ones([2]) + 1.0
    doc = rec.trace.to_dict()
    assert len(doc["recording"]["errors"]) == 1 and "backward_step" in doc["recording"]["errors"][0]
    assert len(doc["graph"]["forward"]["nodes"]) == 1


def _summaries_made(monkeypatch) -> list:
    """Spy on the recorder's summarize(): the sizes of the arrays it summarizes."""
    from minipaddle.visualizer import tensor_states
    made: list = []
    real = tensor_states.summarize
    monkeypatch.setattr(tensor_states, "summarize", lambda a: made.append(a.size) or real(a))
    return made


def _state_summary(trace, sid: str) -> dict:
    return trace.state(sid)["summary"]


def test_a_parameter_unchanged_since_the_last_recording_is_not_summarized_again(monkeypatch):
    paddle.seed(3)
    layer = nn.Linear(40, 30)  # a 1200-value weight
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=layer.parameters())
    x = paddle.rand([4, 40])
    made = _summaries_made(monkeypatch)
    with paddle.debug.record() as first:
        layer(x).sum().backward()
        opt.step()
    assert made.count(1200) == 3  # input state, gradient, value after the update (the .grad shares one)
    made.clear()
    with paddle.debug.record() as second:
        layer(x)
    assert 1200 not in made  # the weight did not change since the first recording's last summary
    after_update = first.trace.to_dict()["steps"][-2]["states"][0]
    assert first.trace.tensor(first.trace.state(after_update)["tensor"])["name"] == layer.weight.name
    node = second.trace.nodes[0]
    summary = _state_summary(second.trace, node["input_states"][1])
    assert summary == _state_summary(first.trace, after_update)
    assert summary["mean"] == pytest.approx(float(layer.weight.numpy().astype(np.float64).mean()), rel=5e-4)

    with paddle.no_grad():
        layer.weight.set_value(np.full([40, 30], 2.0, np.float32))  # set_value bumps the version
    made.clear()
    with paddle.debug.record() as third:
        layer(x)
    assert made.count(1200) == 1
    assert _state_summary(third.trace, third.trace.nodes[0]["input_states"][1])["mean"] == 2.0


def test_a_grad_buffer_shares_the_gradients_summary_only_when_equal(monkeypatch):
    paddle.seed(4)
    layer = nn.Linear(40, 30)
    x = paddle.rand([4, 40])
    made = _summaries_made(monkeypatch)

    def accumulate_steps(rec):
        """(incoming gradient state, .grad state) of the weight's accumulate step."""
        doc = validated(rec.trace)
        step = next(s for s in doc["steps"] if s["kind"] == "backward_step"
                    and rec.trace.node(s["node"])["kind"] == "accumulate"
                    and rec.trace.tensor(rec.trace.node(s["node"])["tensor"])["name"] == layer.weight.name)
        return step["grads_in"][0], step["grads_out"][0]

    with paddle.debug.record() as rec:  # .grad was empty: a copy of the incoming gradient
        layer(x).sum().backward()
    incoming, buffer = accumulate_steps(rec)
    assert made.count(1200) == 2  # the weight as an input, its gradient; not the .grad buffer
    assert _state_summary(rec.trace, buffer) == _state_summary(rec.trace, incoming)
    layer.clear_gradients()  # zeroed in place: the next gradient fills it, equal again
    with paddle.debug.record() as rec:
        layer(x).sum().backward()
    incoming, buffer = accumulate_steps(rec)
    assert _state_summary(rec.trace, buffer) == _state_summary(rec.trace, incoming)

    made.clear()
    with paddle.debug.record() as rec:  # no clear_grad: .grad now holds twice the gradient
        layer(x).sum().backward()
    incoming, buffer = accumulate_steps(rec)
    assert made.count(1200) == 2  # the gradient, and the buffer that differs from it
    grad = layer.weight.grad.numpy().astype(np.float64)
    summary = _state_summary(rec.trace, buffer)
    assert (summary["min"], summary["max"]) == pytest.approx((grad.min(), grad.max()), rel=1e-3)
    assert summary["mean"] == pytest.approx(2 * _state_summary(rec.trace, incoming)["mean"], rel=1e-3)


@pytest.mark.parametrize("dtype", ["float32", "float16"])  # float16: the numpy path
def test_optimizer_update_norms_match_numpy(dtype):
    paddle.seed(5)
    layer = nn.Linear(30, 20)
    if dtype != "float32":
        layer.to(dtype=dtype)
    opt = paddle.optimizer.Momentum(learning_rate=0.1, momentum=0.9, parameters=layer.parameters(), weight_decay=0.1)
    (layer(paddle.rand([3, 30]).astype(dtype)) ** 2).sum().backward()
    before = {p.name: p.numpy().astype(np.float64) for p in layer.parameters()}
    grads = {p.name: p.grad.numpy().astype(np.float64) + 0.1 * before[p.name] for p in layer.parameters()}
    heard = []
    unsubscribe = instrument.subscribe(heard.append, kinds=("optimizer_update",))
    try:
        opt.step()
    finally:
        unsubscribe()
    updates = {e.param: e for e in heard}
    assert sorted(updates) == sorted(before)
    for p in layer.parameters():
        e = updates[p.name]
        assert e.tensor is p and e.optimizer == "Momentum"
        tol = 1e-5 if dtype == "float32" else 2e-3
        assert e.grad_norm == pytest.approx(np.linalg.norm(grads[p.name]), rel=tol)
        assert e.update_norm == pytest.approx(np.linalg.norm(p.numpy().astype(np.float64) - before[p.name]),
                                                 rel=tol)
        assert e.update_norm > 0


def test_rebuilding_while_recording_reuses_what_did_not_change_and_encodes_the_same_json(mlp, batch):
    import json
    rec = paddle.debug.record(max_steps=40).start()
    try:
        train_step(mlp, *batch)
        first = rec.trace
        assert first._texts is None and rec._builder.cache.states == {}  # one build keeps nothing extra
        for _ in range(4):  # the ring buffer drops steps between builds
            train_step(mlp, *batch)
            trace = rec.trace
            assert trace._texts is rec._builder.cache
            plain = json.dumps(trace.to_dict(), separators=(",", ":"), allow_nan=False, ensure_ascii=False)
            assert trace.to_json() == plain
            validated(trace)
        builder = rec._builder
        assert builder.dropped_steps > 0
        cache = builder.cache
        assert cache.states and set(cache.states) <= set(builder.objects)
        assert cache.state_texts and set(cache.state_texts) <= set(builder.objects)
        kept = {step["index"] for step, _, _ in builder.steps}
        assert cache.step_texts and set(cache.step_texts) <= kept
    finally:
        rec.stop()


def test_a_parameters_gradient_is_one_record_across_training_steps(mlp, batch):
    # clear_grad() gives each step's gradient a new Tensor (Paddle's semantics); the debugger still shows
    # one gradient per parameter, with a state per step, so time travel finds an earlier step's gradient
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=mlp.parameters())
    seen = {p.name: [] for p in mlp.parameters()}
    with paddle.debug.record() as rec:
        for _ in range(3):
            ((mlp(batch[0]) - batch[1]) ** 2).mean().backward()
            for p in mlp.parameters():
                seen[p.name].append(p.grad.numpy().copy())
            opt.step()
            opt.clear_grad()
    doc = validated(rec.trace)
    tensors = {t["id"]: t for t in doc["tensors"]}
    params = {t["name"]: t for t in doc["tensors"] if t["role"] == "parameter"}
    for p in mlp.parameters():
        grad = tensors[params[p.name]["grad"]]
        assert len(grad["states"]) == 3
        for state, want in zip(grad["states"], seen[p.name]):
            np.testing.assert_allclose(rec.trace.values(state), want, rtol=1e-6)
        assert len({rec.trace.state(s)["step"] for s in grad["states"]}) == 3
