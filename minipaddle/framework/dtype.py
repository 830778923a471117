"""Data types, after Paddle's `paddle.float32` & co.

A `DType` names one numpy dtype. Tensors store numpy arrays, so the numpy dtype is the
truth; `DType` is what users see and pass. `convert_dtype` accepts every spelling a user
may write ("float32", np.float32, paddle.float32) and is the single place that rejects
the rest.
"""
from __future__ import annotations

import ml_dtypes  # noqa: F401 - registers numpy's "bfloat16" dtype (Google's brain float: float32's range, 8 bits of mantissa)
import numpy as np

from .errors import invalid_argument


class DType:
    """A Paddle-style dtype: `paddle.float32`, `paddle.int64`, ..."""

    __slots__ = ("name", "np_dtype")

    def __init__(self, name: str) -> None:
        self.name = name
        self.np_dtype = np.dtype(name)

    def __repr__(self) -> str:
        return f"paddle.{self.name}"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, DType):
            return self.np_dtype == other.np_dtype
        try:
            return self.np_dtype == convert_dtype(other)
        except (TypeError, ValueError):
            return False

    def __hash__(self) -> int:
        return hash(self.np_dtype)

    @property
    def is_floating_point(self) -> bool:
        return self.np_dtype.kind == "f" or self.np_dtype == BFLOAT16_NP

    @property
    def is_complex(self) -> bool:
        return self.np_dtype.kind == "c"


bool_ = DType("bool")
int8 = DType("int8")
uint8 = DType("uint8")
int16 = DType("int16")
int32 = DType("int32")
int64 = DType("int64")
float16 = DType("float16")
float32 = DType("float32")
float64 = DType("float64")
bfloat16 = DType("bfloat16")   # numpy knows it through ml_dtypes (its kind letter is "V", not "f")
complex64 = DType("complex64")
complex128 = DType("complex128")
BFLOAT16_NP = bfloat16.np_dtype

ALL_DTYPES = (bool_, int8, uint8, int16, int32, int64, float16, float32, float64, bfloat16, complex64, complex128)
# dtypes whose tensors can carry a gradient, as numpy kind letters ("V": bfloat16)
DIFFERENTIABLE_KINDS = "fcV"
_BY_NP = {d.np_dtype: d for d in ALL_DTYPES}
_BY_NAME = {d.name: d for d in ALL_DTYPES}
_BY_NAME["bool_"] = bool_



def convert_dtype(dtype: object) -> np.dtype:
    """Any dtype spelling -> the numpy dtype; raise a clear error for anything else."""
    if isinstance(dtype, DType):
        return dtype.np_dtype
    if isinstance(dtype, str):
        d = _BY_NAME.get(dtype.removeprefix("paddle."))
        if d is not None:
            return d.np_dtype
    elif dtype is bool:
        return bool_.np_dtype
    elif dtype is float:
        return float32.np_dtype
    elif dtype is int:
        return int64.np_dtype
    elif dtype is complex:
        return complex64.np_dtype
    else:
        try:
            npd = np.dtype(dtype)
        except TypeError:
            npd = None
        if npd is not None and npd in _BY_NP:
            return npd
    supported = ", ".join(d.name for d in ALL_DTYPES)
    raise invalid_argument("dtype", f"got {dtype!r}, expected one of: {supported}.")


def to_paddle_dtype(np_dtype: np.dtype) -> DType:
    """numpy dtype -> the DType users see."""
    return _BY_NP[np_dtype]


def is_differentiable(np_dtype: np.dtype) -> bool:
    """Floating, complex and bfloat16 tensors carry gradients; integer and bool ones never do."""
    return np_dtype.kind in DIFFERENTIABLE_KINDS


def complex_of(real: np.dtype) -> np.dtype:
    """The complex dtype with `real`'s precision: float64 -> complex128, anything narrower -> complex64."""
    return np.dtype("complex128") if real == np.float64 else np.dtype("complex64")


def real_of(dtype: np.dtype) -> np.dtype:
    """complex64 -> float32, complex128 -> float64; a real dtype is its own."""
    if dtype.kind == "c":
        return np.dtype("float64") if dtype == np.complex128 else np.dtype("float32")
    return dtype


_default_float = np.dtype("float32")


def set_default_dtype(dtype: object) -> None:
    """`paddle.set_default_dtype("float64")`: the dtype of Python floats and random tensors."""
    global _default_float
    d = convert_dtype(dtype)
    if d.kind != "f":
        raise invalid_argument("set_default_dtype", f"got {d.name}, expected a floating dtype.")
    _default_float = d


def get_default_dtype() -> str:
    return _default_float.name


def default_float() -> np.dtype:
    return _default_float
