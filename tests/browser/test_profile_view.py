"""The extension's Profile view in a real JupyterLab: `%%paddle_profile` output, its Profile tab, the op table
sorted and expanded, the timeline zoomed and hovered, and a click on a span selecting its node in the graph.

The notebook is written into the server's root by the test: a tiny MLP and its training step, then
  1. `%%paddle_profile -m` over three steps (the magic's output: tables + a trace document with `profile`),
  2. the profiler inside `paddle.debug.record`, displayed as one trace document: the graph and the profile of
     the same window, so the spans' node ids (n1, n2, ...) are nodes of the Graph tab.
Read only through the DOM contract (data-testid mp-profile-*, mp-timeline-*, mp-tab-profile, data-node-id).
"""
from __future__ import annotations


from .conftest import ARTIFACTS
from .lab_page import NOTEBOOK, inspector_text, open_notebook, run_all, trace_widget, write_notebook

SETUP = """import numpy as np
import minipaddle as paddle
import minipaddle.nn.functional as F
from minipaddle import nn
from minipaddle.notebook.display import MIME_TYPE
from minipaddle.profiler import Profiler
from IPython.display import display

%load_ext minipaddle

paddle.seed(0)
rng = np.random.default_rng(0)
x = paddle.to_tensor(rng.standard_normal((8, 4)).astype("float32"))
y = paddle.to_tensor(rng.integers(0, 3, 8))


class MLP(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 3)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


model = MLP()
opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())


def train_step():
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    opt.clear_grad()


train_step()  # compile the kernels before anything is profiled"""

MAGIC = """%%paddle_profile -m
for _ in range(3):
    train_step()"""

LINKED = """with paddle.debug.record(values="none") as rec, Profiler(with_flops=True) as prof:
    for _ in range(2):
        train_step()
        prof.step(8)
display({MIME_TYPE: prof.result.trace_document(rec), "text/plain": "graph + profile"}, raw=True)"""

LONG = """%%paddle_profile
for _ in range(1000):  # ~22 spans a step: more than the 20k spans the timeline keeps
    train_step()"""

NOTEBOOK_NAME = "profile_view.ipynb"
OPS = {"linear", "relu", "cross_entropy_with_softmax", "linear_grad", "relu_grad"}



def _profiled(page, lab, name: str = NOTEBOOK_NAME, sources: tuple = (SETUP, MAGIC, LINKED)):
    """Run the notebook `name` (written from `sources`); its trace outputs, once all are attached."""
    write_notebook(lab, name, list(sources))
    open_notebook(page, lab, name)
    run_all(page)
    traces = page.locator(f'{NOTEBOOK} [data-testid="mp-trace"]')
    traces.nth(len(sources) - 2).wait_for(state="attached", timeout=30_000)
    return traces


def _open_profile(root):
    root.locator('[data-testid="mp-tab-profile"]').click(timeout=5_000)
    view = root.locator('[data-testid="mp-profile-view"]')
    view.wait_for(state="visible", timeout=10_000)
    return view


def _column(view, index: int) -> list[str]:
    """The text of cell `index` of each op row, top to bottom."""
    return view.locator('[data-testid="mp-profile-row"]').evaluate_all(
        f"rows => rows.map(r => r.cells[{index}].textContent.trim())")


def _names(view) -> list[str]:
    return view.locator('[data-testid="mp-profile-row"]').evaluate_all("rows => rows.map(r => r.dataset.op)")


def test_paddle_profile_output_table_sorts_and_expands(page, lab, extension) -> None:
    root = _profiled(page, lab).nth(0)
    view = _open_profile(root)
    names = _names(view)
    assert OPS <= set(names), f"the op table misses ops of the training step: {names}"

    view.locator('[data-testid="mp-profile-sort-calls"]').click()
    calls = [int(c) for c in _column(view, 1)]
    assert calls == sorted(calls, reverse=True), calls
    assert view.locator('[data-testid="mp-profile-sort-calls"]').get_attribute("aria-sort") == "descending"
    view.locator('[data-testid="mp-profile-sort-calls"]').click()
    assert [int(c) for c in _column(view, 1)] == sorted(calls)
    view.locator('[data-testid="mp-profile-sort-name"]').click()
    assert _names(view) == sorted(names)

    row = view.locator('[data-testid="mp-profile-row"][data-op="linear"]')
    row.locator('[data-testid="mp-profile-expand"]').click()
    kernels = view.locator('[data-testid="mp-profile-kernel-row"]').all_text_contents()
    assert any("kernel" in k for k in kernels), kernels

    # a row click lights up that op's spans in the timeline
    timeline = view.locator('[data-testid="mp-timeline"]')
    lanes = timeline.locator('[data-testid="mp-timeline-lane"]').evaluate_all(
        "gs => gs.map(g => g.getAttribute('data-lane'))")
    assert lanes == ["python", "forward", "backward", "optimizer", "numba-jit", "dataloader"], lanes
    assert timeline.locator('[data-testid="mp-timeline-memory"] path').count() == 1  # -m: the memory line
    host = timeline.locator('[data-testid="mp-timeline-host-memory"]')  # -m on the CPU: malloc's reuse
    assert host.is_visible() and "came fresh from the OS" in (host.text_content() or "")
    box = timeline.locator("svg").first.bounding_box()
    assert box and box["width"] >= 400 and box["height"] >= 100, f"the timeline is drawn too small: {box}"
    row.click()
    assert "mp-selected" in (row.get_attribute("class") or "")
    assert timeline.locator(".mp-highlight").count() >= 1
    assert "linear:" in (timeline.locator('[data-testid="mp-timeline-detail"]').text_content() or "")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    view.screenshot(path=str(ARTIFACTS / "profile-view.png"), timeout=10_000)


