"""The debugger's cost as a learner meets it: a traced training cell in a real JupyterLab and chromium.

    python benchmarks/debugger_render.py [--rounds 3] [--keep DIR]

A notebook trains a 6-layer MLP (6 x [Linear(->32), Tanh] + Linear(32, 4), a 64x16 random batch,
4 classes, Adam lr 0.01) for 50 iterations under `%%paddle_trace` (default options). It runs in a
real `jupyter lab` (clean Jupyter dirs, 127.0.0.1) driven by Debian's headless chromium through
Playwright, as tests/browser/ does, and is saved with `docmanager:save`. Figures, medians over rounds:

    notebook size        the saved .ipynb, and what the trace output adds: its size minus the same
                         notebook with the traced cell's outputs removed (target: adds <= 2 MB)
    render               the saved notebook's page reloaded; a PerformanceObserver for `longtask`
                         entries, registered before the page's scripts run, gives the longest
                         main-thread task overlapping the trace's render (from its output element
                         appearing until 1.5 s pass with no new long task; target <= 300 ms), and
                         the time from navigation to the graph's first `g.node`. For scale: the
                         longest task while JupyterLab loads the same notebook with no outputs
    step / next iteration a click on `mp-step-forward` / `mp-iter-next`: time until the step label
                         changes (and until the frame after it), median of 10 clicks
    live                 the same cell under `%%paddle_trace --live`, with a 0.1 s sleep per iteration
                         so the loop lasts >= 5 s: output updates that reach the page per second
                         (the cell's output model changing; also the rendered output changing,
                         as bursts of DOM mutations), and the longest task during the live phase
                         (target >= 2 updates/s, no long task over 200 ms)

Also printed: the trace output's size by MIME type and the trace document's largest sections. After
the rounds the traced notebook is opened once more, unmeasured, in an idle JupyterLab with the
browser's tracing and CPU profiler on (Chrome DevTools Protocol): main-thread time by kind (script,
paint, style, layout), what fills the 3 longest tasks, and the functions with the most self time.
"""
from __future__ import annotations

import argparse
import copy
import json
import os
import secrets
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))
from tests.browser import lab_page  # noqa: E402  (the browser tests' JupyterLab helpers)
from tests.browser.conftest import CHROMIUM_ARGS  # noqa: E402

ADDS_TARGET_MB = 2.0
RENDER_TASK_TARGET_MS = 300.0
LIVE_RATE_TARGET = 2.0
LIVE_TASK_TARGET_MS = 200.0
CLICKS = 10
ITERATIONS = 50
LIVE_SLEEP_S = 0.1
SETTLE_MS = 1500
NOTEBOOK_NAME = "trace_default.ipynb"
LIVE_NAME = "trace_live.ipynb"

SETUP_CELL = """\
import time
import numpy as np
import minipaddle as paddle
import minipaddle.nn.functional as F
from minipaddle import nn

%load_ext minipaddle

paddle.seed(0)
rng = np.random.default_rng(0)
x = paddle.to_tensor(rng.standard_normal((64, 16)).astype("float32"))
y = paddle.to_tensor(rng.integers(0, 4, 64))
layers, width = [], 16
for _ in range(6):
    layers += [nn.Linear(width, 32), nn.Tanh()]
    width = 32
model = nn.Sequential(*layers, nn.Linear(32, 4))
opt = paddle.optimizer.Adam(learning_rate=0.01, parameters=model.parameters())"""

TRACE_CELL = """\
%%paddle_trace{options}
for it in range({iterations}):
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    opt.clear_grad(){sleep}"""

