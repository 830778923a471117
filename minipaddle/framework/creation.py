"""Creating tensors: to_tensor, zeros/ones/full, ranges, eye, random tensors, paddle.seed, shape.

In a static Program, `zeros_like(x)` & co. of an `x` with a -1 (batch) dim become a `fill_any_like`
op and `paddle.shape(x)` a `shape` op, so that dim takes the size fed at run time; `full(shape, v)` with a shape
Variable (or a list holding Variables) becomes a `fill_constant` reading that shape at run time.

Dtype defaults follow Paddle: Python floats -> float32 (the default dtype), ints -> int64,
bools -> bool. Created tensors have stop_gradient=True.
"""
from __future__ import annotations

from numbers import Number

import numpy as np

from .dtype import BFLOAT16_NP, complex_of, convert_dtype, default_float
from .errors import invalid_argument
from .memory import check_output
from . import gpu
from .place import Place, convert_place, current_place, require
from .tensor import Tensor
from .thread_modes import modes

_rng = np.random.default_rng()


def seed(value: int) -> None:
    """`paddle.seed(42)`: make every random op that follows reproducible."""
    global _rng
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 0:
        raise invalid_argument("seed", f"got {value!r}, expected a non-negative int.")
    _rng = np.random.default_rng(int(value))


def generator() -> np.random.Generator:
    return _rng


def _new(array: np.ndarray, place: Place | None = None) -> Tensor:
    """A tensor of `array` on `place` (the current device when None): moved to the GPU if that is where."""
    if place is None:
        place = current_place()
    if place.backend == "cpu":
        return Tensor._wrap(array)
    return Tensor._wrap(gpu.to_device(array))


def _infer_np_dtype(data) -> np.dtype | None:
    """Paddle's dtype for Python data: float -> default float, int -> int64, bool -> bool."""
    if isinstance(data, bool):
        return np.dtype(bool)
    if isinstance(data, int):
        return np.dtype("int64")
    if isinstance(data, float):
        return default_float()
    if isinstance(data, complex):  # Paddle: complex64 (complex128 when the default float is float64)
        return complex_of(default_float())
    return None


def to_tensor(data, dtype=None, place=None, stop_gradient: bool = True) -> Tensor:
    """`paddle.to_tensor([[1., 2.], [3., 4.]])`: a new tensor holding a copy of `data`."""
    where = require(convert_place(place), "to_tensor")
    if _building() and _holds_variable(data):   # inside a Program being built (@to_static on an input)
        return _to_tensor_static(data, dtype, stop_gradient)
    if isinstance(data, Tensor):
        array = data.numpy().copy()
    else:
        try:
            array = np.array(data)
        except ValueError as e:
            raise invalid_argument("to_tensor", f"data is not rectangular ({e}).",
                                   hint="every row of a nested list must have the same length.") from None
        if array.dtype == object or (array.dtype.kind in "USV" and array.dtype != BFLOAT16_NP):
            raise invalid_argument("to_tensor", f"got data of type {type(data).__name__} that numpy reads as "
                                                f"{array.dtype}, expected numbers or booleans.")
        if dtype is None:
            if isinstance(data, Number) and not isinstance(data, np.generic):  # numpy scalars keep theirs
                array = array.astype(_infer_np_dtype(data))
            elif array.dtype == np.float64 and not isinstance(data, (np.ndarray, np.generic)):
                array = array.astype(default_float())  # nested Python floats
            elif array.dtype == np.complex128 and not isinstance(data, (np.ndarray, np.generic)):
                array = array.astype(complex_of(default_float()))  # nested Python complex numbers
            elif array.dtype.kind == "i" and not isinstance(data, (np.ndarray, np.generic)):
                array = array.astype(np.int64)
    if dtype is not None:
        target = convert_dtype(dtype)
        if target.kind in "iu" and array.dtype.kind in "iuf" and array.dtype != target:
            _check_integer_range("to_tensor", array, target)
        array = array.astype(target, copy=False)
    elif array.dtype not in _SUPPORTED:
        raise invalid_argument("to_tensor", f"numpy dtype {array.dtype} is not supported.",
                               hint="cast the array to float32, float64, int32, int64 or bool first.")
    if not array.flags.c_contiguous:
        array = np.array(array, order="C")
    t = _new(array, where)
    if not stop_gradient:
        t.stop_gradient = False
    return t


