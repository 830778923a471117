"""Kernel autotuning and DataLoader tuning, after Paddle's AutoTuneStatus / AlgorithmsCache.

Several kernels may serve one op for one dtype (matmul: numpy's BLAS and a blocked numba loop;
conv2d and its two grad ops: im2col + BLAS and direct numba loops; add, exp, ...: a numpy ufunc and
a numba one). Which is faster depends on the shapes and on the machine, so with kernel tuning on
(`paddle.incubate.autotune.set_config`) minipaddle measures:

    step 0                 ops run their default kernel (the first step pays numba's compiles)
    steps in tuning_range  the first call of an op on a new *shape class* times every candidate
                           on the real inputs, keeps the fastest, and caches it for that class
    later steps            each call looks its shape class up: a hit runs the winner, a miss the default

A shape class buckets every dim by powers of two (784 -> 512: 512 <= 784 < 1024), so a batch of
100 and one of 127 share a decision. Counting steps: each `Tensor.backward()` ends one (as Paddle's
eager Backward does); loops without backward call `autotune.step()`. Step counting listens on the
instrument bus, so it stops after the tuning range to leave the op path free again.

GPU ops are tuned the same way (matmul: cuda_naive ... cuda_prefetch, which differ in block size
too). A kernel launch returns before the kernel has run, so each timed call of a GPU candidate ends
with a synchronize; a GPU decision is keyed by the GPU's model as well ("...|gpu:NVIDIA H100 80GB HBM3").

Decisions persist: `<cache dir>/<machine>.json` maps "op|dtype|shape class|attrs" to the winner and
the measured times, so the next process on the same machine starts tuned. The cache dir is
`$MINIPADDLE_AUTOTUNE_CACHE`, else `$XDG_CACHE_HOME/minipaddle/autotune`, else `~/.cache/...`;
set_config's kernel section may name another ("cache_dir") or turn persistence off (None).

Every decision is reported on the instrument bus, so the debugger can show per node what was tried:

kind "autotune" -- a kernel choice was made (emitted inside the op call, before that op's "op" event)
    op          str         the op's name ("matmul"), or "DataLoader"
    key         str         the cache key "matmul|float32|128x512,512x256|{}" (a GPU op's adds "|gpu:<model>";
                            DataLoader: "num_workers")
    dtype       str         the kernel dtype ("float32"; DataLoader: None)
    shape_class str         "128x512,512x256" (DataLoader: None)
    shapes      list        the input shapes that were timed
    candidates  list[dict]  {"name": kernel name, "time_ns": best time or None, "error": why it was
                            left out, if it was: it raised, or its result differed from the default's}
    winner      str         the kernel name that now runs for this class
    default     str         the kernel that would run untuned
    source      str         "tuned" (measured now) or "cache" (read from the disk cache, reported once)
    step        int         the step id when it was decided
"""
from __future__ import annotations

import json
import os
import platform
import re
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

from . import gpu, instrument, registry
from .kernel_launches import launch_log
from .kernels.numba_cache import minipaddle_cache_dir
from .registry import KernelKey, OpDef

__all__ = ["TunedKernel", "cache_entries", "cache_path", "configure_dataloader", "configure_kernel",
           "reset", "shape_class", "status", "step", "dataloader_tuning"]

CACHE_VERSION = 1
MIN_GAIN = 0.05        # a candidate replaces the default only when it is at least 5% faster: timing noise
MAX_REPEATS = 3        # timed runs per candidate and block (two blocks each, see _time_candidates) ...
MIN_REPEATS = 1        # ... at least this many ...
REPEAT_BUDGET_NS = 50_000_000  # ... and no more once all candidates together have used 50 ms


class _Status:
    """The tuner's state (Paddle's AutoTuneStatus), one per process."""
    kernel_enabled = False
    tuning_range = (1, 10)
    step_id = 0
    tuning = False                  # are we inside tuning_range now
    cache_dir: Path | None = None   # None: decisions are not persisted
    dataloader_enabled = False
    tuning_steps = 500
    unsubscribe: Callable | None = None


