"""A trace as one self-contained HTML page: graph, step list, tensor summaries, gradients, updates.

    save_html(trace, "step.html")          # one file, no network: open it in any browser
    to_html(trace)                         # the same page as a string
    to_html(trace, scripts=False, full_page=False)   # a fragment with no <script>, for a notebook's
                                                     # text/html output (classic Notebook, VS Code, GitHub)

The graph is inline SVG when Graphviz's `dot` is installed, else a note on installing it and the
graph as a nested list. Expanding and collapsing use <details>, so they work without scripts; the
saved page adds a little script for step selection (click a step or a node, or use the arrow keys:
the step's node lights up in every graph and its tensor states in the tables).
Static programs (the document's programs, pass_diffs, program_runs) follow: each drawn with
sub-blocks as clusters, the pass diffs as a table, each recorded Executor run as a list of ops.
Every name from user code (layers, tensors, ops, hooks) is escaped with `html.escape`.
"""
from __future__ import annotations

import html
import secrets
from pathlib import Path

from ..framework.errors import PreconditionNotMet, invalid_argument
from .dot import INSTALL_HINT, NAN_STYLE, STYLES, dot_available, inline_svg, render_svg, to_digraph
from .graph import DEFAULT_BUDGET, GraphView, apply_budget, backward_graph, document_of, graph_view

esc = html.escape
ROLE_SECTIONS = (("Parameters", ("parameter",)), ("Inputs and leaves", ("input", "leaf")),
                 ("Activations", ("activation",)), ("Gradients", ("gradient",)))


def to_html(trace, scripts: bool = True, full_page: bool = True, view: str = "auto", depth: int | None = None,
            budget: int | None = DEFAULT_BUDGET, max_rows: int = 1000) -> str:
    """The trace as HTML: a whole page (`full_page`) or a fragment; with `scripts=False` it holds no
    <script> at all. `view`, `depth`, `budget` choose the graph (see graph.graph_view); each table
    shows at most `max_rows` rows and says how many it left out."""
    doc = document_of(trace, "to_html")
    if isinstance(max_rows, bool) or not isinstance(max_rows, int) or max_rows < 1:
        raise invalid_argument("to_html", f"max_rows={max_rows!r}, expected an integer >= 1.")
    prefix = "mp" + secrets.token_hex(4)  # element ids stay unique with several traces on one page
    parts = [f'<div class="mp-trace" id="{prefix}">', _STYLE.replace("ROOT", prefix)]
    if doc["steps"] or not doc.get("programs"):  # a document of static programs alone skips the eager parts
        views = [graph_view(doc, view, depth, budget)]
        if views[0].kind in ("forward", "layers") and doc["graph"]["backward"]["nodes"]:
            views.append(apply_budget(backward_graph(doc), budget))
        parts += [_header(doc, prefix), _graphs(views, prefix), _steps(doc, views, prefix, max_rows),
                  _tensors(doc, prefix, max_rows), _updates(doc, prefix), _timings(doc), _autotune(doc)]
    if doc.get("programs"):
        parts.append(programs_html(doc, prefix, max_rows))
    parts.append("</div>")
    if scripts:
        parts.append("<script>" + _SCRIPT.replace("ROOT", prefix) + "</script>")
    body = "\n".join(parts)
    if not full_page:
        return body
    return ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>minipaddle trace</title></head>\n<body>\n{body}\n</body></html>\n")


def save_html(trace, path: str | Path, **options) -> Path:
    """Write `to_html(trace, **options)` to `path` (UTF-8) and return the path."""
    path = Path(path)
    path.write_text(to_html(trace, **options), encoding="utf-8")
    return path


def repr_html(trace) -> str:
    """What a notebook shows for a Trace: the fragment without scripts."""
    return to_html(trace, scripts=False, full_page=False)


# ---- pieces -------------------------------------------------------------------------------------------

def _num(v) -> str:
    if v is None:
        return "—"
    if isinstance(v, str):  # "NaN", "Infinity"
        return esc(v)
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return _h(v)  # not a number: whatever it is, it is shown as text
    if isinstance(v, int):
        return str(v)
    return f"{v:.4g}"


