"""Which kernel an op ran, and why: the "kernel" record of an op node in the trace.

    {"name": "matmul_blas", "backend": "cpu", "dtype": "float32", "reason": "priority",
     "candidates": ["matmul_blas", "matmul_numba"], "tuning": None}

The reason is "only" (one kernel registered for the key), "priority" (the highest registered) or
"preferred" (set_preferred_kernel, or the autotuner's winner). For a call the autotuner serves
(an autotune.TunedKernel), "tuning" carries its decision for the call's shape class: the
candidates' times, the winner, the default, and whether it was measured now or read from cache.

A GPU op's record also says what ran on the device (`on_device`): the CUDA kernels it launched,
the grid and block of the last launch, and the time between two CUDA events around the op:

    {"name": "cuda_tiled", "backend": "gpu", ..., "device": "gpu", "device_time_ns": 81000,
     "grid": [1, 1, 1], "block": [16, 16, 1],
     "launches": [{"kernel": "matmul_tiled_kernel", "grid": [1, 1, 1], "block": [16, 16, 1]}]}
"""
from __future__ import annotations

from ..framework.registry import KernelKey, backend_of, preferred_kernel

# (op, dtype, kernel, preferred) -> (the kernel bucket, its length then, the kernel's description), shared by
# every recording: with one recording per step, a per-recording cache would start cold each time.
# Documents share these dicts (read-only, as the whole document is).
_kernel_info: dict[tuple, tuple] = {}


def describe_kernel(opdef, fn, inputs: tuple, attrs: dict | None, decisions: dict, memo: dict) -> dict:
    """The kernel record of a call of `opdef` that ran `fn`. `decisions`: the autotune decisions seen
    while recording (cache key -> decision_json); `memo`: the recording's (key, kernel) -> tuning."""
    if len(inputs) > opdef.kernel_input:
        data = inputs[opdef.kernel_input]._data
        dtype, backend = data.dtype, backend_of(data)
    else:
        dtype, backend = None, "cpu"
    if hasattr(fn, "default_name"):  # an autotune.TunedKernel: it knows which candidate just ran
        tuning = tuning_of(opdef, fn, inputs, attrs, dtype, decisions, memo) if dtype is not None else None
        return {"name": fn.last, "backend": backend, "dtype": str(dtype),
                "reason": "preferred" if tuning is not None else "priority",
                "candidates": [name for name, _ in fn.candidates], "tuning": tuning}
    wanted = preferred_kernel(opdef.name, KernelKey(backend, dtype))  # usually None
    cache_key = (opdef.name, backend, dtype, fn, wanted)
    cached = _kernel_info.get(cache_key)
    if cached is not None and len(cached[0]) == cached[1]:  # no kernel registered for it since
        return cached[2]
    bucket = opdef.kernels.get(KernelKey(backend, dtype))
    name = next((k.name for k in bucket or () if k.fn is fn or getattr(k.fn, "_fn", None) is fn),
                getattr(fn, "__name__", "kernel"))
    reason = "only" if bucket is None or len(bucket) <= 1 else ("preferred" if wanted == name else "priority")
    info = {"name": name, "backend": backend, "dtype": str(dtype), "reason": reason,
            "candidates": [k.name for k in bucket or ()], "tuning": None}
    if bucket is not None:
        _kernel_info[cache_key] = (bucket, len(bucket), info)
    return info


def on_device(kernel: dict, device_time_ns: int | None, launches) -> dict:
    """The kernel record of a GPU op call: `kernel` plus its device time and CUDA launches
    (kernel_launches.Launch); "grid" and "block" are the last launch's (none when it launched no kernel).
    A CPU op (device_time_ns None) keeps `kernel` as it is."""
    if device_time_ns is None:
        return kernel
    info = dict(kernel, device="gpu", device_time_ns=int(device_time_ns),
                launches=[{"kernel": str(k.kernel), "grid": list(k.grid), "block": list(k.block)} for k in launches])
    if launches:
        info["grid"] = list(launches[-1].grid)
        info["block"] = list(launches[-1].block)
    return info


def backward_rule_op(op: str, kernel: dict, duration_ns: int) -> dict:
    """An op a backward rule ran, as its backward step lists it: its kernel and time, the autotuner's
    decision (a tuned grad kernel: conv2d_grad_filter, a transposed matmul) and, on the GPU, its device time."""
    inner = {"op": op, "kernel": kernel["name"], "duration_ns": duration_ns}
    if kernel["tuning"] is not None:
        inner["tuning"] = kernel["tuning"]
    if "device_time_ns" in kernel:
        inner["device_time_ns"] = kernel["device_time_ns"]
    return inner


def tuning_of(opdef, fn, inputs: tuple, attrs: dict | None, dtype, decisions: dict, memo: dict) -> dict | None:
    """kernel.tuning of a call run by an autotune.TunedKernel: the decision for its shape class
    when the kernel that ran is its winner, else None (an untuned class runs the default)."""
    from ..framework import autotune  # (imports no numba)
    try:
        key, entry = autotune.decision_for(opdef.name, dtype, [t._data.shape for t in inputs], dict(attrs or {}),
                                           fn.key.backend)
    except Exception:  # an attribute the key cannot hold: no decision can be named
        return None
    remembered = (key, fn.last)
    if remembered in memo:
        return memo[remembered]
    decision = decisions.get(key)
    if decision is None:  # decided before this recording began: the process's table knows it
        if entry is not None:
            decision = {"candidates": candidates_json(entry.get("candidates")), "winner": entry.get("winner"),
                        "default": fn.default_name, "source": "cache", "step": None,
                        "shape_class": key.split("|")[2]}
    tuning = None
    if decision is not None and decision["winner"] == fn.last:
        tuning = {"shape_class": decision["shape_class"], "source": decision["source"],
                  "candidates": decision["candidates"], "winner": decision["winner"],
                  "default": decision["default"], "step": decision["step"]}
    memo[remembered] = tuning
    return tuning


def decision_json(e) -> dict:
    """An AutotuneEvent as the document's "autotune" entry."""
    return {"op": str(e.op), "key": str(e.key), "dtype": e.dtype, "shape_class": e.shape_class,
            "shapes": [list(map(int, s)) for s in e.shapes or ()], "candidates": candidates_json(e.candidates),
            "winner": str(e.winner), "default": e.default, "source": e.source, "step": e.step}


def candidates_json(candidates) -> list:
    """An autotune decision's candidates as JSON: {name, time_ns, error}."""
    out = []
    for c in candidates or ():
        t = c.get("time_ns")
        out.append({"name": str(c.get("name")), "time_ns": None if t is None else int(t),
                    "error": None if c.get("error") is None else str(c["error"])})
    return out
