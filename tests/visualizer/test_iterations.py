"""Training iterations and their health (schema 1.2): where iterations begin, what they share, and the
numbers the health view shows, checked against the real losses, activations and gradients."""
from __future__ import annotations

import math
import statistics

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle import nn

from .conftest import validated


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    return (paddle.to_tensor(rng.standard_normal((16, 4)).astype("float32")),
            paddle.to_tensor(rng.standard_normal((16, 2)).astype("float32")))


def make_net():
    paddle.seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 8), nn.Sigmoid(), nn.Linear(8, 8), nn.ReLU(),
                         nn.Linear(8, 2))


def train(net, opt, x, y, iterations: int, accumulate: int = 1) -> list[float]:
    """forward + backward per micro-batch, an update every `accumulate` of them; the real losses."""
    losses = []
    for i in range(iterations):
        loss = ((net(x) - y) ** 2).mean()
        loss.backward()
        losses.append(float(loss))
        if opt is not None and (i + 1) % accumulate == 0:
            opt.step()
            opt.clear_grad()
    return losses


def op_steps(doc: dict) -> list[int]:
    return [s["index"] for s in doc["steps"] if s["kind"] == "op"]


def test_each_iteration_starts_at_the_first_forward_op_after_an_update(data):
    net = make_net()
    opt = paddle.optimizer.Adam(learning_rate=0.01, parameters=net.parameters())
    train(net, opt, *data, 1)  # warm-up: the backward engine orders leaves differently the first time
    with paddle.debug.record() as rec:
        losses = train(net, opt, *data, 4)
    doc = validated(rec.trace)
    its = rec.trace.iterations
    assert [it["index"] for it in its] == [0, 1, 2, 3]
    assert its[0]["first_step"] == 0 and its[-1]["last_step"] == doc["steps"][-1]["index"]
    kinds = [s["kind"] for s in doc["steps"]]
    for before, after in zip(its, its[1:]):
        assert after["first_step"] == before["last_step"] + 1
        assert kinds[after["first_step"]] == "op" and kinds[before["last_step"]] == "optimizer_update"
    assert [it["loss"] for it in its] == losses  # exactly the values backward() started from
    assert {it["structure"] for it in its} == {0}
    assert [s["kind"] for s in rec.trace.iteration_steps(2)] == kinds[its[0]["first_step"]:its[0]["last_step"] + 1]


def test_without_an_optimizer_backward_alone_ends_an_iteration(data):
    net = make_net()
    with paddle.debug.record() as rec:
        losses = train(net, None, *data, 3)
    doc = validated(rec.trace)
    its = doc["iterations"]
    assert [it["loss"] for it in its] == losses
    assert all(it["grad_norm"] is None and it["update_ratio"] is None for it in its)
    assert doc["health"]["params"] == []
    assert len({it["structure"] for it in its}) == 1  # the first too: backward runs in another order there
    firsts = [it["first_step"] for it in its]
    ops = op_steps(doc)
    assert firsts == [ops[0], ops[len(ops) // 3], ops[2 * len(ops) // 3]]


def test_gradient_accumulation_makes_micro_batches_with_and_without_an_update(data):
    net = make_net()
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=net.parameters())
    train(net, opt, *data, 2, accumulate=2)
    with paddle.debug.record() as rec:
        losses = train(net, opt, *data, 4, accumulate=2)
    doc = validated(rec.trace)
    its = doc["iterations"]
    assert [it["loss"] for it in its] == losses
    assert [it["grad_norm"] is not None for it in its] == [False, True, False, True]
    a, b = its[0]["structure"], its[1]["structure"]
    assert a != b and [it["structure"] for it in its] == [a, b, a, b]
    params = doc["health"]["params"]
    assert all(p["grad_norm"][0] is None and p["grad_norm"][1] is not None for p in params)


def test_a_data_dependent_branch_makes_two_structures(data):
    class Branchy(nn.Layer):
        def __init__(self) -> None:
            super().__init__()
            self.fc = nn.Linear(4, 2)
            self.extra = nn.Linear(2, 2)

        def forward(self, x, deep: bool):
            h = self.fc(x)
            return self.extra(h) if deep else h

    paddle.seed(0)
    net = Branchy()
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=net.parameters())
    x, y = data

    def run(iterations: int) -> None:
        for i in range(iterations):
            loss = ((net(x, deep=i % 2 == 1) - y) ** 2).mean()
            loss.backward()
            opt.step()
            opt.clear_grad()
    run(2)  # warm-up of both branches (a leaf's first backward is ordered differently)
    with paddle.debug.record() as rec:
        run(5)
    doc = validated(rec.trace)
    structures = [it["structure"] for it in doc["iterations"]]
    assert structures[1] == structures[3] and structures[2] == structures[4] and structures[1] != structures[2]
    for i, j in ((1, 3), (2, 4)):  # same structure: the k-th step of one is the k-th step of the other
        a, b = rec.trace.iteration_steps(i), rec.trace.iteration_steps(j)
        assert [s["kind"] for s in a] == [s["kind"] for s in b]
        nodes = {n["id"]: n for n in doc["graph"]["forward"]["nodes"]}
        assert [nodes[s["node"]]["layer"] for s in a if s["kind"] == "op"] == \
               [nodes[s["node"]]["layer"] for s in b if s["kind"] == "op"]
    extra = next(layer for layer in doc["health"]["layers"] if layer["path"] == "Branchy.extra")
    assert [n is None for n in extra["node"]] == [True, False, True, False, True]  # ran only when deep