_status = _Status()
_table: dict[str, dict] = {}          # cache key -> {"winner", "candidates", "shapes"}
_tuned: list["TunedKernel"] = []      # every stand-in made, so state changes can reset their memos
_reported: set[str] = set()           # keys read from disk whose decision was already reported
_counts = {"hits": 0, "misses": 0}    # of stand-ins no longer alive (see status())
_NOTHING = object()                   # "no result yet" (a kernel may return anything)


# ---- shape classes -----------------------------------------------------------------------------------
def _bucket(d: int) -> int:
    """The power of two at or below d (0 stays 0): 784 -> 512, 1024 -> 1024."""
    return 1 << (d.bit_length() - 1) if d > 0 else 0


def shape_class(shapes) -> str:
    """'128x512,512x256' for input shapes [(128, 784), (784, 256)]; '' marks a 0-D input."""
    return ",".join("x".join(str(_bucket(int(d))) for d in s) for s in shapes)


def _attrs_text(attrs: dict) -> str:
    return json.dumps(attrs, sort_keys=True, default=str) if attrs else "{}"


def _cache_key(op: str, dtype, shapes, attrs: dict, backend: str = "cpu") -> str:
    key = f"{op}|{np.dtype(dtype).name}|{shape_class(shapes)}|{_attrs_text(attrs)}"
    if backend == "gpu":  # a GPU decision holds for one GPU model (the file is per host machine)
        key += f"|gpu:{gpu.device_name()}"
    return key


def _no_wait() -> None:
    """A CPU kernel has finished when it returns."""


