"""The trace document: what `paddle.debug.record()` produces and the debugger front ends read.

A `Trace` wraps one document -- plain JSON, versioned by `schema_version` and described by
`schema/trace.schema.json` (shipped in this package). The JupyterLab extension, the HTML
export and the notebook magics all read this one shape, so it is the contract between
Python and the browser. Sections:

    recording      the settings, bytes used, dropped steps, notes on anything degraded
    layers         layer scopes ("MLP", "MLP.fc1") for grouping op nodes
    tensors        one record per tensor (trace ids "t7"), with its role and its states
    states         one summary per tensor *moment* ("s31"): statistics, histogram, small values
    graph          forward (op nodes "n4", tensor edges) and backward (grad nodes "g9", gradient
                   edges), cross-linked: node.grad_node <-> grad_node.forward_node
    steps          everything in the order it happened (op, backward_step, hook,
                   optimizer_update): scrub through it; each step names its node and states
    optimizer_updates, nan_inf, timings
    iterations     (1.2) a training loop as iterations: first/last step, structure id (iterations with
                   equal structure ran the same steps), loss, gradient norm, update ratio
    health         (1.2) per leaf layer and per updated parameter, one number per iteration:
                   activation mean/std/saturation, gradient std, weight and update norms
    autotune       the kernel autotuner's decisions seen while recording (each tuned op node also
                   carries its own, kernel.tuning: candidates, their times, the winner)
    programs       static Programs ("P0": blocks, vars, ops with source lines), see program.py
    pass_diffs     each compiler pass applied: its report and the programs before and after it
    program_runs   Executor.run calls made while recording: feeds, each op executed, fetches
    profile, extensions   the profiler's window; free-form additions

Compatibility: `schema_version` is "MAJOR.MINOR". A minor version only adds optional fields;
readers ignore fields they do not know and refuse a major version they do not know.
Names from user code (layer and tensor names) are stored raw; renderers escape them.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from ..framework.errors import invalid_argument
from .summary import round_significant, summary_to_json, values_to_json

SCHEMA_VERSION = "1.5"
FORMAT = "minipaddle.trace"
SCHEMA_PATH = Path(__file__).resolve().parent / "schema" / "trace.schema.json"
_schema_cache: dict | None = None
_MARK = "\x00minipaddle section "  # stands for a section to be spliced in by Trace._spliced_json


MAX_LOAD_BYTES = 1 << 30  # Trace.load refuses larger files unless told otherwise
_compiled: object | None = None


def _compiled_schema():
    """The schema as a compiled validator (fastjsonschema: ~20x faster than jsonschema on a 3 MB document).
    The schema uses only keywords draft 7 shares with draft 2020-12 ($defs are reached by JSON pointer)."""
    global _compiled
    if _compiled is None:
        import fastjsonschema
        _compiled = fastjsonschema.compile({**load_schema(), "$schema": "http://json-schema.org/draft-07/schema#"})
    return _compiled


def load_schema() -> dict:
    """The JSON Schema (draft 2020-12) of the trace document, as a dict."""
    global _schema_cache
    if _schema_cache is None:
        _schema_cache = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return _schema_cache


class Trace:
    """One trace document. `to_dict()` is the document itself; `save`/`load` round-trip it as JSON.

    >>> with paddle.debug.record() as rec:          # doctest: +SKIP
    ...     loss = model(x).mean(); loss.backward()
    >>> rec.trace.first_nan_inf, len(rec.trace.steps)
    """

    def __init__(self, document: dict, texts=None) -> None:
        """`texts`: what the recorder kept of the JSON text of the document's states and steps (an
        object with states_text(states) and steps_text(steps), see doc_cache.py): to_json splices
        those in rather than encoding them again, so a live view re-encodes only what is new."""
        _check_version(document)
        self._doc = document
        self._texts = texts

    # ---- in and out ---------------------------------------------------------------------
    def to_dict(self) -> dict:
        """The document (not a copy: treat it as read-only)."""
        return self._doc

    def to_json(self, indent: int | None = None) -> str:
        """Strict JSON (no NaN/Infinity literals), UTF-8 text with names kept raw."""
        if indent is None and self._texts is not None:
            return self._spliced_json()
        separators = (",", ":") if indent is None else None
        return json.dumps(self._doc, indent=indent, separators=separators, allow_nan=False, ensure_ascii=False)

    def _spliced_json(self) -> str:
        """to_json with the states and steps sections from the recorder's texts: the rest is encoded
        with a marker in their place, then each marker is replaced by its section's text (a marker
        is a top-level string; nested "states" keys hold lists, and text inside strings has its
        quotes escaped, so the marker with its key occurs once)."""
        doc = dict(self._doc)
        parts = {"states": self._texts.states_text(doc["states"]), "steps": self._texts.steps_text(doc["steps"])}
        for key in parts:
            doc[key] = _MARK + key
        text = json.dumps(doc, separators=(",", ":"), allow_nan=False, ensure_ascii=False)
        for key, part in parts.items():
            text = text.replace(f'"{key}":' + json.dumps(_MARK + key), f'"{key}":' + part, 1)
        return text

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.write_text(self.to_json(), encoding="utf-8")
        return path

    @classmethod
    def load(cls, path: str | Path, max_bytes: int = MAX_LOAD_BYTES) -> "Trace":
        """Read a trace file. A file is untrusted input: it is checked against the schema and its ids
        against each other before anything renders it, and refused whole with a clear error when damaged."""
        path = Path(path)
        size = path.stat().st_size
        if size > max_bytes:
            raise invalid_argument("Trace.load", f"{path} is {size} bytes, more than max_bytes={max_bytes}.",
                                   hint="pass a larger max_bytes if you trust the file")
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise invalid_argument("Trace.load", f"{path} is not JSON ({exc}).") from None
        except RecursionError:
            raise invalid_argument("Trace.load", f"{path} nests deeper than any trace document.") from None
        trace = cls(document)
        trace.check(f"Trace.load({path.name})")
        return trace

    @classmethod
    def from_dict(cls, document: dict) -> "Trace":
        return cls(document)

    def check(self, api: str = "Trace.check") -> None:
        """Refuse a document that breaks the schema or points at ids it does not define: the fast check
        of a document from a file (the schema compiled once, fastjsonschema; `validate` is the reference
        check with jsonschema, used in tests)."""
        import fastjsonschema
        try:
            _compiled_schema()(self._doc)
        except fastjsonschema.JsonSchemaException as exc:
            raise invalid_argument(api, f"the document does not match the trace schema: {exc.message}") from None
        try:
            problems = dangling_references(self._doc)
        except (KeyError, TypeError) as exc:
            raise invalid_argument(api, f"the document is malformed ({type(exc).__name__}: {exc}).") from None
        if problems:
            raise invalid_argument(api, f"{len(problems)} dangling reference(s): {problems[:5]}")

    def validate(self) -> None:
        """Check the document against the JSON Schema and its internal references (needs jsonschema)."""
        try:
            import jsonschema
        except ImportError:
            raise invalid_argument("Trace.validate", "the jsonschema package is not installed.",
                                   hint="pip install jsonschema") from None
        errors = sorted(jsonschema.Draft202012Validator(load_schema()).iter_errors(self._doc), key=str)
        if errors:
            first = errors[0]
            where = "/".join(str(p) for p in first.absolute_path) or "(root)"
            raise invalid_argument("Trace.validate", f"{len(errors)} schema error(s); first at {where}: "
                                                     f"{first.message}")
        problems = dangling_references(self._doc)
        if problems:
            raise invalid_argument("Trace.validate", f"{len(problems)} dangling reference(s): {problems[:5]}")

    # ---- reading ------------------------------------------------------------------------
    @property
    def schema_version(self) -> str:
        return self._doc["schema_version"]

    @property
    def steps(self) -> list[dict]:
        return self._doc["steps"]

    @property
    def nodes(self) -> list[dict]:
        """The forward graph's op nodes, in the order they ran."""
        return self._doc["graph"]["forward"]["nodes"]

    @property
    def grad_nodes(self) -> list[dict]:
        return self._doc["graph"]["backward"]["nodes"]

    @property
    def first_nan_inf(self) -> dict | None:
        return self._doc["nan_inf"]["first"]

    @property
    def iterations(self) -> list[dict]:
        """The training iterations (schema 1.2; [] when the recording saw no backward or update)."""
        return self._doc.get("iterations") or []

    @property
    def health(self) -> dict | None:
        """Per-iteration health of layers and parameters (schema 1.2), or None."""
        return self._doc.get("health")

    def iteration_steps(self, position: int) -> list[dict]:
        """The steps of `iterations[position]`, in order."""
        iteration = self.iterations[position]
        steps = self.steps
        offset = steps[0]["index"] if steps else 0  # steps are numbered consecutively from the first kept
        return steps[iteration["first_step"] - offset:iteration["last_step"] - offset + 1]

    def tensor(self, tensor_id: str) -> dict:
        return self._index("tensors")[tensor_id]

    def state(self, state_id: str) -> dict:
        return self._index("states")[state_id]

    def node(self, node_id: str) -> dict:
        return self._index("nodes")[node_id]

    def values(self, state_id: str) -> np.ndarray | None:
        """A state's values as a numpy array of the tensor's shape and dtype (None if not kept)."""
        state = self.state(state_id)
        if state["values"] is None:
            return None
        tensor = self.tensor(state["tensor"])
        flat = [float(v) if isinstance(v, str) else v for v in state["values"]]  # "NaN" -> nan
        return np.asarray(flat, dtype=np.dtype(tensor["dtype"])).reshape(tensor["shape"])

    def _index(self, section: str) -> dict:
        cache = self.__dict__.setdefault("_indexes", {})
        if section not in cache:
            if section == "nodes":
                items = self.nodes + self.grad_nodes
            else:
                items = self._doc[section]
            cache[section] = {item["id"]: item for item in items}
        return cache[section]

    # ---- views (each module loads on first use: none of them is needed to record) -------
    def graph(self, view: str = "auto", **options):
        """The graph as plain data: view "auto", "forward", "backward", "combined" or "layers"."""
        from .graph import graph_view
        return graph_view(self, view, **options)

    def to_dot(self, view: str = "auto", **options) -> str:
        from .dot import to_dot
        return to_dot(self, view, **options)

    def to_svg(self, view: str = "auto", **options) -> str:
        """SVG through Graphviz's `dot` binary (a clear error says how to install it if missing)."""
        from .dot import to_svg
        return to_svg(self, view, **options)

    def to_html(self, **options) -> str:
        from .html import to_html
        return to_html(self, **options)

    def save_html(self, path: str | Path, **options) -> Path:
        """One self-contained HTML file (no network): graph, steps, tensor summaries and grads."""
        from .html import save_html
        return save_html(self, path, **options)

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        """Notebook display: the document for the JupyterLab extension, HTML and a text line for the rest."""
        from .bundle import trace_bundle
        return trace_bundle(self)

    def __repr__(self) -> str:
        rec = self._doc["recording"]
        text = (f"Trace({len(self.nodes)} op nodes, {len(self.grad_nodes)} backward nodes, "
                f"{len(self.steps)} steps, {len(self._doc['tensors'])} tensors")
        if rec["dropped_steps"]:
            text += f", {rec['dropped_steps']} oldest steps dropped"
        if self._doc.get("programs"):
            text += (f", {len(self._doc['programs'])} static programs, {len(self._doc.get('program_runs', []))} "
                     "Executor runs")
        first = self.first_nan_inf
        if first is not None:
            text += f", first NaN/Inf from {first['op']} at step {first['step']}"
        return text + ")"


