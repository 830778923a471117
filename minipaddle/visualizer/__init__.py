"""minipaddle.visualizer: the trace document the debugger shows, and the tools that read it.

    with paddle.debug.record() as rec:      # records into a TraceBuilder
        loss = model(x).mean()
        loss.backward()
    trace = rec.trace                       # a Trace: to_dict(), to_json(), save(path), Trace.load(path)

`trace.py` defines the document (and `schema/trace.schema.json` its JSON Schema), `builder.py`
turns instrument events into it (with its id table, `id_table.py`, its step ring, `step_ring.py`, and
the tensors' states, `tensor_states.py`), `summary.py` summarizes tensors, `program.py` writes static
Programs, pass diffs and Executor runs into it (`show_program(main, passes=True)` displays one).
Importing this package does not import numba; the first summary does.
"""
from __future__ import annotations

from .builder import TraceBuilder
from .dot import to_dot, to_svg
from .graph import GraphView, backward_graph, combined_graph, forward_graph, graph_view, layer_graph
from .html import save_html, to_html
from .program import pass_diffs_section, program_to_dict, show_program
from .summary import Summary, summarize
from .trace import SCHEMA_PATH, SCHEMA_VERSION, Trace, dangling_references, load_schema

__all__ = ["SCHEMA_PATH", "SCHEMA_VERSION", "GraphView", "Summary", "Trace", "TraceBuilder", "backward_graph",
           "combined_graph", "dangling_references", "forward_graph", "graph_view", "layer_graph", "load_schema",
           "pass_diffs_section", "program_to_dict", "save_html", "show_program", "summarize", "to_dot", "to_html",
           "to_svg"]