# ---- the stand-in kernel -----------------------------------------------------------------------------
class TunedKernel:
    """What runs for an op with several kernels while autotune is on: picks one per shape class.

    Exact input shapes (and attrs) are memoized, so after the first call of a shape the cost is one
    dict lookup. `last` names the kernel that ran last (for the debugger); hits/misses count lookups
    as Paddle's AlgorithmsCache does: a hit found a decision for the shape class, a miss did not.
    """

    def __init__(self, op: OpDef, key: KernelKey, default: Callable) -> None:
        self.op = op
        self.key = key
        self.default = default
        self.candidates = [(k.name, _resolve(k.fn)) for k in op.kernels[key]]
        self.default_name = next((n for n, f in self.candidates if f is default), self.candidates[0][0])
        self.wait = gpu.synchronize if key.backend == "gpu" else _no_wait  # until the timed kernel has run
        self.__name__ = f"autotuned_{op.name}"
        self.memo: dict = {}
        self.hits = 0
        self.misses = 0
        self.last = self.default_name

    def __call__(self, *arrays, **attrs):
        # This runs on every call of a tuned op: the memo key is built without a loop where it can be
        # (an op's arity is fixed, so keys of different shapes never meet in one memo).
        if len(arrays) == 2:
            memo_key = (arrays[0].shape, arrays[1].shape)
        elif len(arrays) == 1:
            memo_key = arrays[0].shape
        else:
            memo_key = tuple([a.shape for a in arrays])
        if attrs:
            memo_key = (memo_key, tuple(attrs.items()))
        try:
            entry = self.memo.get(memo_key)
        except TypeError:  # an unhashable attribute (a list): decide without memoizing
            memo_key, entry = None, None
        if entry is None:
            entry, result = self._decide(arrays, attrs)
            if memo_key is not None:
                self.memo[memo_key] = entry
            if result is not _NOTHING:
                return result
        fn, name, hit = entry
        if hit:
            self.hits += 1
        else:
            self.misses += 1
        self.last = name
        return fn(*arrays, **attrs) if attrs else fn(*arrays)

    def _decide(self, arrays: tuple, attrs: dict):
        """Look the shape class up (and tune it, inside the tuning range): ((fn, name, hit), result)."""
        shapes = [tuple(a.shape) for a in arrays]
        key = _cache_key(self.op.name, self.key.dtype, shapes, attrs, self.key.backend)
        entry = _table.get(key)
        fns = dict(self.candidates)
        if entry is not None and entry.get("winner") in fns:
            if key not in _reported:
                _reported.add(key)
                self._report(key, shapes, entry["candidates"], entry["winner"], "cache")
            return (fns[entry["winner"]], entry["winner"], True), _NOTHING
        if not _status.tuning:
            return (self.default, self.default_name, False), _NOTHING
        self.misses += 1  # this lookup missed; the calls after it hit the decision made now
        candidates, winner, result = self._tune(arrays, attrs)
        _table[key] = {"winner": winner, "candidates": candidates, "shapes": [list(s) for s in shapes]}
        _reported.add(key)
        _save()
        self._report(key, shapes, candidates, winner, "tuned")
        self.last = winner
        return (fns[winner], winner, True), result

    def _tune(self, arrays: tuple, attrs: dict):
        """Time every candidate on these inputs; (candidate records, winner's name, winner's result).

        Under the debugger a GPU op notes its kernel launches (kernel_launches.py): of all the launches
        made here, the op's node shows the winner's first run, the one whose result it returns."""
        records, results, reference = [], {}, _NOTHING
        noted, launches = launch_log.launches, {}
        ordered = sorted(self.candidates, key=lambda c: c[0] != self.default_name)  # the default first
        try:
            for name, fn in ordered:
                if noted is not None:
                    launch_log.launches = launches[name] = []
                try:
                    out = fn(*arrays, **attrs)  # warm-up: a numba kernel compiles (or loads) on its first call
                except Exception as exc:
                    if name == self.default_name:
                        raise  # the default's own error is the op's error
                    records.append({"name": name, "time_ns": None, "error": f"raised {type(exc).__name__}: {exc}"})
                    continue
                if reference is _NOTHING:
                    reference = out
                elif not _same_result(out, reference):
                    records.append({"name": name, "time_ns": None, "error": "result differs from the default's"})
                    continue
                results[name] = out
                records.append({"name": name, "time_ns": None, "fn": fn})
            launch_log.launches = None
            _time_candidates([r for r in records if "fn" in r], arrays, attrs, self.wait)
        finally:
            launch_log.launches = noted
        timed = [r for r in records if r["time_ns"] is not None]
        best = default = timed[0]  # the default ran first and cannot have been left out
        for r in timed[1:]:
            if r["time_ns"] < best["time_ns"] and r["time_ns"] < default["time_ns"] * (1 - MIN_GAIN):
                best = r  # faster than the rest, and clearly faster than the default
        if noted is not None:
            noted.extend(launches[best["name"]])
        return records, best["name"], results[best["name"]]

    def _report(self, key: str, shapes, candidates, winner: str, source: str) -> None:
        if instrument.subscribers:
            instrument.emit(instrument.AutotuneEvent(
                op=self.op.name, key=key, dtype=self.key.dtype.name, shape_class=key.split("|")[2],
                shapes=[list(s) for s in shapes], candidates=[dict(c) for c in candidates], winner=winner,
                default=self.default_name, source=source, step=_status.step_id))


def _resolve(fn: Callable) -> Callable:
    resolve = getattr(fn, "resolve", None)
    return resolve() if resolve is not None else fn


def _time_candidates(records: list, arrays: tuple, attrs: dict, wait: Callable[[], None] = _no_wait) -> None:
    """Set each record's "time_ns" to its kernel's best time.

    Candidates are timed in blocks, in the order A B ... then ... B A, so that a busy moment of a shared
    machine slows all of them. Each block starts with one untimed call: right after another kernel, the
    thread pools of BLAS and numba are still spinning down and the first call pays for the switch.
    `wait` returns when the kernel has run: a GPU kernel's call returns once it is queued."""
    spent = 0
    for order in (records, records[::-1]):
        for r in order:
            fn = r["fn"]
            fn(*arrays, **attrs)
            wait()
            for i in range(MAX_REPEATS):
                start = time.perf_counter_ns()
                fn(*arrays, **attrs)
                wait()
                took = time.perf_counter_ns() - start
                r["time_ns"] = took if r["time_ns"] is None else min(r["time_ns"], took)
                spent += took
                if i + 1 >= MIN_REPEATS and spent > REPEAT_BUDGET_NS:
                    break
    for r in records:
        del r["fn"]


