"""DOT and SVG drawings of a trace's graph views, through the graphviz package and Graphviz's `dot`.

    to_dot(trace)                      DOT source of the default view (graph.graph_view "auto")
    to_dot(trace, view="backward")     ... or of "forward", "backward", "both", "layers"
    to_svg(trace)                      SVG text; needs the `dot` program (apt/conda/brew install graphviz)
    to_digraph(trace)                  the graphviz.Digraph itself, to tweak or render elsewhere

    program_digraph(program)           a static Program: ops, variables, sub-blocks as clusters
    program_to_svg(program, highlight={"removed": [(0, 4)]})   ... as SVG, a pass diff's ops coloured

Node names are the view's ids (the trace's ids: "n4" op, "g9" grad node, "t2" tensor), layers are
nested clusters, edges carry tensor shapes, and each kind of node has one fixed colour (`STYLES`,
drawn as a legend). NaN/Inf nodes are red; the first one has a thick border and says so.
Every label comes from user code, so each is escaped: backslashes doubled and HTML-like labels
refused (`graphviz.escape`), quotes escaped by the package; `dot` escapes them again for SVG.
"""
from __future__ import annotations

import re
import shutil
import subprocess

from ..framework.errors import invalid_argument, precondition_not_met
from .graph import DEFAULT_BUDGET, GraphView, graph_view

INSTALL_HINT = ("install Graphviz, which provides the `dot` program: `apt-get install graphviz` (Debian/Ubuntu), "
                "`conda install graphviz`, or `brew install graphviz` (macOS); then restart the kernel.")

