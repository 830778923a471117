"""Static Programs in the trace document: programs, pass diffs and recorded Executor runs.

Three sections of the document (schema `$defs` program, passDiff, programRun) come from here:

    programs       each Program as data: blocks, variables, ops (slots, JSON-safe attrs, sub-blocks,
                   role, the user's source line); ids "P0", "P1", ...
    pass_diffs     one entry per pass `apply_passes` ran: its PassReport plus the ids of the
                   programs before and after it, so a viewer draws both and highlights the change
    program_runs   one entry per `Executor.run` made while a recorder listened: the feeds, every op
                   executed (in order, a while body once per iteration) with its time and output
                   summaries, and the fetches

    doc = show_program(main, passes=True)          # a MIME bundle: the document + an SVG fallback
    col = ProgramCollector()
    col.add(main, "main", "main")                  # -> "P0"
    program, report = apply_passes(main, fetch_list=[loss])
    pass_diffs_section(report, col)                # -> the pass_diffs entries; programs added to col

While `paddle.debug.record()` (or `%%paddle_trace`) is on, `install()` (called by the package) lets
the TraceBuilder handle the executor's instrument events and the "pass_applied" event with the
handlers below; `trace.build_document` writes what they kept. Tensor summaries use the recorder's
own machinery and byte budget.
"""
from __future__ import annotations

import linecache
import sys
import time
import weakref
from collections import deque
from typing import TYPE_CHECKING, Any

import numpy as np

from ..framework.errors import invalid_argument
from .summary import jsonable, summarize, summary_to_json, values_to_json

if TYPE_CHECKING:
    from ..framework.instrument import Event

ROLES = ("main", "startup", "pass", "inference", "dy2static")
MAX_RUNS = 20           # Executor runs kept in one recording (the newest: older ones are dropped first when
                        # the byte budget runs out too, and counted)
MAX_RUN_STEPS = 2000    # ops listed per run (the rest are counted in steps_dropped)
MAX_PROGRAMS = 64       # programs kept in one recording
SUMMARY_BYTES = 1100    # what one tensor summary costs the recorder's budget (builder.STATE_BYTES)
OP_BYTES = 200          # one op of a program as JSON, about
STEP_BYTES = 300


# ---- one Program as data -----------------------------------------------------------------------

def source_of(source: str | None) -> dict | None:
    """`"file.py:12"` (what static ops keep) -> {"file", "line", "code"}, plus "cell" (its execution
    count) when the file is a notebook cell; None when unknown."""
    if not source or not isinstance(source, str):
        return None
    path, _, line = source.rpartition(":")
    if not path or not line.isdigit():
        return {"file": source, "line": 0, "code": ""}
    code = linecache.getline(path, int(line)).strip()
    out = {"file": path, "line": int(line), "code": code}
    cell = cell_of(path)
    if cell is not None:
        out["cell"] = cell
    return out


def cell_of(path: str) -> int | None:
    """The execution count of the notebook cell compiled from file `path` ("In [7]" -> 7), or None.

    IPython (>= 8) compiles each cell into a temporary file and maps its name to the execution count
    (`get_ipython().compile._filename_map`); outside IPython -- not even imported -- this is None.
    """
    ipython = sys.modules.get("IPython")
    get_ipython = getattr(ipython, "get_ipython", None)
    shell = get_ipython() if callable(get_ipython) else None
    names = getattr(getattr(shell, "compile", None), "_filename_map", None)
    number = names.get(path) if isinstance(names, dict) else None
    return number if isinstance(number, int) and not isinstance(number, bool) and number >= 0 else None


def _attr_json(value: Any) -> Any:
    from ..framework.dtype import DType
    if isinstance(value, DType):
        return str(value).replace("paddle.", "")
    if isinstance(value, type) and issubclass(value, np.generic):
        return str(np.dtype(value))
    return jsonable(value)