def _same_result(a, b) -> bool:
    """Do two kernels agree (to float32 rounding)? A candidate that does not is never chosen."""
    if isinstance(a, tuple) or isinstance(b, tuple):
        return (isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b)
                and all(_same_result(x, y) for x, y in zip(a, b)))
    a, b = np.asarray(_on_host(a)), np.asarray(_on_host(b))
    if a.shape != b.shape:
        return False
    if a.dtype.kind not in "fc" and b.dtype.kind not in "fc":
        return bool(np.array_equal(a, b))
    # Kernels sum in different orders: an entry near 0 of a long sum may differ by a lot relative to
    # itself, so the error is measured against the largest entry, not entry by entry.
    finite_a, finite_b = np.isfinite(a), np.isfinite(b)
    if not np.array_equal(finite_a, finite_b) or not np.array_equal(a[~finite_a], b[~finite_b], equal_nan=True):
        return False
    tolerance = 1e-7 if a.dtype == b.dtype == np.float64 else 1e-3
    a, b = a[finite_a].astype(np.float64), b[finite_b].astype(np.float64)
    if a.size == 0:
        return True
    return bool(np.abs(a - b).max() <= tolerance * np.abs(b).max() + 1e-6)


def _on_host(result):
    """A kernel's result where numpy can read it: a device array is copied to the host."""
    return gpu.to_host(result) if gpu.is_device_array(result) else result


def _hook(op: OpDef, key: KernelKey, fn: Callable) -> Callable:
    """registry.kernel_hook: wrap ops that have a real choice (and no kernel the user pinned)."""
    if len(op.kernels.get(key, ())) < 2 or op.variadic or (op.name, key) in registry._preferred:
        return fn
    tuned = TunedKernel(op, key, fn)
    _tuned.append(tuned)
    return tuned


def _clear_chosen() -> None:
    """Forget every op's cached kernel, so the next call asks kernel_fn (and the hook) again."""
    for t in _tuned:
        _counts["hits"] += t.hits
        _counts["misses"] += t.misses
    _tuned.clear()
    for op in registry.OPS.values():
        op._chosen.clear()


def _forget_memos() -> None:
    for t in _tuned:
        t.memo.clear()


# ---- configuration and steps ------------------------------------------------------------------------
def configure_kernel(enable: bool = True, tuning_range=(1, 10), cache_dir: Any = "default") -> None:
    """Turn kernel tuning on or off; tune while tuning_range[0] <= step id < tuning_range[1]."""
    start, end = int(tuning_range[0]), int(tuning_range[1])
    _status.tuning_range = (start, end)
    if cache_dir == "default":
        _status.cache_dir = minipaddle_cache_dir("autotune", "MINIPADDLE_AUTOTUNE_CACHE")
    else:
        _status.cache_dir = None if cache_dir is None else Path(cache_dir)
    _status.kernel_enabled = bool(enable)
    _table.clear()
    _reported.clear()
    if enable:
        _load()
        registry.kernel_hook = _hook
    else:
        registry.kernel_hook = None
    _clear_chosen()
    _update_tuning()


def configure_dataloader(enable: bool = True, tuning_steps: int = 500) -> None:
    """Turn DataLoader tuning on or off: io.worker_tuning times `tuning_steps` batches per choice."""
    _status.dataloader_enabled = bool(enable)
    _status.tuning_steps = int(tuning_steps)


def step() -> int:
    """End one step (Tensor.backward() does this by itself); returns the new step id."""
    _status.step_id += 1
    _update_tuning()
    return _status.step_id


def executor_step() -> None:
    """One static `Executor.run` is one step, as in Paddle (counted only while kernel tuning is on)."""
    if _status.kernel_enabled:
        step()


def _update_tuning() -> None:
    start, end = _status.tuning_range
    tuning = _status.kernel_enabled and start <= _status.step_id < end
    if tuning != _status.tuning:
        _status.tuning = tuning
        _forget_memos()  # decisions "untuned, use the default" made outside the range expire
    counting = _status.kernel_enabled and _status.step_id < end
    if counting and _status.unsubscribe is None:
        _status.unsubscribe = instrument.subscribe(_on_event, kinds=("backward_end",))
    elif not counting and _status.unsubscribe is not None:
        _status.unsubscribe()
        _status.unsubscribe = None


