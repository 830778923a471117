"""The `jit_stop_gradient` op: the value of its input, with no backward rule.

Eagerly, `with paddle.no_grad():` keeps the ops inside out of the autograd graph. A converted
Program is run op by op with autograd on, so the converter marks each name a `no_grad` block
assigns with this op after the block (`y = _jst.convert_stop_gradient(y)`): gradients stop there,
as they did eagerly. It is registered when the jit package loads, so saved programs holding it load.
"""
from __future__ import annotations

from ..ops.common import unary_meta
from ..registry import add_kernel, register_op

__all__ = ["STOP_GRADIENT"]


def _identity(x):
    return x


STOP_GRADIENT = register_op("jit_stop_gradient", inputs=("x",), infer_meta=unary_meta, backward=None,
                            doc="The input's value; gradients do not flow through it (a no_grad block in "
                                "converted code).")
add_kernel("jit_stop_gradient", "cpu", ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
                                        "bool"), _identity, name="numpy")
