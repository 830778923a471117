"""DOT and SVG of the graph views: stable ids, nested clusters, shapes, fixed colours, NaN marks, escaping."""
from __future__ import annotations

import json
import re
import shutil

import graphviz
import pytest

import minipaddle as paddle
from minipaddle import nn
from minipaddle.framework.errors import InvalidArgument, PreconditionNotMet
from minipaddle.visualizer.dot import NAN_STYLE, STYLES, dot_available, inline_svg, to_digraph, to_dot, to_svg

from .test_graph import record_deep, record_mlp_step

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
EVIL = "<script>alert(1)</script>"
QUOTED = 'say "hi" \\ back\\"slash\\n'


@pytest.fixture(scope="module")
def mlp_step():
    return record_mlp_step()


@pytest.fixture(scope="module")
def mlp_trace(mlp_step):
    return mlp_step[0]


@pytest.fixture(scope="module")
def evil_trace():
    """Layers named with HTML, quotes and backslashes, a parameter named like an HTML tag."""
    class Evil(nn.Layer):
        def __init__(self):
            super().__init__()
            self.add_sublayer(EVIL, nn.Linear(3, 2, weight_attr=paddle.ParamAttr(name="<b>w</b>")))
            self.add_sublayer(QUOTED, nn.Linear(2, 2))

        def forward(self, x):
            return getattr(self, QUOTED)(getattr(self, EVIL)(x))

    with paddle.debug.record() as rec:
        Evil()(paddle.ones([1, 3])).sum().backward()
    return rec.trace


def statements(src: str) -> dict:
    """node name -> its attribute text, and the nesting of clusters, from DOT text (no dot needed)."""
    nodes = dict(re.findall(r"^\s*(\w+) \[(.*)\]$", src, flags=re.M))
    stack, parents = [], {}
    for line in src.splitlines():
        m = re.match(r"\s*subgraph (cluster_\w+) \{", line)
        if m:
            parents[m.group(1)] = stack[-1] if stack else None
            stack.append(m.group(1))
        elif line.strip() == "}" and stack:
            stack.pop()
    return {"nodes": nodes, "clusters": parents}


def test_dot_names_nodes_by_trace_id_and_nests_layer_clusters(mlp_trace):
    src = to_dot(mlp_trace, view="forward")
    assert src == to_dot(mlp_trace, view="forward")  # stable
    parsed = statements(src)
    ops = [n["id"] for n in mlp_trace.nodes]
    assert set(ops) <= set(parsed["nodes"])
    params = [t["id"] for t in mlp_trace.to_dict()["tensors"] if t["role"] == "parameter"]
    assert set(params) <= set(parsed["nodes"])
    layers = {layer["path"]: f"cluster_L{i}" for i, layer in enumerate(mlp_trace.to_dict()["layers"])}
    assert parsed["clusters"][layers["MLP.fc1"]] == layers["MLP"] and parsed["clusters"][layers["MLP"]] is None
    assert 'n1 -> n2 [label="[5, 8]"' in src and 'n3 -> n4 [label="[5, 3]"' in src  # shapes on edges
    prefixed = to_dot(mlp_trace, view="forward", id_prefix="a1-")
    assert '"a1-n1" -> "a1-n2"' in prefixed and "cluster_a1-L1" in prefixed and "id=\"a1-n1\"" in prefixed


def test_fixed_colours_and_a_legend(mlp_step):
    mlp_trace, model = mlp_step
    fwd = statements(to_dot(mlp_trace, view="forward"))["nodes"]
    _, _, _, op_fill, _ = STYLES["op"]
    _, _, _, param_fill, _ = STYLES["parameter"]
    assert f'fillcolor="{op_fill}"' in fwd["n1"]
    weight = next(t["id"] for t in mlp_trace.to_dict()["tensors"] if t["name"] == model.fc1.weight.name)
    assert f'fillcolor="{param_fill}"' in fwd[weight]
    bwd_src = to_dot(mlp_trace, view="backward")
    bwd = statements(bwd_src)["nodes"]
    grad = mlp_trace.node("n1")["grad_node"]
    assert f'fillcolor="{STYLES["grad"][3]}"' in bwd[grad]
    assert all(f'fillcolor="{STYLES["accumulate"][3]}"' in attrs for name, attrs in bwd.items()
               if "accumulate_grad" in attrs and not name.startswith("legend"))
    assert 'color="#ea580c"' in bwd_src  # gradient edges
    assert "cluster_legend" in bwd_src and "legend_grad" in bwd and "legend_op" not in bwd  # only what is drawn
    assert "legend_op" in fwd and "legend_parameter" in fwd
    assert "legend" not in to_dot(mlp_trace, view="forward", legend=False)