# Runs before any of the page's scripts: long tasks (buffered) and when the trace's pieces first appear.
INIT_SCRIPT = """(() => {
    const mp = window.__mp = { longtasks: [], marks: {}, error: null };
    try {
        new PerformanceObserver(list => {
            for (const e of list.getEntries()) mp.longtasks.push({ start: e.startTime, duration: e.duration });
        }).observe({ type: 'longtask', buffered: true });
    } catch (e) { mp.error = String(e); }
    const marks = {
        output: '.jp-OutputArea-output[data-mime-type="%(mime)s"]',
        trace: '[data-testid="mp-trace"]',
        node: '[data-testid="mp-graph"] svg g.node[data-node-id]',
    };
    new MutationObserver(() => {
        for (const [key, selector] of Object.entries(marks)) {
            if (!(key in mp.marks) && document.querySelector(selector)) mp.marks[key] = performance.now();
        }
    }).observe(document, { childList: true, subtree: true });
})();""" % {"mime": lab_page.MIME}

# JS: click the control `testid` of the first trace output; resolve with ms until the step label changed
# and until the frame after that change (a rAF, then a task, so layout and paint are included).
CLICK_JS = """([testid, timeoutMs]) => new Promise(resolve => {
    const root = document.querySelector('%(nb)s [data-testid="mp-trace"]');
    const label = () => (root.querySelector('[data-testid="mp-step-label"]') || {}).textContent || '';
    const button = root.querySelector(`[data-testid="${testid}"]`);
    if (!button || button.disabled) { resolve({ error: `${testid} is missing or disabled` }); return; }
    const before = label();
    let changedAt = null;
    const observer = new MutationObserver(check);
    const timer = setTimeout(() => { observer.disconnect(); resolve({ error: 'the step label did not change' }); },
                             timeoutMs);
    function check() {
        if (changedAt !== null || label() === before) return;
        changedAt = performance.now();
        observer.disconnect();
        clearTimeout(timer);
        requestAnimationFrame(() => setTimeout(() => resolve({
            label_ms: changedAt - t0, frame_ms: performance.now() - t0, text: label() }), 0));
    }
    observer.observe(root, { childList: true, subtree: true, characterData: true });
    const t0 = performance.now();
    button.click();
    check();
})""" % {"nb": lab_page.NOTEBOOK}

# JS: watch the traced cell's output model (each display update sets it) and its DOM (bursts of mutations).
LIVE_WATCH_JS = """(index) => {
    const mp = window.__mp;
    mp.live = { changes: [], mutations: [] };
    const panel = window.jupyterapp.shell.currentWidget;
    const cell = panel.content.widgets[index];
    cell.model.outputs.changed.connect((outputs, args) => {
        if (args.type !== 'add' && args.type !== 'set') return;
        const item = outputs.get(args.newIndex);
        const data = item ? item.data : {};
        mp.live.changes.push({ t: performance.now(), type: args.type, doc: '%(mime)s' in data,
                               mimes: Object.keys(data).join(',') });
    });
    new MutationObserver(() => mp.live.mutations.push(performance.now()))
        .observe(cell.node.querySelector('.jp-OutputArea') || cell.node, { childList: true, subtree: true,
                                                                           characterData: true });
}""" % {"mime": lab_page.MIME}


@dataclass
class Lab:
    """A running `jupyter lab`: lab_page.open_notebook needs only `page_url`."""

    url: str
    token: str
    root_dir: Path

    def page_url(self, path: str = "lab", **params: str) -> str:
        query = "&".join([f"token={self.token}", *(f"{k}={v}" for k, v in params.items())])
        return f"{self.url}/{path}?{query}"