def op_to_dict(op, index: int) -> dict:
    """One Operator as the document's `programOp`."""
    return {"index": index, "type": op.type,
            "inputs": {k: list(v) for k, v in op.inputs.items()},
            "outputs": {k: list(v) for k, v in op.outputs.items()},
            "attrs": {str(k): _attr_json(v) for k, v in op.attrs.items()},
            "sub_blocks": [int(i) for i in op.sub_blocks], "role": str(op.role or "forward"),
            "source": source_of(op.source)}


def var_to_dict(v) -> dict:
    return {"name": v.name, "shape": [int(d) for d in v._data.shape], "dtype": str(v._data.dtype),
            "persistable": bool(v.persistable), "stop_gradient": bool(v.stop_gradient),
            "is_parameter": bool(v.is_parameter), "is_data": bool(v.is_data)}


def program_to_dict(program, id: str, name: str, role: str, origin: dict | None = None) -> dict:  # noqa: A002
    """`program` as a `programs` entry of the trace document.

    id: "P<n>", unique in the document; name: a label ("main", "after fuse_elementwise");
    role: "main", "startup", "pass", "inference" or "dy2static"; origin: for dy2static programs,
    {"kind": "dy2static", "function", "file", "first_line", "original_source", "transformed_source"}.
    """
    from ..framework.static.program import Program
    if not isinstance(program, Program):
        raise invalid_argument("program_to_dict", f"program must be a static.Program, got {type(program).__name__}.")
    if not isinstance(id, str) or not id[:1] == "P" or not id[1:].isdigit():
        raise invalid_argument("program_to_dict", f"id={id!r}, expected 'P' and a number, e.g. 'P0'.")
    if role not in ROLES:
        raise invalid_argument("program_to_dict", f"role={role!r}, expected one of {', '.join(ROLES)}.")
    blocks = [{"idx": b.idx, "parent": b.parent_idx, "vars": [var_to_dict(v) for v in b.vars.values()],
               "ops": [op_to_dict(op, i) for i, op in enumerate(b.ops)]} for b in program.blocks]
    return {"id": id, "name": str(name), "role": role, "text": program.to_string(), "blocks": blocks,
            "origin": check_origin(origin)}


_ORIGIN_KEYS = {"kind": str, "function": str, "file": str, "first_line": int, "original_source": str,
                "transformed_source": str}


def check_origin(origin: dict | None) -> dict | None:
    """A dy2static origin with every key the schema asks for (a clear error otherwise)."""
    if origin is None:
        return None
    if not isinstance(origin, dict):
        raise invalid_argument("program_to_dict", f"origin must be a dict or None, got {type(origin).__name__}.")
    missing = [k for k in _ORIGIN_KEYS if k not in origin]
    if missing:
        raise invalid_argument("program_to_dict", f"origin lacks {missing}.",
                               hint=f"an origin holds {', '.join(_ORIGIN_KEYS)}.")
    for key, kind in _ORIGIN_KEYS.items():
        if not isinstance(origin[key], kind) or isinstance(origin[key], bool):
            raise invalid_argument("program_to_dict", f"origin[{key!r}] is {type(origin[key]).__name__}, "
                                                      f"expected {kind.__name__}.")
    out = {k: origin[k] for k in _ORIGIN_KEYS}
    cell = origin.get("cell")
    if cell is not None:
        if not isinstance(cell, int) or isinstance(cell, bool) or cell < 0:
            raise invalid_argument("program_to_dict", f"origin['cell'] is {cell!r}, expected an execution count.")
        out["cell"] = cell
    return out


def dy2static_origin(function) -> dict:
    """The `origin` of a program `@paddle.jit.to_static` built: the function's name, file, first
    line, its source and the converted source (`static_function.code`). `function` is the
    StaticFunction (what `to_static` returns, or `layer.forward` after decorating)."""
    import inspect
    import textwrap
    wrapped = getattr(function, "__wrapped__", None)
    if wrapped is None or not hasattr(function, "code"):
        raise invalid_argument("dy2static_origin", f"expected a StaticFunction (made by paddle.jit.to_static), got "
                                                   f"{type(function).__name__}.")
    try:
        original = textwrap.dedent(inspect.getsource(wrapped))
        path = inspect.getsourcefile(wrapped) or wrapped.__code__.co_filename
    except (OSError, TypeError):
        original, path = "", wrapped.__code__.co_filename
    origin = {"kind": "dy2static", "function": wrapped.__qualname__, "file": path,
              "first_line": int(wrapped.__code__.co_firstlineno), "original_source": original,
              "transformed_source": function.code}
    cell = cell_of(path)
    if cell is not None:
        origin["cell"] = cell
    return origin


