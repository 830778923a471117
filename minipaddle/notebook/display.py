"""What the notebook shows: the trace's MIME bundle (minipaddle.visualizer.bundle, re-exported here) and
`graph_bundle(tensor)`, what `%paddle_graph` shows: the chain of grad nodes that produced a tensor (like
torchviz's make_dot) and, when a trace recorded it, the forward ops around it.

    from minipaddle.notebook.display import trace_bundle
    from IPython.display import display
    display(trace_bundle(rec.trace), raw=True)

Every name that comes from user code (layers, tensors, ops) is escaped before it reaches HTML.
"""
from __future__ import annotations

import html
from collections import deque

__all__ = ["MIME_TYPE", "bundle_document", "compressed", "graph_bundle", "program_bundle", "program_line",
           "recorded_id", "summary_line", "tensor_graph", "trace_bundle", "trace_html"]

from ..visualizer.bundle import (  # noqa: F401  (re-exported: the notebook's names for them)
    FULL_VIEW_STEPS,
    MAX_LOSS_ROWS,
    MAX_TABLE_ROWS,
    MIME_TYPE,
    NAN_BACKGROUND,
    as_trace,
    bundle_document,
    bundle_html,
    compressed,
    iteration_document,
    program_bundle,
    program_line,
    summary_line,
    trace_bundle,
    trace_html,
)

# %paddle_graph's node kinds drawn in the visualizer's fixed colours (visualizer/dot.py STYLES)
_STYLE_OF = {"target": "output", "op": "op", "nan": "op", "grad": "grad", "accumulate": "accumulate",
             "parameter": "parameter", "input": "input", "leaf": "leaf", "activation": "tensor", "gradient": "tensor"}


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
    return None if builder is None else builder.trace_id_of(obj)


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