def test_nan_nodes_are_red_and_the_first_is_marked():
    x = paddle.to_tensor([1.0, -1.0])
    with paddle.debug.record() as rec:
        y = paddle.sqrt(x) + 1.0
        paddle.log(y - 5.0)
    nodes = statements(to_dot(rec.trace, view="forward"))["nodes"]
    sqrt, add = (n["id"] for n in rec.trace.nodes[:2])
    assert f'fillcolor="{NAN_STYLE[1]}"' in nodes[sqrt] and "penwidth=3" in nodes[sqrt]
    assert nodes[sqrt].startswith('label="FIRST NaN/Inf\\nsqrt\\nNaN/Inf made here"')
    assert f'fillcolor="{NAN_STYLE[1]}"' in nodes[add] and "penwidth" not in nodes[add]
    assert "NaN/Inf carried in" in nodes[add]
    assert "legend_nan" in nodes


def test_labels_from_user_code_are_escaped(evil_trace):
    src = to_dot(evil_trace, view="forward")
    assert "label=<" not in src and "tooltip=<" not in src  # never an HTML-like label
    assert f'label="{EVIL}"' in src  # a quoted string: text, not markup
    assert 'label="say \\"hi\\" \\\\ back\\\\\\"slash\\\\n"' in src  # quotes escaped, backslashes literal
    assert 'label="<b>w</b>\\n[3, 2]"' in src
    graphviz.Source(src)  # the package takes it as it is


@needs_dot
def test_dot_parses_and_labels_round_trip(evil_trace, mlp_trace):
    parsed = json.loads(to_digraph(evil_trace, view="forward").pipe(format="json", encoding="utf-8"))
    clusters = {o["name"]: o for o in parsed["objects"] if o["name"].startswith("cluster_")}
    labels = {o["label"] for o in clusters.values()}
    assert EVIL in labels
    assert graphviz.escape(QUOTED) in labels  # dot keeps the escString: backslashes doubled, so shown literally
    layers = json.loads(to_digraph(mlp_trace, view="layers").pipe(format="json", encoding="utf-8"))
    names = {o["name"] for o in layers["objects"]}
    assert {"L1", "L2", "L3", "cluster_L0"} <= names


@needs_dot
def test_svg_draws_every_node_with_its_id(mlp_trace, evil_trace):
    svg = to_svg(mlp_trace, view="forward", id_prefix="p-")
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    for n in mlp_trace.nodes:
        assert f'id="p&#45;{n["id"]}"' in svg or f'id="p-{n["id"]}"' in svg
    assert ">cross_entropy_with_softmax<" in svg and ">[5, 8]<" in svg
    evil = to_svg(evil_trace, view="both")
    assert "<script" not in evil and "&lt;script&gt;alert(1)&lt;/script&gt;" in evil
    assert "<b>" not in evil and "&lt;b&gt;w&lt;/b&gt;" in evil
    inline = inline_svg(svg)
    assert inline.startswith("<svg") and "http" not in inline and "<!--" not in inline


def test_svg_without_dot_says_how_to_install_graphviz(mlp_trace, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert not dot_available()
    with pytest.raises(PreconditionNotMet, match="`dot` program was not found") as info:
        to_svg(mlp_trace)
    text = str(info.value)
    assert "apt-get install graphviz" in text and "conda install graphviz" in text and "brew install graphviz" in text
    assert "n1 -> n2" in to_dot(mlp_trace, view="forward")  # DOT text needs no dot


def test_a_big_trace_draws_its_budgeted_default_view():
    trace = record_deep(3, 40, grad=False)
    src = to_dot(trace, budget=20)
    nodes = {name for name in statements(src)["nodes"] if not name.startswith("legend")}
    assert 0 < len(nodes) <= 20
    assert "Block ×40" in src and "Block ×3" in src  # folded blocks, named in the drawing and its notes
    assert "folded into one" in src
    flat = to_dot(trace, view="forward", budget=20)
    assert "collapsed " in flat and "shape=note" in flat


def test_bad_arguments(mlp_trace):
    with pytest.raises(InvalidArgument, match=r"id_prefix='a b', expected letters, digits"):
        to_dot(mlp_trace, id_prefix="a b")
    with pytest.raises(InvalidArgument, match=r"view='up'"):
        to_dot(mlp_trace, view="up")
    with pytest.raises(InvalidArgument, match="expected a minipaddle Trace"):
        to_svg(42)


def test_a_layout_that_runs_out_of_time_says_so_and_offers_the_folded_view(tmp_path, monkeypatch):
    # a stand-in `dot` that never finishes: the error must not say "install Graphviz"
    import os
    import graphviz
    from minipaddle.visualizer.dot import render_svg
    slow = tmp_path / "dot"
    slow.write_text("#!/bin/sh\nsleep 30\n")
    slow.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    g = graphviz.Digraph()
    g.edge("a", "b")
    with pytest.raises(Exception, match="did not finish laying out the graph in 0.5 s") as info:
        render_svg(g, timeout=0.5)
    assert "view='layers'" in str(info.value) and "apt-get install graphviz" not in str(info.value)
