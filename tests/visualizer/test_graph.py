"""Graph views of a trace: forward, backward (cross-linked), layer-grouped with folded blocks, budgets."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle import nn
from minipaddle.framework.errors import InvalidArgument
from minipaddle.visualizer.graph import (DEFAULT_BUDGET, apply_budget, backward_graph, combined_graph, forward_graph,
                                         graph_view, layer_graph)


class MLP(nn.Layer):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(8, 3)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


def record_mlp_step():
    """One real training step (Linear, ReLU, CrossEntropyLoss, SGD) recorded: (trace, model)."""
    paddle.seed(0)
    model = MLP()
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
    x = paddle.to_tensor(np.random.default_rng(0).standard_normal((5, 4)).astype("float32"))
    y = paddle.to_tensor(np.array([0, 1, 2, 0, 1]))
    with paddle.debug.record() as rec:
        loss = nn.CrossEntropyLoss()(model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
    return rec.trace, model


class Block(nn.Layer):
    def __init__(self, width: int = 4, out: int | None = None) -> None:
        super().__init__()
        self.fc = nn.Linear(width, out or width)

    def forward(self, x):
        return x + 0.5 * paddle.tanh(self.fc(x))  # 4 ops: linear, tanh, multiply, add


class Stage(nn.Layer):
    def __init__(self, blocks: int) -> None:
        super().__init__()
        self.blocks = nn.LayerList([Block() for _ in range(blocks)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


class Deep(nn.Layer):
    def __init__(self, stages: int, blocks: int) -> None:
        super().__init__()
        self.stages = nn.LayerList([Stage(blocks) for _ in range(stages)])

    def forward(self, x):
        for stage in self.stages:
            x = stage(x)
        return x


def record_deep(stages: int, blocks: int, grad: bool = True):
    paddle.seed(1)
    model = Deep(stages, blocks)
    x = paddle.ones([2, 4])
    with paddle.debug.record(values="none") as rec:
        if grad:
            model(x).sum().backward()
        else:
            with paddle.no_grad():
                model(x)
    return rec.trace


@pytest.fixture(scope="module")
def mlp_step():
    return record_mlp_step()


@pytest.fixture(scope="module")
def mlp_trace(mlp_step):
    return mlp_step[0]


def param_names(model) -> tuple[str, str, str, str]:
    """fc1's weight and bias, fc2's weight and bias (names count up over the whole test run)."""
    return model.fc1.weight.name, model.fc1.bias.name, model.fc2.weight.name, model.fc2.bias.name


@pytest.fixture(scope="module")
def big_trace():
    """5,000 recorded ops: 5 stages x 250 residual blocks x 4 ops."""
    trace = record_deep(5, 250, grad=False)
    assert len(trace.nodes) == 5000
    return trace


def check_consistent(view) -> None:
    """Edges join nodes of the view, clusters nest, ids are unique, and it is plain JSON data."""
    ids = [n.id for n in view.nodes]
    assert len(ids) == len(set(ids))
    clusters = {c.id: c for c in view.clusters}
    for e in view.edges:
        assert e.source in ids and e.target in ids, e
    for n in view.nodes:
        assert n.cluster is None or n.cluster in clusters
    for c in view.clusters:
        assert c.parent is None or c.parent in clusters
    json.dumps(view.to_dict())


def test_forward_view_of_a_training_step(mlp_step):
    mlp_trace, model = mlp_step
    w1, b1, w2, b2 = param_names(model)
    view = forward_graph(mlp_trace)
    check_consistent(view)
    doc = mlp_trace.to_dict()
    ops = [n for n in view.nodes if n.kind == "op"]
    assert [(n.id, n.label) for n in ops] == [(n["id"], n["op"]) for n in doc["graph"]["forward"]["nodes"]]
    assert [n.label for n in ops] == ["linear", "relu", "linear", "cross_entropy_with_softmax"]
    clusters = {c.path: c for c in view.clusters}
    assert clusters["MLP.fc1"].parent == clusters["MLP"].id and clusters["MLP"].parent is None
    assert {n.id: n.cluster for n in ops} == {"n1": clusters["MLP.fc1"].id, "n2": clusters["MLP.act"].id,
                                              "n3": clusters["MLP.fc2"].id, "n4": clusters["CrossEntropyLoss"].id}
    by_id = {n.id: n for n in view.nodes}
    params = [n for n in view.nodes if n.kind == "parameter"]
    assert sorted(n.label for n in params) == sorted([w1, b1, w2, b2])
    assert {n.cluster for n in params} == {clusters["MLP.fc1"].id, clusters["MLP.fc2"].id}  # drawn in their layer
    inputs = sorted((n.detail[0], n.cluster) for n in view.nodes if n.kind == "input")
    assert inputs == [("[5, 4]", None), ("[5] int64", None)]
    edges = {(e.source, e.target): e for e in view.edges}
    assert edges[("n1", "n2")].label == "[5, 8]" and edges[("n1", "n2")].kind == "activation"
    assert edges[("n2", "n3")].label == "[5, 8]" and edges[("n3", "n4")].label == "[5, 3]"
    weight = next(n for n in params if n.label == w1)
    assert edges[(weight.id, "n1")].kind == "parameter" and edges[(weight.id, "n1")].label == "[4, 8]"
    outputs = [n for n in view.nodes if n.kind == "output"]
    assert {n.detail[0] for n in outputs} == {"[]", "[5, 3]"}  # the loss and the softmax
    assert all(by_id[e.source].id == "n4" for e in view.edges if e.target in {n.id for n in outputs})
    for n in ops:  # each op links to its grad node in the backward graph
        assert n.link == mlp_trace.node(n.id)["grad_node"] and n.link.startswith("g")


def test_backward_view_is_cross_linked_to_the_forward_view(mlp_step):
    mlp_trace, model = mlp_step
    fwd, bwd = forward_graph(mlp_trace), backward_graph(mlp_trace)
    check_consistent(bwd)
    doc = mlp_trace.to_dict()
    grads = {n.id: n for n in bwd.nodes}
    assert set(grads) == {g["id"] for g in doc["graph"]["backward"]["nodes"]}
    for op in (n for n in fwd.nodes if n.kind == "op"):
        assert grads[op.link].link == op.id and grads[op.link].label == op.label + "_grad"
        assert grads[op.link].cluster == op.cluster  # the same layer box in both directions
    accumulate = [n for n in bwd.nodes if n.kind == "accumulate"]
    assert sorted(n.detail[0] for n in accumulate) == sorted(param_names(model))
    flows = {(e.source, e.target) for e in bwd.edges}
    for e in fwd.edges:  # every activation edge a -> b is a gradient edge grad(b) -> grad(a)
        if e.kind == "activation" and e.target.startswith("n"):
            assert (fwd_link(fwd, e.target), fwd_link(fwd, e.source)) in flows
    assert all(e.kind == "gradient" and e.label.startswith("[") for e in bwd.edges)
    ran = [s["node"] for s in doc["steps"] if s["kind"] == "backward_step"]
    assert [n.id for n in sorted(bwd.nodes, key=lambda n: n.order)] == ran  # ordered as backward ran them


def fwd_link(view, node_id: str) -> str:
    return next(n.link for n in view.nodes if n.id == node_id)


def test_combined_view_joins_each_op_to_its_grad_node(mlp_trace):
    view = combined_graph(mlp_trace)
    check_consistent(view)
    links = {(e.source, e.target) for e in view.edges if e.kind == "link"}
    assert links == {(n["id"], n["grad_node"]) for n in mlp_trace.nodes}
    assert {n.kind for n in view.nodes} >= {"op", "grad", "accumulate", "parameter"}


def test_layer_view_draws_each_layer_as_one_box(mlp_step):
    mlp_trace, model = mlp_step
    view = layer_graph(mlp_trace, depth=2)
    check_consistent(view)
    boxes = {n.label: n for n in view.nodes if n.kind == "layer"}
    assert set(boxes) == {"fc1", "act", "fc2", "CrossEntropyLoss"}
    assert [c.path for c in view.clusters] == ["MLP"]
    assert boxes["fc1"].cluster == view.clusters[0].id and boxes["CrossEntropyLoss"].cluster is None
    w1, b1, _, _ = param_names(model)
    assert boxes["fc1"].detail == ["linear", f"params: {w1}, {b1}"]  # parameters drawn inside
    assert not [n for n in view.nodes if n.kind == "parameter"]
    assert view.node_of("n1") == boxes["fc1"].id and view.node_of("n2") == boxes["act"].id
    edges = {(e.source, e.target): e.label for e in view.edges}
    assert edges[(boxes["fc1"].id, boxes["act"].id)] == "[5, 8]"
    assert edges[(boxes["fc2"].id, boxes["CrossEntropyLoss"].id)] == "[5, 3]"
    top = layer_graph(mlp_trace, depth=1)
    assert sorted(n.label for n in top.nodes if n.kind == "layer") == ["CrossEntropyLoss", "MLP"]
    assert next(n for n in top.nodes if n.label == "MLP").detail[0] == "linear ×2, relu"


def test_repeated_blocks_fold_into_block_x_n():
    trace = record_deep(2, 3)
    view = layer_graph(trace, depth=5)  # Deep.stages.0.blocks.1 (5 parts): blocks are boxes
    check_consistent(view)
    folds = {c["what"]: c["count"] for c in view.collapsed if c["kind"] == "fold"}
    assert folds == {"Deep.stages.0 … Deep.stages.1": 2, "Deep.stages.0.blocks.0 … Deep.stages.0.blocks.2": 3}
    block = next(n for n in view.nodes if n.kind == "block")
    assert block.label == "blocks.0 … blocks.2"
    assert block.detail[:2] == ["Block ×3", "each: linear, tanh, multiply, add"]
    stage = next(c for c in view.clusters if c.kind == "block")
    assert stage.label.endswith("(Block ×2)") and block.cluster in {c.id for c in view.clusters}
    assert all(view.node_of(n["id"]) == block.id for n in trace.nodes if n["op"] != "sum")  # 24 ops, one node
    assert not any(e.kind == "repeat" for e in view.edges)  # stage 0 -> stage 1 is block -> block: a self-loop
    assert any("Block ×3" in note for note in view.notes)
    inside = layer_graph(trace, depth=6)  # deeper: the first block drawn, the others mapped onto it
    check_consistent(inside)
    fc = next(n for n in inside.nodes if n.kind == "layer")
    assert fc.label == "fc" and re.fullmatch(r"params: linear_\d+\.w_0, linear_\d+\.b_0 \(\+10 in the folded copies\)",
                                             fc.detail[1])
    assert len(fc.refs) == 6 + 12 and inside.node_of(trace.nodes[-2]["id"]) == "n4"  # last add -> first block's add
    repeat = [(e.source, e.target, e.count) for e in inside.edges if e.kind == "repeat"]
    assert repeat == [("n4", fc.id, 5)]  # each block's add feeds the next block's linear (5 of 6 blocks)
    assert len(layer_graph(trace, depth=5, fold=False).nodes) > len(view.nodes)


def test_only_blocks_of_the_same_structure_fold():
    class Mixed(nn.Layer):
        def __init__(self):
            super().__init__()
            self.blocks = nn.LayerList([Block(), Block(), Block(4, 8)])  # the last one widens

        def forward(self, x):
            for i in range(2):  # (not self.blocks[:2]: a slice re-parents the blocks, see the report)
                x = self.blocks[i](x)
            return paddle.tanh(self.blocks[2].fc(x))

    with paddle.debug.record() as rec:
        Mixed()(paddle.ones([1, 4]))
    view = layer_graph(rec.trace, depth=3)
    assert [c["count"] for c in view.collapsed] == [2]
    assert sorted(n.label for n in view.nodes if n.kind in ("layer", "block")) == ["blocks.0 … blocks.1", "blocks.2"]


def test_a_5000_op_trace_has_a_readable_default_view(big_trace):
    view = graph_view(big_trace)
    check_consistent(view)
    assert len(view.nodes) <= DEFAULT_BUDGET
    assert view.kind == "layers" and "5000 ops are too many" in view.notes[0]
    folds = {c["what"]: c["count"] for c in view.collapsed}
    assert folds["Deep.stages.0 … Deep.stages.4"] == 5
    assert folds["Deep.stages.0.blocks.0 … Deep.stages.0.blocks.249"] == 250
    assert any("250 layers of the same structure" in note for note in view.notes)
    assert all(view.node_of(n["id"]) is not None for n in big_trace.nodes)  # every op is somewhere


def test_a_node_budget_collapses_runs_into_a_named_marker(big_trace):
    full = forward_graph(big_trace)
    view = forward_graph(big_trace, budget=40)
    check_consistent(view)
    assert len(view.nodes) <= 40 < len(full.nodes)
    markers = [n for n in view.nodes if n.kind == "collapsed"]
    assert len(markers) == 1 and markers[0].label == f"collapsed {len(full.nodes) - 39} nodes"
    what = markers[0].detail[0]  # ops first, then the other kinds of node
    assert re.fullmatch(r"(linear|tanh|multiply|add) ×\d+.*; parameter ×\d+, input ×\d+", what), what
    assert markers[0].detail[1].startswith("steps ")
    assert view.collapsed == [{"kind": "budget", "id": markers[0].id, "count": len(full.nodes) - 39,
                               "what": markers[0].detail[0]}]
    assert f"collapsed {len(full.nodes) - 39} nodes" in view.notes[-1] and "budget of 40" in view.notes[-1]
    kept = {n.id for n in view.nodes}
    assert "n1" in kept and "n5000" in kept  # the first and the last op stay
    assert all(view.node_of(n["id"]) is not None for n in big_trace.nodes)
    flat = []
    for i in range(300):  # no layers at all: the budget alone keeps it small
        flat.append(i)
    x = paddle.ones([3])
    with paddle.debug.record(values="none") as rec:
        for _ in flat:
            x = x * 1.0
    auto = graph_view(rec.trace, budget=30)
    check_consistent(auto)
    assert len(auto.nodes) <= 30 and auto.kind == "forward" and "runs collapsed" in auto.notes[0]


def test_nan_inf_marks_in_every_view():
    x = paddle.to_tensor([1.0, -1.0], stop_gradient=False)
    with paddle.debug.record() as rec:
        h = x * 1.0
        for _ in range(30):
            h = h + 1.0
        y = paddle.sqrt(h - 30.0)  # sqrt([1, -1]): NaN made here, mid-way
        for _ in range(30):
            y = y * 1.0
        y.sum().backward()
    fwd = forward_graph(rec.trace)
    sqrt = next(n for n in fwd.nodes if n.label == "sqrt")
    assert sqrt.nan_inf == "produced" and sqrt.first_nan_inf
    assert all(n.nan_inf == "propagated" and not n.first_nan_inf for n in fwd.nodes if n.order > sqrt.order
               and n.kind == "op")
    small = forward_graph(rec.trace, budget=10)
    assert sqrt.id in {n.id for n in small.nodes} and len(small.nodes) <= 10  # the first NaN stays visible
    bwd = backward_graph(rec.trace)
    sqrt_grad = next(n for n in bwd.nodes if n.label == "sqrt_grad")
    assert sqrt_grad.nan_inf == "produced" and sqrt_grad.first_nan_inf  # sqrt's grad at a negative: NaN


def test_views_accept_the_document_and_keep_ids_stable(mlp_trace):
    a = graph_view(mlp_trace, "forward").to_dict()
    b = graph_view(mlp_trace.to_dict(), "forward").to_dict()
    assert a == b
    assert graph_view(mlp_trace, "auto").kind == "forward"  # small enough to draw op by op
    assert graph_view(mlp_trace, "auto", depth=1).kind == "layers"


def test_bad_arguments_are_named():
    trace, _ = record_mlp_step()
    with pytest.raises(InvalidArgument, match=r"view='sideways', expected one of 'auto', 'forward'"):
        graph_view(trace, "sideways")
    with pytest.raises(InvalidArgument, match=r"budget=2, expected None or an integer >= 5"):
        graph_view(trace, budget=2)
    with pytest.raises(InvalidArgument, match=r"depth=0, expected None or an integer >= 1"):
        graph_view(trace, depth=0)
    with pytest.raises(InvalidArgument, match=r"layer_graph: depth='2', expected an integer >= 1"):
        layer_graph(trace, depth="2")
    with pytest.raises(InvalidArgument, match=r"got str, expected a minipaddle Trace"):
        forward_graph("trace.json")
    with pytest.raises(InvalidArgument, match="not a minipaddle trace document"):
        forward_graph({"nodes": []})
    with pytest.raises(InvalidArgument, match="budget=True"):
        apply_budget(forward_graph(trace), True)