def _us(ns) -> str:
    if ns is None:
        return "—"
    return f"{ns / 1000:.1f}" if isinstance(ns, (int, float)) and not isinstance(ns, bool) else _h(ns)


def _h(value) -> str:
    """Any field of the document as HTML text: escaped whatever type the schema says it has (a loaded
    document is untrusted, and a number field may hold markup)."""
    return esc(str(value))


def _header(doc: dict, prefix: str) -> str:
    rec = doc["recording"]
    counts = (f"{len(doc['graph']['forward']['nodes'])} ops, {len(doc['graph']['backward']['nodes'])} backward "
              f"nodes, {len(doc['steps'])} steps, {len(doc['tensors'])} tensors")
    out = [f"<h2>minipaddle trace</h2><p class=\"mp-meta\">{counts} · recorded {esc(doc['created_at'])} by "
           f"{esc(doc['generator']['name'])} {esc(doc['generator']['version'])} · values: {esc(rec['values'])}</p>"]
    for note in rec["notes"]:
        out.append(f'<p class="mp-note">{esc(note)}</p>')
    for error in rec["errors"]:
        out.append(f'<p class="mp-note mp-error">recorder error: {esc(error)}</p>')
    first = doc["nan_inf"]["first"]
    if first is not None:
        where = f" in layer <code>{esc(first['layer'])}</code>" if first["layer"] else ""
        out.append(f'<p class="mp-nanbanner">First NaN/Inf: {esc(first["origin"])} by <code>{esc(first["op"])}</code>'
                   f'{where} at <a href="#{prefix}-step{_h(first["step"])}">step {_h(first["step"])}</a> '
                   f'({_h(first["nan_count"])} NaN, {_h(first["inf_count"])} Inf; {_h(doc["nan_inf"]["count"])} '
                   f'NaN/Inf outputs in all).</p>')
    return "\n".join(out)


def _legend(views: list[GraphView]) -> str:
    """The colours the graphs use (the same as the drawings' legend)."""
    kinds = {n.kind for v in views for n in v.nodes}
    items = [f'<span class="mp-key" style="background:{fill};border-color:{border}">{esc(text)}</span>'
             for kind, (text, _, _, fill, border) in STYLES.items() if kind in kinds]
    if any(n.nan_inf for v in views for n in v.nodes):
        items.append(f'<span class="mp-key" style="background:{NAN_STYLE[1]};border-color:{NAN_STYLE[2]}">'
                     f"{NAN_STYLE[0]}</span>")
    return '<p class="mp-legend">' + " ".join(items) + "</p>"


_TITLES = {"forward": "Forward graph", "backward": "Backward graph", "both": "Forward and backward graphs",
           "layers": "Forward graph, grouped by layer"}


def _graphs(views: list[GraphView], prefix: str) -> str:
    out = ["<h3>Graph</h3>", _legend(views)]
    have_dot = dot_available()
    if not have_dot:
        out.append(f'<p class="mp-note">Graphviz\'s <code>dot</code> program is not installed, so the graphs are '
                   f"shown as lists. To draw them: {esc(INSTALL_HINT)}</p>")
    for k, v in enumerate(views):
        ids = f"{prefix}g{k}-"
        notes = "".join(f'<p class="mp-note">{esc(note)}</p>' for note in v.notes)
        drawing = None
        if have_dot and v.nodes:
            try:
                drawing = '<div class="mp-svg">' + inline_svg(render_svg(to_digraph(v, id_prefix=ids))) + "</div>"
            except PreconditionNotMet as exc:
                notes += f'<p class="mp-note mp-error">{esc(str(exc))}</p>'
        if drawing is None:
            drawing = _tree(v, ids) if v.nodes else "<p>No ops were recorded.</p>"
        title = f"{_TITLES[v.kind]} ({len(v.nodes)} nodes)"
        out.append(f"<details open><summary>{title}</summary>{notes}{drawing}</details>")
    return "\n".join(out)


