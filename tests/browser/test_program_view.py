"""The extension's Program tab in a real browser: a static Program drawn, a pass diff, an Executor run stepped.

A notebook cell builds a small static program (an fc layer, an elementwise chain the fusion pass fuses, a
`cond` and a `while_loop`) and displays `paddle.visualizer.show_program(main, passes=True, feed=...)`: the trace
document with the program, every pass's diff and one recorded run of the optimized program. The test clicks
through the tabs, steps the run (a while body's ops come back once per iteration) and opens the fusion diff.
A second notebook shows a `@paddle.jit.to_static` function: its source, the converted source and the Program,
an op linked to the line that made it and a line to its ops.
Read only through the DOM contract: data-testid mp-tab-*, mp-program-*, mp-pass-*, mp-run-*, g.node[data-node-id].
"""
from __future__ import annotations

import json

from .conftest import ARTIFACTS
from .lab_page import NOTEBOOK, RENDER_MS, open_notebook, run_all

NAME = "program_view.ipynb"
SOURCE = """\
import numpy as np
import minipaddle as paddle
from IPython.display import display

paddle.enable_static()
paddle.seed(0)
main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    x = paddle.static.data("x", [None, 4], "float32")
    h = paddle.static.nn.fc(x, 8)
    h = paddle.nn.functional.sigmoid(h) * h + h          # multiply + add: fused into one kernel
    out = paddle.static.nn.fc(h, 1)
    m = paddle.mean(out)
    metric = paddle.static.nn.cond(m > 0, lambda: paddle.max(out) * 2.0, lambda: paddle.min(out) - 1.0)
    i0 = paddle.full([], 0, "int64")
    s0 = paddle.full([], 0.0, "float32")
    _, total = paddle.static.nn.while_loop(lambda i, s: i < 3, lambda i, s: [i + 1, s + m], [i0, s0])
exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(startup)
display(paddle.visualizer.show_program(main, passes=True, feed={"x": np.ones((2, 4), "float32")},
                                       fetch_list=[m, metric, total]), raw=True)
"""
DY2STATIC = """\
import numpy as np
import minipaddle as paddle
from IPython.display import display

@paddle.jit.to_static
def f(x):
    y = x * 2.0
    if paddle.mean(y) > 0:
        y = paddle.tanh(y)
    else:
        y = y - 1.0
    return y

f(paddle.to_tensor(np.ones((2, 3), "float32")))
display(paddle.visualizer.show_program(f), raw=True)
"""


def _notebook(lab, name: str = NAME, source: str = SOURCE) -> None:
    cell = {"cell_type": "code", "execution_count": None, "id": "prog0001", "metadata": {}, "outputs": [],
            "source": source.splitlines(keepends=True)}
    doc = {"cells": [cell], "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python",
                                                        "name": "python3"}},
           "nbformat": 4, "nbformat_minor": 5}
    (lab.root_dir / name).write_text(json.dumps(doc, indent=1))


def _texts(root, selector: str) -> list[str]:
    return root.locator(selector).evaluate_all("els => els.map(e => e.getAttribute('data-node-id'))")


def _run_state(root) -> tuple[str, str | None]:
    label = (root.locator('[data-testid="mp-run-label"]').text_content() or "").strip()
    current = _texts(root, '[data-testid="mp-program-graph"][data-side="main"] g.node.mp-current')
    return label, current[0] if current else None