def _check_version(document: Any) -> None:
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise invalid_argument("Trace", "this is not a minipaddle trace document (its \"format\" is not "
                                        f"{FORMAT!r}).")
    version = str(document.get("schema_version", ""))
    if version.split(".")[0] != SCHEMA_VERSION.split(".")[0]:
        raise invalid_argument("Trace", f"schema_version {version!r} is not readable here; this minipaddle "
                                        f"reads {SCHEMA_VERSION.split('.')[0]}.x.",
                               hint="open it with the minipaddle version that wrote it.")


def dangling_references(doc: dict) -> list[str]:
    """Ids the document uses but does not define ([] for a consistent document)."""
    tensors = {t["id"] for t in doc["tensors"]}
    states = {s["id"] for s in doc["states"]}
    nodes = {n["id"] for n in doc["graph"]["forward"]["nodes"]}
    grads = {g["id"] for g in doc["graph"]["backward"]["nodes"]}
    updates = {u["id"] for u in doc["optimizer_updates"]}
    known = {"t": tensors, "s": states, "n": nodes, "g": grads, "u": updates}
    bad: list[str] = []

    def check(ref, where: str) -> None:
        if ref is not None and ref not in known.get(ref[:1], ()):
            bad.append(f"{where} -> {ref}")

    for t in doc["tensors"]:
        for key in ("producer", "grad_of", "grad"):
            check(t[key], f"{t['id']}.{key}")
        for s in t["states"]:
            check(s, f"{t['id']}.states")
    for s in doc["states"]:
        check(s["tensor"], f"{s['id']}.tensor")
    for n in doc["graph"]["forward"]["nodes"]:
        for ref in n["inputs"] + n["outputs"] + n["input_states"] + n["output_states"] + [n["grad_node"]]:
            check(ref, n["id"])
    for g in doc["graph"]["backward"]["nodes"]:
        check(g["forward_node"], f"{g['id']}.forward_node")
        check(g["tensor"], f"{g['id']}.tensor")
        for nxt in g["next"]:
            if nxt is not None:
                check(nxt["node"], f"{g['id']}.next")
    for section in ("forward", "backward"):
        for e in doc["graph"][section]["edges"]:
            for key in ("source", "target", "tensor"):
                check(e.get(key), f"{section} edge")
    bad += _program_references(doc)
    for step in doc["steps"]:
        for key in ("node", "update", "tensor", "grad", "result"):
            check(step.get(key), f"step {step['index']}.{key}")
        for ref in step["states"] + step.get("grads_in", []) + step.get("grads_out", []):
            check(ref, f"step {step['index']}")
    return bad