def start_lab(base: Path) -> tuple[Lab, subprocess.Popen]:
    """`jupyter lab` from this venv with clean config/data/runtime dirs, as tests/browser/conftest.py starts it."""
    root = base / "root"
    root.mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUPYTER")}
    for name in ("config", "data", "runtime"):
        (base / name).mkdir(exist_ok=True)
    env.update(JUPYTER_CONFIG_DIR=str(base / "config"), JUPYTER_DATA_DIR=str(base / "data"),
               JUPYTER_RUNTIME_DIR=str(base / "runtime"), JUPYTER_PLATFORM_DIRS="1",
               IPYTHONDIR=str(base / "ipython"), PYTHONUNBUFFERED="1")
    (base / "config" / "labconfig").mkdir()
    (base / "config" / "labconfig" / "page_config.json").write_text(json.dumps(
        {"disabledExtensions": {"@jupyterlab/apputils-extension:announcements": True}}))
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    token = secrets.token_hex(16)
    cmd = [str(Path(sys.executable).with_name("jupyter")), "lab", "--no-browser", "--ServerApp.ip=127.0.0.1",
           f"--ServerApp.port={port}", "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
           f"--ServerApp.root_dir={root}", "--LabApp.expose_app_in_browser=True", "--LabApp.news_url=None",
           "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
    if hasattr(os, "getuid") and os.getuid() == 0:
        cmd.append("--allow-root")
    log = open(base / "jupyter.log", "wb")  # noqa: SIM115 - the server writes to it until it stops
    proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    lab = Lab(url=f"http://127.0.0.1:{port}", token=token, root_dir=root)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            request = urllib.request.Request(f"{lab.url}/api/status", headers={"Authorization": f"token {token}"})
            urllib.request.urlopen(request, timeout=2).read()
            return lab, proc
        except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
            time.sleep(0.25)
    stop_lab(proc)
    raise RuntimeError(f"jupyter lab did not start:\n{(base / 'jupyter.log').read_text(errors='replace')[-3000:]}")


def stop_lab(proc: subprocess.Popen) -> None:
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        proc.wait(timeout=5)


def notebook_json(live: bool) -> dict:
    """The benchmark notebook: the MLP's setup, then its training loop under %%paddle_trace."""
    trace = TRACE_CELL.format(options=" --live" if live else "", iterations=ITERATIONS,
                              sleep=f"\n    time.sleep({LIVE_SLEEP_S})" if live else "")
    cells = [{"cell_type": "code", "execution_count": None, "id": f"cell-{i}", "metadata": {}, "outputs": [],
              "source": source.splitlines(keepends=True)} for i, source in enumerate((SETUP_CELL, trace))]
    return {"cells": cells, "nbformat": 4, "nbformat_minor": 5,
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}}


def write_notebook(path: Path, doc: dict) -> None:
    import nbformat
    path.write_text(nbformat.writes(nbformat.from_dict(doc)), encoding="utf-8")


def sizes(path: Path) -> dict:
    """The saved notebook's size, what the traced cell's outputs add, and their largest MIME parts."""
    import nbformat
    saved = path.read_bytes()
    doc = json.loads(saved)
    stripped = copy.deepcopy(doc)
    stripped["cells"][1]["outputs"] = []
    without = len(nbformat.writes(nbformat.from_dict(stripped)).encode("utf-8"))
    parts: dict[str, int] = {}
    sections: dict[str, int] = {}
    stored_as = "absent"
    for output in doc["cells"][1]["outputs"]:
        for mime, value in output.get("data", {}).items():
            # as stored in the file: a string value is JSON-escaped there
            parts[mime] = parts.get(mime, 0) + len(json.dumps(value, ensure_ascii=False).encode("utf-8"))
            if mime == lab_page.MIME:
                compressed = isinstance(value, str) and not value.lstrip().startswith("{")
                stored_as = ("gzip'ed JSON (base64)" if compressed else "a JSON string") if isinstance(value, str) \
                    else "a JSON object"
                from minipaddle.notebook.display import bundle_document
                trace = bundle_document({mime: value})
                sections = {key: len(json.dumps(part, separators=(",", ":"))) for key, part in trace.items()}
    return {"notebook_mb": len(saved) / 1e6, "adds_mb": (len(saved) - without) / 1e6,
            "parts_mb": {m: n / 1e6 for m, n in parts.items()},
            "doc_stored_as": stored_as,
            "sections_mb": {k: n / 1e6 for k, n in sorted(sections.items(), key=lambda kv: -kv[1])[:5]}}


