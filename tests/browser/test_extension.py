"""The JupyterLab extension in a real browser: a real `jupyter lab`, Debian's headless chromium, Playwright.

A `%%paddle_trace` cell's output is stepped through, forward and backward, by clicks and keys; the notebook is
saved, its kernel shut down and the page reloaded, and the output is still navigable; a document from a future
major schema version is refused with the HTML fallback; the "Graph Debugger" sidebar follows the latest trace;
the dark theme restyles the renderer. Screenshots go into test-artifacts/browser/ (debugger.png is the README's).
Each wait has its own timeout (lab_page.py); the whole file runs in well under 3 minutes on 2 cores.
"""
from __future__ import annotations

import json
import re
import subprocess

from .conftest import ARTIFACTS, EXTENSION_NAME
from .lab_page import (MIME, NOTEBOOK, SIDEBAR, click, command, current_node, graph_box, inspector_text, node_ids,
                       node_text, open_notebook, run_all, save, scrub_to, step, step_index, step_label, trace_widget)

# the forward ops of the MLP step in notebooks/mlp_trace.ipynb: fc1, relu, fc2, loss
FORWARD = {"n1": "linear", "n2": "relu", "n3": "linear", "n4": "cross_entropy"}
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _screenshot(root, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    root.screenshot(path=str(ARTIFACTS / name), timeout=10_000)


def _traced_mlp(page, lab):
    open_notebook(page, lab, "mlp_trace.ipynb")
    run_all(page)
    return trace_widget(page)


def test_labextension_list_shows_it_enabled(lab, extension) -> None:
    out = subprocess.run([str(lab.jupyter), "labextension", "list"],
                         env=lab.env, capture_output=True, text=True, timeout=60)
    text = ANSI.sub("", out.stdout + out.stderr)
    line = next((ln for ln in text.splitlines() if ln.strip().startswith(EXTENSION_NAME + " ")), None)
    assert line is not None, f"`jupyter labextension list` does not list {EXTENSION_NAME}:\n{text}"
    assert "enabled" in line and "OK" in line, f"listed but not enabled OK: {line!r}"
    assert extension["load"].startswith("static/remoteEntry."), extension


def test_trace_output_graph_and_stepping(page, lab, extension) -> None:
    root = _traced_mlp(page, lab)
    assert root.get_attribute("data-schema-version").split(".")[0] == "1"
    box = graph_box(root)
    assert box["width"] >= 300 and box["height"] >= 200, f"the graph is drawn too small to see: {box}"
    ids = node_ids(root)
    for node_id, op in FORWARD.items():
        assert node_id in ids, f"forward node {node_id} ({op}) missing from the graph: {ids}"
        assert op in node_text(root, node_id), f"node {node_id} should read {op!r}: {node_text(root, node_id)!r}"

    # reset: step 1 is the first op, fc1's linear; the tensors it read and wrote are lit up
    click(root, "mp-reset")
    label = step_label(root)
    assert step_index(root) == (1, 16) and "forward" in label and "linear" in label, label
    assert current_node(root) == "n1"
    first_inspector = inspector_text(root)
    assert "linear" in first_inspector and "MLP.fc1" in first_inspector, first_inspector
    assert root.locator("[data-testid=mp-graph] .mp-read").count() >= 1
    assert root.locator("[data-testid=mp-graph] .mp-written").count() >= 1

    assert step(page, root, "mp-step-forward")[0] == 2
    assert current_node(root) == "n2", step_label(root)
    assert "relu" in step_label(root) and "relu" in inspector_text(root)
    assert inspector_text(root) != first_inspector

    assert step(page, root, "mp-step-back")[0] == 1
    assert current_node(root) == "n1"
    assert inspector_text(root) == first_inspector
    assert root.locator('[data-testid="mp-inspector"] svg[data-testid="mp-histogram"]').count() >= 1
    _screenshot(root, "mlp-forward-step.png")

    # step into goes one op on, into fc2; step out of the MLP (from relu) lands on the loss outside it
    assert step(page, root, "mp-step-forward")[0] == 2
    assert step(page, root, "mp-step-into")[0] == 3 and current_node(root) == "n3"
    assert step(page, root, "mp-step-back")[0] == 2
    assert step(page, root, "mp-step-out")[0] == 4 and current_node(root) == "n4"

    # continue plays on by itself; pressed again it pauses where it is
    click(root, "mp-reset")
    click(root, "mp-continue")
    page.wait_for_function("el => Number(el.textContent.trim().split(/\\s+/)[1]) >= 3",
                           arg=root.locator('[data-testid="mp-step-label"]').element_handle(), timeout=10_000)
    click(root, "mp-continue")
    paused = step_index(root)[0]
    page.wait_for_timeout(1_000)
    assert step_index(root)[0] == paused, "continue did not pause"


def test_keyboard_shortcuts_when_the_widget_has_focus(page, lab, extension) -> None:
    root = _traced_mlp(page, lab)
    click(root, "mp-reset")
    assert step(page, root, "ArrowRight")[0] == 2 and current_node(root) == "n2"
    assert step(page, root, "F10")[0] == 3 and current_node(root) == "n3"
    assert step(page, root, "ArrowLeft")[0] == 2
    assert step(page, root, "End")[0] == step_index(root)[1]
    assert step(page, root, "Home")[0] == 1 and current_node(root) == "n1"

    # the same keys pressed in the notebook (command mode) leave the widget alone
    page.locator(f"{NOTEBOOK} .jp-Cell .jp-InputPrompt").first.click()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("F10")
    page.wait_for_timeout(300)
    assert step_index(root)[0] == 1


def test_scrubber_and_backward_view(page, lab, extension) -> None:
    root = _traced_mlp(page, lab)
    total = step_index(root)[1]
    scrubber = root.locator('input[type=range][data-testid="mp-scrubber"]')
    assert int(scrubber.get_attribute("max")) == total - 1  # the timeline is 0-based, the label 1-based
    scrub_to(root, 4)  # the first backward step: the loss's grad node
    page.wait_for_function("el => el.textContent.includes('step 5 /')",
                           arg=root.locator('[data-testid="mp-step-label"]').element_handle(), timeout=5_000)
    assert "backward" in step_label(root) and "cross_entropy" in step_label(root), step_label(root)
    assert current_node(root) == "g8" and "cross_entropy" in inspector_text(root)

    root.locator('[data-testid="mp-view"]').select_option("backward")
    page.wait_for_function("el => !el.querySelector('[data-node-id=\"n1\"]') && "
                           "!!el.querySelector('[data-node-id=\"g8\"].mp-current')",
                           arg=root.locator('[data-testid="mp-graph"]').element_handle(), timeout=10_000)
    ids = node_ids(root)
    assert all(i.startswith(("g", "t")) for i in ids), f"the backward view draws only grad nodes and tensors: {ids}"
    assert step(page, root, "mp-step-forward")[0] == 6
    assert (current_node(root) or "").startswith("g") and current_node(root) != "g8"
    _screenshot(root, "mlp-backward-step.png")

    # search: Enter shows the first match in the inspector; arrow keys typed in the box do not step
    search = root.locator('input[data-testid="mp-search"]')
    search.fill("relu")
    search.press("Enter")
    assert "relu_grad" in inspector_text(root), inspector_text(root)
    search.press("ArrowLeft")
    assert step_index(root)[0] == 6


def test_saved_output_reopens_navigable_after_kernel_shutdown(page, lab, extension) -> None:
    root = _traced_mlp(page, lab)
    ids = node_ids(root)
    save(page)
    saved = json.loads((lab.root_dir / "mlp_trace.ipynb").read_text())
    assert any(MIME in out.get("data", {}) for cell in saved["cells"] for out in cell.get("outputs", [])), \
        "the saved notebook has no trace output"
    command(page, "kernelmenu:shutdown")
    page.reload()
    page.wait_for_selector(f"{NOTEBOOK} .jp-Cell", timeout=30_000)
    root = trace_widget(page)
    assert node_ids(root) == ids
    click(root, "mp-reset")
    assert step_index(root)[0] == 1 and current_node(root) == "n1"
    assert step(page, root, "mp-step-forward")[0] == 2
    assert current_node(root) == "n2" and "relu" in inspector_text(root)


def test_unknown_major_schema_version_falls_back_to_html(page, lab, extension) -> None:
    open_notebook(page, lab, "future_schema.ipynb")
    run_all(page)
    error = page.locator(f'{NOTEBOOK} [data-testid="mp-schema-error"]')
    error.wait_for(state="visible", timeout=20_000)
    message = error.text_content() or ""
    assert "99.0" in message and "schema" in message.lower(), message
    fallback = page.locator(f"{NOTEBOOK} .mp-test-fallback")
    fallback.wait_for(state="visible", timeout=5_000)
    assert fallback.text_content() == "Fallback HTML of a trace from the future"
    assert page.locator(f'{NOTEBOOK} [data-testid="mp-graph"]').count() == 0
    _screenshot(page.locator(f"{NOTEBOOK} .jp-Cell").last, "schema-error.png")


def test_sidebar_panel_follows_the_latest_trace(page, lab, extension) -> None:
    root = _traced_mlp(page, lab)
    titles = page.evaluate("""() => Array.from(window.jupyterapp.shell.widgets('right'))
                                  .map(w => [w.id, w.title.label || w.title.caption])""")
    assert ["minipaddle-graph-debugger", "Graph Debugger"] in [list(t) for t in titles], titles
    page.evaluate("() => window.jupyterapp.shell.activateById('minipaddle-graph-debugger')")
    panel = trace_widget(page, SIDEBAR)
    assert node_ids(panel) == node_ids(root)
    box = graph_box(panel)
    assert box["width"] >= 150 and box["height"] >= 150, f"the panel's graph is not visible: {box}"
    assert panel.locator('[data-testid="mp-inspector"]').bounding_box()["height"] >= 50, "the inspector is squeezed"

    # a second traced cell: the panel moves to its trace
    page.evaluate("""() => {
        const nb = window.jupyterapp.shell.currentWidget.content;
        nb.model.sharedModel.insertCell(nb.model.cells.length,
            {cell_type: 'code', source: '%%paddle_trace\\nz = paddle.tanh(x) * 2'});
        nb.activeCellIndex = nb.model.cells.length - 1;
    }""")
    command(page, "notebook:run-cell", timeout_ms=60_000)
    page.wait_for_function(f"""() => Array.from(document.querySelectorAll('{SIDEBAR} [data-node-id]'))
                                   .some(e => e.textContent.includes('tanh'))""", timeout=20_000)
    panel = trace_widget(page, SIDEBAR)
    assert "n4" not in node_ids(panel) or "cross_entropy" not in node_text(panel, "n4")
    click(panel, "mp-reset")
    assert step(page, panel, "mp-step-forward")[0] == 2
    _screenshot(page.locator(SIDEBAR), "sidebar.png")


def test_readme_screenshot_of_tutorial_03_backward_step(page, lab, extension) -> None:
    open_notebook(page, lab, "tutorial03_step.ipynb")
    run_all(page)
    root = trace_widget(page)
    root.locator('[data-testid="mp-view"]').select_option("combined")  # forward and backward side by side
    root.locator('[data-testid="mp-graph"] svg [data-node-id="g1"]').wait_for(state="attached", timeout=10_000)
    click(root, "mp-reset")
    # step through the forward phase into the first backward step: the loss's gradient op
    _, total = step_index(root)
    for _ in range(total):
        if "backward" in step_label(root):
            break
        step(page, root, "mp-step-forward")
    assert "backward" in step_label(root), step_label(root)
    root.scroll_into_view_if_needed(timeout=5_000)
    _screenshot(root, "debugger.png")


def test_dark_theme_restyles_the_renderer(page, lab, extension) -> None:
    root = _traced_mlp(page, lab)
    style = """el => { const s = getComputedStyle(el); return [s.backgroundColor, s.color].join(' '); }"""
    inspector = root.locator('[data-testid="mp-inspector"]')
    light = (root.evaluate(style), inspector.evaluate(style))
    try:
        command(page, "apputils:change-theme", {"theme": "JupyterLab Dark"})
        page.wait_for_function("() => document.body.dataset.jpThemeLight === 'false'", timeout=15_000)
        page.wait_for_timeout(300)  # the theme's stylesheet swaps in after the flag
        dark = (root.evaluate(style), inspector.evaluate(style))
        assert dark != light, f"the renderer looks the same in both themes: {light}"
        _screenshot(root, "mlp-dark.png")
    finally:
        command(page, "apputils:change-theme", {"theme": "JupyterLab Light"})