def _program_references(doc: dict) -> list[str]:
    """Program ids: unique, and every pass diff / run names one the document has; op refs in range."""
    bad: list[str] = []
    programs: dict[str, dict] = {}
    for p in doc.get("programs", []):
        if p["id"] in programs:
            bad.append(f"program id {p['id']} used twice")
        programs[p["id"]] = p

    def has_op(pid: str, ref: dict) -> bool:
        blocks = programs[pid]["blocks"]
        return 0 <= ref["block"] < len(blocks) and 0 <= ref["index"] < len(blocks[ref["block"]]["ops"])

    for d in doc.get("pass_diffs", []):
        for key in ("before", "after"):
            if d[key] not in programs:
                bad.append(f"pass_diffs {d['pass']}.{key} -> {d[key]}")
        if d["before"] in programs and d["after"] in programs:
            bad += [f"pass_diffs {d['pass']}.removed -> {r}" for r in d["removed"] if not has_op(d["before"], r)]
            bad += [f"pass_diffs {d['pass']}.added -> {r}" for r in d["added"] if not has_op(d["after"], r)]
    for r in doc.get("program_runs", []):
        if r["program"] not in programs:
            bad.append(f"program_runs {r['run']}.program -> {r['program']}")
            continue
        blocks = programs[r["program"]]["blocks"]
        bad += [f"program_runs {r['program']}/{r['run']} step {s['step']} -> b{s['block']}:op{s['op']}"
                for s in r["steps"] if not has_op(r["program"], {"block": s["block"], "index": s["op"]})
                or blocks[s["block"]]["ops"][s["op"]]["type"] != s["type"]]
    return bad