def run_and_save(page, lab: Lab, name: str, live: bool) -> dict:
    """Open `name`, run all its cells (watching the traced cell's output when live), save it."""
    lab_page.open_notebook(page, lab, name)
    if live:
        page.evaluate(LIVE_WATCH_JS, 1)
    started = time.monotonic()
    lab_page.run_all(page)
    result = {"run_s": time.monotonic() - started}
    if live:
        result.update(live_figures(page.evaluate("() => window.__mp")))
    lab_page.save(page)
    return result


def longest(tasks: list[dict], start: float, end: float, exclude_at: float | None = None) -> float:
    """The longest task overlapping [start, end], leaving out one that spans `exclude_at`."""
    found = [t["duration"] for t in tasks if t["start"] <= end and t["start"] + t["duration"] >= start
             and not (exclude_at is not None and t["start"] <= exclude_at <= t["start"] + t["duration"])]
    return max(found, default=0.0)


def bursts(times: list[float], gap_ms: float = 100.0) -> int:
    """Mutation callbacks closer than `gap_ms` belong to one rendered update."""
    count, last = 0, None
    for t in sorted(times):
        if last is None or t - last > gap_ms:
            count += 1
        last = t
    return count


def live_figures(mp: dict) -> dict:
    """Updates per second between the live output's first display and its final update, and the long tasks."""
    changes = mp["live"]["changes"]
    if len(changes) < 2:
        return {"live_error": f"only {len(changes)} output changes were seen"}
    first, final = changes[0]["t"], changes[-1]["t"]
    seconds = (final - first) / 1000
    mutations = [t for t in mp["live"]["mutations"] if first <= t < final]
    return {
        "live_s": seconds,
        "live_updates": len(changes) - 1,
        "live_rate": (len(changes) - 1) / seconds,
        "live_rendered_rate": bursts(mutations) / seconds,
        "live_with_doc": sum(c["doc"] for c in changes[1:-1]),
        "live_task_ms": longest(mp["longtasks"], first, final, exclude_at=final),
        "live_doc_task_ms": max((longest(mp["longtasks"], c["t"], c["t"]) for c in changes[1:-1] if c["doc"]),
                                default=0.0),
        "live_html_task_ms": max((longest(mp["longtasks"], c["t"], c["t"]) for c in changes[1:-1] if not c["doc"]),
                                 default=0.0),
        "final_task_ms": longest(mp["longtasks"], final, final),
        "live_mimes": sorted({c["mimes"] for c in changes}),
    }


def settle(page, last_seen: int = 0, limit_s: float = 15.0) -> None:
    """Wait until SETTLE_MS pass with no new long task (at most `limit_s`)."""
    deadline = time.monotonic() + limit_s
    quiet_since = time.monotonic()
    while time.monotonic() < deadline:
        count = page.evaluate("() => window.__mp.longtasks.length")
        if count != last_seen:
            last_seen, quiet_since = count, time.monotonic()
        elif time.monotonic() - quiet_since >= SETTLE_MS / 1000:
            return
        time.sleep(0.1)


def load(page, lab: Lab, name: str, trace: bool) -> dict:
    """Open `name` in a freshly loaded page; the long tasks while it loads and while its trace renders."""
    page.goto(lab.page_url(f"lab/tree/{name}", reset=""))
    page.wait_for_selector(f"{lab_page.NOTEBOOK} .jp-Cell", state="visible", timeout=lab_page.KERNEL_READY_MS)
    if trace:
        lab_page.trace_widget(page)
    settle(page)
    mp = page.evaluate("() => window.__mp")
    if mp["error"]:
        raise RuntimeError(f"no longtask observer in this chromium: {mp['error']}")
    end = page.evaluate("() => performance.now()")
    result = {"load_task_ms": longest(mp["longtasks"], 0, end)}
    if trace:
        marks = mp["marks"]
        begin = min(marks.get("output", marks["trace"]), marks["trace"])
        result.update(render_task_ms=longest(mp["longtasks"], begin, end), first_node_ms=marks["node"],
                      output_to_node_ms=marks["node"] - begin)
    return result