def test_program_tab_pass_diff_and_run_stepping(page, lab, extension) -> None:
    _notebook(lab)
    open_notebook(page, lab, NAME)
    run_all(page)
    root = page.locator(f'{NOTEBOOK} [data-testid="mp-trace"]').first
    graph = root.locator('[data-testid="mp-program-graph"][data-side="main"]')
    graph.locator("svg g.node[data-node-id]").first.wait_for(state="attached", timeout=RENDER_MS)

    # a document of programs only opens on the Program tab: no empty Graph tab, no Profile tab
    assert "mp-active" in (root.locator('[data-testid="mp-tab-program"]').get_attribute("class") or "")
    assert root.locator('[data-testid="mp-tab-graph"]').count() == 0
    assert root.locator('[data-testid="mp-tab-profile"]').count() == 0
    assert root.locator('[data-testid="mp-program-view"]').is_visible()

    # the program the run ran is shown: the optimized one, ops and variables, cond and while bodies as clusters
    select = root.locator('[data-testid="mp-program-select"]')
    options = select.locator("option").evaluate_all("els => els.map(e => e.value)")
    assert options[0] == "P0" and len(options) >= 2, options  # main, then the programs the passes made
    pid = select.input_value()
    assert pid == options[-1] == graph.get_attribute("data-program-id"), (pid, options)
    ids = _texts(graph, "svg g.node[data-node-id]")
    assert f"{pid}:b0:op0" in ids and f"{pid}:b0:v:fc_0.w_0" in ids, ids
    assert any(i.startswith(f"{pid}:b1:op") for i in ids) and any(i.startswith(f"{pid}:b4:op") for i in ids), ids
    assert graph.locator("svg g.cluster").count() == 4  # cond: true / false; while: condition / body
    box = graph.locator(":scope > svg").bounding_box() or {"width": 0, "height": 0}
    assert box["width"] >= 300 and box["height"] >= 200, f"the program graph is drawn too small: {box}"

    # step the run: the first op is current, then each click moves on; a while body's ops come back per iteration
    label, current = _run_state(root)
    # (fc with 4 inputs: one fused loop computes its product, the bias add and the activation chain)
    assert label.startswith("step 1 / ") and "fused_elementwise (op 0)" in label and current == f"{pid}:b0:op0", \
        (label, current)
    total = int(label.split("/")[1].split()[0])
    seen: list[str] = [current]
    for _ in range(total - 1):
        before = label
        root.locator('[data-testid="mp-run-forward"]').click()
        page.wait_for_function("([el, before]) => el.textContent.trim() !== before",
                               arg=[root.locator('[data-testid="mp-run-label"]').element_handle(), before],
                               timeout=5_000)
        label, current = _run_state(root)
        seen.append(current)
    assert label.startswith(f"step {total} / {total}"), label
    body = [n for n in seen if n and n.startswith(f"{pid}:b4:")]
    assert len(body) > len(set(body)) >= 1, f"the while body should run more than once: {seen}"
    assert root.locator('[data-testid="mp-program-graph"] g.node.mp-done').count() >= 5
    inspector = root.locator('[data-testid="mp-program-inspector"]')
    assert "run step" in (inspector.text_content() or "")
    root.locator('input[type=range][data-testid="mp-run-step"]').evaluate(
        "el => { el.value = '0'; el.dispatchEvent(new Event('input', {bubbles: true})); }")
    label, current = _run_state(root)
    assert label.startswith("step 1 / ") and current == f"{pid}:b0:op0", (label, current)
    text = " ".join((inspector.text_content() or "").split())
    assert "sigmoid" in text and "out " in text and "mean" in text, text
    assert inspector.locator('[data-testid="mp-histogram"]').count() >= 1
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    root.screenshot(path=str(ARTIFACTS / "program-run-step.png"), timeout=10_000)

    # the fusion pass: before and after side by side, the fused-away ops and the fused op highlighted
    items = root.locator('[data-testid="mp-pass-list"] [data-testid="mp-pass-item"]')
    assert items.count() >= 5
    root.locator('[data-testid="mp-pass-item"][data-pass="fuse_elementwise"]').click()
    before = root.locator('[data-testid="mp-program-graph"][data-side="before"]')
    after = root.locator('[data-testid="mp-program-graph"][data-side="after"]')
    after.locator("svg g.node.mp-fused").first.wait_for(state="attached", timeout=RENDER_MS)
    before.locator("svg g.node.mp-removed").first.wait_for(state="attached", timeout=RENDER_MS)
    before_id, after_id = before.get_attribute("data-program-id"), after.get_attribute("data-program-id")
    assert after_id == pid and before_id != pid, (before_id, after_id)
    removed = _texts(before, "svg g.node.mp-removed")
    assert {f"{before_id}:b0:op2", f"{before_id}:b0:op3"} <= set(removed), removed  # multiply and add
    fused = _texts(after, "svg g.node.mp-fused")
    assert len(fused) == 1 and fused[0].startswith(f"{pid}:b0:op"), fused
    assert not graph.is_visible()
    # each side opens on the change: the first removed op lies inside the before pane, on screen
    first_removed = before.locator(f'svg g.node[data-node-id="{min(removed, key=_op_index)}"]')
    page.wait_for_function(
        "([pane, node]) => { const p = pane.getBoundingClientRect(), n = node.getBoundingClientRect();"
        " return n.top >= p.top && n.bottom <= p.bottom && n.left >= p.left && n.right <= p.right; }",
        arg=[before.element_handle(), first_removed.element_handle()], timeout=5_000)
    # (dispatched: the fused node may lie outside the after pane's window, which opens on its first change)
    after.locator(f'g.node[data-node-id="{fused[0]}"]').dispatch_event("click")
    text = " ".join((inspector.text_content() or "").split())
    assert "fused_elementwise" in text and "replaces" in text and "multiply" in text and "add" in text, text
    root.screenshot(path=str(ARTIFACTS / "program-pass-diff.png"), timeout=10_000)

    # the same item again: back to the program alone, the run where it was
    root.locator('[data-testid="mp-pass-item"][data-pass="fuse_elementwise"]').click()
    graph.wait_for(state="visible", timeout=5_000)
    assert _run_state(root)[1] == f"{pid}:b0:op0"
    assert not page.page_errors, page.page_errors