# ---- building the document from a TraceBuilder's records ------------------------------------

def build_document(b) -> dict:
    """Assemble the document from a TraceBuilder (builder.py): references to dropped objects
    become null, sections come out in the order things happened."""
    from .. import __version__
    objects = b.objects
    tensors, states, nodes, gnodes, updates = [], [], [], [], []
    for oid, rec in objects.items():
        kind = oid[0]
        if kind == "t":
            tensors.append(_tensor_json(rec, objects))
        elif kind == "s":
            states.append(b.cache.state(oid, rec, b.state_data[oid]))
        elif kind == "n":
            nodes.append(_node_json(rec, objects))
        elif kind == "g":
            gnodes.append(_grad_node_json(rec, objects))
        elif kind == "u":
            updates.append(_update_json(rec))
    steps = [step for step, _, _ in b.steps]
    from .iterations import iteration_sections
    return {
        "format": FORMAT,
        "schema_version": SCHEMA_VERSION,
        "generator": {"name": "minipaddle", "version": __version__},
        "created_at": b.created_at,
        "recording": _recording_json(b, steps),
        "layers": _layers(nodes),
        "tensors": tensors,
        "states": states,
        "graph": {"forward": {"nodes": nodes, "edges": _forward_edges(nodes, objects)},
                  "backward": {"nodes": gnodes, "edges": _backward_edges(gnodes, objects)}},
        "steps": steps,
        "optimizer_updates": updates,
        **iteration_sections(b, steps),
        "nan_inf": {"first": b.nan_inf["first"], "count": b.nan_inf["count"],
                    "occurrences": list(b.nan_inf["occurrences"])},
        "timings": _timings(b.timings),
        "autotune": [dict(d) for d in b.__dict__.get("autotune", {}).values()],
        **_program_sections(b),
        "profile": None,
        "extensions": {},
    }