_SUPPORTED = {np.dtype(n) for n in ("bool", "int8", "uint8", "int16", "int32", "int64",
                                    "float16", "float32", "float64", "bfloat16", "complex64", "complex128")}


# ---- static mode: creation whose shape is known only when the Program runs ---------------------
def _check_integer_range(op: str, array: np.ndarray, target: np.dtype) -> None:
    """Refuse values that `target` cannot hold: numpy's astype would wrap them (300 -> 44 in uint8)."""
    if array.size == 0:
        return
    info = np.iinfo(target)
    low, high = array.min(), array.max()
    if low < info.min or high > info.max:
        bad = low if low < info.min else high
        bad = int(bad) if array.dtype.kind in "iu" else float(bad)
        raise invalid_argument(op, f"the value {bad} does not fit in {target} (its range is {info.min} .. "
                                   f"{info.max}); numpy would wrap it around silently.",
                               hint=f"use a wider dtype (int64) or bring the values into {info.min} .. {info.max}.")


def check_fits(op: str, arg: str, value, dtype: np.dtype) -> None:
    """A Python int headed for an integer dtype must fit it (numpy raises a bare OverflowError)."""
    if dtype.kind in "iu" and isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        info = np.iinfo(dtype)
        if not info.min <= int(value) <= info.max:
            raise invalid_argument(op, f"{arg} {int(value)} does not fit in {dtype} (its range is {info.min} .. "
                                       f"{info.max}).", hint="use a wider dtype such as int64.")


def _building() -> bool:
    return modes.static_builder is not None


def _is_variable(value) -> bool:
    from .static.program import Variable
    return isinstance(value, Variable)


def _holds_variable(data) -> bool:
    if _is_variable(data):
        return True
    return isinstance(data, (list, tuple)) and any(_holds_variable(d) for d in data)


def _to_tensor_static(data, dtype, stop_gradient: bool) -> Tensor:
    """to_tensor of a Variable (or a list holding some) while a Program is built, as Paddle's static
    to_tensor: the Variable itself (cast when a dtype is asked for), a list stacked; its stop_gradient
    is set to the argument's value."""
    from .ops.elementwise import cast
    from .ops.joining import stack
    if _is_variable(data):
        out = data
        if dtype is not None and np.dtype(convert_dtype(dtype)) != np.dtype(data._data.dtype):
            out = cast(data, dtype)
    else:
        parts = [_to_tensor_static(d, dtype, stop_gradient) if _holds_variable(d) else to_tensor(d, dtype)
                 for d in data]
        out = stack(parts)
    out.stop_gradient = stop_gradient
    return out


def _static_shape(shape) -> bool:
    """In a Program, a shape given as a Variable (or holding one) is read at run time."""
    if not _building():
        return False
    if _is_variable(shape):
        return True
    return isinstance(shape, (list, tuple)) and any(_is_variable(d) for d in shape)


def shape(input: Tensor) -> Tensor:  # noqa: A002 - Paddle's argument name
    """`paddle.shape(x)`: x's shape as an int32 Tensor. In a Program it is a `shape` op, so a -1
    (batch) dim is the size fed at run time: `paddle.full([paddle.shape(x)[0], 4], 0.0)`."""
    if _building() and _is_variable(input):
        from .static import builder
        return builder.shape_of(input)
    if not isinstance(input, Tensor):
        raise invalid_argument("shape", f"input must be a Tensor, got {type(input).__name__}.")
    return Tensor._wrap(np.array(input._data.shape, np.int32))


def numel(x: Tensor, name=None) -> Tensor:
    """`paddle.numel(x)`: how many elements x holds, as a 0-D int64 Tensor."""
    if not isinstance(x, Tensor):
        raise invalid_argument("numel", f"x must be a Tensor, got {type(x).__name__}.")
    if _building() and _is_variable(x) and -1 in x._data.shape:   # known only when the Program runs
        from .ops.elementwise import cast
        from .ops.reduction import prod
        return cast(prod(shape(x)), "int64")
    return Tensor._wrap(np.array(x._data.size, np.int64))


