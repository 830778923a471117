"""Graph views of a trace document: what the DOT, SVG and HTML renderers draw.

A view is plain data -- `GraphView(nodes, edges, clusters)` -- built from the document alone:

    forward_graph(trace)          one node per recorded op; parameters/inputs as source nodes,
                                  tensors as edges (labelled with their shapes), layers as clusters
    backward_graph(trace)         one node per grad node, gradient edges; each node links to its
                                  forward op (`node.link`), and the forward op to it
    combined_graph(trace)         both, with dashed links between an op and its grad node
    layer_graph(trace, depth=2)   op nodes grouped by layer path: `MLP.fc1` becomes one box;
                                  sibling layers of the same structure run one after another fold
                                  into one "Block xN" (a node at the depth limit, else a cluster
                                  showing the first of them)
    graph_view(trace, "auto")     the most detailed of these that fits a node budget; over the
                                  budget, runs of nodes become "collapsed N nodes" markers

Ids are the trace's ids where a node is one object ("n4" op, "g9" grad node, "t2" tensor) and
derived ones otherwise ("L3": layer 3 of `doc["layers"]`, "F3": the fold starting there, "X1":
a collapsed run), so the same op keeps its id in every view. Labels hold raw user names:
renderers escape them.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field

from ..framework.errors import invalid_argument

DEFAULT_BUDGET = 120
VIEWS = ("auto", "forward", "backward", "both", "layers")


@dataclass
class ViewNode:
    id: str
    kind: str            # op, parameter, input, leaf, tensor, output, grad, accumulate, layer, block, collapsed
    label: str           # the first line (raw user text)
    detail: list = field(default_factory=list)   # more lines
    cluster: str | None = None
    order: float = 0.0   # when it first ran (a step index): budgets keep the first and last nodes
    refs: list = field(default_factory=list)     # the trace ids this node stands for
    link: str | None = None                      # its counterpart in the other direction (n <-> g)
    nan_inf: str | None = None                   # "produced" or "propagated"
    first_nan_inf: bool = False
    tooltip: str = ""


@dataclass
class ViewEdge:
    source: str
    target: str
    kind: str            # activation, parameter, input, gradient, link, repeat
    label: str = ""      # the tensor's shape
    tensor: str | None = None
    count: int = 1


@dataclass
class Cluster:
    id: str
    label: str
    parent: str | None = None
    path: str = ""
    kind: str = "layer"  # layer, or block (a folded run shown through its first member)


@dataclass
class GraphView:
    kind: str
    nodes: list = field(default_factory=list)
    edges: list = field(default_factory=list)
    clusters: list = field(default_factory=list)
    collapsed: list = field(default_factory=list)  # {"kind": "fold"|"budget", "id", "count", "what"}
    notes: list = field(default_factory=list)
    depth: int | None = None
    budget: int | None = None

    def node_of(self, trace_id: str) -> str | None:
        """The id of the view node that shows trace object `trace_id` (an op, grad node or tensor)."""
        index = self.__dict__.get("_ref_index")
        if index is None:
            index = self.__dict__["_ref_index"] = {ref: n.id for n in self.nodes for ref in n.refs}
        return index.get(trace_id)

    def nesting(self) -> tuple[dict, dict]:
        """(parent cluster id -> its child clusters, cluster id -> its nodes); None is the top level."""
        children: dict = {}
        for c in self.clusters:
            children.setdefault(c.parent, []).append(c)
        members: dict = {}
        for n in self.nodes:
            members.setdefault(n.cluster, []).append(n)
        return children, members

    def to_dict(self) -> dict:
        return {"kind": self.kind, "nodes": [asdict(n) for n in self.nodes], "edges": [asdict(e) for e in self.edges],
                "clusters": [asdict(c) for c in self.clusters], "collapsed": self.collapsed, "notes": self.notes,
                "depth": self.depth, "budget": self.budget}


# ---- reading the document ---------------------------------------------------------------------

def document_of(trace, api: str = "visualizer") -> dict:
    """The document of a Trace (or of a document dict, checked the way Trace checks it)."""
    from .trace import Trace
    if isinstance(trace, Trace):
        return trace.to_dict()
    if isinstance(trace, dict):
        return Trace(trace).to_dict()
    raise invalid_argument(api, f"got {type(trace).__name__}, expected a minipaddle Trace (rec.trace) or its "
                                "document dict.")


def shape_text(tensor: dict | None) -> str:
    """"[5, 8]", with the dtype added when it is not float32: "[5] int64"."""
    if tensor is None:
        return ""
    text = "[" + ", ".join(str(d) for d in tensor["shape"]) + "]"
    return text if tensor["dtype"] == "float32" else f"{text} {tensor['dtype']}"


class _Doc:
    """Indexes over one document that every builder needs."""

    def __init__(self, doc: dict) -> None:
        self.doc = doc
        self.tensors = {t["id"]: t for t in doc["tensors"]}
        self.states = {s["id"]: s for s in doc["states"]}
        self.nodes = doc["graph"]["forward"]["nodes"]
        self.grad_nodes = doc["graph"]["backward"]["nodes"]
        self.layer_ids = {layer["path"]: f"L{i}" for i, layer in enumerate(doc["layers"])}
        self.layers = {layer["path"]: layer for layer in doc["layers"]}
        self.consumers: dict[str, list] = {}
        for e in doc["graph"]["forward"]["edges"]:
            self.consumers.setdefault(e["tensor"], []).append(e["target"])
        self._shapes: dict[str | None, str] = {}

    def shape(self, tid: str | None) -> str:
        text = self._shapes.get(tid)
        if text is None:
            text = self._shapes[tid] = shape_text(self.tensors.get(tid))
        return text

    def layer_clusters(self, paths) -> list[Cluster]:
        """Clusters for `paths` and all their ancestors, parents first."""
        wanted: set[str] = set()
        for path in paths:
            while path is not None and path not in wanted:
                wanted.add(path)
                path = self.layers[path]["parent"]
        return [Cluster(self.layer_ids[p], layer["name"], self.layer_ids.get(layer["parent"]), p)
                for p, layer in self.layers.items() if p in wanted]

    def common_layer(self, paths) -> str | None:
        """The innermost layer path containing all of `paths` (None: the top level)."""
        paths = list(paths)
        if not paths or any(p is None for p in paths):
            return None
        common = paths[0]
        for p in paths[1:]:
            while common is not None and not (p == common or p.startswith(common + ".")):
                common = self.layers[common]["parent"]
        return common

    def source_node(self, tid: str, consumer_layers, cluster_of) -> ViewNode:
        """A node for a tensor no recorded op made: a parameter (kept in the layer that uses it), an input."""
        t = self.tensors[tid]
        role = t["role"]
        kind = role if role in ("parameter", "input", "leaf") else "tensor"
        label = t["name"] or {"input": "input", "leaf": "leaf", "parameter": "parameter"}.get(role, "tensor")
        detail = [shape_text(t)]
        if kind == "tensor":
            detail.append("made before the trace")
        cluster = cluster_of(self.common_layer(consumer_layers)) if kind == "parameter" else None
        return ViewNode(tid, kind, label, detail, cluster, refs=[tid], tooltip=f"{tid}: {role} {shape_text(t)}")


def _nan_fields(node: dict) -> dict:
    return {"nan_inf": node["nan_inf"], "first_nan_inf": node["first_nan_inf"]}


# ---- forward ------------------------------------------------------------------------------------

def forward_graph(trace, budget: int | None = None) -> GraphView:
    """The eager forward graph: op nodes in layer clusters, tensors as edges, sources and outputs."""
    d = _Doc(document_of(trace, "forward_graph"))
    view = GraphView("forward", clusters=d.layer_clusters(n["layer"] for n in d.nodes if n["layer"] is not None))
    by_id = {n["id"]: n for n in d.nodes}
    for n in d.nodes:
        tooltip = (f"{n['id']}: {n['op']} in {n['layer'] or '(no layer)'}, step {n['step']}, "
                   f"kernel {n['kernel']['name']}")
        view.nodes.append(ViewNode(n["id"], "op", n["op"], [], d.layer_ids.get(n["layer"]), float(n["step"]),
                                   [n["id"]], n["grad_node"], tooltip=tooltip, **_nan_fields(n)))
    _add_sources_and_edges(d, view, lambda nid: nid, lambda nid: by_id[nid]["layer"], d.layer_ids.get)
    _add_outputs(d, view, lambda nid: nid)
    return apply_budget(view, budget)


def _add_sources_and_edges(d: _Doc, view: GraphView, view_of, layer_of, cluster_of, absorb=None, alias=None,
                           edge_kind=None) -> None:
    """Edges for every forward edge, mapped through `view_of` (op id -> view node id). A tensor no
    recorded op made becomes a source node (one per `alias` target), unless `absorb(tid)` takes it
    into a box; `edge_kind(source_op, target_op)` may call an edge "repeat"."""
    sources: dict[str, ViewNode] = {}
    seen: dict[tuple, ViewEdge] = {}
    merged: set[str] = set()
    orders = {n["id"]: float(n["step"]) for n in d.nodes}
    for e in d.doc["graph"]["forward"]["edges"]:
        tensor = d.tensors.get(e["tensor"])
        target = view_of(e["target"])
        if e["source"] is not None:
            source = view_of(e["source"])
            kind = "activation" if edge_kind is None else edge_kind(e["source"], e["target"])
            if source == target:
                continue
        else:
            tid = e["tensor"]
            if absorb is not None and absorb(tid):
                continue
            source = alias.get(tid, tid) if alias else tid
            if source not in sources:
                consumers = d.consumers[source]
                node = d.source_node(source, [layer_of(c) for c in consumers], cluster_of)
                node.order = min(orders[c] for c in consumers) - 0.5
                sources[source] = node
            if source != tid and tid not in merged:
                merged.add(tid)
                sources[source].refs.append(tid)
            kind = "parameter" if tensor["role"] == "parameter" else "input"
        key = (source, target, e["tensor"] if view.kind == "forward" else d.shape(e["tensor"]))
        if key in seen:
            seen[key].count += 1
            seen[key].kind = "repeat" if kind == "repeat" else seen[key].kind
            continue
        seen[key] = ViewEdge(source, target, kind, d.shape(e["tensor"]), e["tensor"])
    view.nodes.extend(sorted(sources.values(), key=lambda n: n.order))
    view.edges.extend(seen.values())


def _add_outputs(d: _Doc, view: GraphView, view_of) -> None:
    """Op outputs no recorded op consumed (a loss, a prediction) as output nodes."""
    for n in d.nodes:
        for tid in n["outputs"]:
            if tid in d.consumers or tid not in d.tensors:
                continue
            t = d.tensors[tid]
            view.nodes.append(ViewNode(tid, "output", t["name"] or "output", [shape_text(t)], None, n["step"] + 0.5,
                                       [tid], tooltip=f"{tid}: output of {n['op']} ({n['id']})"))
            view.edges.append(ViewEdge(view_of(n["id"]), tid, "activation", shape_text(t), tid))


# ---- backward ---------------------------------------------------------------------------------------

def backward_graph(trace, budget: int | None = None) -> GraphView:
    """The backward graph: grad nodes (accumulate nodes for leaves), gradient edges, links to the ops."""
    d = _Doc(document_of(trace, "backward_graph"))
    forward = {n["id"]: n for n in d.nodes}
    ran = {}
    for s in d.doc["steps"]:
        if s["kind"] == "backward_step":
            ran.setdefault(s["node"], s)
    nan = _backward_nan_inf(d, ran)
    view = GraphView("backward")
    layers = []
    for i, g in enumerate(d.grad_nodes):
        fwd = forward.get(g["forward_node"])
        layer = fwd["layer"] if fwd is not None else _param_layer(d, g["tensor"], forward)
        layers.append(layer)
        step = ran.get(g["id"])
        detail = []
        if g["kind"] == "accumulate" and g["tensor"] in d.tensors:
            t = d.tensors[g["tensor"]]
            detail = [t["name"] or g["tensor"], shape_text(t)]
        if g["outside"]:
            detail.append("made before the trace")
        order = float(step["index"]) if step is not None else 1e12 + i
        tooltip = f"{g['id']}: {g['name']}" + (f" of {g['forward_node']}" if g["forward_node"] else "")
        view.nodes.append(ViewNode(g["id"], g["kind"], g["name"], detail, d.layer_ids.get(layer), order, [g["id"]],
                                   g["forward_node"], nan.get(g["id"]), g["id"] == nan.get("first"), tooltip))
    view.clusters = d.layer_clusters(p for p in layers if p is not None)
    for e in d.doc["graph"]["backward"]["edges"]:
        view.edges.append(ViewEdge(e["source"], e["target"], "gradient", shape_text(d.tensors.get(e["tensor"])),
                                   e["tensor"]))
    return apply_budget(view, budget)


def _param_layer(d: _Doc, tid: str | None, forward: dict) -> str | None:
    consumers = d.consumers.get(tid, []) if tid is not None else []
    return d.common_layer(forward[c]["layer"] for c in consumers) if consumers else None


def _backward_nan_inf(d: _Doc, ran: dict) -> dict:
    """Grad nodes that sent on a NaN/Inf gradient: "produced" from clean incoming grads, else
    "propagated"; "first" names the first that produced one (the document marks only forward ops)."""
    def bad(sid):
        s = d.states.get(sid)
        return s is not None and (s["summary"]["nan_count"] or s["summary"]["inf_count"])

    marks: dict = {}
    for gid, step in sorted(ran.items(), key=lambda item: item[1]["index"]):
        if any(bad(s) for s in step["grads_out"]):
            origin = "propagated" if any(bad(s) for s in step["grads_in"]) else "produced"
            marks[gid] = origin
            if origin == "produced" and "first" not in marks:
                marks["first"] = gid
    return marks


def combined_graph(trace, budget: int | None = None) -> GraphView:
    """Forward and backward graphs in one picture, each op linked to its grad node (dashed)."""
    fwd, bwd = forward_graph(trace), backward_graph(trace)
    view = GraphView("both", fwd.nodes + bwd.nodes, fwd.edges + bwd.edges)
    clusters = {c.id: c for c in fwd.clusters + bwd.clusters}
    view.clusters = [c for c in clusters.values()]
    view.clusters.sort(key=lambda c: int(c.id[1:]))  # parents before children, as in the document
    for n in fwd.nodes:
        if n.kind == "op" and n.link is not None:
            view.edges.append(ViewEdge(n.id, n.link, "link"))
    return apply_budget(view, budget)


# ---- grouped by layer --------------------------------------------------------------------------------

def layer_graph(trace, depth: int = 2, budget: int | None = None, fold: bool = True) -> GraphView:
    """Op nodes grouped by layer path: a layer `depth` levels down (or one with no sublayers) is one box.

    `depth=1` draws each top-level layer as one box; `depth=2` the model's direct sublayers
    ("MLP.fc1"). With `fold`, sibling layers of the same structure run one after another become
    one "Block xN": a node where they are boxes, else a cluster drawing the first of them with
    the others' ops mapped onto it (dashed "repeat" edges show one feeding the next).
    """
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
        raise invalid_argument("layer_graph", f"depth={depth!r}, expected an integer >= 1.")
    return apply_budget(_LayerView(_Doc(document_of(trace, "layer_graph")), depth, fold).build(), budget)


def _op_summary(ops) -> str:
    """"linear ×2, relu" -- op names in the order they first ran, with counts."""
    counts = Counter(n["op"] if isinstance(n, dict) else n for n in ops)
    parts = [name if c == 1 else f"{name} ×{c}" for name, c in counts.most_common(4)]
    return ", ".join(parts) + (", …" if len(counts) > 4 else "")


class _LayerView:
    """Builds layer_graph: walks the layer tree from the top, placing clusters, boxes and folds."""

    def __init__(self, d: _Doc, depth: int, fold: bool) -> None:
        self.d, self.depth, self.fold = d, depth, fold
        self.view = GraphView("layers", depth=depth)
        self.children: dict = {}
        for layer in d.doc["layers"]:
            self.children.setdefault(layer["parent"], []).append(layer["path"])
        self.direct: dict = {}
        for n in d.nodes:
            self.direct.setdefault(n["layer"], []).append(n)
        self.view_of: dict[str, str] = {}      # op id -> view node id
        self.member_of: dict[str, list] = {}   # op id -> [(fold id, member index)]
        self.alias: dict[str, str] = {}        # a folded member's source tensor -> the first member's
        self.absorbed: dict[str, list] = {}    # box id -> parameters drawn inside it
        self.box_path: dict[str, str] = {}     # box id -> its layer path
        self._under: dict = {}
        self._signature: dict = {}

    def under(self, path: str) -> list[dict]:
        """Op nodes that ran in `path` or below, in step order."""
        if path not in self._under:
            ops = list(self.direct.get(path, []))
            for child in self.children.get(path, []):
                ops += self.under(child)
            self._under[path] = sorted(ops, key=lambda n: n["step"])
        return self._under[path]

    def signature(self, path: str) -> tuple:
        """What makes two layers "the same structure": their ops, sublayer names and output shapes."""
        if path not in self._signature:
            cut, tensors = len(path) + 1, self.d.tensors
            self._signature[path] = tuple(
                (n["layer"][cut:], n["op"], tuple(tuple(tensors[t]["shape"]) for t in n["outputs"] if t in tensors))
                for n in self.under(path))
        return self._signature[path]

    def is_box(self, path: str) -> bool:
        return self.d.layers[path]["depth"] + 1 >= self.depth or not self.children.get(path)

    # ---- placing -------------------------------------------------------------------------------
    def build(self) -> GraphView:
        self.place(None, None)
        d, view = self.d, self.view
        layer_of = {n["id"]: n["layer"] for n in d.nodes}
        clusters = {c.id: c for c in view.clusters}

        def cluster_of(path):  # a parameter shared by several boxes: drawn in a cluster that exists
            while path is not None and d.layer_ids[path] not in clusters:
                path = d.layers[path]["parent"]
            return None if path is None else d.layer_ids[path]

        _add_sources_and_edges(d, view, self.view_of.__getitem__, layer_of.__getitem__, cluster_of, self.absorb,
                               alias=self.alias, edge_kind=self.edge_kind)
        _add_outputs(d, view, self.view_of.__getitem__)
        self.finish_nodes()
        return view

    def place(self, path: str | None, cluster: str | None) -> None:
        items = [(self.under(c)[0]["step"], "layer", c) for c in self.children.get(path, []) if self.under(c)]
        items += [(n["step"], "op", n) for n in self.direct.get(path, [])]
        items.sort(key=lambda item: item[0])
        i = 0
        while i < len(items):
            _, kind, x = items[i]
            j = i + 1
            if kind == "op":
                self.add_op(x, cluster)
            else:
                while self.fold and j < len(items) and items[j][1] == "layer" and \
                        self.signature(items[j][2]) == self.signature(x):
                    j += 1
                run = [item[2] for item in items[i:j]]
                if len(run) > 1:
                    self.add_fold(run, cluster)
                elif self.is_box(x):
                    self.add_box(x, cluster)
                else:
                    self.view.clusters.append(Cluster(self.d.layer_ids[x], self.d.layers[x]["name"], cluster, x))
                    self.place(x, self.d.layer_ids[x])
            i = j

    def add_op(self, n: dict, cluster: str | None) -> None:
        tooltip = f"{n['id']}: {n['op']} in {n['layer'] or '(no layer)'}, step {n['step']}"
        self.view.nodes.append(ViewNode(n["id"], "op", n["op"], [], cluster, float(n["step"]), [], n["grad_node"],
                                        tooltip=tooltip))
        self.view_of[n["id"]] = n["id"]

    def add_box(self, path: str, cluster: str | None) -> None:
        ops = self.under(path)
        box = ViewNode(self.d.layer_ids[path], "layer", self._name(path), [_op_summary(ops)], cluster,
                       float(ops[0]["step"]), tooltip=path)
        self.view.nodes.append(box)
        self.box_path[box.id] = path
        for n in ops:
            self.view_of[n["id"]] = box.id

    def add_fold(self, run: list[str], cluster: str | None) -> None:
        first, last, count = run[0], run[-1], len(run)
        fid = "F" + self.d.layer_ids[first][1:]
        name = f"{self._name(first)} … {self._name(last)}"
        for index, member in enumerate(run):
            for n in self.under(member):
                self.member_of.setdefault(n["id"], []).append((fid, index))
        self.view.collapsed.append({"kind": "fold", "id": fid, "count": count, "what": f"{first} … {last}"})
        self.view.notes.append(f"{count} layers of the same structure ({first} … {last}) folded into one "
                               f"\"Block ×{count}\".")
        ops = self.under(first)
        if self.is_box(first):
            self.view.nodes.append(ViewNode(fid, "block", name, [f"Block ×{count}", "each: " + _op_summary(ops)],
                                            cluster, float(ops[0]["step"]), tooltip=f"{first} … {last}"))
            for member in run:
                for n in self.under(member):
                    self.view_of[n["id"]] = fid
            return
        self.view.clusters.append(Cluster(fid, f"{name}  (Block ×{count})", cluster, first, kind="block"))
        self.place(first, fid)
        for member in run[1:]:  # the same structure: op k of each maps onto op k of the first
            for n, rep in zip(self.under(member), ops):
                self.view_of[n["id"]] = self.view_of[rep["id"]]
                self.member_of[n["id"]] += [(f, i) for f, i in self.member_of.get(rep["id"], []) if f != fid]
                for t, t_rep in zip(n["inputs"], rep["inputs"]):
                    if self._is_source(t) and self._is_source(t_rep):
                        self.alias[t] = self.alias.get(t_rep, t_rep)

    def _name(self, path: str) -> str:
        """A layer's name; "blocks.3" for the items of a LayerList, whose names are only numbers."""
        layer = self.d.layers[path]
        if layer["name"].isdigit() and layer["parent"] is not None:
            return f"{self.d.layers[layer['parent']]['name']}.{layer['name']}"
        return layer["name"]

    def _is_source(self, tid: str) -> bool:
        t = self.d.tensors.get(tid)
        return t is not None and t["producer"] is None  # (null also when its op was dropped)

    # ---- edges and details -------------------------------------------------------------------------
    def absorb(self, tid: str) -> bool:
        """A parameter used inside one box only is drawn as part of the box, not as its own node."""
        if self.d.tensors[tid]["role"] != "parameter":
            return False
        targets = {self.view_of[c] for c in self.d.consumers[tid]}
        target = next(iter(targets))
        if len(targets) != 1 or target[0] not in "LF" or any(c.id == target for c in self.view.clusters):
            return False
        self.absorbed.setdefault(target, []).append(tid)
        return True

    def edge_kind(self, source_op: str, target_op: str) -> str:
        """"repeat" for an edge from one folded member into the next, else "activation"."""
        a, b = dict(self.member_of.get(source_op, ())), dict(self.member_of.get(target_op, ()))
        return "repeat" if any(f in b and b[f] != i for f, i in a.items()) else "activation"

    def finish_nodes(self) -> None:
        nodes = {n.id: n for n in self.view.nodes}
        for n in self.d.nodes:
            node = nodes[self.view_of[n["id"]]]
            node.refs.append(n["id"])
            if n["nan_inf"] is not None and node.nan_inf != "produced":
                node.nan_inf = n["nan_inf"]
            node.first_nan_inf = node.first_nan_inf or n["first_nan_inf"]
        for node_id, params in self.absorbed.items():  # a box's own parameters, and its folded copies'
            path = self.box_path.get(node_id)
            own_ops = None if path is None else {n["id"] for n in self.under(path)}
            own = [t for t in params if own_ops is None or set(self.d.consumers[t]) <= own_ops]
            names = [self.d.tensors[t]["name"] or t for t in own]
            text = f"{len(names)} params" if len(names) > 2 else "params: " + ", ".join(names)
            if len(own) < len(params):
                text += f" (+{len(params) - len(own)} in the folded copies)"
            nodes[node_id].detail.append(text)
            nodes[node_id].refs.extend(params)
        for n in self.view.nodes:
            if n.kind == "op" and len(n.refs) > 1:
                n.detail.append(f"×{len(n.refs)}")