def clicks(page, testid: str) -> dict:
    """CLICKS clicks on `testid` from the first step; medians of label-changed and next-frame times."""
    lab_page.click(page.locator(f'{lab_page.NOTEBOOK} [data-testid="mp-trace"]').first, "mp-reset")
    page.wait_for_timeout(300)
    label, frame = [], []
    for _ in range(CLICKS):
        result = page.evaluate(CLICK_JS, [testid, 5000])
        if "error" in result:
            raise RuntimeError(f"{testid}: {result['error']}")
        label.append(result["label_ms"])
        frame.append(result["frame_ms"])
        page.wait_for_timeout(100)
    return {f"{testid}_ms": statistics.median(label), f"{testid}_frame_ms": statistics.median(frame)}


def shutdown_kernels(lab: Lab) -> None:
    """Stop the round's kernels, so that the next round's do not share the two cores with them."""
    headers = {"Authorization": f"token {lab.token}"}
    with urllib.request.urlopen(urllib.request.Request(f"{lab.url}/api/kernels", headers=headers)) as response:
        kernels = json.loads(response.read())
    for kernel in kernels:
        request = urllib.request.Request(f"{lab.url}/api/kernels/{kernel['id']}", headers=headers, method="DELETE")
        urllib.request.urlopen(request).read()


def one_round(page, lab: Lab, r: int) -> dict:
    """Run, save and size the traced notebook; reload it (render, clicks) and its outputless twin; run --live."""
    names = {kind: f"{kind}_r{r}.ipynb" for kind in ("trace", "no_outputs", "live")}
    write_notebook(lab.root_dir / names["trace"], notebook_json(live=False))
    write_notebook(lab.root_dir / names["live"], notebook_json(live=True))
    figures = {"run_s": run_and_save(page, lab, names["trace"], live=False)["run_s"]}
    figures.update(sizes(lab.root_dir / names["trace"]))
    figures.update(load(page, lab, names["trace"], trace=True))
    figures.update(clicks(page, "mp-step-forward"))
    figures.update(clicks(page, "mp-iter-next"))
    stripped = json.loads((lab.root_dir / names["trace"]).read_text())
    stripped["cells"][1]["outputs"] = []
    write_notebook(lab.root_dir / names["no_outputs"], stripped)
    figures["no_outputs_load_task_ms"] = load(page, lab, names["no_outputs"], trace=False)["load_task_ms"]
    live = run_and_save(page, lab, names["live"], live=True)
    figures.update({("live_run_s" if k == "run_s" else k): v for k, v in live.items()})
    shutdown_kernels(lab)
    return figures


def profile_render(page, lab: Lab, name: str, top: int = 12) -> list[str]:
    """Open `name` (`docmanager:open`) in an already loaded, idle JupyterLab under the CPU profiler: the
    functions with the most self time while its trace renders, and the minipaddle extension's share."""
    page.goto(lab.page_url("lab", reset=""))
    page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell", timeout=lab_page.KERNEL_READY_MS)
    settle(page)
    cdp = page.context.new_cdp_session(page)
    events: list[dict] = []
    cdp.on("Tracing.dataCollected", lambda message: events.extend(message["value"]))
    cdp.send("Profiler.enable")
    cdp.send("Profiler.setSamplingInterval", {"interval": 500})
    cdp.send("Profiler.start")  # before tracing starts: starting the profiler is a long main-thread task itself
    cdp.send("Tracing.start", {"categories": "-*,toplevel,devtools.timeline,v8", "transferMode": "ReportEvents"})
    # not lab_page.command: returning the opened widget to Python would profile Playwright serializing it
    page.evaluate("async path => { await window.jupyterapp.commands.execute('docmanager:open', { path }); }", name)
    lab_page.trace_widget(page)
    settle(page, last_seen=page.evaluate("() => window.__mp.longtasks.length"))
    done: list[bool] = []
    cdp.on("Tracing.tracingComplete", lambda message: done.append(True))
    cdp.send("Tracing.end")  # before Profiler.stop, whose building of the profile is a long main-thread task
    deadline = time.monotonic() + 30
    while not done and time.monotonic() < deadline:
        page.wait_for_timeout(100)
    profile = cdp.send("Profiler.stop")["profile"]
    cdp.detach()
    return timeline_summary(events) + js_summary(profile, top)