def test_a_forward_only_recording_has_no_iterations(data):
    net = make_net()
    with paddle.debug.record() as rec:
        net(data[0])
    doc = validated(rec.trace)
    assert "iterations" not in doc and "health" not in doc
    assert rec.trace.iterations == [] and rec.trace.health is None


def test_layer_health_matches_numpy_on_the_real_activations_and_gradients(data):
    net = make_net()
    opt = paddle.optimizer.SGD(learning_rate=0.5, parameters=net.parameters())
    seen: dict[int, list] = {}

    def keep(layer, inputs, output):  # the real output, and the real gradient flowing back into it
        record = {"y": output.numpy().copy()}
        seen.setdefault(id(layer), []).append(record)
        output.register_hook(lambda g: record.__setitem__("g", g.numpy().copy()))

    for layer in net:
        layer.register_forward_post_hook(keep)
    with paddle.debug.record() as rec:
        train(net, opt, *data, 3)
    doc = validated(rec.trace)
    layers = {entry["path"]: entry for entry in doc["health"]["layers"]}
    assert list(layers) == [f"Sequential.{i}" for i in range(7)]  # leaf layers, in the order they ran
    expected_kind = {"Sequential.1": ("Tanh", "tanh"), "Sequential.3": ("Sigmoid", "sigmoid"),
                     "Sequential.5": ("ReLU", "relu"), "Sequential.0": ("Linear", None)}
    for path, (kind, activation) in expected_kind.items():
        assert (layers[path]["kind"], layers[path]["activation"]) == (kind, activation)
    assert layers["Sequential.0"]["saturated"] is None
    flat = {"tanh": lambda y: np.abs(y) > 0.97, "sigmoid": lambda y: (y < 0.03) | (y > 0.97),
            "relu": lambda y: y == 0}
    nodes = {n["id"]: n for n in doc["graph"]["forward"]["nodes"]}
    for i, layer in enumerate(net):
        entry = layers[f"Sequential.{i}"]
        for it, record in enumerate(seen[id(layer)]):
            y, g = record["y"].astype(np.float64), record["g"].astype(np.float64)
            assert nodes[entry["node"][it]]["layer"] == entry["path"]
            assert entry["act_mean"][it] == pytest.approx(y.mean(), rel=1e-3, abs=1e-7)
            assert entry["act_std"][it] == pytest.approx(y.std(), rel=1e-3)
            assert entry["grad_std"][it] == pytest.approx(g.std(), rel=1e-3)
            assert entry["grad_norm"][it] == pytest.approx(np.linalg.norm(g), rel=1e-3)
            if entry["activation"]:
                fraction = flat[entry["activation"]](record["y"]).mean()
                assert entry["saturated"][it] == pytest.approx(fraction, abs=1e-4)
                assert nodes[entry["node"][it]]["saturation"] == fraction  # exact on the op node
    assert sum(1 for n in nodes.values() if "saturation" in n) == 3 * 3  # only tanh, sigmoid, relu outputs