# ---- budgets and the default view -------------------------------------------------------------------

def _check_budget(api: str, budget) -> None:
    if budget is not None and (isinstance(budget, bool) or not isinstance(budget, int) or budget < 5):
        raise invalid_argument(api, f"budget={budget!r}, expected None or an integer >= 5 (nodes).")


def apply_budget(view: GraphView, budget: int | None) -> GraphView:
    """Keep at most `budget` nodes: the first and last to run (and the first NaN/Inf) stay; each run
    of nodes between them becomes one "collapsed N nodes" marker, listed in `view.collapsed`."""
    _check_budget("apply_budget", budget)
    view.budget = budget
    if budget is None or len(view.nodes) <= budget:
        return view
    nodes = sorted(view.nodes, key=lambda n: n.order)
    must = [n for n in nodes if n.first_nan_inf][:2]
    slots = budget - 2 * len(must) - 1  # each kept NaN node may split a run: one more marker
    head, tail = slots - slots // 2, slots // 2
    keep = {n.id for n in nodes[:head]} | {n.id for n in nodes[len(nodes) - tail:]} | {n.id for n in must}
    runs: list[list[ViewNode]] = []
    for n in nodes:
        if n.id in keep:
            runs.append([])
        elif not runs:
            runs.append([n])
        else:
            runs[-1].append(n)
    runs = [run for run in runs if run]
    parents = {c.id: c.parent for c in view.clusters}
    new_id: dict[str, str] = {}
    kept_nodes = [n for n in view.nodes if n.id in keep]
    for k, run in enumerate(runs, start=1):
        marker = _marker(f"X{k}", run, parents)
        kept_nodes.append(marker)
        for n in run:
            new_id[n.id] = marker.id
        view.collapsed.append({"kind": "budget", "id": marker.id, "count": len(run), "what": marker.detail[0]})
    view.nodes = kept_nodes
    view.edges = _remap_edges(view.edges, new_id)
    used = {n.cluster for n in view.nodes}
    for c in view.clusters:  # a cluster stays while it, or a cluster inside it, holds a node
        if c.id in used:
            parent = c.parent
            while parent is not None and parent not in used:
                used.add(parent)
                parent = parents[parent]
    view.clusters = [c for c in view.clusters if c.id in used]
    total = sum(len(run) for run in runs)
    view.notes.append(f"collapsed {total} nodes into {len(runs)} marker(s) to keep the view within its budget "
                      f"of {budget} nodes.")
    view.__dict__.pop("_ref_index", None)
    return view


