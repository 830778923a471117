"""How a trace shows up in a notebook: one MIME bundle that every front end can read.

    from minipaddle.visualizer.bundle import trace_bundle     # also minipaddle.notebook.display
    from IPython.display import display
    display(trace_bundle(rec.trace), raw=True)

The bundle carries three views of the same trace, and each front end picks the richest it knows:

    application/vnd.minipaddle.trace+json   the trace document as text, for the JupyterLab extension:
                                            compact JSON, or for a training run base64 of its gzip'ed
                                            JSON (the extension unpacks it; it also reads an object)
    text/html                               a small picture, no scripts: the summary line, the loss per
                                            iteration and the graph of the first iteration (classic
                                            Notebook, VS Code, GitHub); `Trace.save_html` writes the full view
    text/plain                              one summary line: ops, tensors, backward steps, NaN/Inf, drops

The document goes in once, as a string: a notebook stores a JSON *value* under a +json type
pretty-printed (one line per number), and a second copy as HTML would double the file. A training
run's document is mostly the same keys over and over (thousands of tensor states), which gzip
shrinks about fivefold: a 50-iteration MLP trace adds 0.7 MB to the saved notebook, 3.8 MB as
plain JSON text (benchmarks/notebook_size.py).

`program_bundle(document)` is what `%paddle_graph program` and `visualizer.show_program` show: a
document of static programs (and pass diffs), drawn as SVG for the text/html view.
It lives in the visualizer (a Trace's own `_repr_mimebundle_` uses it); minipaddle.notebook.display
re-exports it beside `graph_bundle`, what `%paddle_graph` shows.
Every name that comes from user code (layers, tensors, ops) is escaped before it reaches HTML.
"""
from __future__ import annotations

import html

__all__ = ["MIME_TYPE", "bundle_document", "bundle_html", "compressed", "program_bundle", "program_line",
           "summary_line", "trace_bundle", "trace_html"]

MIME_TYPE = "application/vnd.minipaddle.trace+json"
MAX_TABLE_ROWS = 60     # op rows in the fallback table; the rest are counted
MAX_LOSS_ROWS = 50      # iterations in the bundle's loss table (evenly sampled beyond that)
FULL_VIEW_STEPS = 200   # a trace of no training iterations and at most this many steps shows the full HTML view
NAN_BACKGROUND = "#fee2e2"


def as_trace(trace):
    from .trace import Trace
    if isinstance(trace, Trace):
        return trace
    if isinstance(trace, dict):
        return Trace(trace)
    if hasattr(type(trace), "trace"):  # a Recorder (paddle.debug.record())
        return trace.trace
    from ..framework.errors import invalid_argument
    raise invalid_argument("trace_bundle", f"got a {type(trace).__name__}, expected a Trace, a trace document "
                                           "(dict) or a Recorder.")


# ---- the trace ---------------------------------------------------------------------------

def summary_line(trace) -> str:
    """One line: "minipaddle trace: 6 ops, 25 tensors, 8 backward steps, no NaN/Inf, 0 dropped steps"."""
    doc = as_trace(trace).to_dict()
    backward = sum(1 for s in doc["steps"] if s["kind"] == "backward_step")
    parts = [f"{len(doc['graph']['forward']['nodes'])} ops", f"{len(doc['tensors'])} tensors",
             f"{backward} backward steps"]
    if doc["optimizer_updates"]:
        parts.append(f"{len(doc['optimizer_updates'])} optimizer updates")
    first = doc["nan_inf"]["first"]
    if first is None:
        parts.append("no NaN/Inf")
    else:
        where = f" in {first['layer']}" if first["layer"] else ""
        parts.append(f"{doc['nan_inf']['count']} NaN/Inf (first: {first['op']}{where}, step {first['step']})")
    parts.append(f"{doc['recording']['dropped_steps']} dropped steps")
    if doc.get("programs"):  # static programs seen while recording
        parts.append(f"{len(doc['programs'])} static programs, {len(doc.get('pass_diffs', []))} pass diffs, "
                     f"{len(doc.get('program_runs', []))} Executor runs")
    return "minipaddle trace: " + ", ".join(parts)


def trace_html(trace, max_rows: int = 1000) -> str:
    """The trace as a script-free HTML fragment: the visualizer's export (graph SVG, steps, tensors)
    when it is there, else a table of the ops. Tables show at most `max_rows` rows."""
    trace = as_trace(trace)
    try:
        from .html import to_html
    except ImportError:
        return _fallback_html(trace, note="", max_rows=max_rows)
    try:
        return to_html(trace, scripts=False, full_page=False, max_rows=max_rows)
    except Exception as exc:  # a display must never break the cell that made the trace
        return _fallback_html(trace, note=f"(the full view failed: {type(exc).__name__}: {exc})", max_rows=max_rows)