def _tree(v: GraphView, ids: str) -> str:
    """The graph as nested lists: clusters hold their nodes, each node says where its inputs come from."""
    labels = {n.id: n.label for n in v.nodes}
    inputs: dict = {}
    for e in v.edges:
        if e.kind != "link":
            text = labels.get(e.source, e.source) + (f" {e.label}" if e.label else "")
            inputs.setdefault(e.target, []).append(text + (" (next block)" if e.kind == "repeat" else ""))
    children, members = v.nesting()

    def first_order(cluster_id) -> float:  # clusters sit among the nodes at the time they first ran
        orders = [n.order for n in members.get(cluster_id, [])]
        orders += [first_order(c.id) for c in children.get(cluster_id, [])]
        return min(orders, default=float("inf"))

    def node_item(n) -> str:
        classes = f"mp-node mp-k-{n.kind}" + (" mp-nan" if n.nan_inf else "") + (" mp-first" if n.first_nan_inf else "")
        detail = "".join(f" · {esc(d)}" for d in n.detail)
        came = inputs.get(n.id)
        came = f' <span class="mp-from">← {esc(", ".join(came))}</span>' if came else ""
        first = "<b>FIRST NaN/Inf</b> " if n.first_nan_inf else ""
        return (f'<li id="{ids}{n.id}" class="{classes}">{first}<b>{esc(n.label)}</b>{detail} '
                f"<small>{esc(n.id)}</small>{came}</li>")

    def items(cluster_id) -> str:
        entries = [(n.order, node_item(n)) for n in members.get(cluster_id, [])]
        for c in children.get(cluster_id, []):
            entries.append((first_order(c.id), f'<li class="mp-cluster"><details open><summary>{esc(c.label)} '
                                               f"<small>{esc(c.path)}</small></summary><ul>{items(c.id)}</ul>"
                                               "</details></li>"))
        entries.sort(key=lambda entry: entry[0])
        return "".join(text for _, text in entries)

    return '<ul class="mp-tree">' + items(None) + "</ul>"


def _table(head: list[str], rows: list[str], css: str = "") -> str:
    cells = "".join(f"<th>{h}</th>" for h in head)
    return f'<div class="mp-scroll"><table class="{css}"><thead><tr>{cells}</tr></thead><tbody>' + \
        "".join(rows) + "</tbody></table></div>"


def _more(total: int, shown: int, what: str) -> str:
    if total <= shown:
        return ""
    return (f'<p class="mp-note">… {total - shown} more {what} not shown (raise max_rows, or read the JSON '
            "document).</p>")


def _steps(doc: dict, views: list[GraphView], prefix: str, max_rows: int) -> str:
    nodes = {n["id"]: n for n in doc["graph"]["forward"]["nodes"]}
    gnodes = {g["id"]: g for g in doc["graph"]["backward"]["nodes"]}
    updates = {u["id"]: u for u in doc["optimizer_updates"]}
    rows = []
    for s in doc["steps"][:max_rows]:
        what, layer, kernel, time, refs, nan = _describe_step(s, nodes, gnodes, updates)
        targets = []
        for k, v in enumerate(views):
            for ref in refs:
                node_id = v.node_of(ref) if ref is not None else None
                if node_id is not None:
                    targets.append(f"{prefix}g{k}-{node_id}")
        links = ", ".join(f'<a href="#{prefix}-{_h(sid)}">{esc(sid)}</a>' for sid in s["states"][:6])
        links += " …" if len(s["states"]) > 6 else ""
        states = " ".join(f"{prefix}-{_h(sid)}" for sid in s["states"])
        index = _h(s["index"])
        rows.append(f'<tr id="{prefix}-step{index}" class="{nan}" data-step="{index}" '
                    f'data-nodes="{esc(" ".join(targets))}" data-states="{states}"><td class="mp-r">{index}</td>'
                    f'<td>{esc(s["phase"])}</td><td>{what}</td><td>{layer}</td><td>{kernel}</td>'
                    f'<td class="mp-r">{time}</td><td>{links}</td></tr>')
    head = ["step", "phase", "what", "layer", "kernel", "µs", "tensor states"]
    return (f"<h3>Steps</h3><details open><summary>{len(doc['steps'])} steps, in the order they ran</summary>"
            + _table(head, rows, "mp-steps") + _more(len(doc["steps"]), len(rows), "steps") + "</details>")


