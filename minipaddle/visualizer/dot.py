"""DOT and SVG drawings of a trace's graph views, through the graphviz package and Graphviz's `dot`.

    to_dot(trace)                      DOT source of the default view (graph.graph_view "auto")
    to_dot(trace, view="backward")     ... or of "forward", "backward", "both", "layers"
    to_svg(trace)                      SVG text; needs the `dot` program (apt/conda/brew install graphviz)
    to_digraph(trace)                  the graphviz.Digraph itself, to tweak or render elsewhere

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
    children: dict = {}
    for c in v.clusters:
        children.setdefault(c.parent, []).append(c)
    members: dict = {}
    for n in v.nodes:
        members.setdefault(n.cluster, []).append(n)

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
