"""The debugger on real training, judged as a learner sees it in a real browser (issue 13).

One notebook records what a learner records: 20 iterations of an MLP training loop, one LeNet step, a
planted NaN, a `%%paddle_profile` of a few steps and a pass diff of a static program. The tests measure
the page, not the DOM alone: the on-screen size of node labels (font size times the SVG's screen scale),
what is in view, which tab opens, the computed stroke colour of the first NaN node, and that two
iterations of the same structure put every node in the same place. Screenshots of each view go into
test-artifacts/browser/ for a person to look at.
"""
from __future__ import annotations

import json
import statistics

from .conftest import ARTIFACTS
from .lab_page import NOTEBOOK, RENDER_MS, click, current_node, inspector_text, open_notebook, run_all, step_index

NAME = "training_view.ipynb"
CELLS = [
    """\
import numpy as np
import minipaddle as paddle
import minipaddle.nn.functional as F
from minipaddle import nn
from minipaddle.vision.models import LeNet

%load_ext minipaddle

paddle.seed(0)
rng = np.random.default_rng(0)
x = paddle.to_tensor(rng.standard_normal((16, 4)).astype("float32"))
y = paddle.to_tensor(rng.integers(0, 3, 16))
mlp = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=mlp.parameters())""",
    """\
%%paddle_trace --values none
for it in range(20):
    loss = F.cross_entropy(mlp(x), y)
    loss.backward()
    opt.step()
    opt.clear_grad()""",
    """\
lenet = LeNet()
images = paddle.to_tensor(rng.standard_normal((4, 1, 28, 28)).astype("float32"))
labels = paddle.to_tensor(rng.integers(0, 10, 4))""",
    """\
%%paddle_trace --values none
F.cross_entropy(lenet(images), labels).backward()""",
    """\
class Root(nn.Layer):
    def forward(self, h):
        return paddle.sqrt(h)          # the bug: negative inputs give NaN

buggy = nn.Sequential(nn.Linear(4, 8), Root(), nn.Linear(8, 3))""",
    """\
%%paddle_trace
F.cross_entropy(buggy(x), y).backward()""",
    """\
%%paddle_profile
for it in range(3):
    loss = F.cross_entropy(mlp(x), y)
    loss.backward()
    opt.step()
    opt.clear_grad()""",
    """\
from IPython.display import display
paddle.enable_static()
main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    xs = paddle.static.data("x", [None, 8], "float32")
    h = paddle.static.nn.fc(xs, 16)
    h = paddle.nn.functional.sigmoid(h) * h + h
    h = paddle.static.nn.fc(h, 16)
    h = paddle.tanh(h) * 0.5 + h
    out = paddle.mean(paddle.static.nn.fc(h, 1))
paddle.disable_static()
display(paddle.visualizer.show_program(main, passes=True), raw=True)""",
]

# the trace outputs, in order
MLP20, LENET, NAN, PROFILE, PROGRAM = range(5)

# JS: the on-screen font size (px) of every node label of the main graph in `pane` that lies in view,
# and how many labels there are in all
_LABELS = """(pane) => {
    const svg = pane.querySelector(':scope > svg');
    const view = pane.getBoundingClientRect();
    const out = {sizes: [], total: 0};
    if (!svg) return out;
    for (const t of svg.querySelectorAll('g.node text')) {
        out.total += 1;
        const r = t.getBoundingClientRect();
        if (r.width === 0 || r.bottom < view.top || r.top > view.bottom
            || r.right < view.left || r.left > view.right) continue;
        const ctm = t.getScreenCTM();
        out.sizes.push(parseFloat(getComputedStyle(t).fontSize) * Math.hypot(ctm.a, ctm.b));
    }
    return out;
}"""

# JS: screen-independent positions (graph units) of every node of the main graph, by id
_POSITIONS = """(pane) => {
    const out = {};
    for (const g of pane.querySelectorAll(':scope > svg g.node[data-node-id]')) {
        const b = g.getBBox();
        out[g.getAttribute('data-node-id')] =
            [Math.round(b.x), Math.round(b.y), Math.round(b.width), Math.round(b.height)];
    }
    return out;
}"""


def _notebook(lab) -> None:
    cells = [{"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": src}
             for src in CELLS]
    doc = {"cells": cells, "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
           "nbformat": 4, "nbformat_minor": 5}
    (lab.root_dir / NAME).write_text(json.dumps(doc))