def _like(op: str, x, value, dtype) -> Tensor:
    if not isinstance(x, Tensor):
        raise invalid_argument(op, f"x must be a Tensor, got {type(x).__name__}.")
    d = _dtype(dtype, x._data.dtype)
    if d.kind in "iu":
        check_fits(op, "fill_value", value, d)
    if _building() and _is_variable(x) and -1 in x._data.shape:  # Paddle's fill_any_like: sized at run time
        from .static import builder
        return builder.fill_any_like(x, value, d)
    return _new(np.full(x._data.shape, value, d), x.place)


def _shape(op: str, shape) -> tuple[int, ...]:
    if isinstance(shape, Tensor) and _is_variable(shape):
        raise invalid_argument(op, "shape is a static Variable, which has no values while the program is built.")
    if isinstance(shape, Tensor):
        shape = shape._data.tolist()
    if isinstance(shape, (int, np.integer)):
        shape = [shape]
    if not isinstance(shape, (list, tuple)):
        raise invalid_argument(op, f"shape got {type(shape).__name__}, expected a list of ints.")
    dims = []
    for n in shape:
        if isinstance(n, Tensor):
            n = n.item()
        if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 0:
            hint = ("in a static Program, size a -1 (batch) dim at run time: paddle.zeros_like(x), or "
                    "paddle.full([paddle.shape(x)[0], ...], v)." if _building() and -1 in list(shape) else None)
            raise invalid_argument(op, f"shape {list(shape)} must hold non-negative ints.", hint=hint)
        dims.append(int(n))
    return tuple(dims)


def _dtype(dtype, fallback) -> np.dtype:
    return convert_dtype(dtype) if dtype is not None else np.dtype(fallback)


def _sized(op: str, shape, dtype: np.dtype) -> tuple[int, ...]:
    """The checked shape of a new tensor, refused up front when it cannot fit in memory."""
    dims = _shape(op, shape)
    check_output(op, dims, dtype)
    return dims


def zeros(shape, dtype=None, name=None) -> Tensor:
    if _static_shape(shape):
        return _full_static("zeros", shape, 0.0, _dtype(dtype, default_float()))
    d = _dtype(dtype, default_float())
    return _new(np.zeros(_sized("zeros", shape, d), d))


def ones(shape, dtype=None, name=None) -> Tensor:
    if _static_shape(shape):
        return _full_static("ones", shape, 1.0, _dtype(dtype, default_float()))
    d = _dtype(dtype, default_float())
    return _new(np.ones(_sized("ones", shape, d), d))


def empty(shape, dtype=None, name=None) -> Tensor:
    if _static_shape(shape):
        return _full_static("empty", shape, 0.0, _dtype(dtype, default_float()))
    d = _dtype(dtype, default_float())
    return _new(np.empty(_sized("empty", shape, d), d))


def _full_static(op: str, shape, value, dtype: np.dtype) -> Tensor:
    from .static import builder
    value = value.item() if isinstance(value, np.generic) else value
    return builder.fill_shaped(op, shape, value, dtype)


def full(shape, fill_value, dtype=None, name=None) -> Tensor:
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    if not isinstance(fill_value, (Number, np.number)):
        raise invalid_argument("full", f"fill_value got {type(fill_value).__name__}, expected a number.")
    # Paddle: a bool fill gives bool; a complex one complex128; any other number the default float
    # (full([2], 10) is float32)
    if isinstance(fill_value, (bool, np.bool_)):
        inferred = np.dtype(bool)
    elif isinstance(fill_value, (complex, np.complexfloating)):
        inferred = np.dtype("complex128")
    else:
        inferred = default_float()
    d = _dtype(dtype, inferred)
    check_fits("full", "fill_value", fill_value, d)
    if _static_shape(shape):
        return _full_static("full", shape, fill_value, d)
    return _new(np.full(_sized("full", shape, d), fill_value, d))


def zeros_like(x: Tensor, dtype=None, name=None) -> Tensor:
    return _like("zeros_like", x, 0, dtype)


def ones_like(x: Tensor, dtype=None, name=None) -> Tensor:
    return _like("ones_like", x, 1, dtype)