def test_parameter_health_and_structured_names_match_the_model(data):
    net = make_net()
    opt = paddle.optimizer.Adam(learning_rate=0.01, parameters=net.parameters())
    x, y = data
    truth = []
    with paddle.debug.record() as rec:
        for _ in range(3):
            loss = ((net(x) - y) ** 2).mean()
            loss.backward()
            before = {p.name: (p.numpy().astype(np.float64), p.grad.numpy().astype(np.float64))
                      for p in net.parameters()}
            opt.step()
            opt.clear_grad()
            truth.append({p.name: (before[p.name], p.numpy().astype(np.float64)) for p in net.parameters()})
    doc = validated(rec.trace)
    keys = dict(net.state_dict())
    by_name = {p.name: key for key, p in keys.items()}
    params = doc["health"]["params"]
    assert [p["name"] for p in params] == list(keys)  # the optimizer's order is the model's
    tensors = {t["id"]: t for t in doc["tensors"]}
    for p in params:
        assert p["name"] == by_name[p["paddle_name"]] == tensors[p["tensor"]]["structured_name"]
        assert p["layer"] == "Sequential." + p["name"].split(".")[0]
    assert {u["structured_name"] for u in doc["optimizer_updates"]} == set(keys)
    for it in range(3):
        ratios, squares = [], []
        for p in params:
            (w, g), after = truth[it][p["paddle_name"]]
            assert p["grad_norm"][it] == pytest.approx(np.linalg.norm(g), rel=1e-3)
            assert p["weight_norm"][it] == pytest.approx(np.linalg.norm(after), rel=1e-3)
            ratio = np.linalg.norm(after - w) / np.linalg.norm(after)
            assert p["update_ratio"][it] == pytest.approx(ratio, rel=2e-3)
            ratios.append(ratio)
            squares.append(np.linalg.norm(g) ** 2)
        iteration = doc["iterations"][it]
        assert iteration["grad_norm"] == pytest.approx(math.sqrt(sum(squares)), rel=1e-3)
        assert iteration["update_ratio"] == pytest.approx(statistics.median(ratios), rel=2e-3)


def test_a_parameter_used_outside_any_layer_has_no_structured_name(data):
    net = make_net()
    w = net[0].weight
    with paddle.debug.record() as rec:
        paddle.matmul(data[0], w).sum().backward()
    doc = validated(rec.trace)
    (record,) = [t for t in doc["tensors"] if t["name"] == w.name]
    assert record["structured_name"] is None


def test_the_ring_buffer_dropping_early_iterations_leaves_nulls_not_errors(data):
    net = make_net()
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=net.parameters())
    with paddle.debug.record() as full:
        train(net, opt, *data, 1)
    per_iteration = len(full.trace.steps)
    with paddle.debug.record(max_steps=2 * per_iteration + 5) as rec:
        losses = train(net, opt, *data, 6)
    doc = validated(rec.trace)
    its = doc["iterations"]
    assert doc["recording"]["dropped_steps"] > 0
    assert [it["index"] for it in its] == [3, 4, 5]  # 0..2 entirely dropped; 3 partly
    assert its[0]["first_step"] == doc["steps"][0]["index"]
    assert [it["loss"] for it in its] == losses[3:]  # noted when backward began: kept
    assert its[0]["structure"] != its[1]["structure"] == its[2]["structure"]
    for entry in doc["health"]["layers"]:
        for key in ("node", "act_mean", "act_std", "grad_std"):
            assert len(entry[key]) == len(its)
    first = doc["health"]["layers"][0]
    assert first["node"][0] is None and first["act_mean"][0] is None and first["act_mean"][1] is not None
    for p in doc["health"]["params"]:
        assert len(p["grad_norm"]) == len(its) and p["grad_norm"][1] is not None