def _node_span(page, timeline):
    """A drawn forward op span (it names its graph node); zooms in until one is wide enough to be its own rect."""
    spans = timeline.locator('[data-lane="forward"] [data-testid="mp-timeline-span"][data-node]')
    for _ in range(16):
        if spans.count():
            return spans.first
        timeline.locator('[data-testid="mp-timeline-zoom-in"]').click()
    raise AssertionError("no span with a graph node is drawn, even zoomed in")


def test_timeline_zooms_hovers_and_a_span_click_selects_the_graph_node(page, lab, extension) -> None:
    _profiled(page, lab)
    root = trace_widget(page, index=1)  # the graph + profile document: its graph is drawn
    view = _open_profile(root)
    timeline = view.locator('[data-testid="mp-timeline"]')
    range_label = timeline.locator('[data-testid="mp-timeline-range"]')
    whole = range_label.text_content()

    # a plain wheel scrolls the notebook; Ctrl+wheel zooms about the pointer; "fit" shows all again
    svg = timeline.locator("svg").first
    svg.hover()
    page.mouse.wheel(0, 120)
    assert range_label.text_content() == whole
    svg.hover()  # the notebook scrolled under the pointer
    page.keyboard.down("Control")
    page.mouse.wheel(0, -400)
    page.keyboard.up("Control")
    page.wait_for_function("([el, before]) => el.textContent !== before",
                           arg=[range_label.element_handle(), whole], timeout=5_000)
    timeline.locator('[data-testid="mp-timeline-reset"]').click()
    assert range_label.text_content() == whole

    span = _node_span(page, timeline)
    timeline.screenshot(path=str(ARTIFACTS / "profile-timeline-zoomed.png"), timeout=10_000)
    node_id = span.get_attribute("data-node")
    span.hover()
    tip = timeline.locator('[data-testid="mp-timeline-tooltip"]')
    tip.wait_for(state="visible", timeout=5_000)
    lines = tip.locator("div").all_text_contents()
    assert any(node_id in line for line in lines), lines
    op_name = lines[0].split(" (")[0]

    span.click()
    # the graph tab comes to the front with that node selected and described in the inspector
    selected = root.locator(f'[data-testid="mp-graph"] [data-node-id="{node_id}"].mp-selected')
    selected.wait_for(state="visible", timeout=10_000)
    assert op_name in inspector_text(root), (op_name, inspector_text(root))

    # back on the Profile tab the span is still marked selected
    root.locator('[data-testid="mp-tab-profile"]').click()
    marked = timeline.locator('[data-testid="mp-timeline-span"].mp-selected')
    assert marked.count() == 1 and marked.get_attribute("data-node") == node_id


def test_long_profile_stays_fast_and_reports_dropped_spans(page, lab, extension) -> None:
    root = _profiled(page, lab, "profile_long.ipynb", (SETUP, LONG)).nth(0)
    root.locator('[data-testid="mp-tab-profile"]').click()
    view = root.locator('[data-testid="mp-profile-view"]')
    view.wait_for(state="visible", timeout=10_000)
    timeline = view.locator('[data-testid="mp-timeline"]')
    dropped = timeline.locator('[data-testid="mp-timeline-dropped"]').text_content() or ""
    assert "more spans were recorded" in dropped and "first 20000" in dropped, dropped
    # 20k spans: what is drawn is bounded by the pixels, not by the number of spans (speed is measured
    # by hand, not asserted here: a test is no benchmark)
    drawn = timeline.locator("svg *").count()
    assert drawn < 6_000, f"{drawn} SVG elements for the whole window"
    zoom = timeline.locator('[data-testid="mp-timeline-zoom-in"]')
    for _ in range(3):
        zoom.click()
    zoomed = timeline.locator("svg *").count()
    assert 0 < zoomed < 6_000, f"{zoomed} SVG elements zoomed in"
    timeline.locator('[data-testid="mp-timeline-reset"]').click()   # the whole window: every op is in view
    view.locator('[data-testid="mp-profile-row"][data-op="linear"]').click()
    assert timeline.locator(".mp-highlight").count() >= 1