# kind -> (what the legend calls it, shape, style, fill, border); one place for DOT and HTML colours
STYLES: dict[str, tuple[str, str, str, str, str]] = {
    "op": ("operation", "box", "rounded,filled", "#dbeafe", "#2563eb"),
    "parameter": ("parameter", "ellipse", "filled", "#dcfce7", "#16a34a"),
    "input": ("input", "ellipse", "filled", "#f3f4f6", "#6b7280"),
    "leaf": ("leaf (needs grad)", "ellipse", "filled", "#fef9c3", "#a16207"),
    "tensor": ("tensor made before the trace", "ellipse", "filled,dashed", "#f3f4f6", "#6b7280"),
    "output": ("output", "ellipse", "filled,bold", "#e0f2fe", "#0369a1"),
    "grad": ("gradient op", "box", "rounded,filled", "#ffedd5", "#ea580c"),
    "accumulate": ("accumulate into .grad", "box", "filled", "#fed7aa", "#c2410c"),
    "layer": ("layer", "box3d", "filled", "#ede9fe", "#7c3aed"),
    "block": ("folded blocks", "box3d", "filled,bold", "#ddd6fe", "#6d28d9"),
    "collapsed": ("collapsed nodes", "note", "filled,dashed", "#f9fafb", "#6b7280"),
}
NAN_STYLE = ("NaN/Inf", "#fee2e2", "#dc2626")
# edge kind -> (colour, style)
EDGE_STYLES: dict[str, tuple[str, str]] = {
    "activation": ("#374151", "solid"),
    "parameter": ("#16a34a", "solid"),
    "input": ("#6b7280", "solid"),
    "gradient": ("#ea580c", "solid"),
    "link": ("#7c3aed", "dashed"),
    "repeat": ("#6d28d9", "dashed"),
}
_PREFIX = re.compile(r"^[A-Za-z0-9_-]*$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def dot_text(*lines: str, left: bool = False):
    """One DOT label from raw lines of user text: literal backslashes, no HTML-like label, one line
    each (centred, or with `left` left-aligned)."""
    import graphviz
    escaped = [graphviz.escape(_CONTROL.sub(" ", str(line))) for line in lines if line != ""]
    if left:
        return graphviz.nohtml("".join(line + "\\l" for line in escaped))
    return graphviz.nohtml("\\n".join(escaped))


def _view_of(trace, view: str, depth, budget) -> GraphView:
    return trace if isinstance(trace, GraphView) else graph_view(trace, view, depth, budget)


def to_digraph(trace, view: str = "auto", depth: int | None = None, budget: int | None = DEFAULT_BUDGET,
               legend: bool = True, id_prefix: str = ""):
    """A graphviz.Digraph of one view of `trace` (a Trace, its document, or a GraphView).

    `id_prefix` is put before every node, cluster and edge id, so several drawings can share one page.
    """
    import graphviz
    if not isinstance(id_prefix, str) or not _PREFIX.match(id_prefix):
        raise invalid_argument("to_dot", f"id_prefix={id_prefix!r}, expected letters, digits, '_' or '-'.")
    v = _view_of(trace, view, depth, budget)
    g = graphviz.Digraph(name=f"{id_prefix}{v.kind}", graph_attr={
        "rankdir": "TB", "fontname": "Helvetica", "fontsize": "10", "nodesep": "0.25", "ranksep": "0.35",
        "id": f"{id_prefix}graph"})
    g.attr("node", fontname="Helvetica", fontsize="10", height="0.3", margin="0.08,0.04")
    g.attr("edge", fontname="Helvetica", fontsize="8", arrowsize="0.6")
    _add_clusters(g, v, id_prefix)
    for i, e in enumerate(v.edges):
        colour, style = EDGE_STYLES[e.kind]
        label = e.label + (f" ×{e.count}" if e.count > 1 else "")
        attrs = {"color": colour, "style": style, "fontcolor": colour, "id": f"{id_prefix}e{i}"}
        if e.kind in ("link", "repeat"):
            attrs["constraint"] = "false"
        g.edge(id_prefix + e.source, id_prefix + e.target, label=dot_text(label), **attrs)
    if not v.nodes:
        g.node(f"{id_prefix}empty", label="no ops were recorded", shape="plaintext")
    if legend and v.nodes:
        _add_legend(g, v, id_prefix)
    if v.notes:
        g.attr(label=dot_text(*v.notes, left=True), labelloc="b", labeljust="l")
    return g


def _add_clusters(g, v: GraphView, prefix: str) -> None:
    """Clusters nested as the layers are; nodes inside the innermost one that holds them."""
    children, members = v.nesting()

    def fill(graph, cluster_id) -> None:
        for n in members.get(cluster_id, []):
            _add_node(graph, n, prefix)
        for c in children.get(cluster_id, []):
            with graph.subgraph(name=f"cluster_{prefix}{c.id}") as sub:
                style = "rounded,dashed,filled" if c.kind == "block" else "rounded"
                sub.attr(label=dot_text(c.label), tooltip=dot_text(c.path), style=style, color="#a78bfa",
                         fillcolor="#f5f3ff", fontcolor="#5b21b6", fontsize="10", id=f"{prefix}{c.id}")
                fill(sub, c.id)

    fill(g, None)


def _add_node(g, n, prefix: str) -> None:
    _, shape, style, fill, border = STYLES[n.kind]
    lines = [n.label, *n.detail]
    attrs = {"shape": shape, "style": style, "fillcolor": fill, "color": border, "id": prefix + n.id}
    if n.nan_inf is not None:
        attrs.update(fillcolor=NAN_STYLE[1], color=NAN_STYLE[2], fontcolor="#7f1d1d")
        lines.append(f"NaN/Inf {'made here' if n.nan_inf == 'produced' else 'carried in'}")
    if n.first_nan_inf:
        attrs.update(penwidth="3", color="#991b1b")
        lines.insert(0, "FIRST NaN/Inf")
    g.node(prefix + n.id, label=dot_text(*lines), tooltip=dot_text(n.tooltip or n.label), **attrs)


def _add_legend(g, v: GraphView, prefix: str) -> None:
    """One small row naming the colours this drawing uses."""
    entries = [(kind, *STYLES[kind]) for kind in STYLES if any(n.kind == kind for n in v.nodes)]
    if any(n.nan_inf for n in v.nodes):
        entries.append(("nan", NAN_STYLE[0], "box", "filled", NAN_STYLE[1], NAN_STYLE[2]))
    with g.subgraph(name=f"cluster_{prefix}legend") as box:
        box.attr(label="legend", style="rounded", color="#d1d5db", fontcolor="#6b7280", fontsize="9",
                 id=f"{prefix}legend")
        with box.subgraph() as row:
            row.attr(rank="same")
            names = []
            for kind, text, shape, style, fill, border in entries:
                names.append(f"{prefix}legend_{kind}")
                row.node(names[-1], label=text, shape=shape, style=style, fillcolor=fill, color=border,
                         fontsize="8", id=names[-1])
            for a, b in zip(names, names[1:]):
                row.edge(a, b, style="invis")


def to_dot(trace, view: str = "auto", depth: int | None = None, budget: int | None = DEFAULT_BUDGET,
           legend: bool = True, id_prefix: str = "") -> str:
    """DOT source of one view of `trace` (see graph.graph_view for `view`, `depth`, `budget`)."""
    return to_digraph(trace, view, depth, budget, legend, id_prefix).source


def dot_available() -> bool:
    """Whether Graphviz's `dot` program is on PATH (SVG needs it; DOT text does not)."""
    return shutil.which("dot") is not None


def to_svg(trace, view: str = "auto", depth: int | None = None, budget: int | None = DEFAULT_BUDGET,
           legend: bool = True, id_prefix: str = "") -> str:
    """SVG text of one view, drawn by Graphviz's `dot`; a clear error saying how to install it if missing."""
    digraph = to_digraph(trace, view, depth, budget, legend, id_prefix)
    return render_svg(digraph)


def render_svg(digraph, timeout: float = 60.0) -> str:
    """Run `dot -Tsvg` on a Digraph's source (with a time limit: a display must not hang)."""
    dot = shutil.which("dot")
    if dot is None:
        raise precondition_not_met("to_svg", "Graphviz's `dot` program was not found on PATH, so the graph cannot "
                                             "be drawn as SVG (the DOT text, the step list and the tensor tables "
                                             "do not need it).", hint=INSTALL_HINT)
    try:
        done = subprocess.run([dot, "-Tsvg"], input=digraph.source.encode("utf-8"), capture_output=True,
                              timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        nodes = digraph.source.count("\n")  # about one line per node or edge
        raise precondition_not_met(
            "to_svg", f"`dot` did not finish laying out the graph in {timeout:g} s (it has about {nodes} nodes and "
                      "edges): Graphviz is installed, the graph is too big to draw whole.",
            hint="draw the folded view instead: view='layers' (ops grouped by layer, repeated blocks folded), "
                 "or a smaller budget=...") from None
    except (OSError, subprocess.SubprocessError) as exc:
        raise precondition_not_met("to_svg", f"`dot` could not draw the graph ({type(exc).__name__}: {exc}).",
                                   hint=INSTALL_HINT) from None
    if done.returncode != 0:
        raise precondition_not_met("to_svg", f"`dot` failed: {done.stderr.decode('utf-8', 'replace')[:300]}")
    return done.stdout.decode("utf-8")


def inline_svg(svg: str) -> str:
    """SVG text ready to sit inside an HTML page: no XML prolog, DOCTYPE, comments or namespace URLs
    (an HTML parser needs none of them, and a self-contained page should hold no URL at all)."""
    svg = re.sub(r"<\?xml.*?\?>", "", svg, flags=re.S)
    svg = re.sub(r"<!DOCTYPE.*?>", "", svg, flags=re.S)
    svg = re.sub(r"<!--.*?-->", "", svg, flags=re.S)
    svg = re.sub(r'\s+xmlns(:\w+)?="[^"]*"', "", svg)
    return svg.strip()


# ---- static Programs ------------------------------------------------------------------------------
# op role -> (fill, border); a pass diff marks ops removed (in the before program) or added / fused (after)
ROLE_STYLES = {"forward": ("#dbeafe", "#2563eb"), "backward": ("#ffedd5", "#ea580c"),
               "optimize": ("#ede9fe", "#7c3aed")}
DIFF_STYLES = {"removed": ("#fee2e2", "#dc2626"), "added": ("#dcfce7", "#16a34a"), "fused": ("#bbf7d0", "#15803d")}
_SUB_LABELS = {"cond": ("true", "false"), "while": ("cond", "body")}
MAX_PROGRAM_NODES = 400


def _var_style(v: dict | None) -> tuple[str, str, str]:
    """(style, fill, border) of a variable: parameter, fed data, other persistable, temporary."""
    if v is None:
        return "filled,dashed", "#ffffff", "#9ca3af"
    kind = "parameter" if v["is_parameter"] else "input" if v["is_data"] else "leaf" if v["persistable"] else None
    if kind is None:
        return "filled", "#ffffff", "#6b7280"
    _, _, style, fill, border = STYLES[kind]
    return style, fill, border


def program_digraph(program, id_prefix: str = "", highlight: dict | None = None,
                    max_nodes: int = MAX_PROGRAM_NODES):
    """A graphviz.Digraph of a static Program (or its trace-document dict): ops as boxes coloured
    by role, variables as ellipses, each sub-block a cluster joined to the cond / while op owning it.

    SVG element ids follow the document's node ids: ops "P0:b0:op3", variables "P0:b0:v:<name>"
    (`id_prefix` before each). `highlight`: {"removed"|"added"|"fused": [(block, index), ...]}
    colours those ops (a pass diff). Past `max_nodes` nodes the variables are left out and ops
    are joined directly."""
    import graphviz
    if not isinstance(id_prefix, str) or not _PREFIX.match(id_prefix):
        raise invalid_argument("program_digraph", f"id_prefix={id_prefix!r}, expected letters, digits, '_' or '-'.")
    doc = _program_dict(program)
    pid = doc["id"]
    marks = {(int(b), int(i)): kind for kind, refs in (highlight or {}).items() for b, i in refs}
    blocks = doc["blocks"]
    n_vars = sum(len(_used_vars(b)) for b in blocks)
    with_vars = sum(len(b["ops"]) for b in blocks) + n_vars <= max_nodes
    g = graphviz.Digraph(name=f"{id_prefix}{pid}", graph_attr={
        "rankdir": "TB", "compound": "true", "fontname": "Helvetica", "fontsize": "10", "nodesep": "0.2",
        "ranksep": "0.3", "id": f"{id_prefix}{pid}:graph"})
    g.attr("node", fontname="Helvetica", fontsize="10", height="0.3", margin="0.08,0.04")
    g.attr("edge", fontname="Helvetica", fontsize="8", arrowsize="0.6", color="#6b7280")
    names = _ProgramNames(id_prefix, pid, blocks)
    children: dict[int, list[int]] = {}
    for b in blocks[1:]:
        children.setdefault(b["parent"], []).append(b["idx"])

    def fill(graph, b: dict) -> None:
        for op in b["ops"]:
            _add_program_op(graph, names, b["idx"], op, marks.get((b["idx"], op["index"])))
        if with_vars:
            for name in _used_vars(b):
                if names.home(b["idx"], name) == b["idx"]:
                    _add_program_var(graph, names, b["idx"], name)
        if not b["ops"]:
            graph.node(names.empty(b["idx"]), label="(no ops)", shape="plaintext", fontcolor="#6b7280")
        for idx in children.get(b["idx"], []):
            sub_block = blocks[idx]
            with graph.subgraph(name=f"cluster_{names.dot(idx, 'block')}") as sub:
                sub.attr(label=f"block {idx}", style="rounded,dashed,filled", color="#a78bfa", fillcolor="#f5f3ff",
                         fontcolor="#5b21b6", fontsize="10", id=f"{id_prefix}{pid}:b{idx}")
                fill(sub, sub_block)

    fill(g, blocks[0])
    _program_edges(g, names, blocks, with_vars)
    if not with_vars:
        g.attr(label=dot_text(f"{n_vars} variables not drawn (more than {max_nodes} nodes): ops are joined "
                              "directly"), labelloc="b", labeljust="l")
    return g


def _program_dict(program) -> dict:
    if isinstance(program, dict):
        return program
    from .program import program_to_dict
    return program_to_dict(program, "P0", "program", "main")


def _used_vars(b: dict) -> list[str]:
    """Names the ops of block `b` read or write, in first-use order ('' is an absent slot)."""
    seen: dict[str, None] = {}
    for op in b["ops"]:
        for slots in (op["inputs"], op["outputs"]):
            for names in slots.values():
                for n in names:
                    if n:
                        seen.setdefault(n, None)
    return list(seen)


class _ProgramNames:
    """DOT names (ours only: user names never become DOT ids) and the block each variable lives in."""

    def __init__(self, prefix: str, pid: str, blocks: list[dict]) -> None:
        self.prefix, self.pid, self.blocks = prefix, pid, blocks
        self.declared = [{v["name"]: v for v in b["vars"]} for b in blocks]
        self._var_ids: dict[tuple, str] = {}

    def dot(self, block: int, what: str) -> str:
        return f"{self.prefix}{self.pid}_b{block}_{what}"

    def op(self, block: int, index: int) -> str:
        return self.dot(block, f"op{index}")

    def empty(self, block: int) -> str:
        return self.dot(block, "empty")

    def home(self, block: int, name: str) -> int:
        """The block declaring `name`: this one or the nearest parent (this one if none does)."""
        b = block
        while b >= 0:
            if name in self.declared[b]:
                return b
            b = self.blocks[b]["parent"]
        return block

    def var(self, block: int, name: str) -> str:
        home = self.home(block, name)
        key = (home, name)
        if key not in self._var_ids:
            self._var_ids[key] = self.dot(home, f"v{len(self._var_ids)}")
        return self._var_ids[key]

    def var_meta(self, block: int, name: str) -> dict | None:
        return self.declared[self.home(block, name)].get(name)


def _add_program_op(g, names: _ProgramNames, block: int, op: dict, mark: str | None) -> None:
    fill, border = ROLE_STYLES.get(op["role"], ("#f3f4f6", "#6b7280"))
    lines = [op["type"]]
    if op["type"] == "fused_elementwise" and isinstance(op["attrs"].get("kernel_name"), str):
        lines.append(op["attrs"]["kernel_name"])
    attrs = {"shape": "box", "style": "rounded,filled", "fillcolor": fill, "color": border,
             "id": f"{names.prefix}{names.pid}:b{block}:op{op['index']}"}
    if mark is not None:
        attrs.update(fillcolor=DIFF_STYLES[mark][0], color=DIFF_STYLES[mark][1], penwidth="2.5")
        lines.append(mark)
    src = op["source"]
    tooltip = f"{op['type']} ({op['role']})" + (f" at {src['file']}:{src['line']}: {src['code']}" if src else "")
    g.node(names.op(block, op["index"]), label=dot_text(*lines), tooltip=dot_text(tooltip), **attrs)


def _id_text(name: str) -> str:
    """A user's name inside a DOT attribute: no control characters, literal backslashes."""
    import graphviz
    return graphviz.escape(_CONTROL.sub(" ", name))


def _add_program_var(g, names: _ProgramNames, block: int, name: str) -> None:
    v = names.var_meta(block, name)
    style, fill, border = _var_style(v)
    label = [name] if v is None else [name, "[" + ", ".join(str(d) for d in v["shape"]) + "] " + v["dtype"]]
    g.node(names.var(block, name), label=dot_text(*label), shape="ellipse", style=style, fillcolor=fill,
           color=border, fontsize="9", id=f"{names.prefix}{names.pid}:b{names.home(block, name)}:v:{_id_text(name)}",
           tooltip=dot_text(name))


def _program_edges(g, names: _ProgramNames, blocks: list[dict], with_vars: bool) -> None:
    """Data edges (var -> op -> var, or op -> op without variables) and sub-block links."""
    writer: dict[tuple, str] = {}  # (home block, name) -> the last op that wrote it (ops-only drawing)
    read: set[tuple] = set()
    for b in blocks:
        for op in b["ops"]:
            me = names.op(b["idx"], op["index"])
            for n in [n for ns in op["inputs"].values() for n in ns if n]:
                read.add((names.home(b["idx"], n), n))
                if with_vars:
                    g.edge(names.var(b["idx"], n), me)
                elif (names.home(b["idx"], n), n) in writer:
                    g.edge(writer[(names.home(b["idx"], n), n)], me)
            for n in [n for ns in op["outputs"].values() for n in ns if n]:
                key = (names.home(b["idx"], n), n)
                if with_vars and key in read:  # an update of something read before (sgd -> weight): no cycle
                    g.edge(me, names.var(b["idx"], n), style="dashed", constraint="false")
                elif with_vars:
                    g.edge(me, names.var(b["idx"], n))
                writer[key] = me
            labels = _SUB_LABELS.get(op["type"], ())
            for k, idx in enumerate(op["sub_blocks"]):
                if not 0 <= idx < len(blocks):
                    continue
                sub = blocks[idx]
                first = names.op(idx, sub["ops"][0]["index"]) if sub["ops"] else names.empty(idx)
                g.edge(me, first, lhead=f"cluster_{names.dot(idx, 'block')}", style="dashed", color="#7c3aed",
                       label=dot_text(labels[k] if k < len(labels) else f"block {idx}"), fontcolor="#7c3aed")


def program_to_svg(program, id_prefix: str = "", highlight: dict | None = None,
                   max_nodes: int = MAX_PROGRAM_NODES) -> str:
    """SVG text of `program_digraph` (needs Graphviz's `dot`; a clear error says how to install it)."""
    return render_svg(program_digraph(program, id_prefix, highlight, max_nodes))
