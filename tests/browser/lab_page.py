"""Helpers that drive one JupyterLab tab for the browser tests: open a notebook, run it, read the trace widget.

JupyterLab commands go through `window.jupyterapp` (the server runs with `expose_app_in_browser`), which is
steadier than clicking through menus. The trace widget is read only through the DOM contract of the
extension (data-testid, data-node-id, .mp-current), so these helpers know nothing of its internals.
"""
from __future__ import annotations

import json
import re

try:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
except ImportError:  # the browser fixture then fails with what to install; collection must still work
    PlaywrightTimeout = TimeoutError

MIME = "application/vnd.minipaddle.trace+json"
NOTEBOOK = ".jp-NotebookPanel:not(.lm-mod-hidden)"
SIDEBAR = "#minipaddle-graph-debugger"
STEP_LABEL = re.compile(r"step\s+(\d+)\s*/\s*(\d+)")
KERNEL_READY_MS = 60_000
RUN_MS = 90_000
RENDER_MS = 30_000

# JS: resolves when the command's promise does, or rejects after `ms` (page.evaluate itself has no timeout)
_COMMAND = """async ([id, args, ms]) => {
    const app = window.jupyterapp;
    let timer;
    const limit = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(
        `JupyterLab command ${id} did not finish in ${ms} ms`)), ms); });
    try { return await Promise.race([app.commands.execute(id, args), limit]); }
    finally { clearTimeout(timer); }
}"""

_KERNEL_READY = """() => {
    const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
    const ctx = w && w.sessionContext;
    return !!(ctx && ctx.isReady && ctx.session && ctx.session.kernel
              && ctx.session.kernel.connectionStatus === 'connected');
}"""

# JS: the error outputs of the active notebook's model, as "ename: evalue" lines
_ERRORS = """() => {
    const nb = window.jupyterapp.shell.currentWidget.content.model.toJSON();
    return nb.cells.flatMap(c => (c.outputs || []).filter(o => o.output_type === 'error')
                                                  .map(o => `${o.ename}: ${o.evalue}`));
}"""


def command(page, command_id: str, args: dict | None = None, timeout_ms: int = 30_000):
    """Run a JupyterLab command and wait for it to finish."""
    return page.evaluate(_COMMAND, [command_id, args or {}, timeout_ms])


def write_notebook(lab, name: str, sources: list[str]) -> None:
    """A notebook of code cells (one per source) in the lab's root folder, ready for open_notebook."""
    cells = [{"cell_type": "code", "execution_count": None, "id": f"c{i}", "metadata": {}, "outputs": [],
              "source": source} for i, source in enumerate(sources)]
    doc = {"cells": cells, "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python",
                                                         "name": "python3"}}, "nbformat": 4, "nbformat_minor": 5}
    (lab.root_dir / name).write_text(json.dumps(doc, indent=1))


def open_notebook(page, lab, name: str) -> None:
    """Open `name` from the server's root in a fresh workspace and wait until its kernel is connected."""
    page.goto(lab.page_url(f"lab/tree/{name}", reset=""))
    page.wait_for_selector(f"{NOTEBOOK} .jp-Cell", state="visible", timeout=KERNEL_READY_MS)
    page.wait_for_function(_KERNEL_READY, timeout=KERNEL_READY_MS)


def run_all(page) -> None:
    """Run every cell of the active notebook; fail with the kernel's error if a cell raised."""
    command(page, "notebook:run-all-cells", timeout_ms=RUN_MS)
    errors = page.evaluate(_ERRORS)
    assert not errors, f"a notebook cell raised: {errors}"


def save(page) -> None:
    command(page, "docmanager:save")
    page.wait_for_function("() => !window.jupyterapp.shell.currentWidget.context.model.dirty", timeout=10_000)


def trace_widget(page, scope: str = NOTEBOOK, index: int = 0):
    """The `index`-th trace output under `scope`, once its graph has nodes drawn."""
    root = page.locator(f'{scope} [data-testid="mp-trace"]').nth(index)
    try:
        root.locator('[data-testid="mp-graph"] svg [data-node-id]').first.wait_for(state="attached", timeout=RENDER_MS)
    except PlaywrightTimeout:
        shown = page.locator(f"{scope} .jp-OutputArea-output[data-mime-type]").evaluate_all(
            "els => els.map(e => e.getAttribute('data-mime-type'))")
        raise AssertionError(
            f"no trace graph was drawn under {scope} in {RENDER_MS} ms; outputs rendered as {shown}; "
            f"page errors: {getattr(page, 'page_errors', [])}; console errors: {getattr(page, 'console_errors', [])}"
            " (text/html only means the extension's renderer did not load: `make setup` rebuilds it)") from None
    return root


def graph_box(root) -> dict:
    """The on-screen box of the drawn graph (an SVG squeezed to nothing is drawn but not seen)."""
    svg = root.locator('[data-testid="mp-graph"] svg').first
    svg.scroll_into_view_if_needed(timeout=5_000)
    return svg.bounding_box(timeout=5_000) or {"width": 0, "height": 0}


def node_ids(root) -> list[str]:
    return root.locator('[data-testid="mp-graph"] svg g.node[data-node-id]').evaluate_all(
        "els => els.map(e => e.getAttribute('data-node-id'))")


def node_text(root, node_id: str) -> str:
    return root.locator(f'[data-testid="mp-graph"] [data-node-id="{node_id}"]').first.text_content() or ""


def current_node(root) -> str | None:
    """The data-node-id of the highlighted (current step's) node, or None when none is highlighted."""
    current = root.locator('[data-testid="mp-graph"] [data-node-id].mp-current')
    return current.first.get_attribute("data-node-id") if current.count() else None


def step_label(root) -> str:
    return (root.locator('[data-testid="mp-step-label"]').text_content() or "").strip()


def step_index(root) -> tuple[int, int]:
    """(current step, number of steps) read from the step label `step 3 / 16 · forward · linear (MLP.fc1)`."""
    label = step_label(root)
    match = STEP_LABEL.search(label)
    assert match, f"step label {label!r} does not read 'step N / M'"
    return int(match.group(1)), int(match.group(2))


def inspector_text(root) -> str:
    return " ".join((root.locator('[data-testid="mp-inspector"]').text_content() or "").split())


def step(page, root, action: str, timeout_ms: int = 5_000) -> tuple[int, int]:
    """Click the control `action` (a data-testid such as mp-step-forward) or press the key `action`
    (ArrowRight, F10, ...) with the widget focused, wait until the step label changes, return step_index."""
    before = step_label(root)
    if action.startswith("mp-"):
        click(root, action)
    else:
        root.press(action, timeout=timeout_ms)
    label = root.locator('[data-testid="mp-step-label"]')
    page.wait_for_function("([el, before]) => el.textContent.trim() !== before",
                           arg=[label.element_handle(timeout=timeout_ms), before], timeout=timeout_ms)
    return step_index(root)


def click(root, testid: str) -> None:
    root.locator(f'[data-testid="{testid}"]').click(timeout=5_000)


def scrub_to(root, value: int) -> None:
    """Move the timeline scrubber as a user's drag would: set the value, fire input and change."""
    root.locator('input[type=range][data-testid="mp-scrubber"]').evaluate(
        """(el, v) => { el.value = String(v); el.dispatchEvent(new Event('input', {bubbles: true}));
                        el.dispatchEvent(new Event('change', {bubbles: true})); }""", value)
