"""The HTML export: one self-contained page (or a script-free fragment) with graph, steps, tensors, updates."""
from __future__ import annotations

import re
import shutil
from html.parser import HTMLParser

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle import nn
from minipaddle.framework.errors import InvalidArgument
from minipaddle.visualizer import Trace
from minipaddle.visualizer.html import repr_html, save_html, to_html

from .test_graph import record_deep, record_mlp_step

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
EVIL = "<script>alert(1)</script>"
VOID = {"meta", "br", "hr", "img", "input", "link", "rect", "path", "polygon", "ellipse", "polyline"}


class TagChecker(HTMLParser):
    """Every element closed, in order (HTML's void elements and self-closed SVG shapes aside)."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.ids: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.ids += [v for k, v in attrs if k == "id"]
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.ids += [v for k, v in attrs if k == "id"]

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> at {self.getpos()} with {self.stack[-3:]} open")
        else:
            self.stack.pop()


def well_formed(text: str) -> TagChecker:
    checker = TagChecker()
    checker.feed(text)
    checker.close()
    assert checker.errors == [] and checker.stack == []
    assert len(checker.ids) == len(set(checker.ids))  # element ids unique
    return checker


def assert_offline(text: str) -> None:
    lowered = text.lower()
    for needle in ("http://", "https://", "//cdn", "<link", "@import", "url(", " src="):
        assert needle not in lowered, needle


@pytest.fixture(scope="module")
def step():
    return record_mlp_step()


def test_saved_page_is_one_offline_file_with_graph_steps_tensors_and_updates(step, tmp_path):
    trace, model = step
    path = save_html(trace, tmp_path / "step.html")
    page = path.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and '<meta charset="utf-8">' in page
    assert_offline(page)
    checker = well_formed(page)
    doc = trace.to_dict()
    root = re.search(r'<div class="mp-trace" id="(mp[0-9a-f]{8})">', page).group(1)
    for s in doc["steps"]:  # the ordered step list, each row pointing at its states
        assert f'id="{root}-step{s["index"]}"' in page
    assert {f"{root}-{s['id']}" for s in doc["states"]} <= set(checker.ids)  # every tensor state has a row
    assert "<h3>Optimizer updates</h3>" in page and page.count("<td>SGD</td>") == 4
    for p in model.parameters():
        assert f"<td>{p.name}</td>" in page
        assert f"grad of {p.name}" in page
    assert page.count("<script>") == 1 and "expand all" in page  # a little script, in the saved page only
    assert "Forward graph (12 nodes)" in page and "Backward graph (8 nodes)" in page
    assert "<h3>Kernel time</h3>" in page


@needs_dot
def test_graphs_are_inline_svg_when_dot_is_installed(step):
    page = to_html(step[0])
    svgs = re.findall(r'<div class="mp-svg"><svg.*?</svg></div>', page, flags=re.S)
    assert len(svgs) == 2
    root = re.search(r'id="(mp[0-9a-f]{8})"', page).group(1)
    for n in step[0].nodes:  # step rows name the graph nodes they light up, which exist in the SVG
        assert f'id="{root}g0&#45;{n["id"]}"' in svgs[0]
        assert re.search(rf'data-nodes="{root}g0-{n["id"]} {root}g1-g\d+"', page)
    assert "Graphviz's <code>dot</code> program is not installed" not in page


def test_without_dot_the_page_says_how_to_install_and_lists_the_graph(step, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    page = to_html(step[0])
    assert "program is not installed" in page and "apt-get install graphviz" in page
    assert "conda install graphviz" in page and "brew install graphviz" in page
    assert '<div class="mp-svg">' not in page and page.count('<ul class="mp-tree">') == 2
    checker = well_formed(page)
    root = re.search(r'id="(mp[0-9a-f]{8})"', page).group(1)
    for n in step[0].nodes:
        assert f"{root}g0-{n['id']}" in checker.ids and f"{root}g1-{n['grad_node']}" in checker.ids
    fc1 = re.search(r"<summary>fc1 <small>MLP.fc1</small></summary><ul>(.*?)</ul>", page).group(1)
    fc = step[1].fc1
    assert "<b>linear</b>" in fc1 and f"← input [5, 4], {fc.weight.name} [4, 8], {fc.bias.name} [8]" in fc1
    assert "<h3>Steps</h3>" in page and "<h3>Tensors</h3>" in page


def test_no_script_fragment_for_notebooks(step):
    fragment = to_html(step[0], scripts=False, full_page=False)
    assert fragment.startswith('<div class="mp-trace"') and "<!DOCTYPE" not in fragment
    assert "<script" not in fragment.lower() and not re.search(r"\son\w+=", fragment)  # no handlers either
    assert "javascript:" not in fragment.lower()
    assert_offline(fragment)
    well_formed(fragment)
    strip = re.compile(r"mp[0-9a-f]{8}")  # the same fragment, but for its page-unique id
    assert strip.sub("", repr_html(step[0])) == strip.sub("", fragment)
    assert "<details open><summary>16 steps" in fragment  # expand/collapse without scripts


def test_tensor_rows_hold_summaries_histograms_and_values(step):
    trace = step[0]
    page = to_html(trace, scripts=False, full_page=False)
    root = re.search(r'id="(mp[0-9a-f]{8})"', page).group(1)
    x_state = trace.nodes[0]["input_states"][0]
    row = re.search(rf'<tr id="{root}-{x_state}".*?</tr>', page).group(0)
    summary = trace.state(x_state)["summary"]
    cells = re.findall(r'<td class="mp-r">([^<]*)</td>', row)
    assert cells[1:] == [f"{summary[k]:.4g}" for k in ("min", "max", "mean", "std")] + ["0", "0"]
    bars = re.findall(r"<rect ", row)
    assert len(bars) == sum(1 for c in summary["histogram"]["counts"] if c) and 'class="mp-hist"' in row
    first_value = trace.values(x_state).ravel()[0]
    assert f"[{first_value:.4g}, " in row and ", …]" in row  # 20 values: the first 8 shown
    loss_row = re.search(rf'<tr id="{root}-{trace.nodes[-1]["output_states"][1]}".*?</tr>', page).group(0)
    assert "<td>[]</td>" in loss_row and "<td>float32</td>" in loss_row


def test_nan_inf_is_announced_and_marked():
    x = paddle.to_tensor([1.0, -1.0])
    with paddle.debug.record() as rec:
        y = paddle.sqrt(x) * 2.0
    page = to_html(rec.trace, scripts=False, full_page=False)
    root = re.search(r'id="(mp[0-9a-f]{8})"', page).group(1)
    assert "First NaN/Inf: produced by <code>sqrt</code>" in page
    assert f'<a href="#{root}-step0">step 0</a>' in page and "(1 NaN, 0 Inf; 2 NaN/Inf outputs in all)" in page
    assert re.search(rf'<tr id="{root}-step0" class="mp-nan mp-first"', page)
    assert re.search(rf'<tr id="{root}-step1" class="mp-nan"', page)
    assert re.search(rf'<tr id="{root}-{rec.trace.nodes[0]["output_states"][0]}" class="mp-nan mp-first"', page)
    assert y.numpy()[1] != y.numpy()[1]


def test_names_from_user_code_are_escaped_everywhere(monkeypatch):
    class Evil(nn.Layer):
        def __init__(self):
            super().__init__()
            self.add_sublayer(EVIL, nn.Linear(3, 2, weight_attr=paddle.ParamAttr(name="<img src=x onerror=alert(2)>")))

        def forward(self, x):
            return getattr(self, EVIL)(x)

    def hook(g):
        return g * 2.0

    hook.__qualname__ = "<script>alert(3)</script>"
    model = Evil()
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
    with paddle.debug.record() as rec:
        out = model(paddle.ones([1, 3]))
        out.register_hook(hook)
        out.sum().backward()
        opt.step()
    pages = [to_html(rec.trace), to_html(rec.trace, view="both")]
    monkeypatch.setattr(shutil, "which", lambda name: None)
    pages.append(to_html(rec.trace, scripts=False))
    for page in pages:
        assert "<script>alert" not in page and "<img" not in page and "onerror=alert" not in page.replace(
            "&lt;img src=x onerror=alert(2)&gt;", "")
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page  # the layer, shown as text
        assert "&lt;script&gt;alert(3)&lt;/script&gt;" in page  # the hook
        assert "&lt;img src=x onerror=alert(2)&gt;" in page  # the parameter
        well_formed(page)


def test_big_traces_stay_bounded():
    trace = record_deep(3, 40, grad=False)  # 480 ops
    page = to_html(trace, scripts=False, full_page=False, max_rows=25)
    assert "… 455 more steps not shown" in page
    assert re.search(r"Forward graph, grouped by layer \((\d+) nodes\)", page)
    assert int(re.search(r"grouped by layer \((\d+) nodes\)", page).group(1)) <= 120
    assert "folded into one" in page and "Block ×40" in page
    assert page.count("<tr id=") <= 25 * 5  # steps and the four tensor sections, each capped
    well_formed(page)


def test_accepts_documents_and_loaded_files(step, tmp_path):
    path = step[0].save(tmp_path / "t.json")
    from_file = to_html(Trace.load(path), scripts=False, full_page=False)
    from_dict = to_html(step[0].to_dict(), scripts=False, full_page=False)
    strip = re.compile(r"mp[0-9a-f]{8}")
    assert strip.sub("", from_file) == strip.sub("", from_dict)


def test_bad_arguments(step):
    with pytest.raises(InvalidArgument, match=r"to_html: max_rows=0, expected an integer >= 1"):
        to_html(step[0], max_rows=0)
    with pytest.raises(InvalidArgument, match=r"to_html: got list, expected a minipaddle Trace"):
        to_html([])
    with pytest.raises(InvalidArgument, match="budget=1"):
        to_html(step[0], budget=1)
    assert np.isfinite(float(step[0].values(step[0].nodes[-1]["output_states"][1])))
