"""paddle.tensor.math: elementwise arithmetic, unary math, reductions that sum or multiply, mm.

These are the very functions `paddle.add`, `paddle.sum`, ... name (defined in framework/ops/);
this module only gathers them under Paddle's path, so `paddle.tensor.math.add is paddle.add`.
"""
from __future__ import annotations

from ..framework.ops.activation import clip, sigmoid
from ..framework.ops.building import kron
from ..framework.ops.compare import isfinite, isinf, isnan
from ..framework.ops.cumulative import cumprod, logcumsumexp
from ..framework.ops.elementwise import (abs, add, add_n, ceil, cos, divide, elementwise_pow, erf, exp,  # noqa: A004
                                         floor, floor_divide, log, log1p, maximum, minimum, mod, multiply, neg, pow,
                                         reciprocal, remainder, round, rsqrt, scale, sign, sin, sqrt, square,
                                         subtract, tanh)
from ..framework.ops.linalg import mm, outer
from ..framework.ops.reduction import amax, amin, cumsum, logsumexp, max, min, prod, sum  # noqa: A004

__all__ = ["abs", "add", "add_n", "amax", "amin", "ceil", "clip", "cos", "cumprod", "cumsum", "divide",
           "elementwise_pow", "erf", "exp", "floor", "floor_divide", "isfinite", "isinf", "isnan", "kron", "log",
           "log1p", "logcumsumexp", "logsumexp", "max", "maximum", "min", "minimum", "mm", "mod", "multiply", "neg",
           "outer", "pow", "prod", "reciprocal", "remainder", "round", "rsqrt", "scale", "sigmoid", "sign", "sin",
           "sqrt", "square", "subtract", "sum", "tanh"]
