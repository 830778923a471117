"""A @to_static training step in the debugger, in a real JupyterLab: its one run_program node opens its Programs.

The notebook trains a small `@paddle.jit.to_static` Layer (Linear -> GELU -> Linear) and records one step
(forward, loss.backward(), opt.step()) under `%%paddle_trace`. The converted forward is one `run_program` node
of the Graph tab; clicking it shows rows "forward Program" and "backward Program", and "backward Program"
switches to the Program tab with that Program drawn and the Executor's run of it ready to step. The test reads
the backward Program's op types from Python, and measures on the page that the Program tab is the one shown,
that it draws exactly those ops, and that their labels are at least 11 px on screen. Read only through the
DOM contract (data-testid, data-node-id, data-program-id).
"""
from __future__ import annotations

import re

from .conftest import ARTIFACTS
from .lab_page import RENDER_MS, node_ids, node_text, open_notebook, run_all, trace_widget, write_notebook

SETUP = """import minipaddle as paddle

%load_ext minipaddle

class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = paddle.nn.Linear(4, 16)
        self.act = paddle.nn.GELU()
        self.fc2 = paddle.nn.Linear(16, 1)

    @paddle.jit.to_static
    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))

paddle.seed(0)
net = Net()
opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=net.parameters())
x, y = paddle.randn([8, 4]), paddle.randn([8, 1])"""   # the first call is converted inside the recording

TRACE = """%%paddle_trace
loss = ((net(x) - y) ** 2).mean()
loss.backward()
opt.step()
opt.clear_grad()"""

CHECK = """partial = next(iter(net.forward.concrete_program._partials.values()))
print("backward ops=" + ",".join(op.type for op in partial.backward_program.global_block().ops))"""

NOTEBOOK_NAME = "run_program_view.ipynb"
MIN_TEXT_PX = 11   # STYLE: text a learner must read
OP_ID = re.compile(r"^P\d+:b0:op\d+$")

# JS: each op node of a program graph pane: its id, its type (first label line), and its on-screen font size
# (px: font size times the SVG's screen scale) where it lies inside the pane's visible box, else null
_OP_LABELS = """(pane) => {
    const view = pane.getBoundingClientRect();
    return Array.from(pane.querySelectorAll(':scope > svg g.node[data-node-id]')).map(g => {
        const t = g.querySelector('text');
        const r = t.getBoundingClientRect();
        const seen = r.width > 0 && r.top >= view.top && r.bottom <= view.bottom
                     && r.left >= view.left && r.right <= view.right;
        const ctm = t.getScreenCTM();
        return [g.getAttribute('data-node-id'), t.textContent,
                seen ? parseFloat(getComputedStyle(t).fontSize) * Math.hypot(ctm.a, ctm.b) : null];
    });
}"""