def _op_index(node_id: str) -> int:
    """P1:b0:op12 -> 12 (removed ops of block 0 come first in the diff)."""
    return int(node_id.rsplit(":op", 1)[1]) if ":op" in node_id and ":v:" not in node_id else 1 << 30


def test_dy2static_source_and_program_linked(page, lab, extension) -> None:
    _notebook(lab, "dy2static_view.ipynb", DY2STATIC)
    open_notebook(page, lab, "dy2static_view.ipynb")
    run_all(page)
    root = page.locator(f'{NOTEBOOK} [data-testid="mp-trace"]').first
    graph = root.locator('[data-testid="mp-program-graph"][data-side="main"]')
    graph.locator("svg g.node[data-node-id]").first.wait_for(state="attached", timeout=RENDER_MS)
    original = root.locator('[data-testid="mp-source-original"]')
    transformed = root.locator('[data-testid="mp-source-transformed"]')
    assert original.is_visible() and transformed.is_visible()
    assert "if paddle.mean(y) > 0:" in (original.text_content() or "")
    assert "convert_ifelse" in (transformed.text_content() or "")

    # a source line -> the ops it produced: `y = paddle.tanh(y)` made the tanh in the true branch's block
    tanh_line = original.locator(".mp-source-line", has_text="paddle.tanh(y)")
    tanh_line.click()
    matched = _texts(graph, "svg g.node.mp-source-match")
    assert matched and all(":b1:op" in m for m in matched), matched
    assert "mp-source-current" in (tanh_line.get_attribute("class") or "")

    # an op -> its line: the multiply is `y = x * 2.0`
    multiply = graph.locator("svg g.node", has_text="multiply").first
    multiply.dispatch_event("click")  # it may lie outside the readable window, which followed the tanh line
    current = original.locator(".mp-source-line.mp-source-current")
    assert current.count() == 1 and "y = x * 2.0" in (current.text_content() or ""), current.all_text_contents()
    text = " ".join((root.locator('[data-testid="mp-program-inspector"]').text_content() or "").split())
    assert "multiply" in text and "y = x * 2.0" in text, text
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    root.screenshot(path=str(ARTIFACTS / "program-dy2static.png"), timeout=10_000)
    assert not page.page_errors, page.page_errors
