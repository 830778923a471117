"""IdTable: the trace ids a recording gives live objects -- tensors ("t7"), grad nodes ("g9") -- and new ids.

A recording never keeps a tensor alive, yet must know it again when the next op reads it. So
each table maps id(obj) to (weak reference, trace id): the weak reference tells a recycled id()
of a dead object from the object itself (a new tensor never inherits a dead one's trace id), and
the table holds nothing alive. Entries of dead objects are swept out whenever a table has
doubled, with no callback per object (a callback per tensor would cost more than the sweep).

    ids = IdTable()
    tid = ids.new_id("t")                   # "t1"
    ids.remember(ids.tensors, x, tid)
    ids.lookup(ids.tensors, x)              # "t1" while x lives
"""
from __future__ import annotations

import itertools
import weakref

SWEEP_MIN = 1024  # tables are swept of dead objects' entries from this size on


class IdTable:
    """The id(obj) -> (weakref, trace id) tables of one recording, and its id counters."""

    def __init__(self) -> None:
        self.tensors: dict[int, tuple] = {}    # id(tensor) -> (weakref, tid)
        self.nodes: dict[int, tuple] = {}      # id(grad node) -> (weakref, gid)
        self.output_of: dict[tuple, str] = {}  # (gid, output index) -> tid of that forward output
        self.sweep_at = SWEEP_MIN              # remember() sweeps a table beyond this size
        # the next number of each kind of id ("t7", "s31", ...): t tensor, s state, n op node, g grad node, u update
        self._counters = {prefix: itertools.count(1).__next__ for prefix in "tsngu"}
        self.next_t, self.next_s = self._counters["t"], self._counters["s"]  # the hot ones, bound once

    def new_id(self, prefix: str) -> str:
        return f"{prefix}{self._counters[prefix]()}"

    def lookup(self, table: dict, obj) -> str | None:
        """The trace id `table` (tensors or nodes) gives `obj`, or None."""
        entry = table.get(id(obj))
        if entry is not None and entry[0]() is obj:
            return entry[1]
        return None

    def remember(self, table: dict, obj, trace_id: str) -> None:
        """Map id(obj) to `trace_id` in `table`."""
        table[id(obj)] = (weakref.ref(obj), trace_id)
        if len(table) > self.sweep_at:
            self.sweep(table)

    def sweep(self, table: dict) -> None:
        """Drop the entries of dead objects; the next sweep waits until the table has doubled."""
        for key in [key for key, entry in table.items() if entry[0]() is None]:
            del table[key]
        self.sweep_at = max(SWEEP_MIN, 2 * len(table))

    def trace_id_of(self, obj, kept: dict) -> str | None:
        """The trace id of a live Tensor or GradNode if `kept` (the recording's records) still holds it;
        an op's output is found through the grad node that made it (an in-place op's result is a new
        tensor object standing for the same value)."""
        if hasattr(obj, "next_edges") or hasattr(obj, "tensor_ref"):  # a GradNode / AccumulateGrad
            gid = self.lookup(self.nodes, obj)
            return gid if gid in kept else None
        if getattr(obj, "_node", None) is not None:
            gid = self.lookup(self.nodes, obj._node)
            tid = self.output_of.get((gid, obj._out_index)) if gid else None
            if tid in kept:
                return tid
        tid = self.lookup(self.tensors, obj)
        return tid if tid in kept else None
