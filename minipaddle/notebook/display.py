"""How a trace shows up in a notebook: one MIME bundle that every front end can read.

    from minipaddle.notebook.display import trace_bundle
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
`graph_bundle(tensor)` is what `%paddle_graph` shows: the chain of grad nodes that produced a
tensor (like torchviz's make_dot) and, when a trace recorded it, the forward ops around it.
Every name that comes from user code (layers, tensors, ops) is escaped before it reaches HTML.
"""
from __future__ import annotations

import html
from collections import deque

__all__ = ["MIME_TYPE", "bundle_document", "graph_bundle", "program_bundle", "program_line", "recorded_id", "summary_line", "tensor_graph",
           "trace_bundle", "trace_html"]

MIME_TYPE = "application/vnd.minipaddle.trace+json"
MAX_TABLE_ROWS = 60     # op rows in the fallback table; the rest are counted
MAX_LOSS_ROWS = 50      # iterations in the bundle's loss table (evenly sampled beyond that)
FULL_VIEW_STEPS = 200   # a trace of no training iterations and at most this many steps shows the full HTML view
# %paddle_graph's node kinds drawn in the visualizer's fixed colours (visualizer/dot.py STYLES)
_STYLE_OF = {"target": "output", "op": "op", "nan": "op", "grad": "grad", "accumulate": "accumulate",
             "parameter": "parameter", "input": "input", "leaf": "leaf", "activation": "tensor", "gradient": "tensor"}
NAN_BACKGROUND = "#fee2e2"


def _as_trace(trace):
    from ..visualizer.trace import Trace
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
    doc = _as_trace(trace).to_dict()
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
    trace = _as_trace(trace)
    try:
        from ..visualizer.html import to_html
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
    trace = _as_trace(trace)
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
    trace = _as_trace(trace)
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
    from ..visualizer.trace import Trace
    one = Trace(iteration_document(trace.to_dict(), iteration)) if iteration is not None else trace
    title = "" if iteration is None else f"<p>forward ops of iteration {iteration['index']}</p>"
    try:
        from ..visualizer.dot import dot_available, inline_svg
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
    from ..visualizer.trace import Trace
    trace = Trace(document)
    doc = trace.to_dict()
    text = program_line(doc)
    if doc["programs"]:
        text += "\n" + doc["programs"][0]["text"]
    bundle = {"text/plain": text, "text/html": trace_html(trace)}
    if include_json:
        bundle[MIME_TYPE] = doc
    return bundle


# ---- the graph of one tensor (%paddle_graph) ---------------------------------------------

def tensor_graph(tensor, recorder=None, max_nodes: int = 60) -> dict:
    """The graph around `tensor` as plain data: {"title", "backward", "forward", "links", "notes"}.

    backward: its grad node and every node gradients flow on to (walked from the live GradNodes,
    as torchviz's make_dot does); forward: when `recorder` (a finished `paddle.debug.record()`)
    saw the tensor, the ops that produced it and the ops that used it; links: each forward op
    beside the grad node it recorded. Each part keeps at most `max_nodes` nodes."""
    name = tensor._name or "tensor"
    graph = {"title": f"{name} {list(tensor._data.shape)} {tensor._data.dtype}", "notes": [], "links": [],
             "backward": _backward_part(tensor, max_nodes, recorder),
             "forward": {"nodes": [], "edges": [], "hidden": 0}}
    tensor_id = recorded_id(recorder, tensor)
    if tensor_id is not None:
        graph["forward"] = _forward_part(recorder.trace.to_dict(), tensor_id, max_nodes)
        grad_ids = {n["trace_id"]: n["id"] for n in graph["backward"]["nodes"] if n.get("trace_id")}
        for n in graph["forward"]["nodes"]:
            if n.get("grad_node") in grad_ids:
                graph["links"].append((n["id"], grad_ids[n["grad_node"]]))
    if tensor._node is None and tensor.stop_gradient and tensor_id is None:
        graph["notes"].append(f"{name} has no graph: it was made with stop_gradient=True and no recorded op "
                              "made it. Run the code that makes it under %%paddle_trace to see its forward ops.")
    for part in ("backward", "forward"):
        if graph[part]["hidden"]:
            graph["notes"].append(f"{part}: {graph[part]['hidden']} more nodes not shown (raise --max-nodes).")
    return graph


