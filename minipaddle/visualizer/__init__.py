"""minipaddle.visualizer: the trace document the debugger shows, and the tools that read it.

    with paddle.debug.record() as rec:      # records into a TraceBuilder
        loss = model(x).mean()
        loss.backward()
    trace = rec.trace                       # a Trace: to_dict(), to_json(), save(path), Trace.load(path)

`trace.py` defines the document (and `schema/trace.schema.json` its JSON Schema), `builder.py`
turns instrument events into it, `summary.py` summarizes tensors. Importing this package does
not import numba; the first summary does.
"""
from __future__ import annotations

from .builder import TraceBuilder
from .summary import Summary, summarize
from .trace import SCHEMA_PATH, SCHEMA_VERSION, Trace, dangling_references, load_schema

__all__ = ["SCHEMA_PATH", "SCHEMA_VERSION", "Summary", "Trace", "TraceBuilder", "dangling_references",
           "load_schema", "summarize"]