def _describe_step(s: dict, nodes: dict, gnodes: dict, updates: dict) -> tuple:
    """(what, layer, kernel, time) as escaped HTML, the trace ids to light up, and a row class."""
    if s["kind"] == "op":
        n = nodes[s["node"]]
        kernel = f"{esc(n['kernel']['name'])} <small>({esc(n['kernel']['reason'])})</small>"
        if n["kernel"].get("device") == "gpu":
            kernel += _gpu_launches(n["kernel"])
        if n["kernel"].get("tuning"):
            kernel += _tuning_table(n["kernel"]["tuning"])
        nan = ("mp-nan mp-first" if n["first_nan_inf"] else "mp-nan") if n["nan_inf"] else ""
        what = f"<code>{esc(n['op'])}</code>" + _node_info(n.get("info"))
        return (what, esc(n["layer"] or ""), kernel, _us(n["end_ns"] - n["start_ns"]),
                [n["id"]], nan)
    if s["kind"] == "backward_step":
        g = gnodes.get(s["node"], {})
        forward = nodes.get(g.get("forward_node"))
        layer = esc(forward["layer"] or "") if forward else ""
        what = f"<code>{esc(g.get('name', s['node']))}</code>"
        ops = f"{_h(s['ops_count'])} ops" + "".join(_tuning_table(o["tuning"]) for o in s["ops"] if o.get("tuning"))
        return (what, layer, ops, _us(s["end_ns"] - s["start_ns"]),
                [s["node"], g.get("forward_node")], "")
    if s["kind"] == "hook":
        return (f"hook <code>{esc(s['hook'])}</code>", "", "", "—", [s["node"], s["tensor"]], "")
    u = updates.get(s["update"], {})
    what = f"{esc(u.get('optimizer', ''))} update of <code>{esc(u.get('param_name') or '?')}</code>"
    return what, "", f"lr {_num(u.get('lr'))}", "—", [u.get("param")], ""


def _node_info(info: dict | None) -> str:
    """An op's own picture of the call (schema 1.4 opNode.info): its title and rows, its grid as a heat map."""
    if not info:
        return ""
    lines = [f"<b>{esc(info['title'])}</b>"] + [f"{esc(label)}: {esc(text)}" for label, text in info["rows"]]
    return "".join(f"<br><small>{line}</small>" for line in lines) + _grid_svg(info["grid"])


def _grid_svg(grid: dict | None, cell: int = 4) -> str:
    """A grid of numbers as cells shaded by value, darkest at the largest (numbers only: nothing to escape)."""
    if not grid:
        return ""
    n_rows, n_cols = grid["shape"]
    nums = [v if isinstance(v, (int, float)) else 0.0 for v in grid["values"]]
    top = max([abs(v) for v in nums] + [1e-12])
    cells = "".join(f'<rect x="{cell * (i % n_cols)}" y="{cell * (i // n_cols)}" width="{cell}" height="{cell}" '
                    f'fill-opacity="{abs(v) / top:.2f}"/>' for i, v in enumerate(nums) if v)
    width, height = cell * n_cols, cell * n_rows
    return (f'<br><svg data-testid="mp-info-grid" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
            f'fill="#dc2626"><rect width="{width}" height="{height}" fill="none" stroke="#9ca3af"/>{cells}</svg>')


def _hist_svg(h: dict | None) -> str:
    """A 96x20 inline SVG bar chart of a 32-bin histogram (numbers only: nothing to escape)."""
    if h is None:
        return ""
    counts = h["counts"]
    top = max(counts) or 1
    bars = "".join(f'<rect x="{3 * i}" y="{20 - 20 * c / top:.1f}" width="2.6" height="{20 * c / top:.1f}"/>'
                   for i, c in enumerate(counts) if c)
    return (f'<svg class="mp-hist" width="96" height="20" viewBox="0 0 96 20" fill="#2563eb">'
            f"<title>{_num(h['min'])} … {_num(h['max'])}</title>{bars}</svg>")


def _values(state: dict) -> str:
    values = state["values"]
    if values is None:
        return f"<small>{esc(state['values_omitted'] or '')}</small>"
    shown = ", ".join(_num(v) for v in values[:8])
    return f"[{shown}{', …' if len(values) > 8 else ''}]"


