"""Buffer reuse (Paddle's memory_optimize / enable_inplace): which temporaries can share memory.

Liveness analysis on the global block: a temporary is live from the op that writes it to the last
op that reads it (a read inside a control-flow sub-block counts for the control-flow op). Walking
the ops in order, each new temporary takes a free buffer of the same shape and dtype if one is
free, else a new one; a buffer frees *after* its last reader ran (an op's output never shares its
own input's memory). Fetched, persistable and fed variables, and variables written more than once,
keep their own memory.

The result is a plan -- `{variable: buffer}` and the bytes saved -- in the report's details and on
the returned program as `program._buffer_plan`. The Executor does not act on it: its kernels
allocate their own outputs (acting on the plan would need kernels that write into a given `out=`
array), so this pass changes no op; the report says how much memory the plan would save. Sizes of
-1 (batch) dims are counted as `batch_size`.
"""
from __future__ import annotations

import math

from ..program import Program
from .common import fetch_names, op_reads, protected, readers, run_pass, writers
from .report import PassReport


def buffer_reuse(program: Program, fetch_list=None, batch_size: int = 1) -> tuple[Program, PassReport]:
    """`program` (ops unchanged) with a liveness-based buffer sharing plan; the input is unchanged."""
    return run_pass("buffer_reuse", _plan, program, fetch_names(fetch_list), batch_size=batch_size)


def _nbytes(var, batch_size: int) -> int:
    shape = [batch_size if d == -1 else d for d in var._data.shape]
    return int(math.prod(shape)) * var._data.dtype.itemsize


def _plan(program: Program, report: PassReport, fetched, batch_size: int) -> None:
    block = program.global_block()
    written, read_by = writers(block), readers(block)
    last_use = {}
    for name, ws in written.items():
        var = block.vars.get(name)
        if var is None or len(ws) != 1 or protected(block, name, fetched):
            continue
        if fetched is None and not read_by.get(name):
            continue  # without a fetch_list a leaf may be fetched
        last_use[name] = max(read_by.get(name, ws))
    free: dict[tuple, list[str]] = {}
    alias: dict[str, str] = {}
    buffer_bytes: dict[str, int] = {}
    for i, op in enumerate(block.ops):
        for name in op.output_names():
            if name not in last_use or name in alias:
                continue
            var = block.vars[name]
            key = (var._data.shape, var._data.dtype.str)
            pool = free.get(key)
            if pool:
                alias[name] = pool.pop()
            else:
                alias[name] = name
                buffer_bytes[name] = _nbytes(var, batch_size)
        for name in op_reads(program, op) | set(op.output_names()):
            if last_use.get(name) == i and name in alias:
                var = block.vars[name]
                free.setdefault((var._data.shape, var._data.dtype.str), []).append(alias[name])
    total = sum(_nbytes(block.vars[n], batch_size) for n in alias)
    kept = sum(buffer_bytes.values())
    shared = {n: b for n, b in alias.items() if n != b}
    report.details = {"alias": shared, "buffers": len(buffer_bytes), "temporaries": len(alias),
                      "bytes_without_reuse": total, "bytes_with_reuse": kept, "bytes_saved": total - kept,
                      "batch_size": batch_size, "applied_by_executor": False}
    program._buffer_plan = report.details
    report.summary = (f"{len(shared)} of {len(alias)} temporaries reuse a buffer: {len(buffer_bytes)} buffers, "
                      f"{total - kept} bytes saved at batch {batch_size} (a plan; the Executor allocates as before)")