def recorded_id(recorder, obj) -> str | None:
    """The trace id ("t7", "g3") a finished recorder gave a live Tensor or GradNode, if it kept it."""
    builder = getattr(recorder, "_builder", None)
    if builder is None:
        return None
    objects = builder.objects
    if hasattr(obj, "next_edges") or hasattr(obj, "tensor_ref"):  # a GradNode / AccumulateGrad
        gid = builder._lookup(builder._node_ids, obj)
        return gid if gid in objects else None
    if obj._node is not None:  # an op's output: the recorder names it through its grad node
        gid = builder._lookup(builder._node_ids, obj._node)
        tid = builder._output_of.get((gid, obj._out_index)) if gid else None
        if tid in objects:
            return tid
    tid = builder._lookup(builder._tensor_ids, obj)
    return tid if tid in objects else None


def _backward_part(tensor, max_nodes: int, recorder) -> dict:
    """Breadth-first over next_edges from the tensor's grad node; ids follow the visiting order.
    Past `max_nodes` the walk goes on only to count what is hidden."""
    from ..framework.autograd.node import AccumulateGrad
    nodes = [{"id": "x", "label": f"{tensor._name or 'tensor'}\n{list(tensor._data.shape)}", "kind": "target"}]
    edges: list = []
    start = tensor._node
    if start is None and not tensor.stop_gradient:
        start = tensor._accum  # a leaf: its AccumulateGrad, if backward ever reached it
    if start is None:
        return {"nodes": nodes, "edges": edges, "hidden": 0}
    ids = {id(start): "b0"}  # id(node) -> our id, or None for a node past the budget
    alive = [start]          # held while walking, so no id() is reused
    queue = deque([start])
    edges.append(("x", "b0", ""))
    shown, hidden = 1, 0
    while queue:
        node = queue.popleft()
        nid = ids[id(node)]
        if nid is None:
            hidden += 1
        elif type(node) is AccumulateGrad:
            leaf = node.tensor_ref()
            label = "AccumulateGrad" + ("" if leaf is None else f"\n{leaf._name or 'leaf'} {list(leaf._data.shape)}")
            nodes.append({"id": nid, "label": label, "kind": "accumulate", "trace_id": recorded_id(recorder, node)})
        else:
            nodes.append({"id": nid, "label": node.name + (" (freed)" if node.freed else ""), "kind": "grad",
                          "trace_id": recorded_id(recorder, node)})
        for index, edge in enumerate(getattr(node, "next_edges", ())):
            if edge is None:
                continue
            nxt = edge[0]
            if id(nxt) not in ids:
                ids[id(nxt)] = f"b{shown}" if shown < max_nodes else None
                shown += shown < max_nodes
                alive.append(nxt)
                queue.append(nxt)
            if nid is not None and ids[id(nxt)] is not None:
                edges.append((nid, ids[id(nxt)], str(list(node.input_metas[index][0]))))
    return {"nodes": nodes, "edges": edges, "hidden": hidden}


def _forward_part(doc: dict, tensor_id: str, max_nodes: int) -> dict:
    """The ops upstream of the tensor (what produced it) and downstream (what used it)."""
    tensors = {t["id"]: t for t in doc["tensors"]}
    ops = {n["id"]: n for n in doc["graph"]["forward"]["nodes"]}
    consumers: dict = {}
    for n in ops.values():
        for t in n["inputs"]:
            consumers.setdefault(t, []).append(n["id"])
    picked: dict = {}
    skipped: set = set()
    for upstream in (True, False):
        queue = deque([tensor_id])
        seen = {tensor_id}
        while queue:
            t = tensors.get(queue.popleft())
            if t is None:
                continue
            near = ([t["producer"]] if t["producer"] else []) if upstream else consumers.get(t["id"], [])
            for nid in near:
                if nid in picked or nid in skipped or nid not in ops:
                    continue
                if len(picked) >= max_nodes:
                    skipped.add(nid)  # not shown, but walked on, so the count of what is hidden is exact
                else:
                    picked[nid] = ops[nid]
                for nxt in ops[nid]["inputs"] if upstream else ops[nid]["outputs"]:
                    if nxt not in seen:
                        seen.add(nxt)
                        queue.append(nxt)
    return _forward_view(picked, tensors, tensor_id, len(skipped))


def _forward_view(picked: dict, tensors: dict, tensor_id: str, hidden: int) -> dict:
    """Op nodes in the order they ran; the tensor itself ("fx"); sources for tensors from outside."""
    target = tensors[tensor_id]
    nodes = [{"id": "fx", "label": f"{target['name'] or 'tensor'}\n{target['shape']}", "kind": "target"}]
    edges, sources = [], {}
    for nid, n in sorted(picked.items(), key=lambda item: item[1]["step"]):
        layer = f"\n{n['layer']}" if n["layer"] else ""
        first = "\nfirst NaN/Inf" if n["first_nan_inf"] else ""
        nodes.append({"id": nid, "label": f"{n['op']}{layer}{first}", "kind": "nan" if n["nan_inf"] else "op",
                      "grad_node": n["grad_node"]})
        for tid in n["inputs"]:
            t = tensors.get(tid, {})
            if tid == tensor_id:
                source = "fx"
            elif t.get("producer") in picked:
                source = t["producer"]
            else:  # a parameter, an input, or made by an op outside the view
                source = sources.setdefault(tid, f"s{len(sources)}")
            edges.append((source, nid, str(t.get("shape", ""))))
        if tensor_id in n["outputs"]:
            edges.append((nid, "fx", ""))
    for tid, sid in sources.items():
        t = tensors.get(tid, {})
        role = t.get("role", "input")
        nodes.append({"id": sid, "label": f"{t.get('name') or role}\n{t.get('shape')}", "kind": role})
    return {"nodes": nodes, "edges": edges, "hidden": hidden}