def _same_program(a: dict, b: dict) -> bool:
    return a["blocks"] == b["blocks"] and a["origin"] == b["origin"]


class ProgramCollector:
    """The `programs` and `pass_diffs` of one document: a Program is written once per version
    (by identity and `_version`); a pass whose output equals its input reuses the input's id."""

    def __init__(self, max_programs: int = MAX_PROGRAMS) -> None:
        self.programs: list[dict] = []
        self.pass_diffs: list[dict] = []
        self.max_programs = max_programs
        self.dropped = 0                 # programs not kept (max_programs reached)
        self._ids: dict[int, tuple] = {}  # id(program) -> (weakref, version, pid)
        self._by_id: dict[str, dict] = {}

    def find(self, program) -> str | None:
        entry = self._ids.get(id(program))
        if entry is not None and entry[0]() is program and entry[1] == program._version:
            return entry[2]
        return None

    def add(self, program, name: str, role: str, origin: dict | None = None, same_as: str | None = None) -> str | None:
        """The id of `program` in this document, adding it if new (None past max_programs).
        `same_as`: an id whose entry this program may equal (then that id is reused)."""
        pid = self.find(program)
        if pid is not None:
            return pid
        if len(self.programs) >= self.max_programs:
            self.dropped += 1
            return None
        pid = f"P{len(self.programs)}"
        entry = program_to_dict(program, pid, name, role, origin)
        if same_as in self._by_id and _same_program(entry, self._by_id[same_as]):
            pid = same_as
        else:
            self.programs.append(entry)
            self._by_id[pid] = entry
        self._ids[id(program)] = (weakref.ref(program), program._version, pid)
        return pid

    def rename(self, pid: str, name: str, role: str) -> None:
        """Give a program already in the document the name (and role) its builder announced later."""
        entry = self._by_id.get(pid)
        if entry is not None:
            entry.update(name=name, role=role)

    def add_pass(self, name: str, report, before, after, step: int | None = None) -> dict | None:
        """A `pass_diffs` entry for one pass (its report and the programs around it)."""
        role = _role_of(before)
        before_id = self.add(before, role, role)
        after_id = self.add(after, f"after {name}", "pass", same_as=before_id)
        if before_id is None or after_id is None:
            return None
        if step is None:  # its place in its pipeline: a pass reading the last one's output goes on from it
            last = self.pass_diffs[-1] if self.pass_diffs else None
            step = last["step"] + 1 if last is not None and last["after"] == before_id else 0
        entry = pass_diff(report, before_id, after_id, step)
        self.pass_diffs.append(entry)
        return entry

    def sections(self) -> dict:
        return {"programs": list(self.programs), "pass_diffs": list(self.pass_diffs)}