def _tensors(doc: dict, prefix: str, max_rows: int) -> str:
    tensors = {t["id"]: t for t in doc["tensors"]}
    states = {s["id"]: s for s in doc["states"]}
    first = doc["nan_inf"]["first"]
    first_state = first["state"] if first else None
    head = ["state", "tensor", "name", "", "shape", "dtype", "step", "min", "max", "mean", "std", "NaN", "Inf",
            "histogram", "values"]
    out = ["<h3>Tensors</h3>"]
    for title, roles in ROLE_SECTIONS:
        group = [t for t in doc["tensors"] if t["role"] in roles]
        total = sum(len(t["states"]) for t in group)
        if not total:
            continue
        rows = []
        for t in group:
            for sid in t["states"]:
                if len(rows) < max_rows:
                    rows.append(_state_row(states[sid], t, tensors, prefix, sid == first_state))
        opened = " open" if title in ("Parameters", "Gradients") else ""
        out.append(f"<details{opened}><summary>{title} ({total} states of {len(group)} tensors)</summary>"
                   + _table(head, rows) + _more(total, len(rows), "states") + "</details>")
    return "\n".join(out)


def _state_row(s: dict, t: dict, tensors: dict, prefix: str, first: bool) -> str:
    m = s["summary"]
    link = ""
    if t["grad_of"] in tensors:
        of = tensors[t["grad_of"]]
        link = f"grad of {esc(of['name'] or of['id'])}"
    elif t["grad"] in tensors and tensors[t["grad"]]["states"]:
        link = f'<a href="#{prefix}-{_h(tensors[t["grad"]]["states"][-1])}">its grad</a>'
    nan = m["nan_count"] or m["inf_count"]
    css = ("mp-nan mp-first" if first else "mp-nan") if nan else ""
    shape = "[" + ", ".join(_h(d) for d in t["shape"]) + "]"
    stats = "".join(f'<td class="mp-r">{_num(m[k])}</td>' for k in ("min", "max", "mean", "std", "nan_count",
                                                                    "inf_count"))
    return (f'<tr id="{prefix}-{_h(s["id"])}" class="{css}"><td>{esc(s["id"])}</td><td>{esc(t["id"])}</td>'
            f'<td>{esc(t["name"] or "")}</td><td>{link}</td><td>{shape}</td><td>{esc(t["dtype"])}</td>'
            f'<td class="mp-r">{_h(s["step"])}</td>{stats}<td>{_hist_svg(m["histogram"])}</td>'
            f'<td>{_values(s)}</td></tr>')


def _updates(doc: dict, prefix: str) -> str:
    if not doc["optimizer_updates"]:
        return ""
    rows = [f'<tr><td class="mp-r"><a href="#{prefix}-step{_h(u["step"])}">{_h(u["step"])}</a></td>'
            f'<td>{esc(u["optimizer"])}</td><td>{esc(u["param_name"] or "")}</td><td class="mp-r">{_num(u["lr"])}</td>'
            f'<td class="mp-r">{_num(u["grad_norm"])}</td><td class="mp-r">{_num(u["update_norm"])}</td></tr>'
            for u in doc["optimizer_updates"]]
    head = ["step", "optimizer", "parameter", "lr", "‖grad‖", "‖update‖"]
    return "<h3>Optimizer updates</h3>" + _table(head, rows)


def _timings(doc: dict) -> str:
    ops = sorted(doc["timings"]["ops"], key=lambda t: -t["total_ns"])
    if not ops:
        return ""
    rows = [f'<tr><td><code>{esc(t["op"])}</code></td><td>{esc(t["phase"])}</td><td>{esc(t["kernel"])}</td>'
            f'<td class="mp-r">{_h(t["count"])}</td><td class="mp-r">{_us(t["total_ns"])}</td>'
            f'<td class="mp-r">{_us(t["total_ns"] // t["count"])}</td><td class="mp-r">{_us(t["max_ns"])}</td></tr>'
            for t in ops]
    return ("<h3>Kernel time</h3><details><summary>per op, phase and kernel</summary>"
            + _table(["op", "phase", "kernel", "runs", "total µs", "mean µs", "max µs"], rows) + "</details>")