def graph_dot(graph: dict):
    """A graphviz.Digraph of `tensor_graph`'s data: forward and backward as two clusters, each op
    joined to its grad node by a dotted line; colours and shapes as in the trace's own graphs."""
    import graphviz

    from ..visualizer.dot import NAN_STYLE, STYLES, dot_text
    dot = graphviz.Digraph("paddle_graph", graph_attr={"rankdir": "TB", "fontsize": "11"},
                           node_attr={"fontsize": "10", "fontname": "Helvetica"}, edge_attr={"fontsize": "9"})
    titles = {"forward": "forward ops (from the last trace)", "backward": "backward: grad nodes"}
    for part in ("forward", "backward"):
        if len(graph[part]["nodes"]) < 2:  # the tensor alone: nothing to draw in this direction
            continue
        with dot.subgraph(name=f"cluster_{part}") as sub:
            sub.attr(label=titles[part], style="dashed", color="#9ca3af")
            for n in graph[part]["nodes"]:
                _, shape, style, fill, border = STYLES[_STYLE_OF.get(n["kind"], "tensor")]
                if n["kind"] == "nan":
                    fill, border = NAN_STYLE[1], NAN_STYLE[2]
                sub.node(_dot_id(part, n["id"]), dot_text(*n["label"].split("\n")), shape=shape, style=style,
                         fillcolor=fill, color=border)
            for source, target, label in graph[part]["edges"]:
                sub.edge(_dot_id(part, source), _dot_id(part, target), label=dot_text(label))
    for fwd, bwd in graph["links"]:
        dot.edge(_dot_id("forward", fwd), _dot_id("backward", bwd), style="dotted", color="#7c3aed",
                 constraint="false", arrowhead="none")
    return dot


def _dot_id(part: str, node_id: str) -> str:
    return f"{part[0]}_{node_id}"  # our own ids only: user names never become DOT ids or SVG comments


def graph_bundle(tensor, recorder=None, max_nodes: int = 60) -> dict:
    """What `%paddle_graph` displays: text/html (SVG, or lists without Graphviz) and text/plain."""
    from ..framework.errors import PreconditionNotMet
    from ..visualizer.dot import INSTALL_HINT, dot_available, inline_svg, render_svg
    graph = tensor_graph(tensor, recorder, max_nodes)
    backward = sum(1 for n in graph["backward"]["nodes"] if n["kind"] in ("grad", "accumulate"))
    forward = sum(1 for n in graph["forward"]["nodes"] if n["kind"] in ("op", "nan"))
    text = f"graph of {graph['title']}: {backward} backward nodes, {forward} forward ops"
    e = html.escape
    notes = "".join(f"<p>{e(note)}</p>" for note in graph["notes"])
    picture = None
    if dot_available():
        try:
            picture = inline_svg(render_svg(graph_dot(graph)))
        except PreconditionNotMet as exc:  # dot failed or timed out: say so, and show the lists
            notes += f"<p>{e(str(exc))}</p>"
    if picture is None:
        picture = f"<p>{e(INSTALL_HINT)}</p>" + _graph_lists(graph)
    body = f'<div class="minipaddle-graph"><p><b>{e(text)}</b></p>{notes}{picture}</div>'
    return {"text/plain": text + "".join(f"\n{note}" for note in graph["notes"]), "text/html": body}


def _graph_lists(graph: dict) -> str:
    """Without Graphviz: each part as a list of "node <- what feeds it" lines."""
    e = html.escape
    out = []
    for part in ("backward", "forward"):
        labels = {n["id"]: n["label"].replace("\n", " ") for n in graph[part]["nodes"]}
        if len(labels) < 2:
            continue
        items = "".join(f"<li>{e(labels[s])} &rarr; {e(labels[t])}{' ' + e(lab) if lab else ''}</li>"
                        for s, t, lab in graph[part]["edges"])
        out.append(f"<p>{part}</p><ul>{items}</ul>")
    return "".join(out)