def trace_bundle(trace, include_json: bool = True, max_rows: int = MAX_LOSS_ROWS, picture: bool = True,
                 compress: bool | None = None) -> dict:
    """The MIME bundle of a trace (what `Trace._repr_mimebundle_` returns): the document as a compact
    JSON string, an HTML view (`bundle_html`; the full view for a short trace with no training
    iterations: a forward pass, static programs) and a text line. `include_json=False` leaves the document out,
    `max_rows` caps the loss table, `picture=False` leaves the graph out (live updates).

    `compress`: write the document as base64 of its gzip'ed JSON text (`compressed`; a string that
    does not start with "{", about a fifth of the size; the extension unpacks it with
    DecompressionStream) rather than JSON text. None (the default): compress a training run (a
    trace with iterations), whose saved notebook it keeps small."""
    trace = as_trace(trace)
    if picture and not trace.iterations and len(trace.steps) <= FULL_VIEW_STEPS:
        page = trace_html(trace)  # a forward pass, static programs: small enough to show it all
    else:
        page = bundle_html(trace, max_rows, picture)
    bundle = {"text/plain": summary_line(trace), "text/html": page}
    if include_json:
        if compress is None:
            compress = bool(trace.iterations)
        bundle[MIME_TYPE] = compressed(trace.to_json()) if compress else trace.to_json()
    return bundle


def compressed(text: str) -> str:
    """base64 of the gzip'ed UTF-8 text (what `trace_bundle(..., compress=True)` sends)."""
    import base64
    import gzip
    return base64.b64encode(gzip.compress(text.encode("utf-8"), compresslevel=6, mtime=0)).decode("ascii")


def bundle_document(bundle: dict) -> dict | None:
    """The trace document a bundle carries (a JSON string, compressed or not, or a document dict), or None."""
    import base64
    import gzip
    import json
    value = bundle.get(MIME_TYPE)
    if isinstance(value, str) and not value.startswith("{"):
        value = gzip.decompress(base64.b64decode(value)).decode("utf-8")
    return json.loads(value) if isinstance(value, str) else value


def bundle_html(trace, max_rows: int = MAX_LOSS_ROWS, picture: bool = True) -> str:
    """The bundle's text/html: the summary line, a loss table (at most `max_rows` iterations, evenly
    sampled) and the forward graph of the first iteration (SVG when Graphviz is installed)."""
    trace = as_trace(trace)
    doc = trace.to_dict()
    e = html.escape
    notes = "".join(f"<p>{e(text)}</p>" for text in doc["recording"]["notes"])
    parts = [f'<div class="minipaddle-trace"><p><b>{e(summary_line(trace))}</b></p>{notes}']
    iterations = doc.get("iterations") or []
    if iterations:
        parts.append(_loss_table(iterations, max(1, min(max_rows, MAX_LOSS_ROWS))))
    if picture:
        parts.append(_first_iteration_picture(trace, iterations[0] if iterations else None))
    parts.append("<p>Open this notebook in JupyterLab with minipaddle installed to step through the trace; "
                 "<code>trace.save_html(path)</code> writes the full view.</p></div>")
    return "".join(parts)


def _loss_table(iterations: list, max_rows: int) -> str:
    """iteration, loss, gradient norm, update ratio; evenly sampled down to `max_rows` rows."""
    n = len(iterations)
    picked = range(n) if n <= max_rows else sorted({round(k * (n - 1) / (max_rows - 1)) for k in range(max_rows)})

    def cell(v) -> str:
        return "" if v is None else (f"{v:.4g}" if isinstance(v, float) else html.escape(str(v)))
    rows = "".join(f"<tr><td>{iterations[i]['index']}</td><td>{cell(iterations[i]['loss'])}</td>"
                   f"<td>{cell(iterations[i]['grad_norm'])}</td><td>{cell(iterations[i]['update_ratio'])}</td></tr>"
                   for i in picked)
    shown = "" if n <= max_rows else f" ({len(picked)} of {n} shown)"
    return (f"<p>{n} iterations{shown}</p><table><thead><tr><th>iteration</th><th>loss</th><th>grad norm</th>"
            f"<th>update ratio</th></tr></thead><tbody>{rows}</tbody></table>")