def test_the_optimizers_own_work_emits_no_op_events(data):
    from minipaddle.framework import instrument
    net = make_net()
    opt = paddle.optimizer.AdamW(learning_rate=0.01, parameters=net.parameters(),
                                 grad_clip=nn.ClipGradByGlobalNorm(0.1))
    ((net(data[0]) - data[1]) ** 2).mean().backward()
    events = []
    unsubscribe = instrument.subscribe(events.append)
    try:
        opt.step()
        opt.clear_grad()
    finally:
        unsubscribe()
    assert {e.kind for e in events} == {"optimizer_step_begin", "optimizer_update", "optimizer_step_end"}


def test_a_failing_state_dict_costs_the_names_not_the_recording(data):
    class Odd(nn.Layer):
        def __init__(self) -> None:
            super().__init__()
            self.fc = nn.Linear(4, 2)

        def forward(self, x):
            return self.fc(x)

        def state_dict(self, *args, **kwargs):
            raise RuntimeError("not today")

    net = Odd()
    with paddle.debug.record() as rec:
        net(data[0]).sum().backward()
    doc = validated(rec.trace)
    assert [n["op"] for n in doc["graph"]["forward"]["nodes"]][:1] == ["linear"]
    assert {t["structured_name"] for t in doc["tensors"] if t["role"] == "parameter"} == {None}


def test_a_recording_without_backward_steps_still_sees_iterations(data):
    net = make_net()
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=net.parameters())
    with paddle.debug.record(backward=False) as rec:
        losses = train(net, opt, *data, 3)
    doc = validated(rec.trace)
    assert not any(s["kind"] == "backward_step" for s in doc["steps"])
    assert [it["loss"] for it in doc["iterations"]] == losses  # backward() began, even if its steps are not kept
    assert all(v is None for layer in doc["health"]["layers"] for v in layer["grad_std"])
    assert all(v is not None for layer in doc["health"]["layers"] for v in layer["act_std"])


def test_a_loss_gone_nan_is_null_in_the_iterations_and_named_by_nan_inf(data):
    net = make_net()
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=net.parameters())
    x, y = data
    with paddle.debug.record() as rec:
        train(net, opt, x, y, 1)
        loss = paddle.log(((net(x) - y) ** 2).mean() - 1e6)  # log of a negative number
        loss.backward()
        opt.step()
        opt.clear_grad()
    doc = validated(rec.trace)
    first, second = doc["iterations"]
    assert first["loss"] is not None and second["loss"] is None
    assert doc["nan_inf"]["first"]["op"] == "log"
    for layer in doc["health"]["layers"]:
        assert all(v is None or math.isfinite(v) for v in layer["grad_std"])


def test_max_steps_never_drops_the_newest_complete_iteration():
    # an iteration of a deep model is longer than the ring buffer: its forward pass must survive
    paddle.seed(0)
    net = nn.Sequential(*[nn.Linear(4, 4) for _ in range(12)])
    opt = paddle.optimizer.SGD(learning_rate=0.01, parameters=net.parameters())
    x = paddle.to_tensor(np.ones((2, 4), "float32"))
    with paddle.debug.record(max_steps=30) as rec:
        for _ in range(3):
            loss = net(x).mean()
            loss.backward()
            opt.step()
            opt.clear_grad()
    doc = rec.trace.to_dict()
    assert doc["recording"]["dropped_steps"] > 0  # older iterations went
    last = doc["iterations"][-1]
    kept = [s for s in doc["steps"] if last["first_step"] <= s["index"] <= last["last_step"]]
    ops = [s for s in kept if s["kind"] == "op"]
    assert len(kept) > 30 and len(ops) == 13  # 12 linears and the mean: the whole forward pass
    assert doc["iterations"][0]["index"] >= 1


def test_max_bytes_still_bounds_memory_whatever_the_iteration():
    paddle.seed(0)
    net = nn.Sequential(*[nn.Linear(4, 4) for _ in range(12)])
    x = paddle.to_tensor(np.ones((2, 4), "float32"))
    with paddle.debug.record(max_bytes=60_000) as rec:
        for _ in range(2):
            net(x).mean().backward()
    recording = rec.trace.to_dict()["recording"]
    assert recording["dropped_steps"] > 0 and recording["bytes_used"] <= 60_000