def test_a_run_program_node_opens_its_backward_program_in_the_program_tab(page, lab, extension) -> None:
    write_notebook(lab, NOTEBOOK_NAME, [SETUP, TRACE, CHECK])
    open_notebook(page, lab, NOTEBOOK_NAME)
    run_all(page)
    printed = page.locator(".jp-OutputArea-output", has_text="backward ops=").first.text_content() or ""
    backward_ops = printed.strip().split("=", 1)[1].split(",")
    assert len(backward_ops) >= 3, printed
    root = trace_widget(page)

    # the converted forward is one run_program node; its inspector links both Programs
    calls = [nid for nid in node_ids(root) if nid.startswith("n") and "run_program" in node_text(root, nid)]
    assert len(calls) == 1, f"the @to_static call is not one drawn node: {node_ids(root)}"
    root.locator(f'[data-testid="mp-graph"] svg g.node[data-node-id="{calls[0]}"]').click()
    inspector = root.locator('[data-testid="mp-inspector"]')
    links = inspector.locator('[data-testid="mp-program-link"]')
    links.first.wait_for(state="visible", timeout=5_000)
    rows = inspector.locator("tr", has=page.locator('[data-testid="mp-program-link"]'))
    assert rows.locator("th").all_text_contents() == ["forward Program", "backward Program"]
    attrs = inspector.locator("tr", has_text="attrs").locator("td").text_content() or ""
    assert "forward_program" not in attrs and "program_id" in attrs, attrs  # the other attrs stay JSON
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    root.screenshot(path=str(ARTIFACTS / "run-program-inspector.png"), timeout=10_000)

    backward = rows.nth(1).locator('[data-testid="mp-program-link"]')
    pid = backward.get_attribute("data-program-id") or ""
    backward.click()

    # the Program tab is the one shown, with that Program drawn
    graph = root.locator('[data-testid="mp-program-graph"][data-side="main"]')
    graph.locator(f'svg g.node[data-node-id^="{pid}:"]').first.wait_for(state="attached", timeout=RENDER_MS)
    tab = root.locator('[data-testid="mp-tab-program"]')
    assert tab.get_attribute("aria-selected") == "true" and "mp-active" in (tab.get_attribute("class") or "")
    assert root.locator('[data-testid="mp-tab-graph"]').get_attribute("aria-selected") == "false"
    assert root.locator('[data-testid="mp-program-view"]').is_visible()
    assert not root.locator('[data-testid="mp-graph"]').is_visible()
    assert graph.get_attribute("data-program-id") == pid
    select = root.locator('[data-testid="mp-program-select"]')
    assert select.input_value() == pid
    chosen = select.locator(f'option[value="{pid}"]').text_content() or ""
    assert "backward" in chosen and "Net.forward" in chosen, chosen

    # it draws exactly the backward Program's ops, legibly
    graph.scroll_into_view_if_needed(timeout=5_000)
    ops = [(nid, text, px) for nid, text, px in graph.evaluate(_OP_LABELS) if OP_ID.match(nid)]
    assert sorted(text for _, text, _ in ops) == sorted(backward_ops), (ops, backward_ops)
    seen = [px for _, _, px in ops if px is not None]
    assert len(seen) >= min(3, len(ops)), f"only {len(seen)} of {len(ops)} op labels are in view"
    assert min(seen) >= MIN_TEXT_PX, f"op labels are {min(seen):.1f} px on screen"

    # the Executor's run of it is selected: its steps go op by op
    run_label = root.locator('[data-testid="mp-run-label"]')
    assert (run_label.text_content() or "").startswith(f"step 1 / {len(backward_ops)}"), run_label.text_content()
    current = graph.locator("svg g.node.mp-current")
    assert OP_ID.match(current.first.get_attribute("data-node-id") or "")
    root.locator('[data-testid="mp-run-forward"]').click()
    assert (run_label.text_content() or "").startswith(f"step 2 / {len(backward_ops)}"), run_label.text_content()
    root.screenshot(path=str(ARTIFACTS / "run-program-backward.png"), timeout=10_000)

    # and back: the run names the call that made it; a click selects that node in the Graph tab
    run_by = root.locator('[data-testid="mp-run-by"]')
    assert run_by.is_visible() and "run_program" in (run_by.text_content() or ""), run_by.text_content()
    assert (run_by.bounding_box() or {}).get("height", 0) > 0
    run_by.click()
    selected = root.locator(f'[data-testid="mp-graph"] svg g.node[data-node-id="{calls[0]}"]')
    selected.wait_for(state="visible", timeout=RENDER_MS)
    assert root.locator('[data-testid="mp-tab-graph"]').get_attribute("aria-selected") == "true"
    assert "mp-selected" in (selected.get_attribute("class") or ""), selected.get_attribute("class")
    assert "forward Program" in (inspector.text_content() or "")
    root.screenshot(path=str(ARTIFACTS / "run-program-back-to-graph.png"), timeout=10_000)
    assert not page.page_errors, page.page_errors