def _first_iteration_picture(trace, iteration: dict | None) -> str:
    """The forward graph of one iteration as inline SVG; without Graphviz, a table of its ops."""
    from .trace import Trace
    one = Trace(iteration_document(trace.to_dict(), iteration)) if iteration is not None else trace
    title = "" if iteration is None else f"<p>forward ops of iteration {iteration['index']}</p>"
    try:
        from .dot import dot_available, inline_svg
        if dot_available():
            return title + inline_svg(one.to_svg("forward"))
    except Exception as exc:  # a display must never break the cell that made the trace
        return title + _fallback_html(one, note=f"(the picture failed: {type(exc).__name__}: {exc})")
    return title + _fallback_html(one, note="")


def iteration_document(doc: dict, iteration: dict) -> dict:
    """A document holding only the forward ops of one iteration (for a picture of it)."""
    first, last = iteration["first_step"], iteration["last_step"]
    nodes = [n for n in doc["graph"]["forward"]["nodes"] if first <= n["step"] <= last]
    kept = {n["id"] for n in nodes}
    layers = [dict(layer, nodes=[i for i in layer["nodes"] if i in kept]) for layer in doc["layers"]]
    out = {k: v for k, v in doc.items() if k not in ("iterations", "health")}
    out.update(layers=layers, steps=[s for s in doc["steps"] if first <= s["index"] <= last and s["kind"] == "op"],
               graph={"forward": {"nodes": nodes, "edges": [e for e in doc["graph"]["forward"]["edges"]
                                                            if e["target"] in kept]},
                      "backward": {"nodes": [], "edges": []}})
    return out


def _fallback_html(trace, note: str, max_rows: int = MAX_TABLE_ROWS) -> str:
    """A table of the ops (step, op, layer, output shapes, NaN/Inf), the first NaN/Inf marked."""
    doc = trace.to_dict()
    e = html.escape
    tensors = {t["id"]: t for t in doc["tensors"]}
    rows = []
    nodes = doc["graph"]["forward"]["nodes"]
    max_rows = min(max_rows, MAX_TABLE_ROWS)
    for n in nodes[:max_rows]:
        shapes = ", ".join(str(tensors[t]["shape"]) for t in n["outputs"] if t in tensors)
        mark = "first NaN/Inf" if n["first_nan_inf"] else (n["nan_inf"] or "")
        style = f' style="background:{NAN_BACKGROUND}"' if n["nan_inf"] else ""
        rows.append(f"<tr{style}><td>{n['step']}</td><td>{e(n['op'])}</td><td>{e(n['layer'] or '')}</td>"
                    f"<td>{e(shapes)}</td><td>{e(mark)}</td></tr>")
    more = len(nodes) - max_rows
    if more > 0:
        rows.append(f'<tr><td colspan="5">... {more} more ops</td></tr>')
    notes = "".join(f"<p>{e(text)}</p>" for text in doc["recording"]["notes"] + ([note] if note else []))
    return (f'<div class="minipaddle-trace"><p><b>{e(summary_line(trace))}</b></p>{notes}'
            '<table><thead><tr><th>step</th><th>op</th><th>layer</th><th>outputs</th><th>NaN/Inf</th></tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>')


# ---- static programs (%paddle_graph program, visualizer.show_program) --------------------

def program_line(doc: dict) -> str:
    """"minipaddle program main: 3 blocks, 51 ops; 6 passes: 51 -> 27 ops; 1 run"."""
    programs = doc["programs"]
    if not programs:
        return "minipaddle program: (none)"
    first = programs[0]
    ops = sum(len(b["ops"]) for b in first["blocks"])
    text = f"minipaddle program {first['name']}: {len(first['blocks'])} blocks, {ops} ops"
    diffs = doc.get("pass_diffs", [])
    if diffs:
        text += f"; {len(diffs)} passes: {diffs[0]['ops_before']} -> {diffs[-1]['ops_after']} ops"
    runs = doc.get("program_runs", [])
    if runs:
        text += f"; {len(runs)} recorded run{'s' if len(runs) != 1 else ''}"
    return text


def program_bundle(document: dict, include_json: bool = True) -> dict:
    """The MIME bundle of a document of static programs: the document itself, the programs drawn as
    SVG with the pass diffs (text/html), the program's text form (text/plain)."""
    from .trace import Trace
    trace = Trace(document)
    doc = trace.to_dict()
    text = program_line(doc)
    if doc["programs"]:
        text += "\n" + doc["programs"][0]["text"]
    bundle = {"text/plain": text, "text/html": trace_html(trace)}
    if include_json:
        bundle[MIME_TYPE] = doc
    return bundle