def _marker(marker_id: str, run: list, parents: dict) -> ViewNode:
    """One node standing for a run of collapsed nodes, in the innermost cluster holding all of them."""
    def chain(cluster):
        out = []
        while cluster is not None:
            out.append(cluster)
            cluster = parents.get(cluster)
        return out[::-1]

    chains = [chain(c) for c in {n.cluster for n in run}]
    common = None
    for level in zip(*chains):
        if len(set(level)) != 1:
            break
        common = level[0]
    steps = [n.order for n in run if n.order < 1e12]
    named = [n.label for n in run if n.kind in _NAMED_KINDS]
    others = [n.kind for n in run if n.kind not in _NAMED_KINDS]
    detail = ["; ".join(text for text in (_op_summary(named), _op_summary(others)) if text)]
    if steps:
        detail.append(f"steps {int(min(steps))}–{int(max(steps))}")
    nan = {n.nan_inf for n in run if n.nan_inf}
    return ViewNode(marker_id, "collapsed", f"collapsed {len(run)} nodes", detail, common, run[0].order,
                    [r for n in run for r in n.refs], None, min(nan) if nan else None,  # "produced" < "propagated"
                    any(n.first_nan_inf for n in run), tooltip=f"{len(run)} nodes collapsed: {detail[0]}")


