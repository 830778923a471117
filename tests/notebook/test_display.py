"""The notebook display: one MIME bundle per trace, and the graph behind a tensor (%paddle_graph)."""
from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle import nn
from minipaddle.framework.errors import InvalidArgument
from minipaddle.notebook import display as nd
from minipaddle.notebook.display import MIME_TYPE, graph_bundle, summary_line, tensor_graph, trace_bundle

EVIL = "<script>alert(1)</script>"


class MLP(nn.Layer):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 3)

    def forward(self, x):
        return self.fc2(nn.functional.relu(self.fc1(x)))


class LogLayer(nn.Layer):
    """Plants a NaN: log of a negative number."""

    def forward(self, x):
        return paddle.log(x)


@pytest.fixture
def model():
    paddle.seed(0)
    return MLP()


@pytest.fixture
def x():
    return paddle.to_tensor(np.random.default_rng(0).standard_normal((5, 4)).astype("float32"))


def record_step(model, x, **settings):
    with paddle.debug.record(**settings) as rec:
        out = model(x)
        loss = (out * out).mean()
        loss.backward()
    return rec, out, loss


def test_bundle_has_the_three_views_of_one_trace(model, x):
    import jsonschema
    from minipaddle.visualizer import load_schema
    rec, _, _ = record_step(model, x)
    bundle = trace_bundle(rec.trace, compress=False)
    assert set(bundle) == {MIME_TYPE, "text/html", "text/plain"}
    text = bundle[MIME_TYPE]
    assert isinstance(text, str) and ", " not in text[:200]  # one compact JSON string, not an object
    doc = json.loads(text)
    assert doc == rec.trace.to_dict() == nd.bundle_document(bundle)  # the same document, round-tripped
    jsonschema.Draft202012Validator(load_schema()).validate(doc)
    assert "<script" not in bundle["text/html"].lower()
    assert "\n" not in bundle["text/plain"]
    from_recorder = trace_bundle(rec, compress=False)  # a Recorder works as well
    assert from_recorder[MIME_TYPE] == text and from_recorder["text/plain"] == bundle["text/plain"]
    assert MIME_TYPE not in trace_bundle(rec.trace, include_json=False)


def test_bundle_html_is_small_a_loss_table_and_one_iteration(x):
    paddle.seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
    losses = []
    with paddle.debug.record() as rec:
        for _ in range(120):
            loss = (model(x) ** 2).mean()
            loss.backward()
            opt.step()
            opt.clear_grad()
            losses.append(float(loss))
    bundle = trace_bundle(rec.trace)
    page = bundle["text/html"]
    assert len(page) < len(bundle[MIME_TYPE]) / 20  # a fallback, not a second copy of the trace
    assert "120 iterations (50 of 120 shown)" in page
    assert page.count("<tr>") == 1 + 50
    assert f"<td>0</td><td>{losses[0]:.4g}</td>" in page and f"<td>119</td><td>{losses[-1]:.4g}</td>" in page
    assert "forward ops of iteration 0" in page
    doc = rec.trace.to_dict()
    second = rec.trace.steps[doc["iterations"][1]["first_step"]]["node"]  # the first op of iteration 1
    if "<svg" in page:  # Graphviz is installed: the graph of iteration 0 only
        assert page.count("tanh") >= 1 and f'<g id="{second}"' not in page and '<g id="n1"' in page
    else:  # the table of the first iteration's ops
        ET.fromstring(page)
    live = trace_bundle(rec.trace, picture=False)["text/html"]
    assert "<svg" not in live and "forward ops" not in live


def test_summary_line_counts_what_the_document_holds(model, x):
    rec, _, _ = record_step(model, x)
    doc = rec.trace.to_dict()
    backward = sum(s["kind"] == "backward_step" for s in doc["steps"])
    assert backward == len(doc["graph"]["backward"]["nodes"]) > 0
    assert summary_line(rec.trace) == (f"minipaddle trace: {len(doc['graph']['forward']['nodes'])} ops, "
                                       f"{len(doc['tensors'])} tensors, {backward} backward steps, "
                                       "no NaN/Inf, 0 dropped steps")