def _gpu_launches(k: dict) -> str:
    """A GPU op's CUDA launches, each "kernel: grid (x,y,z) × block (x,y,z)", and its time on the device."""
    def dims(d) -> str:
        return ",".join(_h(v) for v in d)
    lines = [f"{esc(str(launch['kernel']))}: grid ({dims(launch['grid'])}) × block ({dims(launch['block'])})"
             for launch in k.get("launches") or ()]
    lines.append(f"GPU {_us(k.get('device_time_ns'))} µs (CUDA events)")
    return "".join(f"<br><small>{line}</small>" for line in lines)


def _tuning_table(t: dict, open_: bool = False) -> str:
    """An autotune decision: each candidate's time (or why it was left out), the winner marked."""
    rows = []
    for c in t["candidates"]:
        won, mark = c["name"] == t["winner"], " <small>(default)</small>" if c["name"] == t["default"] else ""
        rows.append(f'<tr class="{"mp-winner" if won else ""}"><td>{esc(c["name"])}{" ✔" if won else ""}{mark}</td>'
                    f'<td class="mp-r">{_us(c["time_ns"])}</td><td>{esc(c["error"] or "")}</td></tr>')
    when = "from the cache" if t["source"] == "cache" else f"measured at step {_h(t['step'])}"
    return (f'<details class="mp-tuning"{" open" if open_ else ""}><summary>tuned: {len(rows)} candidates, {when}'
            f'</summary>' + _table(["candidate", "µs", "left out because"], rows) + "</details>")


def _autotune(doc: dict) -> str:
    decisions = doc.get("autotune") or []
    if not decisions:
        return ""
    out = [f"<h3>Autotune ({len(decisions)} decision{'' if len(decisions) == 1 else 's'})</h3>"]
    for d in decisions:
        out.append(f'<p class="mp-meta"><code>{esc(d["op"])}</code> {esc(d["dtype"] or "")} '
                   f'{esc(d["shape_class"] or "")}: <b>{esc(d["winner"])}</b></p>' + _tuning_table(d))
    return "".join(out)


# ---- static programs and pass diffs ------------------------------------------------------------------
MAX_PROGRAM_DRAWINGS = 4


def programs_html(doc: dict, prefix: str, max_rows: int = 1000) -> str:
    """The document's static programs: drawings (the programs that are not pass outputs, and the
    last pass's output), each program's text, the pass diffs as a table, the recorded runs."""
    programs = {p["id"]: p for p in doc["programs"]}
    diffs = doc.get("pass_diffs", [])
    drawn = [p for p in doc["programs"] if p["role"] != "pass"]
    if diffs and diffs[-1]["after"] in programs and programs[diffs[-1]["after"]] not in drawn:
        drawn.append(programs[diffs[-1]["after"]])
    out = [f"<h3>Static programs ({len(programs)})</h3>"]
    have_dot = dot_available()
    if not have_dot:
        out.append(f'<p class="mp-note">Graphviz\'s <code>dot</code> is not installed, so programs are shown as '
                   f"text. To draw them: {esc(INSTALL_HINT)}</p>")
    for k, p in enumerate(drawn[:MAX_PROGRAM_DRAWINGS]):
        out.append(_program_block(p, f"{prefix}p{k}-", have_dot, diffs))
    if len(drawn) > MAX_PROGRAM_DRAWINGS:
        out.append(f'<p class="mp-note">{len(drawn) - MAX_PROGRAM_DRAWINGS} more programs are in the document.</p>')
    if diffs:
        out.append(_pass_table(diffs, programs, max_rows))
    runs = doc.get("program_runs", [])
    if runs:
        out.append(_runs_table(runs, programs, max_rows))
    return "\n".join(out)


