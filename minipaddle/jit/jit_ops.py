"""The ops converted code adds: `jit_stop_gradient`, `jit_print` and `jit_assert`.

- `jit_stop_gradient(x)`: x's value, with no backward rule. Eagerly, `with paddle.no_grad():`
  keeps the ops inside out of the autograd graph; a converted Program runs op by op with autograd
  on, so the converter passes each name a no_grad block assigns through this op after the block.
- `jit_print(*xs, template=...)`: `print(...)` of Variables in converted code; prints the values
  every time the Program runs (Paddle's static print op), then gives a dummy bool.
- `jit_assert(cond, message=..., where=...)`: `assert` on a Variable, checked every time the Program
  runs (Paddle's Assert op); `where` is the user's file:line.

All three are registered when the jit package loads, so saved programs holding them load too.
"""
from __future__ import annotations

import builtins

import numpy as np

from ..framework.ops.common import unary_meta
from ..framework.registry import MetaTensor, add_kernel, register_op
from ..framework.static.static_ops import SIDE_EFFECT_OPS

__all__ = ["STOP_GRADIENT", "PRINT", "ASSERT"]

_DTYPES = ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool")


def _identity(x):
    return x


STOP_GRADIENT = register_op("jit_stop_gradient", inputs=("x",), infer_meta=unary_meta, backward=None,
                            doc="The input's value; gradients do not flow through it (a no_grad block in "
                                "converted code).")
add_kernel("jit_stop_gradient", "cpu", _DTYPES, _identity, name="numpy")


def _print_meta(*xs, template=(), sep=" ", end="\n") -> MetaTensor:
    return MetaTensor((), np.dtype(np.bool_))


def _print_kernel(*xs, template=(), sep=" ", end="\n"):
    """`template` holds ("text", str) for a Python argument and ("tensor", i) for the i-th input."""
    parts = [text if kind == "text" else _format(xs[text]) for kind, text in template]
    builtins.print(*parts, sep=sep, end=end)
    return np.array(True)


def _format(array: np.ndarray) -> str:
    return np.array2string(np.asarray(array), separator=", ") if np.ndim(array) else str(np.asarray(array).item())


PRINT = register_op("jit_print", inputs=("x",), infer_meta=_print_meta, backward=None, variadic=True,
                    attrs={"template": (tuple, ()), "sep": (str, " "), "end": (str, "\n")},
                    doc="print(...) in converted code: prints its inputs' values each time the program runs.")
add_kernel("jit_print", "cpu", _DTYPES, _print_kernel, name="numpy")


def _assert_meta(cond, message="", where="") -> MetaTensor:
    return MetaTensor((), np.dtype(np.bool_))


def _assert_kernel(cond, message="", where=""):
    """Raise AssertionError (Python's own) when any element of `cond` is false."""
    if not np.all(cond):
        text = message or "assertion failed"
        raise AssertionError(f"{text} (assert on a tensor, at {where})" if where else text)
    return np.array(True)


ASSERT = register_op("jit_assert", inputs=("cond",), infer_meta=_assert_meta, backward=None,
                     attrs={"message": (str, ""), "where": (str, "")},
                     doc="assert in converted code: raises AssertionError when the program runs and cond is false.")
add_kernel("jit_assert", "cpu", _DTYPES, _assert_kernel, name="numpy")

# Nobody reads what print and assert return: without this, dead-code elimination (which runs on a
# training converted program) would remove them.
SIDE_EFFECT_OPS.update(("jit_print", "jit_assert"))
