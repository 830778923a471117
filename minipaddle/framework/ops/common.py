"""Helpers shared by op definitions: argument conversion, meta rules, axis handling.

infer_meta functions receive array-likes with `.shape` (a tuple) and `.dtype` (a numpy
dtype): the raw arrays in eager mode, MetaTensors in static mode. They return a
MetaTensor (or a tuple of them) and are the one place that rejects bad arguments.
"""
from __future__ import annotations

from functools import lru_cache
from numbers import Number

import numpy as np

from .. import gpu
from ..dtype import BFLOAT16_NP, complex_of, convert_dtype, default_float
from ..errors import invalid_argument, invalid_type
from ..registry import MetaTensor
from ..tensor import Tensor

FLOATS = ("float16", "float32", "float64")
INTS = ("int32", "int64")
NUMERIC = FLOATS + INTS
COMPLEX = ("complex64", "complex128")
BFLOAT16 = ("bfloat16",)
# every dtype: ops that only move, pick or compare values (reshape, concat, where, equal, ...) serve all
ALL = NUMERIC + ("bool", "int8", "uint8", "int16") + COMPLEX + BFLOAT16


def as_tensor(op: str, arg: str, value) -> Tensor:
    """`value` must be a Tensor; say clearly what came instead."""
    if isinstance(value, Tensor):
        return value
    raise invalid_argument(op, f"argument '{arg}' got {type(value).__name__}, expected a Tensor.",
                           hint="wrap data with paddle.to_tensor(...).")


def scalar_tensor(value, like: np.dtype, op: str = "scalar") -> Tensor:
    """A Python scalar as a 0-D tensor of the dtype it combines with (Paddle's scalar rule).

    An int that the tensor's integer dtype cannot hold is refused (numpy raises a bare OverflowError;
    Paddle wraps it around silently): `int32_tensor + 2**40` names the op and the range."""
    if isinstance(value, bool):
        dtype = like if like.kind != "b" else np.dtype(bool)
    elif isinstance(value, int):
        dtype = like if like.kind in "iuf" else np.dtype("int64")
        if dtype.kind in "iu":
            info = np.iinfo(dtype)
            if not info.min <= value <= info.max:
                raise invalid_argument(op, f"the Python int {value} does not fit in the tensor's dtype {dtype} "
                                           f"(its range is {info.min} .. {info.max}).",
                                       hint="cast the tensor to int64 first: x.astype('int64').")
    elif isinstance(value, (complex, np.complexfloating)):  # makes a real tensor complex (f32 + 1j: complex64)
        dtype = like if like.kind == "c" else complex_of(like)
    else:
        dtype = like if like.kind in "fc" or like == BFLOAT16_NP else default_float()
    return Tensor._wrap(np.array(value, dtype=dtype))


_KIND_RANK = {"b": 0, "u": 1, "i": 1, "f": 2, "V": 2, "c": 3}   # bool < int < float (bfloat16: "V") < complex


def promote_types(op: str, a: np.dtype, b: np.dtype, a_is_0d: bool = False, b_is_0d: bool = False) -> np.dtype:
    """The dtype two tensors of different dtypes compute in, by Paddle 3's type promotion.

    - float with float: the wider float (float16 + float32 -> float32);
    - a 0-D tensor with a tensor of more dims acts like a Python scalar: the tensor's dtype wins,
      unless the 0-D one is of a higher kind (int64 tensor + 0-D float32 -> float32);
    - two 0-D tensors: the higher kind, the wider dtype;
    - anything else (float32 + int64, float32 + bool, int32 + int64) is a TypeError in Paddle,
      so it is one here: mixing them silently hides a bug more often than it helps.
    """
    if a == b:
        return a
    if a.kind == "c" or b.kind == "c":
        return _promote_complex(a, b)
    rank_a, rank_b = _KIND_RANK.get(a.kind, 1), _KIND_RANK.get(b.kind, 1)
    if a_is_0d != b_is_0d:   # the 0-D one is a scalar: it decides only when it is of a higher kind
        scalar, scalar_rank, tensor, tensor_rank = (a, rank_a, b, rank_b) if a_is_0d else (b, rank_b, a, rank_a)
        return scalar if scalar_rank > tensor_rank else tensor
    if a_is_0d or rank_a == rank_b == 2:
        if rank_a != rank_b:
            return a if rank_a > rank_b else b
        if BFLOAT16_NP in (a, b):  # bfloat16 with float16 or float32 is float32; with float64, float64
            return np.dtype(np.float64) if np.float64 in (a, b) else np.dtype(np.float32)
        return np.promote_types(a, b)
    raise invalid_type(op, f"x has dtype {a} and y has dtype {b}; Paddle promotes only between floating-point "
                           "dtypes (a 0-D tensor or a Python number combines with any dtype).",
                       hint=f"cast one of them first, e.g. y.astype('{a}') or x.astype('{b}').")