def empty_like(x: Tensor, dtype=None, name=None) -> Tensor:
    return _like("empty_like", x, 0, dtype)


def full_like(x: Tensor, fill_value, dtype=None, name=None) -> Tensor:
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    if not isinstance(fill_value, (Number, np.number)):
        raise invalid_argument("full_like", f"fill_value got {type(fill_value).__name__}, expected a number.")
    return _like("full_like", x, fill_value.item() if isinstance(fill_value, np.generic) else fill_value, dtype)


def _number(op: str, arg: str, value):
    if isinstance(value, Tensor):
        return value.item()
    if not isinstance(value, (Number, np.number)) or isinstance(value, bool):
        raise invalid_argument(op, f"'{arg}' got {type(value).__name__}, expected a number.")
    return value


def arange(start=0, end=None, step=1, dtype=None, name=None) -> Tensor:
    """`paddle.arange(5)` -> [0..4]; int64 unless a bound or step is a float."""
    if end is None:
        start, end = 0, start
    start, end, step = (_number("arange", a, v) for a, v in (("start", start), ("end", end), ("step", step)))
    if step == 0:
        raise invalid_argument("arange", "step must not be 0.")
    if dtype is None:
        is_float = any(isinstance(v, (float, np.floating)) for v in (start, end, step))
        dtype = default_float() if is_float else np.int64
    return _new(np.arange(start, end, step, dtype=convert_dtype(dtype)))


def linspace(start, stop, num, dtype=None, name=None) -> Tensor:
    num = int(_number("linspace", "num", num))
    if num < 1:
        raise invalid_argument("linspace", f"num must be >= 1, got {num}.")
    d = _dtype(dtype, default_float())
    return _new(np.linspace(_number("linspace", "start", start), _number("linspace", "stop", stop),
                                    num).astype(d))


def eye(num_rows, num_columns=None, dtype=None, name=None) -> Tensor:
    for arg, v in (("num_rows", num_rows), ("num_columns", num_columns)):
        if v is not None and (not isinstance(v, (int, np.integer)) or v < 0):
            raise invalid_argument("eye", f"'{arg}' got {v!r}, expected a non-negative int.")
    return _new(np.eye(num_rows, num_columns, dtype=_dtype(dtype, default_float())))


def _float_dtype(op: str, dtype) -> np.dtype:
    d = _dtype(dtype, default_float())
    if d.kind != "f":
        raise invalid_argument(op, f"dtype {d} is not a floating dtype.")
    return d


def rand(shape, dtype=None, name=None) -> Tensor:
    """Uniform in [0, 1)."""
    d = _float_dtype("rand", dtype)
    return _new(_rng.random(_shape("rand", shape)).astype(d))


def randn(shape, dtype=None, name=None) -> Tensor:
    """Standard normal."""
    d = _float_dtype("randn", dtype)
    return _new(_rng.standard_normal(_shape("randn", shape)).astype(d))


def uniform(shape, dtype=None, min=-1.0, max=1.0, seed=0, name=None) -> Tensor:  # noqa: A002
    d = _float_dtype("uniform", dtype)
    if min > max:
        raise invalid_argument("uniform", f"min ({min}) must be <= max ({max}).")
    rng = np.random.default_rng(seed) if seed else _rng
    return _new(rng.uniform(min, max, _shape("uniform", shape)).astype(d))


def normal(mean=0.0, std=1.0, shape=None, name=None) -> Tensor:
    if std < 0:
        raise invalid_argument("normal", f"std must be >= 0, got {std}.")
    shape = _shape("normal", shape if shape is not None else [1])
    return _new(_rng.normal(mean, std, shape).astype(default_float()))


def randint(low=0, high=None, shape=(1,), dtype=None, name=None) -> Tensor:
    """Integers in [low, high); `randint(10, shape=[3])` draws from [0, 10)."""
    if high is None:
        low, high = 0, low
    if high <= low:
        raise invalid_argument("randint", f"high ({high}) must be greater than low ({low}).")
    d = _dtype(dtype, "int64")
    return _new(_rng.integers(low, high, _shape("randint", shape)).astype(d))


def randperm(n, dtype="int64", name=None) -> Tensor:
    return _new(_rng.permutation(int(n)).astype(convert_dtype(dtype)))