TIMELINE_KINDS = {  # trace event -> what a learner would call it
    "FunctionCall": "script", "EvaluateScript": "script", "TimerFire": "script", "EventDispatch": "script",
    "FireAnimationFrame": "script", "RunMicrotasks": "script", "v8.compile": "script compile",
    "ParseHTML": "HTML parsing", "UpdateLayoutTree": "style recalculation", "Layout": "layout",
    "PrePaint": "paint", "Paint": "paint", "Layerize": "paint", "MajorGC": "garbage collection",
    "MinorGC": "garbage collection", "V8.GC_SCAVENGER": "garbage collection", "v8.callFunction": "script",
    "v8.run": "script", "BlinkScheduler_PerformMicrotaskCheckpoint": "script", "ParseAuthorStyleSheet": "CSS parsing",
}
TASK_NAMES = ("RunTask", "ThreadControllerImpl::RunTask")  # a main-thread task, by chromium version


def timeline_summary(events: list[dict]) -> list[str]:
    """Main-thread time by kind (script, layout, style, paint...) in all tasks, and in the 3 longest."""
    names = {(e["pid"], e["tid"]) for e in events if e.get("ph") == "M" and e.get("name") == "thread_name"
             and e.get("args", {}).get("name") == "CrRendererMain"}
    tasks = [e for e in events if (e.get("pid"), e.get("tid")) in names and e.get("ph") == "X"]
    top_level = [e for e in tasks if e["name"] in TASK_NAMES]
    if not top_level:
        return ["(no main-thread tasks in the browser's trace)"]
    main = max({(e["pid"], e["tid"]) for e in top_level}, key=lambda k: sum(e["dur"] for e in top_level
                                                                              if (e["pid"], e["tid"]) == k))
    tasks = [e for e in tasks if (e["pid"], e["tid"]) == main]
    outermost, outer_end = [], -1.0
    for e in sorted((e for e in top_level if (e["pid"], e["tid"]) == main), key=lambda e: (e["ts"], -e["dur"])):
        if e["ts"] >= outer_end:  # a task run inside another (a nested run loop) is part of it
            outermost.append(e)
            outer_end = e["ts"] + e["dur"]
    top_level = outermost

    def by_kind(inside: list[dict], total_ms: float | None = None) -> str:
        kinds: dict[str, float] = {}
        outer_end = -1.0
        # outermost events only (they nest on one thread): GC inside a script call counts as script
        for e in sorted((e for e in inside if e["name"] in TIMELINE_KINDS), key=lambda e: (e["ts"], -e["dur"])):
            if e["ts"] >= outer_end:
                kind = TIMELINE_KINDS[e["name"]]
                kinds[kind] = kinds.get(kind, 0.0) + e["dur"] / 1000
                outer_end = e["ts"] + e["dur"]
        if total_ms is not None:
            kinds["not attributed"] = total_ms - sum(kinds.values())
        return ", ".join(f"{k} {ms:.0f} ms" for k, ms in sorted(kinds.items(), key=lambda kv: -kv[1]))

    lines = [f"main thread, {len(top_level)} tasks, by kind: {by_kind(tasks)}"]
    for task in sorted(top_level, key=lambda e: -e["dur"])[:3]:
        start, end = task["ts"], task["ts"] + task["dur"]
        inside = [e for e in tasks if start <= e["ts"] and e["ts"] + e.get("dur", 0) <= end and e is not task]
        lines.append(f"  a task of {task['dur'] / 1000:.0f} ms: {by_kind(inside, task['dur'] / 1000)}")
    return lines