_NAMED_KINDS = ("op", "grad", "layer", "block", "collapsed")


def _remap_edges(edges: list, new_id: dict) -> list:
    merged: dict[tuple, ViewEdge] = {}
    for e in edges:
        source, target = new_id.get(e.source, e.source), new_id.get(e.target, e.target)
        if source == target:
            continue
        key = (source, target, e.kind)
        if key in merged:
            m = merged[key]
            m.count += e.count
            if m.label != e.label:
                m.label, m.tensor = "", None
            continue
        merged[key] = ViewEdge(source, target, e.kind, e.label, e.tensor, e.count)
    return list(merged.values())


def graph_view(trace, view: str = "auto", depth: int | None = None, budget: int | None = DEFAULT_BUDGET) -> GraphView:
    """The graph to draw: "forward", "backward", "both", "layers" (to `depth`, default 2), or "auto":
    the op graph when it fits `budget` nodes, else the deepest layer grouping that fits, else the
    top-level grouping with runs of nodes collapsed."""
    doc = document_of(trace, "graph_view")
    if view not in VIEWS:
        raise invalid_argument("graph_view", f"view={view!r}, expected one of {', '.join(map(repr, VIEWS))}.")
    _check_budget("graph_view", budget)
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or depth < 1):
        raise invalid_argument("graph_view", f"depth={depth!r}, expected None or an integer >= 1.")
    if view == "layers" or (view == "auto" and depth is not None):
        return layer_graph(doc, depth or 2, budget)
    if view != "auto":
        return {"forward": forward_graph, "backward": backward_graph, "both": combined_graph}[view](doc, budget)
    n_ops = len(doc["graph"]["forward"]["nodes"])
    ops = forward_graph(doc) if budget is None or n_ops <= budget else None
    if ops is not None and (budget is None or len(ops.nodes) <= budget):
        ops.budget = budget
        return ops
    deepest = max((layer["depth"] + 1 for layer in doc["layers"]), default=0)
    for level in range(deepest, 0, -1):  # the most detail that fits
        grouped = layer_graph(doc, level)
        if len(grouped.nodes) <= budget or level == 1:
            break
    else:
        grouped = ops or forward_graph(doc)
    note = (f"{n_ops} ops are too many to draw one by one (budget {budget} nodes): "
            + (f"ops grouped by layer to depth {grouped.depth}." if grouped.kind == "layers" else "runs collapsed."))
    grouped.notes.insert(0, note)
    return apply_budget(grouped, budget)