def _shot(locator, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    locator.scroll_into_view_if_needed(timeout=5_000)
    locator.screenshot(path=str(ARTIFACTS / name), timeout=10_000)


def _traces(page, lab):
    _notebook(lab)
    open_notebook(page, lab, NAME)
    run_all(page)
    roots = page.locator(f'{NOTEBOOK} [data-testid="mp-trace"]')
    page.wait_for_function(f"() => document.querySelectorAll('{NOTEBOOK} [data-testid=\"mp-trace\"]').length >= 5",
                           timeout=RENDER_MS)
    return roots


def _graph_ready(root) -> None:
    nodes = root.locator('[data-testid="mp-graph"] > svg g.node[data-node-id]')
    nodes.first.wait_for(state="attached", timeout=RENDER_MS)


def _labels(root, testid: str = "mp-graph", index: int = 0) -> dict:
    pane = root.locator(f'[data-testid="{testid}"]').nth(index)
    pane.scroll_into_view_if_needed(timeout=5_000)
    return pane.evaluate(_LABELS)


def _median_px(measured: dict) -> float:
    assert measured["sizes"], f"no node label is in view ({measured['total']} labels in all)"
    return statistics.median(measured["sizes"])


def test_a_training_loop_is_one_iteration_at_a_time_and_legible(page, lab, extension) -> None:
    roots = _traces(page, lab)
    root = roots.nth(MLP20)
    _graph_ready(root)
    # the graph is one iteration, drawn once: forward ops, grad ops, weights -- not 20 copies side by side
    ops = root.locator('[data-testid="mp-graph"] > svg g.node.mp-kind-op').count()
    assert ops == 4, f"the graph should draw one iteration's 4 forward ops, drew {ops}"
    labels = _labels(root)
    assert _median_px(labels) >= 11, f"node labels are {_median_px(labels):.1f} px on screen: too small to read"
    assert len(labels["sizes"]) >= 8, f"only {len(labels['sizes'])} labels in view"
    assert "iteration 1 of 20" in root.locator('[data-testid="mp-iteration"]').text_content()
    for spark in ("loss", "grad", "ratio"):
        assert root.locator(f'[data-testid="mp-spark-{spark}"] svg path.mp-chart-line').count() == 1, spark
    _shot(root, "training-20-iterations.png")

    # the same step one iteration later: the same node current, every node where it was
    pane = root.locator('[data-testid="mp-graph"]')
    click(root, "mp-reset")
    for _ in range(3):
        root.press("ArrowRight")
    here, node = step_index(root)[0], current_node(root)
    before = pane.evaluate(_POSITIONS)
    click(root, "mp-iter-next")
    assert "iteration 2 of 20" in root.locator('[data-testid="mp-iteration"]').text_content()
    assert current_node(root) == node, "the same step of the next iteration lights the same node"
    assert step_index(root)[0] > here
    after = pane.evaluate(_POSITIONS)
    assert before == after and len(after) > 10, "stepping to the next iteration moved nodes"

    # the run strip: a click on the loss sparkline jumps to that iteration
    spark = root.locator('[data-testid="mp-spark-loss"] svg')
    box = spark.bounding_box()
    spark.click(position={"x": box["width"] - 3, "y": box["height"] / 2})
    assert "iteration 20 of 20" in root.locator('[data-testid="mp-iteration"]').text_content()

    # the README's picture: a backward step in the middle of the run
    spark.click(position={"x": box["width"] / 2, "y": box["height"] / 2})
    for _ in range(12):
        if "backward" in (root.locator('[data-testid="mp-step-label"]').text_content() or ""):
            break
        root.press("ArrowRight")
    assert "backward" in root.locator('[data-testid="mp-step-label"]').text_content()
    _shot(root, "debugger-training.png")

    # names: a weight is found by its state_dict key, and shows no gradient during the forward pass
    click(root, "mp-reset")
    search = root.locator('[data-testid="mp-search"]')
    search.fill("0.weight")
    search.press("Enter")
    text = inspector_text(root)
    assert "0.weight" in text and "linear_0.w_0" in text, f"the weight is shown by both its names: {text[:300]}"
    assert "not computed yet" in text, f"at step 1 (forward) the weight's gradient does not exist yet: {text[:400]}"
    _shot(root, "training-weight-selected.png")

    # the Health tab: small multiples per layer, a click selects that layer's node in the graph
    click(root, "mp-tab-health")
    health = root.locator('[data-testid="mp-health-layers"] [data-testid="mp-health-layer"]')
    assert health.count() == 3, health.count()
    _shot(root, "training-health.png")
    chart = health.nth(1).locator("svg.mp-chart").first
    cbox = chart.bounding_box()
    chart.click(position={"x": cbox["width"] / 2, "y": cbox["height"] / 2})
    assert root.locator('[data-testid="mp-tab-graph"]').get_attribute("aria-selected") == "true"
    label = root.locator('[data-testid="mp-iteration"]').text_content()
    picked = int(label.split()[1])
    assert 8 <= picked <= 13, f"a click in the middle of a 20-iteration chart should land near iteration 10: {label}"
    assert "relu" in inspector_text(root)


def test_lenet_nan_profile_and_pass_diff_are_legible(page, lab, extension) -> None:
    roots = _traces(page, lab)

    lenet = roots.nth(LENET)
    _graph_ready(lenet)
    assert _median_px(_labels(lenet)) >= 11
    _shot(lenet, "lenet-step.png")

    nan = roots.nth(NAN)
    _graph_ready(nan)
    first = nan.locator('[data-testid="mp-graph"] > svg g.node.mp-nan-produced')
    assert first.count() >= 1, "the first NaN op is not marked"
    stroke = first.first.evaluate("g => getComputedStyle(g.querySelector('path, polygon, ellipse')).stroke")
    assert stroke in ("rgb(211, 47, 47)", "rgb(244, 67, 54)") or stroke.startswith("rgb(2"), \
        f"the first NaN node is drawn with stroke {stroke}, not red"
    r, g, b = (int(v) for v in stroke[stroke.index("(") + 1:-1].split(",")[:3])
    assert r > 150 and g < 100 and b < 100, f"the first NaN node's stroke {stroke} is not red"
    _shot(nan, "nan-first-op.png")

    profile = roots.nth(PROFILE)
    profile.locator('[data-testid="mp-profile-view"]').wait_for(state="visible", timeout=RENDER_MS)
    tabs = profile.locator('[role="tab"]')
    names = [tabs.nth(i).get_attribute("data-testid") for i in range(tabs.count())]
    assert "mp-tab-graph" not in names, f"a profile without a recorded graph shows an empty Graph tab: {names}"
    table = profile.locator('[data-testid="mp-profile-view"] table').first
    assert table.is_visible(), "the operator table is not shown first"
    timeline = profile.locator('.mp-timeline-plot').first
    assert table.bounding_box()["y"] < timeline.bounding_box()["y"], "the operator table should come first"
    _shot(profile, "profile-opens-on-table.png")

    # no tab is empty: every tab of every output shows something to read
    content = {"graph": '[data-testid="mp-graph"] > svg g.node', "health": '[data-testid="mp-health-layer"]',
               "program": '[data-testid="mp-program-graph"] > svg g.node', "profile": '[data-testid="mp-profile-row"]'}
    for i in range(roots.count()):
        root = roots.nth(i)
        tabs = root.locator('[role="tab"]')
        for name in [tabs.nth(k).get_attribute("data-testid").removeprefix("mp-tab-") for k in range(tabs.count())]:
            root.locator(f'[data-testid="mp-tab-{name}"]').click()
            shown = root.locator(f'.mp-pane-{name} {content[name]}').first
            shown.wait_for(state="attached", timeout=RENDER_MS)
            assert root.locator(f'.mp-pane-{name}').is_visible(), f"output {i}: the {name} tab shows nothing"

    program = roots.nth(PROGRAM)
    program.locator('[data-testid="mp-program-graph"] > svg g.node').first.wait_for(state="attached", timeout=RENDER_MS)
    graph_tabs = program.locator('[role="tab"][data-testid="mp-tab-graph"]')
    assert graph_tabs.count() == 0, "show_program shows an empty Graph tab"
    fused = program.locator('[data-testid="mp-pass-item"][data-pass*="fus"]').first
    fused.click()
    program.locator('[data-testid="mp-program-graph"][data-side="after"] > svg g.node').first.wait_for(
        state="attached", timeout=RENDER_MS)
    for side in ("before", "after"):
        sizes = program.locator(f'[data-testid="mp-program-graph"][data-side="{side}"]').evaluate(_LABELS)
        assert _median_px(sizes) >= 11, f"{side} pane labels are {_median_px(sizes):.1f} px"
    width = program.locator('[data-testid="mp-program-graph"][data-side="before"]').bounding_box()["width"]
    assert width >= 0.8 * program.bounding_box()["width"], "a pass diff should use the full width"
    assert program.locator('[data-testid="mp-pass-report"]').is_visible()
    _shot(program, "pass-diff.png")
