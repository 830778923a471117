"""The `profile` section of the trace document: what the extension's profile view draws.

    doc["profile"] = profile_section(result)

It holds the op table (rows with kernels under them), the Model phases, the ProfileSteps and a
bounded list of spans for the timeline (lane, name, times, and the op's node id so a click on a
slice can select the node in the graph view); a GPU op adds a span on the gpu lane, from its start
for its time on the device, named by its kernels. Times are ns from the window's start. Its shape is
`$defs/profile` in visualizer/schema/trace.schema.json.
"""
from __future__ import annotations

from .collector import B_END, B_FORWARD, B_INNER, B_NAME, B_START, END, EXTRA, KERNEL, LAYER, NAME, NODE, PHASE, \
    START, host_reuse
from .summary import Stat, forward_segments, gpu_span_name, model_stats, operator_stats

MAX_SPANS = 20_000
_PHASE_LANE = {"forward": "forward", "backward": "backward", "optimization": "optimizer", "dataloader": "dataloader"}


def _stat_json(name: str, s: Stat) -> dict:
    return {"name": name, "calls": s.calls, "total_ns": int(s.total), "avg_ns": int(s.avg), "max_ns": int(s.max),
            "min_ns": int(s.min)}


def profile_section(result, max_spans: int = MAX_SPANS) -> dict:
    c = result.collector
    t0 = c.t0
    spans: list = []
    total = 0

    def add(lane: str, name: str, cat: str, start: int, end: int, node=None, forward_node=None, layer=None,
            kernel=None) -> None:
        nonlocal total
        total += 1
        if len(spans) < max_spans:
            spans.append({"lane": lane, "name": name, "cat": cat, "start_ns": start - t0, "end_ns": end - t0,
                          "node": node, "forward_node": forward_node, "layer": layer, "kernel": kernel})

    for index, start, end, _ in c.steps:
        add("python", f"ProfileStep#{index}", "ProfileStep", start, end)
    for name, kind, start, end in c.user_events:
        add("python", name, kind, start, end)
    for phase, name, start, end in c.phase_spans:
        add(_PHASE_LANE[phase], name, phase.capitalize(), start, end)
    for start, end in forward_segments(c):
        add("forward", "Forward", "Forward", start, end)
    for fn, _, start, end in c.compiles:
        add("numba-jit", f"compile {fn}", "NumbaJIT", start, end)
    def add_gpu(op: list, forward_node=None) -> None:
        gpu_ns = (op[EXTRA] or {}).get("gpu_ns")
        if gpu_ns is not None:  # the op's kernels on the device, from its start
            add("gpu", gpu_span_name(op), "Kernel", op[START], op[START] + gpu_ns, node=op[NODE],
                forward_node=forward_node, layer=op[LAYER], kernel=op[KERNEL])

    for op in c.ops:
        add(_PHASE_LANE[op[PHASE]], op[NAME], "Operator", op[START], op[END], node=op[NODE], layer=op[LAYER],
            kernel=op[KERNEL])
        add_gpu(op)
        for inner in (op[EXTRA] or {}).get("program_ops", ()):  # a run_program's Program, op by op
            add(_PHASE_LANE[op[PHASE]], inner[NAME], "OperatorInner", inner[START], inner[END], node=op[NODE],
                kernel=inner[KERNEL])
    for b in c.backward:
        add("backward", b[B_NAME], "Backward", b[B_START], b[B_END], forward_node=b[B_FORWARD])
        for inner in b[B_INNER]:
            add("backward", inner[NAME], "OperatorInner", inner[START], inner[END], forward_node=b[B_FORWARD],
                kernel=inner[KERNEL])
            add_gpu(inner, b[B_FORWARD])
    return {
        "generator": "minipaddle.profiler",
        "settings": {"record_shapes": result.record_shapes, "profile_memory": result.profile_memory,
                     "with_flops": result.with_flops},
        "duration_ns": int(c.t_end - t0),
        "steps": [{"index": i, "start_ns": s - t0, "end_ns": e - t0, "num_samples": n} for i, s, e, n in c.steps],
        "phases": [_stat_json(n, s) for n, s in model_stats(c).items()],
        "ops": _op_rows(result),
        "spans": spans,
        "spans_dropped": total - len(spans),
        "memory": _memory(result, max_spans),
        "errors": list(c.errors) + c.notes(),
    }


def _op_rows(result) -> list:
    """The op table: a row per op and grad node, its kernels (or its rule's ops) under it."""
    rows = []
    for name, stat in sorted(operator_stats(result.collector, False).items(), key=lambda kv: -kv[1].total):
        row = _stat_json(name, stat)
        row["flops"] = int(stat.flops) if result.with_flops and stat.flops else None
        row["children"] = [_stat_json(n, s) for n, s in sorted(stat.children.items(), key=lambda kv: -kv[1].total)]
        rows.append(row)
    return rows


def _memory(result, max_spans: int) -> dict | None:
    """The memory line and totals, when the profiler recorded memory."""
    if not result.profile_memory:
        return None
    c = result.collector
    allocated = int(sum((o[EXTRA] or {}).get("bytes", 0) for o in c.ops)
                    + sum((i[EXTRA] or {}).get("bytes", 0) for b in c.backward for i in b[B_INNER]))
    return {"peak_bytes": int(c.peak_bytes), "freed_bytes": int(c.freed_bytes), "allocated_bytes": allocated,
            "samples": [[int(t - c.t0), int(v)] for t, v in c.memory[:max_spans]],
            "device": {str(device): pool for device, pool in sorted(c.device_memory.items())},
            "host": None if c.host_memory is None else {**c.host_memory,
                                                         "reuse_rate": host_reuse(c.host_memory, allocated)}}