NATIVE = ("(program)", "(garbage collector)", "(root)")


def js_summary(profile: dict, top: int) -> list[str]:
    """Self time by source and the `top` functions, from a CPU profile."""
    self_us: dict[int, float] = {}
    for node_id, delta in zip(profile["samples"], profile["timeDeltas"]):
        self_us[node_id] = self_us.get(node_id, 0.0) + delta
    by_function: dict[tuple, float] = {}
    by_source: dict[str, float] = {}
    for node in profile["nodes"]:
        frame, spent = node["callFrame"], self_us.get(node["id"], 0.0)
        url, fn = frame["url"], frame["functionName"] or "(anonymous)"
        if fn == "(idle)":
            continue
        source = ("minipaddle extension" if "/extensions/minipaddle/" in url else
                  "JupyterLab and other extensions" if url else fn if fn in NATIVE else "no source (built-ins)")
        by_source[source] = by_source.get(source, 0.0) + spent
        where = (("minipaddle:" if "/extensions/minipaddle/" in url else "")
                 + url.rsplit("/", 1)[-1].split("?")[0] + f":{frame['lineNumber'] + 1}") if url else ""
        by_function[(fn, where)] = by_function.get((fn, where), 0.0) + spent
    lines = ["busy main-thread time by source: " + ", ".join(
        f"{s} {us / 1000:.0f} ms" for s, us in sorted(by_source.items(), key=lambda kv: -kv[1]))]
    lines.append(f"top {top} functions by self time:")
    for (fn, where), us in sorted(by_function.items(), key=lambda kv: -kv[1])[:top]:
        lines.append(f"  {us / 1000:8.1f} ms  {fn}  {where}")
    return lines


ROWS = [  # (key, label, unit, target text, passes)
    ("notebook_mb", "saved notebook", "MB", "", None),
    ("adds_mb", "trace output adds", "MB", f"<= {ADDS_TARGET_MB:g} MB", lambda v: v <= ADDS_TARGET_MB),
    ("render_task_ms", "longest task while the trace renders", "ms", f"<= {RENDER_TASK_TARGET_MS:g} ms",
     lambda v: v <= RENDER_TASK_TARGET_MS),
    ("first_node_ms", "navigation -> first graph g.node", "ms", "", None),
    ("output_to_node_ms", "trace output element -> first graph g.node", "ms", "", None),
    ("load_task_ms", "longest task, whole page load (trace)", "ms", "", None),
    ("no_outputs_load_task_ms", "longest task, whole page load (no outputs)", "ms", "", None),
    ("mp-step-forward_ms", "step click -> label changes", "ms", "", None),
    ("mp-step-forward_frame_ms", "step click -> next frame", "ms", "", None),
    ("mp-iter-next_ms", "next-iteration click -> label changes", "ms", "", None),
    ("mp-iter-next_frame_ms", "next-iteration click -> next frame", "ms", "", None),
    ("live_s", "live phase", "s", ">= 5 s", lambda v: v >= 5),
    ("live_rate", "live output updates (model)", "/s", f">= {LIVE_RATE_TARGET:g} /s", lambda v: v >= LIVE_RATE_TARGET),
    ("live_rendered_rate", "live output re-renders (DOM bursts)", "/s", "", None),
    ("live_with_doc", "live updates carrying the trace doc", "", "", None),
    ("live_task_ms", "longest task during the live phase", "ms", f"<= {LIVE_TASK_TARGET_MS:g} ms",
     lambda v: v <= LIVE_TASK_TARGET_MS),
    ("live_doc_task_ms", "  of which: an update carrying the trace doc", "ms", "", None),
    ("live_html_task_ms", "  of which: an HTML-only update", "ms", "", None),
    ("final_task_ms", "longest task at the final update", "ms", "", None),
    ("run_s", "traced cell run (run-all, incl. kernel)", "s", "", None),
    ("live_run_s", "--live notebook run (run-all)", "s", "", None),
]


