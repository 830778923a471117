"""A profile as Chrome trace JSON (opens in Perfetto, chrome://tracing): one lane per kind of work.

    prof = Profiler(on_trace_ready=export_chrome_tracing("./log"))    # a file per recorded window
    prof.export("step.json")                                           # or one file by hand

Lanes (threads of one process): python (ProfileSteps and RecordEvents), forward, backward,
optimizer, numba-jit, dataloader, gpu. Each op is a complete event ("X") whose args carry its node id
("n4", as the trace document's graph names it), layer path and kernel; a flow arrow links each
forward op to the grad node that ran for it in backward. A GPU op also gets a span on the gpu lane
from its start for its time on the device (CUDA events), named by its kernels, and a flow arrow
from its CPU span to it (the launch linked to its kernel). With profile_memory a counter track
shows the bytes of live op outputs. Times are microseconds from the window's start.
"""
from __future__ import annotations

import datetime
import json
import os
import socket
from pathlib import Path
from typing import Callable

from ..framework.errors import invalid_argument
from .collector import B_END, B_FORWARD, B_FORWARD_INDEX, B_INNER, B_NAME, B_START, END, EXTRA, KERNEL, LAYER, \
    NAME, NODE, PHASE, START
from .summary import all_ops, forward_segments, gpu_span_name

__all__ = ["chrome_trace", "export_chrome_tracing", "LANES"]

LANES = {"python": 1, "forward": 2, "backward": 3, "optimizer": 4, "numba-jit": 5, "dataloader": 6, "gpu": 7}
_PHASE_LANE = {"forward": "forward", "backward": "backward", "optimization": "optimizer", "dataloader": "dataloader"}
PID = 1


def chrome_trace(result) -> dict:
    """The Chrome trace document of one recorded window."""
    c = result.collector
    t0 = c.t0

    def us(ns: int) -> float:
        return round((ns - t0) / 1000.0, 3)

    events: list = [{"ph": "M", "name": "process_name", "pid": PID, "args": {"name": "minipaddle"}}]
    for lane, tid in LANES.items():
        events.append({"ph": "M", "name": "thread_name", "pid": PID, "tid": tid, "args": {"name": lane}})
        events.append({"ph": "M", "name": "thread_sort_index", "pid": PID, "tid": tid, "args": {"sort_index": tid}})

    def span(name: str, cat: str, lane: str, start: int, end: int, args: dict | None = None) -> dict:
        event = {"name": name, "cat": cat, "ph": "X", "ts": us(start), "dur": round((end - start) / 1000.0, 3),
                 "pid": PID, "tid": LANES[lane]}
        if args:
            event["args"] = args
        events.append(event)
        return event

    for index, start, end, samples in c.steps:
        span(f"ProfileStep#{index}", "ProfileStep", "python", start, end, {"num_samples": samples})
    for name, kind, start, end in c.user_events:
        span(name, kind, "python", start, end)
    for phase, name, start, end in c.phase_spans:
        span(name, phase.capitalize(), _PHASE_LANE[phase], start, end)
    for start, end in forward_segments(c):
        span("Forward", "Forward", "forward", start, end)
    for fn, signature, start, end in c.compiles:
        span(f"compile {fn}", "NumbaJIT", "numba-jit", start, end, {"signature": signature})
    for op in c.ops:
        span(op[NAME], "Operator", _PHASE_LANE[op[PHASE]], op[START], op[END], _op_args(op))
        for inner in (op[EXTRA] or {}).get("program_ops", ()):  # a run_program's Program, op by op
            span(inner[NAME], "OperatorInner", _PHASE_LANE[op[PHASE]], inner[START], inner[END], _op_args(inner))
    for flow_id, b in enumerate(c.backward, start=1):
        span(b[B_NAME], "Backward", "backward", b[B_START], b[B_END], {"forward_node": b[B_FORWARD]})
        for inner in b[B_INNER]:
            span(inner[NAME], "OperatorInner", "backward", inner[START], inner[END], _op_args(inner))
        if b[B_FORWARD_INDEX] is not None:  # the arrow: forward op -> its grad node
            op = c.ops[b[B_FORWARD_INDEX]]
            lane = LANES[_PHASE_LANE[op[PHASE]]]
            events.append({"ph": "s", "id": flow_id, "name": "grad", "cat": "flow", "pid": PID, "tid": lane,
                           "ts": us(op[START])})
            events.append({"ph": "f", "bp": "e", "id": flow_id, "name": "grad", "cat": "flow", "pid": PID,
                           "tid": LANES["backward"], "ts": us(b[B_START])})
    _gpu_spans(c, events, span, us)
    for ts, live in c.memory:
        events.append({"ph": "C", "name": "memory", "pid": PID, "ts": us(ts), "args": {"live_bytes": live}})
    return {"traceEvents": events, "displayTimeUnit": "ms",
            "otherData": {"generator": "minipaddle.profiler", "steps": len(c.steps), "errors": list(c.errors)}}


def _gpu_spans(c, events: list, span: Callable, us: Callable) -> None:
    """Each GPU op's kernels on the gpu lane, from the op's start for its device time, and the arrow
    from the op's CPU span to them (flow ids after the grad arrows')."""
    flow_id = len(c.backward)
    for op in all_ops(c):
        extra = op[EXTRA] or {}
        if "gpu_ns" not in extra:
            continue
        flow_id += 1
        start = us(op[START])
        span(gpu_span_name(op), "Kernel", "gpu", op[START], op[START] + extra["gpu_ns"],
             {"op": op[NAME], "node": op[NODE], "kernels": extra["kernels"], "device_time_ns": extra["gpu_ns"]})
        events.append({"ph": "s", "id": flow_id, "name": "launch", "cat": "flow", "pid": PID,
                       "tid": LANES[_PHASE_LANE[op[PHASE]]], "ts": start})
        events.append({"ph": "f", "bp": "e", "id": flow_id, "name": "launch", "cat": "flow", "pid": PID,
                       "tid": LANES["gpu"], "ts": start})


def _op_args(op: list) -> dict:
    args = {"node": op[NODE], "layer": op[LAYER], "kernel": op[KERNEL]}
    extra = op[EXTRA]
    if extra:
        if "shapes" in extra:
            args["input_shapes"] = extra["shapes"]
        if "flops" in extra:
            args["flops"] = extra["flops"]
        if "bytes" in extra:
            args["bytes"] = extra["bytes"]
    return args


def write_chrome_trace(result, path: str | os.PathLike) -> str:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(chrome_trace(result)), encoding="utf-8")
    return str(path)


def export_chrome_tracing(dir_name: str, worker_name: str | None = None) -> Callable:
    """An `on_trace_ready` callback writing each recorded window to
    `dir_name/{worker_name}_time_{timestamp}.paddle_trace.json` (Paddle's file name)."""
    if not isinstance(dir_name, (str, os.PathLike)):
        raise invalid_argument("export_chrome_tracing", f"dir_name={dir_name!r}, expected a directory path.")
    worker = worker_name or f"host_{socket.gethostname()}pid_{os.getpid()}"

    def handle(prof) -> None:
        now = datetime.datetime.now().strftime("%Y_%m_%d_%H_%M_%S_%f")
        prof.export(os.path.join(dir_name, f"{worker}_time_{now}.paddle_trace.json"), format="json")
    return handle
