"""Golden cases: small Paddle programs run under real Paddle once, and under minipaddle on every test run.

A case is a function of the `paddle` module, written as Paddle's docs write code:

    @case
    def add_float32_int64(paddle):
        x = paddle.to_tensor([1.5, 2.5])
        y = paddle.to_tensor([1, 2])
        return outcome(lambda: x + y)      # a result, or the error Paddle raises

`tools/record_paddle_goldens.py` runs every case with real Paddle bound to `paddle` and writes what
it returned to `tests/compat/goldens/<theme>.json`; `tests/compat/test_goldens.py` runs the same
function with minipaddle bound to `paddle` and compares. CI never needs Paddle installed.

This module imports neither paddle nor minipaddle: it must load under both.
"""
from __future__ import annotations

import json
import math
import os
from typing import Callable

import numpy as np

GOLDEN_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "goldens")
# The case files, one per theme; each golden file is named after its theme.
THEMES = ("promotion", "autograd", "static", "losses", "indexing", "vision", "api", "tensor_ops",
          "models", "optim", "nn_utils", "saving", "nn_extra", "datasets", "transforms",
          "pylayer", "transformer", "dtypes", "functional", "linalg", "fft", "distribution", "sparse")

# The builtin class an error is reported as: Paddle's InvalidType is a TypeError, minipaddle's
# InvalidArgument a ValueError, ... Cases compare these, never the message.
ERROR_KINDS = (TypeError, IndexError, KeyError, AttributeError, NotImplementedError, ValueError, RuntimeError)


class Case:
    def __init__(self, fn: Callable, differs: str | None) -> None:
        self.fn = fn
        self.name = fn.__name__
        self.differs = differs   # why minipaddle knowingly does not match Paddle here (a Paddle bug)

    def __call__(self, paddle):
        return to_json(self.fn(paddle))


def case(fn: Callable | None = None, *, differs: str | None = None):
    """Mark a function of `paddle` as a golden case (collected by `cases_in`)."""
    if fn is None:
        return lambda f: case(f, differs=differs)
    fn._golden_case = Case(fn, differs)
    return fn


def cases_in(module) -> list[Case]:
    return [v._golden_case for v in vars(module).values() if hasattr(v, "_golden_case")]


def outcome(fn: Callable):
    """What `fn()` gives: its value, or {"raises": <builtin error class name>}."""
    try:
        return fn()
    except ERROR_KINDS as e:
        kind = next(k for k in ERROR_KINDS if isinstance(e, k))
        return {"raises": kind.__name__}


def dtype_name(dtype) -> str:
    """'float32' for paddle.float32, minipaddle's float32 and numpy's float32 alike."""
    text = str(dtype)
    for prefix in ("paddle.", "VarType."):
        if text.startswith(prefix):
            text = text[len(prefix):]
    return text.lower()


def _round(v: float):
    if math.isnan(v) or math.isinf(v):
        return str(v)
    return float(f"{v:.6g}")


def to_json(value):
    """A case's return value as plain JSON: tensors become {shape, dtype, values}."""
    if hasattr(value, "numpy") and hasattr(value, "stop_gradient") and hasattr(value, "dtype"):
        arr = np.asarray(value.numpy())
        return {"tensor": {"shape": list(arr.shape), "dtype": dtype_name(value.dtype),
                           "values": to_json(arr.tolist())}}
    if isinstance(value, np.ndarray):
        return {"ndarray": {"shape": list(value.shape), "dtype": dtype_name(value.dtype),
                            "values": to_json(value.tolist())}}
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return _round(float(value))
    if value is None or isinstance(value, str):
        return value
    raise TypeError(f"a golden case returned {type(value).__name__}; return tensors, arrays, numbers, "
                    "strings, lists or dicts")


def compare(got, want, where: str = "result") -> list[str]:
    """Differences between two to_json values (floats to 1e-4 relative), as readable lines."""
    if isinstance(want, float) and isinstance(got, (int, float)) and not isinstance(got, bool):
        if math.isclose(got, want, rel_tol=1e-4, abs_tol=1e-5):
            return []
        return [f"{where}: got {got}, Paddle gives {want}"]
    if isinstance(want, dict) and isinstance(got, dict):
        if set(want) != set(got):
            return [f"{where}: got keys {sorted(got)}, Paddle gives {sorted(want)}"
                    + (f" (got {got})" if "raises" in got else "")]
        diffs = []
        for k in want:
            diffs += compare(got[k], want[k], f"{where}.{k}")
        return diffs
    if isinstance(want, list) and isinstance(got, list):
        if len(want) != len(got):
            return [f"{where}: got {len(got)} items, Paddle gives {len(want)}"]
        diffs = []
        for i, (g, w) in enumerate(zip(got, want)):
            diffs += compare(g, w, f"{where}[{i}]")
        return diffs[:5]
    if got != want or type(got) is not type(want):
        return [f"{where}: got {got!r}, Paddle gives {want!r}"]
    return []


def dumps(value, indent: str = "") -> str:
    """JSON with anything short on one line, so a golden file reads case by case."""
    flat = json.dumps(value, sort_keys=True)
    if len(flat) + len(indent) <= 110 or not isinstance(value, (dict, list)) or not value:
        return flat
    inner = indent + "  "
    if isinstance(value, dict):
        items = [f"{inner}{json.dumps(k)}: {dumps(v, inner)}" for k, v in sorted(value.items())]
        return "{\n" + ",\n".join(items) + f"\n{indent}}}"
    items = [f"{inner}{dumps(v, inner)}" for v in value]
    return "[\n" + ",\n".join(items) + f"\n{indent}]"


def golden_path(theme: str) -> str:
    return os.path.join(GOLDEN_DIR, f"{theme}.json")


def load_goldens(theme: str) -> dict:
    with open(golden_path(theme), encoding="utf-8") as f:
        return json.load(f)