def _program_block(p: dict, ids: str, have_dot: bool, diffs: list) -> str:
    from .dot import program_digraph
    n_ops = sum(len(b["ops"]) for b in p["blocks"])
    title = f"{esc(p['name'])} <code>{esc(p['id'])}</code> ({esc(p['role'])}, {len(p['blocks'])} blocks, {n_ops} ops)"
    highlight = None
    made_by = [d for d in diffs if d["after"] == p["id"] and d["before"] != p["id"]]
    if made_by:  # the pass that made it: its added and fused ops coloured
        d = made_by[-1]
        highlight = {"added": [(r["block"], r["index"]) for r in d["added"]],
                     "fused": [(f["into"]["block"], f["into"]["index"]) for f in d["fused"]]}
    drawing = ""
    if have_dot:
        try:
            drawing = ('<div class="mp-svg">' + inline_svg(render_svg(program_digraph(p, ids.replace("-", "_"),
                                                                                      highlight))) + "</div>")
        except PreconditionNotMet as exc:
            drawing = f'<p class="mp-note mp-error">{esc(str(exc))}</p>'
    origin = p.get("origin")
    if origin:
        drawing += (f"<details><summary>source of {esc(origin['function'])} ({esc(origin['file'])}:"
                    f"{_h(origin['first_line'])})</summary><pre>{esc(origin['original_source'])}</pre>"
                    f"<p>transformed:</p><pre>{esc(origin['transformed_source'])}</pre></details>")
    text = f"<details><summary>text</summary><pre>{esc(p['text'])}</pre></details>"
    return f"<details open><summary>{title}</summary>{drawing}{text}</details>"


def _op_list(refs: list) -> str:
    # escaped whole
    return esc(", ".join(f"{r['type']}#{r['index']}" + (f"@b{r['block']}" if r["block"] else "") for r in refs))


def _pass_table(diffs: list, programs: dict, max_rows: int) -> str:
    rows = []
    for d in diffs[:max_rows]:
        fused = "; ".join(f"{_h(f['into']['type'])}#{_h(f['into']['index'])} &larr; {_op_list(f['from'])}"
                          for f in d["fused"])
        rows.append(f'<tr><td>{_h(d["step"])}</td><td><code>{esc(d["pass"])}</code></td><td>{esc(d["summary"])}</td>'
                    f'<td class="mp-r">{_h(d["ops_before"])}&nbsp;&rarr;&nbsp;{_h(d["ops_after"])}</td>'
                    f'<td class="mp-r">{_num(d["time_ms"])}</td><td>{esc(d["before"])} &rarr; {esc(d["after"])}</td>'
                    f"<td>{_op_list(d['removed'])}</td><td>{_op_list(d['added'])}</td><td>{fused}</td></tr>")
    return ("<h3>Pass diffs</h3>" + _table(["#", "pass", "what changed", "ops", "ms", "programs", "removed (before)",
                                              "added (after)", "fused"], rows)
            + _more(len(diffs), min(len(diffs), max_rows), "passes"))


def _runs_table(runs: list, programs: dict, max_rows: int) -> str:
    out = [f"<h3>Executor runs ({len(runs)})</h3>"]
    for r in runs:
        name = programs[r["program"]]["name"] if r["program"] in programs else r["program"]
        rows = []
        for s in r["steps"][:max_rows]:
            outs = "; ".join(f"{esc(n)} {esc(str(t['shape']))} min {_num(t['summary']['min'])} max "
                             f"{_num(t['summary']['max'])}" for n, t in s["outputs"].items())
            rows.append(f'<tr><td>{_h(s["step"])}</td><td>b{_h(s["block"])}:{_h(s["op"])}</td><td><code>{esc(s["type"])}</code></td>'
                        f'<td class="mp-r">{_us(s["time_ns"])}</td><td>{outs}</td></tr>')
        fetch = ", ".join(f"{esc(n)} = {_num(t['summary']['mean'])} (mean)" for n, t in r["fetch"].items())
        more = f", {_h(r['steps_dropped'])} ops not listed" if r["steps_dropped"] else ""
        out.append(f"<details><summary>{esc(str(name))} run {_h(r['run'])}: {len(r['steps'])} ops{more}; "
                   f"fetched {fetch or '—'}"
                   "</summary>" + _table(["step", "op", "type", "µs", "outputs"], rows) + "</details>")
    return "\n".join(out)