def table(rounds: list[dict]) -> list[str]:
    lines = [f"{'figure':44} {'median':>9} {'min..max':>19}  {'target':>12}", "-" * 92]
    for key, label, unit, target, passes in ROWS:
        values = [r[key] for r in rounds if key in r]
        if not values:
            continue
        med = statistics.median(values)
        digits = 2 if unit in ("MB", "s", "/s") else 0
        spread = f"{min(values):.{digits}f}..{max(values):.{digits}f}"
        verdict = "" if passes is None else ("  ok" if passes(med) else "  MISSED")
        lines.append(f"{label:44} {med:>9.{digits}f} {spread:>19}  {target:>12}{verdict}"
                     + (f" {unit}" if not target and unit else ""))
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--keep", metavar="DIR", help="copy the notebooks (saved, with outputs) into DIR")
    args = parser.parse_args()
    chromium = shutil.which("chromium")
    if chromium is None:
        sys.exit("chromium is not installed: run `make setup` (or apt-get install chromium)")
    from playwright.sync_api import sync_playwright
    base = Path(tempfile.mkdtemp(prefix="mp-bench-render-"))
    lab, proc = start_lab(base)
    rounds: list[dict] = []
    try:
        with sync_playwright() as pw:
            context = pw.chromium.launch_persistent_context(
                str(base / "profile"), executable_path=chromium, args=CHROMIUM_ARGS, headless=True,
                viewport={"width": 1400, "height": 900}, timeout=30_000)
            context.add_init_script(INIT_SCRIPT)
            page = context.new_page()
            page.set_default_timeout(30_000)
            for r in range(1, args.rounds + 1):
                rounds.append(one_round(page, lab, r))
                f = rounds[-1]
                print(f"round {r}/{args.rounds}: adds {f['adds_mb']:.2f} MB, render task {f['render_task_ms']:.0f} ms,"
                      f" first node {f['first_node_ms']:.0f} ms, step {f['mp-step-forward_ms']:.0f} ms, "
                      f"next iteration {f['mp-iter-next_ms']:.0f} ms, live {f.get('live_rate', 0):.2f}/s "
                      f"(task {f.get('live_task_ms', 0):.0f} ms)", flush=True)
            profile = profile_render(page, lab, "trace_r1.ipynb")
            context.close()
    finally:
        stop_lab(proc)
        if args.keep:
            Path(args.keep).mkdir(parents=True, exist_ok=True)
            for notebook in (base / "root").glob("*.ipynb"):
                shutil.copy(notebook, Path(args.keep) / notebook.name)
        shutil.rmtree(base, ignore_errors=True)
    print(f"\nminipaddle debugger in JupyterLab + headless chromium: 6-layer MLP, {ITERATIONS} iterations traced, "
          f"medians of {len(rounds)} rounds")
    print("\n".join(table(rounds)))
    parts = rounds[-1]["parts_mb"]
    print("trace output by MIME type, as stored (last round): "
          + ", ".join(f"{m} {mb:.2f} MB" for m, mb in parts.items()))
    print(f"the trace document is stored as {rounds[-1]['doc_stored_as']}; its largest sections (compact JSON): "
          + ", ".join(f"{k} {mb:.2f} MB" for k, mb in rounds[-1]["sections_mb"].items()))
    print(f"live updates' MIME types (last round): {rounds[-1].get('live_mimes')}")
    print("\nWhile the traced notebook opens in an idle JupyterLab (unmeasured above; the browser's trace, then its"
          " CPU profile, where (program) is native work such as style, layout and paint):")
    print("\n".join(profile))


if __name__ == "__main__":
    main()