def _program_sections(b) -> dict:
    """programs, pass_diffs and program_runs of what the recording saw of static programs."""
    rec = b.__dict__.get("_program_recording")
    if rec is None:
        return {"programs": [], "pass_diffs": [], "program_runs": []}
    return rec.sections()


def program_document(programs: list, pass_diffs: list = (), program_runs: list = ()) -> dict:
    """A document holding static programs only (no eager steps): what show_program and
    `%paddle_graph program` display."""
    from .. import __version__
    import datetime
    settings = {"values": "small", "values_max_numel": 64, "max_bytes": 64 << 20, "max_steps": 10_000,
                "backward": False, "bytes_used": 0, "total_steps": 0, "first_step": 0, "dropped_steps": 0,
                "dropped_reasons": [], "values_omitted_budget": 0, "event_counts": {}, "errors": [], "notes": []}
    return {"format": FORMAT, "schema_version": SCHEMA_VERSION,
            "generator": {"name": "minipaddle", "version": __version__},
            "created_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "recording": settings, "layers": [], "tensors": [], "states": [],
            "graph": {"forward": {"nodes": [], "edges": []}, "backward": {"nodes": [], "edges": []}},
            "steps": [], "optimizer_updates": [], "nan_inf": {"first": None, "count": 0, "occurrences": []},
            "timings": {"ops": []}, "programs": list(programs), "pass_diffs": list(pass_diffs),
            "program_runs": list(program_runs), "profile": None, "extensions": {}}


def _live(ref, objects: dict):
    return ref if ref is not None and ref in objects else None


def _tensor_json(rec: dict, objects: dict) -> dict:
    out = dict(rec)
    for key in ("producer", "grad_of", "grad"):
        out[key] = _live(rec[key], objects)
    out["states"] = [s for s in rec["states"] if s in objects]
    return out


def state_json(rec: dict, data: tuple) -> dict:
    """The document's object of one state: its record, summary and values as JSON."""
    summary, values = data
    out = dict(rec)
    out["summary"] = summary_to_json(summary)
    out["values"] = None if values is None else values_to_json(values, summary.has_nan_inf)
    return out


