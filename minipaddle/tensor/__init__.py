"""paddle.tensor: the tensor functions, grouped as Paddle groups them (math, linalg, manipulation, ...).

Every name here is the function `paddle.<name>` also names, defined once in framework/ops/ (or
framework/creation.py); the submodules only gather them under Paddle's paths:

    paddle.tensor.mm is paddle.mm is paddle.tensor.math.mm          # True
"""
from __future__ import annotations

# ruff: noqa: F401  -- every import below is re-exported (see __all__ at the end)

from . import attribute, creation, linalg, logic, manipulation, math, random, search, stat  # noqa: F401
from .attribute import imag, is_complex, is_floating_point, is_integer, real, shape
from .creation import (arange, assign, diag, diagflat, empty, empty_like, eye, full, full_like, linspace, meshgrid,
                       ones, ones_like, to_tensor, tril, triu, zeros, zeros_like)
from .linalg import bincount, bmm, dist, dot, histogram, matmul, mv, norm, t, transpose
from .logic import (all, allclose, any, bitwise_and, bitwise_not, bitwise_or, bitwise_xor, equal,  # noqa: A004
                    equal_all, greater_equal, greater_than, isclose, less_equal, less_than, logical_and,
                    logical_not, logical_or, logical_xor, not_equal)
from .manipulation import (broadcast_to, cast, chunk, concat, expand, expand_as, flatten, flip, gather, gather_nd,
                           index_select, masked_fill, put_along_axis, repeat_interleave, reshape, reshape_, roll,
                           scatter, slice, split, squeeze, stack, strided_slice, take_along_axis, tile, unique,
                           unsqueeze)
from .math import (abs, add, add_n, amax, amin, ceil, clip, cos, cumprod, cumsum, divide,  # noqa: A004
                   elementwise_pow, erf, exp, floor, floor_divide, isfinite, isinf, isnan, kron, log, log1p,
                   logcumsumexp, logsumexp, max, maximum, min, minimum, mm, mod, multiply, neg, outer, pow, prod,
                   reciprocal, remainder, round, rsqrt, scale, sigmoid, sign, sin, sqrt, square, subtract, sum, tanh)
from .random import normal, rand, randint, randn, randperm, uniform
from .search import argmax, argmin, argsort, bucketize, masked_select, nonzero, searchsorted, sort, topk, where
from .stat import mean, numel, std, var

__all__ = (attribute.__all__ + creation.__all__ + linalg.__all__ + logic.__all__ + manipulation.__all__
           + math.__all__ + random.__all__ + search.__all__ + stat.__all__)