def _promote_complex(a: np.dtype, b: np.dtype) -> np.dtype:
    """Paddle 3 combines a complex tensor with any real one, 0-D or not: the complex dtype, widened to
    complex128 by a float64 (or complex128) partner; an int or bool partner never widens it."""
    complex_one, other = (a, b) if a.kind == "c" else (b, a)
    if other.kind == "c" or other == np.float64:
        return np.promote_types(complex_one, other)
    return complex_one


def follow_place(t: Tensor, partner: Tensor) -> Tensor:
    """A Python scalar wrapped as `t` lives where the tensor it combines with lives."""
    if type(partner._data) is not np.ndarray and gpu.is_device_array(partner._data):
        t._data = gpu.to_device(t._data)
    return t


def binary_operands(op: str, x, y) -> tuple[Tensor, Tensor]:
    """Turn (Tensor|scalar, Tensor|scalar) into two Tensors of one dtype."""
    if type(x) is Tensor and type(y) is Tensor and x._data.dtype == y._data.dtype:
        return x, y  # the common case, kept cheap: it is on every binary op's path
    if not isinstance(x, Tensor):
        if isinstance(y, Tensor) and isinstance(x, (Number, np.number)):
            x = follow_place(scalar_tensor(x, y._data.dtype, op), y)
        elif isinstance(x, np.ndarray):  # ndarray (op) Tensor: numpy defers to us
            x = follow_place(Tensor._wrap(x.astype(y._data.dtype) if x.dtype == np.float64 else x), y)
        else:
            x = as_tensor(op, "x", x)
    if not isinstance(y, Tensor):
        if isinstance(y, (Number, np.number)):
            y = follow_place(scalar_tensor(y, x._data.dtype, op), x)
        else:
            y = as_tensor(op, "y", y)
    dx, dy = x._data.dtype, y._data.dtype
    if dx != dy:
        from .elementwise import cast
        target = promote_types(op, dx, dy, len(x._data.shape) == 0, len(y._data.shape) == 0)
        if dx != target:
            x = cast(x, target)
        if dy != target:
            y = cast(y, target)
    return x, y


@lru_cache(maxsize=4096)
def broadcast_shape(op: str, a: tuple, b: tuple) -> tuple:
    """numpy/Paddle broadcasting of two shapes, with Paddle's error when they don't fit."""
    n = max(len(a), len(b))
    pa = (1,) * (n - len(a)) + a
    pb = (1,) * (n - len(b)) + b
    out = []
    for i, (da, db) in enumerate(zip(pa, pb)):
        if da == db or db == 1:
            out.append(da)
        elif da == 1:
            out.append(db)
        elif da == -1 or db == -1:  # unknown in a static Program
            out.append(-1)
        else:
            raise invalid_argument(
                op, f"shapes {list(a)} and {list(b)} cannot be broadcast: dim {i - n} is {da} vs {db}.",
                hint="two dims broadcast when they are equal or one of them is 1.")
    return tuple(out)


def same_dtype(op: str, x, y) -> None:
    if x.dtype != y.dtype:
        raise invalid_argument(op, f"x has dtype {x.dtype} but y has dtype {y.dtype}; expected the same dtype.",
                               hint="cast one of them with .astype(...).")


def require_dtype(op: str, arg: str, x, kinds: str, what: str) -> None:
    """Reject dtypes whose kind letter is not in `kinds` ('f' float, 'c' complex, 'i'/'u' int, 'b' bool);
    bfloat16 (kind 'V' in numpy) counts as 'f'."""
    if x.dtype.kind not in kinds and not ("f" in kinds and x.dtype == BFLOAT16_NP):
        raise invalid_argument(op, f"argument '{arg}' has dtype {x.dtype}, expected {what}.")


def unary_meta(x) -> MetaTensor:
    return MetaTensor(x.shape, x.dtype)


def normalize_axis(op: str, axis: int, ndim: int) -> int:
    """A possibly negative axis as a non-negative one, or a clear error."""
    if isinstance(axis, Tensor):
        axis = int(axis.item())
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise invalid_argument(op, f"axis must be an int, got {type(axis).__name__}.")
    lo = -max(ndim, 1)
    hi = max(ndim, 1) - 1
    if not lo <= axis <= hi:
        raise invalid_argument(op, f"axis {axis} is out of range for a {ndim}-D tensor; expected "
                                   f"{lo} <= axis <= {hi}.")
    return int(axis) % max(ndim, 1)


def normalize_axes(op: str, axis, ndim: int) -> tuple[int, ...] | None:
    """None (all axes), an int, or a list/tuple of ints -> a sorted tuple, or None for all."""
    if axis is None:
        return None
    if isinstance(axis, (list, tuple)):
        axes = tuple(sorted({normalize_axis(op, a, ndim) for a in axis}))
        if len(axes) != len(axis):
            raise invalid_argument(op, f"axis {list(axis)} names the same axis twice.")
        return axes
    return (normalize_axis(op, axis, ndim),)


def dtype_of(op: str, dtype) -> np.dtype:
    try:
        return convert_dtype(dtype)
    except ValueError as e:
        raise invalid_argument(op, f"dtype: {e}") from None