def _plain(value: Any) -> Any:
    """Lists and dicts copied whole (a pass may remove hundreds of ops), anything else made JSON-safe."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return jsonable(value)


def pass_diff(report, before: str, after: str, step: int) -> dict:
    """PassReport.to_dict() with the two program ids, every value JSON-safe."""
    d = report.to_dict()
    return {"pass": d["pass"], "step": int(step), "before": before, "after": after, "summary": str(d["summary"]),
            "changed": bool(d["changed"]), "time_ms": float(d["time_ms"]), "ops_before": int(d["ops_before"]),
            "ops_after": int(d["ops_after"]), "removed": _plain(d["removed"]), "added": _plain(d["added"]),
            "fused": _plain(d["fused"]), "details": _plain(d["details"])}


def _role_of(program) -> str:
    """startup (the default one, or a program whose ops only initialize persistable variables),
    inference (cloned for_test or loaded for inference), else main."""
    from ..framework.static.builder import default_startup_program
    if program is default_startup_program():
        return "startup"
    if getattr(program, "_is_test", False):
        return "inference"
    block = program.global_block()
    if block.ops and not any(v.is_data for v in block.vars.values()) and all(
            not op.sub_blocks and op.output_names() and all(
                (v := block.vars.get(n)) is not None and v.persistable for n in op.output_names())
            for op in block.ops):
        return "startup"
    return "main"


def pass_diffs_section(report, collector: ProgramCollector | None = None, program=None) -> dict:
    """`apply_passes`' report (each PassReport keeps the program it made) as document sections:
    {"programs": [...], "pass_diffs": [...]}. `program`: the input program, when the report does
    not know it."""
    col = ProgramCollector() if collector is None else collector
    current = program if program is not None else getattr(report, "input_program", None)
    if current is None:
        raise invalid_argument("pass_diffs_section", "the report does not know the program the passes started "
                                                     "from.", hint="pass program=<the input Program>.")
    for p in report.passes:
        after = getattr(p, "program", None)
        if after is None:
            raise invalid_argument("pass_diffs_section", f"pass {p.name!r} kept no output program.")
        col.add_pass(p.name, p, current, after)
        current = after
    return col.sections()


# ---- recording Executor runs (the TraceBuilder's handlers) ------------------------------------

def tensor_summary(builder, array) -> dict:
    """The document's `tensorSummary` of an array, kept within the recorder's budget."""
    a = array if type(array) is np.ndarray else np.asarray(array)
    s = summarize(a)
    values, omitted, nbytes = builder.values_for(a)
    builder.values_bytes += nbytes
    builder.bytes_used += SUMMARY_BYTES + nbytes
    return {"shape": [int(d) for d in a.shape], "dtype": str(a.dtype), "summary": summary_to_json(s),
            "values": None if values is None else values_to_json(values, s.has_nan_inf), "values_omitted": omitted}


class ProgramRecording:
    """What one recording kept of static programs: a ProgramCollector and the newest MAX_RUNS runs."""

    def __init__(self) -> None:
        self.collector = ProgramCollector()
        self.runs: deque = deque()
        self.run_bytes: deque = deque()   # (bytes, values bytes) each kept run took from the budget
        self.runs_dropped = 0
        self.run_counts: dict[str, int] = {}
        self.active: list[dict] = []      # runs in progress (innermost last)
        self.t0 = time.perf_counter_ns()

    def program_id(self, builder, program) -> str | None:
        before = len(self.collector.programs)
        pid = self.collector.add(program, _role_of(program), _role_of(program))
        builder.bytes_used += OP_BYTES * program.num_ops() * (len(self.collector.programs) - before)
        return pid

    def run_begin(self, builder, e: Event) -> None:
        pid = self.program_id(builder, e.program)
        run = {"program": pid, "run": self.run_counts.get(pid, 0),
               "feed": {str(k): tensor_summary(builder, v) for k, v in e.feed.items()},
               "steps": [], "steps_dropped": 0, "fetch": {}, "_starts": []}
        self.run_counts[pid] = run["run"] + 1
        run["_bytes"] = (builder.bytes_used, builder.values_bytes)
        self.active.append(run)

    def op(self, builder, e: Event) -> None:
        if not self.active:
            return
        run = self.active[-1]
        while builder.bytes_used >= builder.hold_bytes and self.runs:  # the budget: older runs go first
            self._drop_oldest(builder)
        if len(run["steps"]) >= MAX_RUN_STEPS or builder.bytes_used >= builder.hold_bytes:
            run["steps_dropped"] += 1
            return
        op, start = e.op, e.start_ns
        step = {"step": 0, "block": int(e.block), "op": int(e.index), "type": op.type,
                "time_ns": int(e.end_ns - start),
                "outputs": {str(k): tensor_summary(builder, v) for k, v in e.outputs.items()}}
        builder.bytes_used += STEP_BYTES
        # a control-flow op reports after its sub-blocks' ops: put it before them (execution = start order)
        starts, steps = run["_starts"], run["steps"]
        at = len(steps)
        while at > 0 and starts[at - 1] >= start:
            at -= 1
        steps.insert(at, step)
        starts.insert(at, start)

    def run_end(self, builder, e: Event) -> None:
        if not self.active:
            return
        run = self.active.pop()
        run["fetch"] = {str(k): tensor_summary(builder, v) for k, v in e.fetch.items()}
        del run["_starts"]
        bytes0, values0 = run.pop("_bytes")
        for i, step in enumerate(run["steps"]):
            step["step"] = i
        if run["program"] is None:  # past MAX_PROGRAMS: nothing to point at
            self.runs_dropped += 1
            return
        self.runs.append(run)
        self.run_bytes.append((builder.bytes_used - bytes0, builder.values_bytes - values0))
        if len(self.runs) > MAX_RUNS:
            self._drop_oldest(builder)

    def _drop_oldest(self, builder) -> None:
        """Forget the oldest kept run and give its bytes back to the budget."""
        self.runs.popleft()
        nbytes, nvalues = self.run_bytes.popleft()
        builder.bytes_used -= nbytes
        builder.values_bytes -= nvalues
        self.runs_dropped += 1
        for run in self.active:  # a run in progress measures what it adds from a baseline that just moved
            bytes0, values0 = run["_bytes"]
            run["_bytes"] = (bytes0 - nbytes, values0 - nvalues)

    def pass_applied(self, builder, e: Event) -> None:
        before = len(self.collector.programs)
        self.collector.add_pass(e.pass_name, e.report, e.before, e.after)
        added = len(self.collector.programs) - before
        builder.bytes_used += OP_BYTES * e.after.num_ops() * added

    def sections(self) -> dict:
        runs = [dict(r) for r in self.runs]
        for r in self.active:  # a run still going (a snapshot while recording): what it did so far
            runs.append({k: v for k, v in r.items() if k not in ("_starts", "_bytes")}
                        | {"steps": [dict(s, step=i) for i, s in enumerate(r["steps"])]})
        out = self.collector.sections()
        out["program_runs"] = [r for r in runs if r["program"] is not None]
        return out

    def notes(self) -> list[str]:
        notes = []
        if self.runs_dropped:
            notes.append(f"{self.runs_dropped} Executor run(s) were not kept (the newest {MAX_RUNS} are, within the "
                         "byte budget).")
        if self.collector.dropped:
            notes.append(f"{self.collector.dropped} program(s) were not kept (at most {MAX_PROGRAMS}).")
        dropped_steps = sum(r["steps_dropped"] for r in self.runs)
        if dropped_steps:
            notes.append(f"{dropped_steps} executed op(s) of recorded runs were not listed (at most {MAX_RUN_STEPS} "
                         "per run, or the byte budget was spent).")
        return notes


def recording_of(builder) -> ProgramRecording:
    rec = builder.__dict__.get("_program_recording")
    if rec is None:
        rec = builder.__dict__["_program_recording"] = ProgramRecording()
    return rec


def _on_run_begin(builder, e: Event) -> None:
    recording_of(builder).run_begin(builder, e)


def _on_executor_op(builder, e: Event) -> None:
    recording_of(builder).op(builder, e)


def _on_run_end(builder, e: Event) -> None:
    recording_of(builder).run_end(builder, e)


def _on_program_built(builder, e: Event) -> None:
    rec = recording_of(builder)
    program = e.program
    before = len(rec.collector.programs)
    role = e.role or _role_of(program)
    pid = rec.collector.add(program, e.name or role, role, e.origin)
    if e.name and pid is not None and len(rec.collector.programs) == before:
        rec.collector.rename(pid, e.name, role)  # a pass pipeline added it first, as "main"
    builder.bytes_used += OP_BYTES * program.num_ops() * (len(rec.collector.programs) - before)


def _on_pass_applied(builder, e: Event) -> None:
    recording_of(builder).pass_applied(builder, e)


HANDLERS = {"executor_run_begin": _on_run_begin, "executor_op": _on_executor_op, "executor_run_end": _on_run_end,
            "pass_applied": _on_pass_applied, "program_built": _on_program_built}


# ---- one call for a notebook ------------------------------------------------------------------------

def show_program(program=None, passes=False, feed: dict | None = None, fetch_list=None, name: str | None = None,
                 origin: dict | None = None) -> dict:
    """A notebook MIME bundle of a static Program: the trace document holding it (for the
    JupyterLab extension), an SVG drawing (text/html) and a one-line text.

    program: a static.Program (default: paddle.static.default_main_program()), or a function made by
        `paddle.jit.to_static`: its concrete_program, with the original and the converted source.
    passes: True runs `apply_passes(program, fetch_list)` (or a list of pass names / a BuildStrategy)
        and adds every intermediate program and each pass's diff.
    feed: with a feed, the (optimized) program is also run once and recorded op by op -- in a copy of
        the global scope, so the user's parameters and optimizer state stay as they were.
    origin: for a dy2static program, where it came from (see program_to_dict).

        from IPython.display import display
        display(paddle.visualizer.show_program(main, passes=True, fetch_list=[loss]), raw=True)
    """
    from ..framework.static.builder import default_main_program
    from ..framework.static.program import Program
    from .bundle import program_bundle
    program = default_main_program() if program is None else program
    if hasattr(program, "concrete_program") and hasattr(program, "__wrapped__"):  # a to_static function
        origin = dy2static_origin(program) if origin is None else origin
        name = name or f"to_static: {origin['function']}"
        program = program.concrete_program.main_program
    if not isinstance(program, Program):
        raise invalid_argument("show_program", f"program must be a static.Program or a to_static function, got "
                                               f"{type(program).__name__}.")
    col = ProgramCollector()
    role = "dy2static" if origin is not None else _role_of(program)
    col.add(program, name or role, role, origin)
    target = program
    if passes is not False and passes is not None:
        from ..framework.static.passes import apply_passes
        target, report = apply_passes(program, fetch_list=fetch_list, passes=None if passes is True else passes)
        pass_diffs_section(report, col, program=program)
    runs: list = []
    if feed is not None:
        runs = _record_run(target, col, feed, fetch_list)
    from .trace import program_document
    return program_bundle(program_document(**col.sections(), program_runs=runs))


def _record_run(program, col: ProgramCollector, feed: dict, fetch_list) -> list:
    """Run `program` once in a scratch copy of the global scope, recording each op."""
    from ..framework import instrument
    from ..framework.static.executor import Executor, Scope, global_scope
    from .builder import TraceBuilder
    builder = TraceBuilder(values="small", backward=False)
    rec = recording_of(builder)
    rec.collector = col
    scratch = Scope()
    scratch._vars.update({k: np.array(v, copy=True) for k, v in global_scope().values().items()})
    unsubscribe = instrument.subscribe(builder.on_event, kinds=TraceBuilder.KINDS)
    try:
        Executor().run(program, feed=feed, fetch_list=fetch_list, scope=scratch)
    finally:
        unsubscribe()
    return rec.sections()["program_runs"]


def _outside_static_runs(on_op):
    """The recorder's "op" handler, skipping eager ops a static op runs inside Executor.run (a
    backward_rule's formula, an update rule): they are part of that op's step in program_runs."""
    if getattr(on_op, "_skips_static_runs", False):
        return on_op

    def handler(builder, e: Event) -> None:
        rec = builder.__dict__.get("_program_recording")
        if rec is not None and rec.active:
            return
        on_op(builder, e)
    handler._skips_static_runs = True
    return handler


def install(handlers: dict) -> None:
    """Add this module's handlers to a TraceBuilder's handler table (builder.py calls it once)."""
    for kind, fn in HANDLERS.items():
        handlers.setdefault(kind, fn)
    if "op" in handlers:
        handlers["op"] = _outside_static_runs(handlers["op"])


__all__ = ["ProgramCollector", "ProgramRecording", "dy2static_origin", "install", "op_to_dict", "pass_diff",
           "pass_diffs_section", "program_to_dict", "show_program", "source_of", "tensor_summary"]