def test_summary_line_names_the_first_nan_and_dropped_steps(x):
    paddle.seed(0)
    model = nn.Sequential(nn.Linear(4, 3), LogLayer())
    with paddle.debug.record(max_steps=3) as rec:
        model(x).sum()
    line = summary_line(rec.trace)
    assert "NaN/Inf (first: log in Sequential.1, step 1)" in line
    assert line.endswith(" 0 dropped steps")
    with paddle.debug.record(max_steps=2) as rec:
        for _ in range(3):
            model(x)
    assert summary_line(rec.trace).endswith(" 4 dropped steps")


def test_fallback_html_is_a_table_with_names_escaped(monkeypatch, x):
    monkeypatch.setitem(sys.modules, "minipaddle.visualizer.html", None)  # as if the HTML export were missing
    paddle.seed(0)
    model = nn.Sequential(nn.Linear(4, 3), LogLayer())
    model.add_sublayer(EVIL, nn.Linear(3, 3))  # a third layer of the Sequential, with a hostile name
    with paddle.debug.record() as rec:
        model(x)
    html = nd.trace_html(rec.trace)
    assert "<script" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "first NaN/Inf" in html and html.count("<tr") == 1 + 3
    ET.fromstring(html)  # well-formed


def test_html_comes_from_the_visualizer_export_when_it_is_there(monkeypatch, model, x):
    rec, _, _ = record_step(model, x)
    fake = type(sys)("minipaddle.visualizer.html")
    fake.to_html = lambda trace, scripts=True, full_page=True, max_rows=1000: f"{scripts} {full_page} {max_rows}"
    monkeypatch.setitem(sys.modules, "minipaddle.visualizer.html", fake)
    assert nd.trace_html(rec.trace) == "False False 1000"  # a fragment without scripts
    assert "False False" not in nd.trace_bundle(rec.trace)["text/html"]  # training: the small view
    with paddle.debug.record() as forward:
        model(x)
    assert nd.trace_bundle(forward.trace)["text/html"] == "False False 1000"  # a forward pass: the full view
    from minipaddle.visualizer import bundle
    monkeypatch.setattr(bundle, "FULL_VIEW_STEPS", 1)
    assert "False False" not in nd.trace_bundle(forward.trace)["text/html"]  # a long one: the small view

    def broken(trace, **options):
        raise RuntimeError("oops")
    fake.to_html = broken
    assert "the full view failed: RuntimeError: oops" in nd.trace_html(rec.trace)


def test_bad_input_to_the_bundle_is_a_clear_error():
    with pytest.raises(InvalidArgument, match="got a int, expected a Trace"):
        trace_bundle(3)


def test_backward_part_walks_the_grad_node_chain_to_the_parameters(model, x):
    out = model(x)
    graph = tensor_graph(out)
    nodes = {n["id"]: n for n in graph["backward"]["nodes"]}
    labels = [n["label"] for n in graph["backward"]["nodes"]]
    assert labels[:3] == ["tensor\n[5, 3]", "linear_grad", "relu_grad"]
    accumulate = sorted(n["label"].split("\n")[1].split(" ")[0] for n in nodes.values() if n["kind"] == "accumulate")
    assert accumulate == sorted(p.name for p in model.parameters())
    edges = {(nodes[s]["label"], nodes[t]["label"], shape) for s, t, shape in graph["backward"]["edges"]}
    assert ("linear_grad", "relu_grad", "[5, 8]") in edges
    assert graph["forward"]["nodes"] == [] and graph["links"] == []


def test_forward_part_shows_both_directions_and_links_to_grad_nodes(model, x):
    rec, out, _ = record_step(model, x)
    graph = tensor_graph(out, rec)
    doc = rec.trace.to_dict()
    ops = [n for n in graph["forward"]["nodes"] if n["kind"] == "op"]
    assert [n["label"].split("\n")[0] for n in ops] == ["linear", "relu", "linear", "multiply", "mean"]
    edges = graph["forward"]["edges"]
    last_linear = ops[2]["id"]
    assert (last_linear, "fx", "") in edges and ("fx", ops[3]["id"], "[5, 3]") in edges
    params = {n["label"].split("\n")[0] for n in graph["forward"]["nodes"] if n["kind"] == "parameter"}
    assert params == {p.name for p in model.parameters()}
    backward = {n["id"]: n for n in graph["backward"]["nodes"]}
    grad_of = {g["id"]: g for g in doc["graph"]["backward"]["nodes"]}
    assert len(graph["links"]) == 3  # the three ops upstream of `out` have their grad nodes in the chain
    for fwd, bwd in graph["links"]:
        op = rec.trace.node(fwd)
        assert backward[bwd]["trace_id"] == op["grad_node"] and grad_of[op["grad_node"]]["forward_node"] == fwd