def _on_event(event: instrument.BackwardEnd) -> None:
    if event.api == "backward":
        step()


def status() -> dict:
    """Paddle's core.autotune_status(), plus the raw counts: step_id, cache_size, cache_hit_rate, ..."""
    hits = _counts["hits"] + sum(t.hits for t in _tuned)
    misses = _counts["misses"] + sum(t.misses for t in _tuned)
    total = hits + misses
    return {"step_id": _status.step_id, "cache_size": len(_table), "cache_hit_rate": hits / total if total else 0.0,
            "hits": hits, "misses": misses, "kernel_enabled": _status.kernel_enabled, "tuning": _status.tuning,
            "tuning_range": list(_status.tuning_range), "dataloader_enabled": _status.dataloader_enabled,
            "cache_file": str(cache_path()) if _status.cache_dir is not None else None}


def decision_for(op: str, dtype, shapes, attrs: dict, backend: str = "cpu") -> tuple[str, dict | None]:
    """(cache key, the decision for this call's shape class or None): what the debugger shows for a
    node an autotuned kernel ran. The entry is the table's own: read it, do not change it."""
    key = _cache_key(op, dtype, shapes, attrs, backend)
    return key, _table.get(key)


def cache_entries() -> dict[str, dict]:
    """The decisions known now: cache key -> {"winner", "candidates", "shapes"} (a copy)."""
    return json.loads(json.dumps(_table))


def reset() -> None:
    """Everything off, the in-memory cache and counters emptied, step id 0 (the disk cache stays)."""
    configure_kernel(False, (1, 10), cache_dir=None)
    configure_dataloader(False)
    _status.step_id = 0
    _counts["hits"] = _counts["misses"] = 0


# ---- persistence ------------------------------------------------------------------------------------
def machine_id() -> str:
    """Names the machine a decision holds for: CPU model, core count, architecture, numpy version."""
    model = platform.processor() or ""
    try:
        with open("/proc/cpuinfo") as f:
            model = next((ln.split(":", 1)[1] for ln in f if ln.startswith("model name")), model)
    except OSError:
        pass
    text = f"{model.strip()}-{os.cpu_count()}cpu-{platform.machine()}-numpy{np.__version__}"
    return re.sub(r"[^A-Za-z0-9.]+", "-", text).strip("-")[:120]


def cache_path() -> Path | None:
    """The JSON file this machine's decisions are kept in (None: persistence is off)."""
    if _status.cache_dir is None:
        return None
    return _status.cache_dir / f"{machine_id()}.json"


def _read(path: Path) -> dict:
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}  # no cache yet, or a broken one: start from nothing
    if not isinstance(doc, dict) or doc.get("version") != CACHE_VERSION or not isinstance(doc.get("entries"), dict):
        return {}
    return doc["entries"]


def _load() -> None:
    path = cache_path()
    if path is not None:
        _table.update(_read(path))


def _save() -> None:
    """Merge this process's decisions into the machine's file (written whole, then renamed into place)."""
    path = cache_path()
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        entries = _read(path)
        entries.update(_table)
        doc = {"version": CACHE_VERSION, "machine": machine_id(), "entries": entries}
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".autotune-", suffix=".json")
        with os.fdopen(fd, "w") as f:
            json.dump(doc, f, indent=1, sort_keys=True)
        os.replace(tmp, path)
    except OSError as exc:  # a read-only home must not stop training: tuning still works in memory
        import warnings
        warnings.warn(f"autotune: could not write the kernel cache {path}: {exc}", stacklevel=2)


# ---- DataLoader tuning (the measuring lives in minipaddle/io/worker_tuning.py) ---------------------
def dataloader_tuning() -> tuple[bool, int, int]:
    """(enabled, tuning_steps, current step id) of DataLoader num_workers tuning."""
    return _status.dataloader_enabled, _status.tuning_steps, _status.step_id