def _update_json(rec: dict) -> dict:
    """An optimizer update with its norms to 4 significant digits (the learning rate as it was set)."""
    out = dict(rec)
    for key in ("grad_norm", "update_norm"):
        if type(rec[key]) is float:
            out[key] = round_significant(rec[key])
    return out


def _node_json(rec: dict, objects: dict) -> dict:
    out = dict(rec)
    out["grad_node"] = _live(rec["grad_node"], objects)
    return out


def _grad_node_json(rec: dict, objects: dict) -> dict:
    out = {k: v for k, v in rec.items() if k not in ("forward_inputs", "forward_outputs")}
    out["forward_node"] = _live(rec["forward_node"], objects)
    out["tensor"] = _live(rec["tensor"], objects)
    out["next"] = [None if e is None else {"node": _live(e["node"], objects), "output_index": e["output_index"]}
                   for e in rec["next"]]
    return out


def _forward_edges(nodes: list, objects: dict) -> list:
    """One edge per op input: from the op that made the tensor (null: a leaf, parameter or input)."""
    edges = []
    for n in nodes:
        for i, tid in enumerate(n["inputs"]):
            producer = _live(objects[tid]["producer"], objects) if tid in objects else None
            edges.append({"source": producer, "target": n["id"], "tensor": tid, "index": i})
    return edges


def _backward_edges(gnodes: list, objects: dict) -> list:
    """Gradient flow: from a grad node to the node that receives its input i's gradient."""
    edges = []
    for g in gnodes:
        inputs = objects[g["id"]]["forward_inputs"]
        for i, nxt in enumerate(g["next"]):
            if nxt is None or nxt["node"] is None:
                continue
            tensor = _live(inputs[i], objects) if i < len(inputs) else None
            edges.append({"source": g["id"], "target": nxt["node"], "tensor": tensor, "index": i,
                          "output_index": nxt["output_index"]})
    return edges


def _layers(nodes: list) -> list:
    """Every layer scope an op ran under, with its parents: the tree the views group nodes by."""
    layers: dict[str, dict] = {}
    for n in nodes:
        path = n["layer"]
        if path is None:
            continue
        parts = path.split(".")
        for depth in range(len(parts)):
            p = ".".join(parts[:depth + 1])
            if p not in layers:
                layers[p] = {"path": p, "name": parts[depth], "parent": ".".join(parts[:depth]) or None,
                             "depth": depth, "nodes": []}
        layers[path]["nodes"].append(n["id"])
    return list(layers.values())


def _recording_json(b, steps: list) -> dict:
    notes = []
    first_step = steps[0]["index"] if steps else b.next_step
    if b.dropped_steps:
        limits = " and ".join(sorted(b.dropped_reasons))
        notes.append(f"the oldest {b.dropped_steps} steps were dropped ({limits} reached); "
                     f"the trace starts at step {first_step}.")
    if b.values_omitted_budget:
        notes.append(f"values of {b.values_omitted_budget} tensor states were not kept (byte budget); "
                     "their summaries are complete.")
    if b.__dict__.get("autotune_dropped"):
        notes.append(f"{b.autotune_dropped} autotune decisions past the first {len(b.autotune)} were not kept.")
    programs = b.__dict__.get("_program_recording")
    if programs is not None:
        notes += programs.notes()
    return {"values": b.values, "values_max_numel": b.values_max_numel, "max_bytes": b.max_bytes,
            "max_steps": b.max_steps, "backward": b.backward, "bytes_used": b.bytes_used,
            "total_steps": b.next_step, "first_step": first_step,
            "dropped_steps": b.dropped_steps, "dropped_reasons": sorted(b.dropped_reasons),
            "values_omitted_budget": b.values_omitted_budget, "event_counts": dict(b.event_counts),
            "errors": list(b.errors), "notes": notes}


def _timings(timings: dict) -> dict:
    ops = [{"op": op, "phase": phase, "kernel": kernel, "count": c, "total_ns": total, "max_ns": mx}
           for (op, phase, kernel), (c, total, mx) in timings.items()]
    ops.sort(key=lambda r: -r["total_ns"])
    return {"ops": ops}