_STYLE = """<style>
#ROOT{font:13px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#111827}
#ROOT h2{font-size:18px;margin:6px 0}#ROOT h3{font-size:15px;margin:14px 0 4px}
#ROOT table{border-collapse:collapse;font-size:12px;margin:4px 0}
#ROOT th,#ROOT td{border-bottom:1px solid #e5e7eb;padding:2px 6px;text-align:left;vertical-align:middle}
#ROOT td.mp-r{text-align:right;font-variant-numeric:tabular-nums}
#ROOT .mp-scroll{max-height:480px;overflow:auto}
#ROOT .mp-svg{overflow:auto;max-height:80vh;border:1px solid #e5e7eb;border-radius:6px;padding:4px}
#ROOT .mp-meta,#ROOT .mp-note{color:#4b5563;font-size:12px;margin:2px 0}
#ROOT .mp-error{color:#b91c1c}
#ROOT tr.mp-winner td{background:#dcfce7;font-weight:bold}#ROOT .mp-tuning{font-size:12px}
#ROOT .mp-nanbanner{background:#fee2e2;border:1px solid #dc2626;padding:4px 8px;border-radius:4px}
#ROOT tr.mp-nan td,#ROOT li.mp-nan{background:#fee2e2}
#ROOT tr.mp-first td,#ROOT li.mp-first{background:#fecaca;font-weight:bold}
#ROOT .mp-key{display:inline-block;border:1px solid;border-radius:4px;padding:0 6px;margin:1px;font-size:11px}
#ROOT .mp-tree{list-style:none;padding-left:14px}#ROOT .mp-tree ul{list-style:none;padding-left:18px}
#ROOT .mp-from{color:#6b7280;font-size:11px}
#ROOT .mp-steps tbody tr{cursor:pointer}
#ROOT tr.mp-sel td,#ROOT li.mp-sel{background:#fef08a}
#ROOT g.mp-sel polygon,#ROOT g.mp-sel path,#ROOT g.mp-sel ellipse{stroke:#f59e0b;stroke-width:4px}
#ROOT summary{cursor:pointer;font-weight:600}
</style>"""

# Step selection for the saved page (never in the scripts=False fragment): click a step row or a
# graph node, or use the arrow keys / j k, to light up the step's nodes and tensor states.
_SCRIPT = """
(function () {
  var root = document.getElementById("ROOT");
  if (!root) { return; }
  var rows = Array.prototype.slice.call(root.querySelectorAll("tr[data-step]"));
  var current = -1;
  function each(list, fn) { Array.prototype.forEach.call(list, fn); }
  function mark(id, scroll) {
    var el = id ? document.getElementById(id) : null;
    if (el) {
      el.classList.add("mp-sel");
      if (scroll && el.scrollIntoView) { el.scrollIntoView({block: "nearest", inline: "nearest"}); }
    }
  }
  function select(i) {
    if (i < 0 || i >= rows.length) { return; }
    each(root.querySelectorAll(".mp-sel"), function (el) { el.classList.remove("mp-sel"); });
    current = i;
    rows[i].classList.add("mp-sel");
    rows[i].scrollIntoView({block: "nearest"});
    (rows[i].getAttribute("data-nodes") || "").split(" ").forEach(function (id) { mark(id, true); });
    (rows[i].getAttribute("data-states") || "").split(" ").forEach(function (id) { mark(id, false); });
  }
  rows.forEach(function (row, i) {
    row.addEventListener("click", function (ev) { if (ev.target.tagName !== "A") { select(i); } });
  });
  root.tabIndex = 0;
  root.addEventListener("keydown", function (ev) {
    if (ev.key === "ArrowDown" || ev.key === "j") { select(current + 1); ev.preventDefault(); }
    if (ev.key === "ArrowUp" || ev.key === "k") { select(current - 1); ev.preventDefault(); }
  });
  root.addEventListener("click", function (ev) {
    var node = ev.target.closest ? ev.target.closest("g.node, li.mp-node") : null;
    if (!node || !node.id) { return; }
    for (var i = 0; i < rows.length; i++) {
      if ((" " + rows[i].getAttribute("data-nodes") + " ").indexOf(" " + node.id + " ") >= 0) { select(i); return; }
    }
  });
  var bar = document.createElement("p");
  [["expand all", true], ["collapse all", false]].forEach(function (b) {
    var button = document.createElement("button");
    button.textContent = b[0];
    button.addEventListener("click", function () {
      each(root.querySelectorAll("details"), function (d) { d.open = b[1]; });
    });
    bar.appendChild(button);
  });
  bar.appendChild(document.createTextNode(" click a step or a node; arrow keys step through"));
  root.insertBefore(bar, root.children[2] || null);
})();
"""
