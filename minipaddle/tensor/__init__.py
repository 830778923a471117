"""paddle.tensor: the tensor functions, grouped as Paddle groups them (math, linalg, manipulation, ...).

Every name here is the function `paddle.<name>` also names, defined once in framework/ops/ (or
framework/creation.py); the submodules only gather them under Paddle's paths:

    paddle.tensor.mm is paddle.mm is paddle.tensor.math.mm          # True
"""
from __future__ import annotations

from . import attribute, creation, linalg, logic, manipulation, math, random, search, stat  # noqa: F401
from .attribute import shape
from .creation import (arange, assign, empty, empty_like, eye, full, full_like, linspace, ones, ones_like,
                       to_tensor, tril, triu, zeros, zeros_like)
from .linalg import bmm, dist, dot, matmul, mv, norm, t, transpose
from .logic import (all, allclose, any, bitwise_and, bitwise_not, bitwise_or, bitwise_xor, equal,  # noqa: A004
                    equal_all, greater_equal, greater_than, isclose, less_equal, less_than, logical_and,
                    logical_not, logical_or, logical_xor, not_equal)
from .manipulation import (broadcast_to, cast, chunk, concat, expand, expand_as, flatten, flip, gather, gather_nd,
                           index_select, masked_fill, put_along_axis, reshape, reshape_, roll, scatter, slice, split,
                           squeeze, stack, strided_slice, take_along_axis, tile, unsqueeze)
from .math import (abs, add, add_n, amax, amin, ceil, clip, cos, cumsum, divide, elementwise_pow, erf,  # noqa: A004
                   exp, floor, floor_divide, isfinite, isinf, isnan, log, log1p, logsumexp, max, maximum, min,
                   minimum, mm, mod, multiply, neg, outer, pow, prod, reciprocal, remainder, round, rsqrt, scale,
                   sigmoid, sign, sin, sqrt, square, subtract, sum, tanh)
from .random import normal, rand, randint, randn, randperm, uniform
from .search import argmax, argmin, argsort, masked_select, nonzero, sort, topk, where
from .stat import mean, numel, std, var

__all__ = (attribute.__all__ + creation.__all__ + linalg.__all__ + logic.__all__ + manipulation.__all__
           + math.__all__ + random.__all__ + search.__all__ + stat.__all__)