def test_node_budget_hides_the_rest_and_says_so():
    t = paddle.to_tensor(np.ones(3, "float32"), stop_gradient=False)
    with paddle.debug.record() as rec:
        y = t
        for _ in range(30):
            y = y * 1.5
    graph = tensor_graph(y, rec, max_nodes=5)
    assert len(graph["backward"]["nodes"]) == 1 + 5 and graph["backward"]["hidden"] == 26
    assert sum(n["kind"] == "op" for n in graph["forward"]["nodes"]) == 5
    assert "backward: 26 more nodes not shown" in " ".join(graph["notes"])
    assert "forward: 25 more nodes not shown" in " ".join(graph["notes"])


def test_a_tensor_without_a_graph_says_why():
    graph = tensor_graph(paddle.to_tensor([1.0, 2.0]))
    assert graph["backward"]["edges"] == [] and "has no graph" in graph["notes"][0]


def test_graph_bundle_is_svg_with_dot_and_lists_without(monkeypatch, model, x):
    import shutil
    rec, out, _ = record_step(model, x)
    out.name = EVIL
    if shutil.which("dot"):
        bundle = graph_bundle(out, rec)
        svg = bundle["text/html"][bundle["text/html"].find("<svg"):bundle["text/html"].rfind("</svg>") + 6]
        ET.fromstring(svg)
        assert "relu_grad" in svg and "&lt;script&gt;" in svg
    monkeypatch.setattr(shutil, "which", lambda name: None)  # as if Graphviz were not installed
    bundle = graph_bundle(out, rec)
    html = bundle["text/html"]
    assert "<svg" not in html and "apt-get install graphviz" in html and "relu_grad" in html
    assert bundle["text/plain"].startswith(f"graph of {EVIL} [5, 3] float32: 7 backward nodes, 5 forward ops")
    for text in (html, graph_bundle(out, rec)["text/html"]):
        assert "<script" not in text


def test_graph_dot_escapes_backslashes_and_quotes():
    t = paddle.to_tensor(np.ones(2, "float32"), stop_gradient=False)
    y = t * 2.0
    y.name = 'a\\l "quoted"'
    source = nd.graph_dot(tensor_graph(y)).source
    assert 'a\\\\l \\"quoted\\"' in source


def test_a_failing_dot_falls_back_to_lists_and_says_why(monkeypatch, model, x):
    from minipaddle.framework.errors import precondition_not_met
    from minipaddle.visualizer import dot

    def broken(digraph, timeout=60.0):
        raise precondition_not_met("to_svg", "`dot` failed: out of memory")
    monkeypatch.setattr(dot, "dot_available", lambda: True)
    monkeypatch.setattr(dot, "render_svg", broken)
    html = graph_bundle(model(x))["text/html"]
    assert "`dot` failed: out of memory" in html and "<li>" in html and "<svg" not in html


def test_a_training_run_is_compressed_and_carries_the_same_document(model, x):
    import base64
    import gzip
    rec, _, _ = record_step(model, x)  # forward, backward: a training iteration
    small, plain = trace_bundle(rec.trace), trace_bundle(rec.trace, compress=False)
    assert not small[MIME_TYPE].startswith("{") and len(small[MIME_TYPE]) < len(plain[MIME_TYPE]) / 3
    assert gzip.decompress(base64.b64decode(small[MIME_TYPE])).decode("utf-8") == plain[MIME_TYPE]
    assert nd.bundle_document(small) == nd.bundle_document(plain) == rec.trace.to_dict()
    with paddle.debug.record() as forward:  # no training: plain JSON text
        model(x)
    assert trace_bundle(forward.trace)[MIME_TYPE] == forward.trace.to_json()
