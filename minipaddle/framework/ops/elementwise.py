"""Elementwise math: binary arithmetic, unary math, cast, assign, where, scale.

Every op's math is a scalar primitive (primitives.py) compiled to a numba loop; where
numpy already has the same ufunc (SIMD, no compile) it is registered beside it with a
higher priority, so both are there to read, compare and autotune.
"""
from __future__ import annotations

import numpy as np

from ..creation import ones_like, to_tensor, zeros_like
from ..dispatch import dispatch
from ..errors import invalid_argument
from ..kernels.cpu.elementwise import (FLOAT_BINARY, FLOAT_UNARY, NUMERIC_BINARY, NUMERIC_UNARY,
                                 ElementwiseKernel, upcast_bfloat16, upcast_float16)
from ..kernels.cpu.elementwise_parallel import ParallelElementwiseKernel
from ..registry import LazyKernel, MetaTensor, add_kernel, new_meta, register_op
from ..tensor import Tensor
from . import primitives as P
from .common import (ALL, BFLOAT16, COMPLEX, FLOATS, NUMERIC, as_tensor, binary_operands, broadcast_shape,
                     dtype_of, follow_place, require_dtype, same_dtype, unary_meta)
from .complex import conj_if_complex as _conj, real_part_meta  # abs of complex64 is float32 (|a + ib|)

_tuple_new = tuple.__new__
_NO_ATTRS: dict = {}  # (never written to: passed where an op call has no attributes)


# ---- declaring ops -------------------------------------------------------------------
# Each op's infer_meta is written out in full, naming its op in its errors: a shared helper would cost a
# call (~40 ns, 2% of an eager add) on every op.
# add, subtract and multiply (the ops of every model) go one step further: no call at all unless the
# dtypes differ, and the MetaTensor built directly.
FLOAT_OR_COMPLEX = "a floating or complex dtype"


def register_elementwise_kernels(name: str, primitive, numpy_fn=None, *, floats_only: bool = True,
                                 prefer_numba: bool = False) -> None:
    """numba loop kernels from `primitive` (+ float16 by upcast), and numpy's ufunc if given.

    numpy's kernel is the default (it needs no compile) unless `prefer_numba` says the
    numba one measured faster.
    """
    if primitive is not None:
        arity = primitive.__code__.co_argcount
        if floats_only:
            sigs = FLOAT_UNARY if arity == 1 else FLOAT_BINARY
        else:
            sigs = NUMERIC_UNARY if arity == 1 else NUMERIC_BINARY
        kernel = ElementwiseKernel(primitive, sigs)
        add_kernel(name, "cpu", ("float32", "float64") + (() if floats_only else ("int32", "int64")),
                   kernel, name="numba")
        add_kernel(name, "cpu", ("float16",), upcast_float16(kernel), name="numba")
    if numpy_fn is not None:
        dtypes = FLOATS if floats_only else NUMERIC
        add_kernel(name, "cpu", dtypes, numpy_fn, name="numpy", priority=-1 if prefer_numba else 1)
        # bfloat16: numpy's float32 ufunc on the widened inputs, rounded back (kernels/cpu/elementwise.py)
        add_kernel(name, "cpu", BFLOAT16, upcast_bfloat16(numpy_fn), name="numpy_float32")


# Below every other kernel: a parallel loop is never the default, only a candidate the autotuner times.
PARALLEL_PRIORITY = -2


def register_parallel_kernel(name: str, primitive) -> ParallelElementwiseKernel:
    """A prange loop of `primitive` for float32/float64 (kernels/cpu/elementwise_parallel.py).

    It pays only on big arrays, so it is registered below the serial/numpy kernels: the autotuner
    times it per shape class and runs it only where it measured faster.
    """
    kernel = ParallelElementwiseKernel(primitive, FLOAT_UNARY if primitive.__code__.co_argcount == 1 else FLOAT_BINARY)
    add_kernel(name, "cpu", ("float32", "float64"), kernel, name="numba_parallel", priority=PARALLEL_PRIORITY)
    return kernel


def _pow_primitive(x, y):
    # pow's scalar math (primitives.py has none yet: numpy's np.power is pow's only other kernel)
    return x ** y


# ---- binary arithmetic ----------------------------------------------------------------
def add_grad(node, dout):
    return dout, dout


def subtract_grad(node, dout):
    return dout, -dout


def multiply_grad(node, dout):
    # _conj: for complex inputs the derivative is conjugated (Paddle's convention; framework/ops/complex.py)
    return dout * _conj(node.y), dout * _conj(node.x)


def divide_grad(node, dout):
    y = _conj(node.y)
    return dout / y, -dout * _conj(node.out) / y


def maximum_grad(node, dout):
    x_wins = node.x > node.y
    zero = zeros_like(dout)
    return where(x_wins, dout, zero), where(x_wins, zero, dout)


def minimum_grad(node, dout):
    x_wins = node.x < node.y
    zero = zeros_like(dout)
    return where(x_wins, dout, zero), where(x_wins, zero, dout)


def remainder_grad(node, dout):
    return dout, -dout * floor(node.x / node.y)


def elementwise_pow_grad(node, dout):
    x, y, out = node.x, node.y, node.out
    if x._data.dtype.kind == "c":  # holomorphic in x (and in y): conjugate the derivatives
        return dout * _conj(y * elementwise_pow(x, y - 1)), dout * _conj(out * log(x))
    safe_log = log(where(x > 0, x, ones_like(x)))  # d/dy is 0 where x <= 0 (Paddle's choice)
    # d/dx x**y = y * x**(y-1), except that x**0 is the constant 1: its slope is 0 also at x = 0, where
    # the formula would give 0 * 0**-1 = 0 * inf = NaN (Paddle and PyTorch give 0 there too)
    slope = y * elementwise_pow(x, y - 1)
    slope = where(y == 0, zeros_like(slope), slope)
    return dout * slope, dout * out * safe_log


def add_meta(x, y) -> MetaTensor:
    dtype = x.dtype
    if dtype != y.dtype:  # tested here: same_dtype, which raises, costs a call
        same_dtype("add", x, y)
    shape = x.shape
    if shape != y.shape:  # tested first: broadcast_shape costs a call, and most operands match
        shape = broadcast_shape("add", shape, y.shape)
    return _tuple_new(MetaTensor, (shape, dtype))  # new_meta(shape, dtype), inlined


def subtract_meta(x, y) -> MetaTensor:
    dtype = x.dtype
    if dtype != y.dtype:  # tested here: same_dtype, which raises, costs a call
        same_dtype("subtract", x, y)
    shape = x.shape
    if shape != y.shape:  # tested first: broadcast_shape costs a call, and most operands match
        shape = broadcast_shape("subtract", shape, y.shape)
    return _tuple_new(MetaTensor, (shape, dtype))  # new_meta(shape, dtype), inlined


def multiply_meta(x, y) -> MetaTensor:
    dtype = x.dtype
    if dtype != y.dtype:  # tested here: same_dtype, which raises, costs a call
        same_dtype("multiply", x, y)
    shape = x.shape
    if shape != y.shape:  # tested first: broadcast_shape costs a call, and most operands match
        shape = broadcast_shape("multiply", shape, y.shape)
    return _tuple_new(MetaTensor, (shape, dtype))  # new_meta(shape, dtype), inlined


def divide_meta(x, y) -> MetaTensor:
    same_dtype("divide", x, y)
    shape = x.shape
    if shape != y.shape:  # tested first: broadcast_shape costs a call, and most operands match
        shape = broadcast_shape("divide", shape, y.shape)
    return new_meta(shape, x.dtype)


def floor_divide_meta(x, y) -> MetaTensor:
    same_dtype("floor_divide", x, y)
    shape = x.shape
    if shape != y.shape:  # tested first: broadcast_shape costs a call, and most operands match
        shape = broadcast_shape("floor_divide", shape, y.shape)
    return new_meta(shape, x.dtype)


def remainder_meta(x, y) -> MetaTensor:
    same_dtype("remainder", x, y)
    shape = x.shape
    if shape != y.shape:  # tested first: broadcast_shape costs a call, and most operands match
        shape = broadcast_shape("remainder", shape, y.shape)
    return new_meta(shape, x.dtype)


def maximum_meta(x, y) -> MetaTensor:
    same_dtype("maximum", x, y)
    shape = x.shape
    if shape != y.shape:  # tested first: broadcast_shape costs a call, and most operands match
        shape = broadcast_shape("maximum", shape, y.shape)
    return new_meta(shape, x.dtype)


def minimum_meta(x, y) -> MetaTensor:
    same_dtype("minimum", x, y)
    shape = x.shape
    if shape != y.shape:  # tested first: broadcast_shape costs a call, and most operands match
        shape = broadcast_shape("minimum", shape, y.shape)
    return new_meta(shape, x.dtype)


def elementwise_pow_meta(x, y) -> MetaTensor:
    same_dtype("elementwise_pow", x, y)
    shape = x.shape
    if shape != y.shape:  # tested first: broadcast_shape costs a call, and most operands match
        shape = broadcast_shape("elementwise_pow", shape, y.shape)
    return new_meta(shape, x.dtype)


ADD = register_op("add", inputs=("x", "y"), infer_meta=add_meta, backward=add_grad)
SUBTRACT = register_op("subtract", inputs=("x", "y"), infer_meta=subtract_meta,
                       backward=subtract_grad)
MULTIPLY = register_op("multiply", inputs=("x", "y"), infer_meta=multiply_meta,
                       backward=multiply_grad, save=("x", "y"))
DIVIDE = register_op("divide", inputs=("x", "y"), infer_meta=divide_meta,
                     backward=divide_grad, save=("y", "out"))
FLOOR_DIVIDE = register_op("floor_divide", inputs=("x", "y"), infer_meta=floor_divide_meta)
REMAINDER = register_op("remainder", inputs=("x", "y"), infer_meta=remainder_meta,
                        backward=remainder_grad, save=("x", "y"))
MAXIMUM = register_op("maximum", inputs=("x", "y"), infer_meta=maximum_meta,
                      backward=maximum_grad, save=("x", "y"))
MINIMUM = register_op("minimum", inputs=("x", "y"), infer_meta=minimum_meta,
                      backward=minimum_grad, save=("x", "y"))
ELEMENTWISE_POW = register_op("elementwise_pow", inputs=("x", "y"),
                              infer_meta=elementwise_pow_meta,
                              backward=elementwise_pow_grad, save=("x", "y", "out"))

register_elementwise_kernels("add", P.add, np.add, floats_only=False)
register_elementwise_kernels("subtract", P.subtract, np.subtract, floats_only=False)
register_elementwise_kernels("multiply", P.multiply, np.multiply, floats_only=False)
register_elementwise_kernels("maximum", P.maximum, np.maximum, floats_only=False)
register_elementwise_kernels("minimum", P.minimum, np.minimum, floats_only=False)
register_elementwise_kernels("divide", P.divide, np.divide)
register_elementwise_kernels("remainder", None, np.remainder, floats_only=False)  # Python's sign rule, as Paddle
register_elementwise_kernels("elementwise_pow", None, np.power)
register_parallel_kernel("add", P.add)
register_parallel_kernel("subtract", P.subtract)
register_parallel_kernel("multiply", P.multiply)
register_parallel_kernel("divide", P.divide)
register_parallel_kernel("maximum", P.maximum)
register_parallel_kernel("minimum", P.minimum)
register_parallel_kernel("elementwise_pow", _pow_primitive)


def _int_floor_divide(x, y):
    if np.any(y == 0):
        raise invalid_argument("floor_divide", "integer division by zero.")
    return np.floor_divide(x, y)


def _int_remainder(x, y):
    if np.any(y == 0):  # numpy gives 0 with a warning; Paddle and PyTorch refuse
        raise invalid_argument("remainder", "integer division by zero (x % 0).",
                               hint="mask the zeros first, e.g. paddle.where(y == 0, 1, y).")
    return np.remainder(x, y)


def _int_pow(x, y):
    if np.any(y < 0):
        raise invalid_argument("pow", "integers cannot be raised to negative integer powers.")
    return np.power(x, y)


add_kernel("floor_divide", "cpu", FLOATS, np.floor_divide, name="numpy")
add_kernel("floor_divide", "cpu", ("int32", "int64"), _int_floor_divide, name="numpy")
add_kernel("remainder", "cpu", ("int32", "int64"), _int_remainder, name="numpy", priority=1)
add_kernel("elementwise_pow", "cpu", ("int32", "int64"), _int_pow, name="numpy")

# The public functions. The fast test skips binary_operands when both are Tensors of one dtype: add is on
# the hot path of every model.
def add(x, y, name=None) -> Tensor:
    """x + y, elementwise, with broadcasting: `paddle.add(x, y)` is `x + y`."""
    if type(x) is Tensor and type(y) is Tensor:
        xd, yd = x._data, y._data
        if xd.dtype == yd.dtype:  # of one shape too, add_meta has nothing to check: dispatch may skip it
            return dispatch(ADD, (x, y), _NO_ATTRS, xd.shape == yd.shape)
    x, y = binary_operands("add", x, y)  # numbers become tensors, dtypes are promoted
    return dispatch(ADD, (x, y), _NO_ATTRS, x._data.shape == y._data.shape)


def subtract(x, y, name=None) -> Tensor:
    """x - y, elementwise, with broadcasting."""
    if type(x) is Tensor and type(y) is Tensor:
        xd, yd = x._data, y._data
        if xd.dtype == yd.dtype:  # of one shape too, subtract_meta has nothing to check: dispatch may skip it
            return dispatch(SUBTRACT, (x, y), _NO_ATTRS, xd.shape == yd.shape)
    x, y = binary_operands("subtract", x, y)  # numbers become tensors, dtypes are promoted
    return dispatch(SUBTRACT, (x, y), _NO_ATTRS, x._data.shape == y._data.shape)


def multiply(x, y, name=None) -> Tensor:
    """x * y, elementwise, with broadcasting."""
    if type(x) is Tensor and type(y) is Tensor:
        xd, yd = x._data, y._data
        if xd.dtype == yd.dtype:  # of one shape too, multiply_meta has nothing to check: dispatch may skip it
            return dispatch(MULTIPLY, (x, y), _NO_ATTRS, xd.shape == yd.shape)
    x, y = binary_operands("multiply", x, y)  # numbers become tensors, dtypes are promoted
    return dispatch(MULTIPLY, (x, y), _NO_ATTRS, x._data.shape == y._data.shape)


def floor_divide(x, y, name=None) -> Tensor:
    """x // y, elementwise: the quotient rounded down (integer division by 0 is an error)."""
    if type(x) is not Tensor or type(y) is not Tensor or x._data.dtype != y._data.dtype:
        x, y = binary_operands("floor_divide", x, y)  # numbers become tensors, dtypes are promoted
    return dispatch(FLOOR_DIVIDE, (x, y))


def remainder(x, y, name=None) -> Tensor:
    """x % y, elementwise, with the sign of y (Python's rule, as Paddle). Also `paddle.mod`."""
    if type(x) is not Tensor or type(y) is not Tensor or x._data.dtype != y._data.dtype:
        x, y = binary_operands("remainder", x, y)  # numbers become tensors, dtypes are promoted
    return dispatch(REMAINDER, (x, y))


def maximum(x, y, name=None) -> Tensor:
    """The larger of x and y, elementwise."""
    if type(x) is not Tensor or type(y) is not Tensor or x._data.dtype != y._data.dtype:
        x, y = binary_operands("maximum", x, y)  # numbers become tensors, dtypes are promoted
    return dispatch(MAXIMUM, (x, y))


def minimum(x, y, name=None) -> Tensor:
    """The smaller of x and y, elementwise."""
    if type(x) is not Tensor or type(y) is not Tensor or x._data.dtype != y._data.dtype:
        x, y = binary_operands("minimum", x, y)  # numbers become tensors, dtypes are promoted
    return dispatch(MINIMUM, (x, y))


def elementwise_pow(x, y, name=None) -> Tensor:
    """x ** y, elementwise, both tensors (`paddle.pow` also takes a number y)."""
    if type(x) is not Tensor or type(y) is not Tensor or x._data.dtype != y._data.dtype:
        x, y = binary_operands("elementwise_pow", x, y)  # numbers become tensors, dtypes are promoted
    return dispatch(ELEMENTWISE_POW, (x, y))


mod = remainder


def divide(x, y, name=None) -> Tensor:
    """True division; integer tensors divide to float as in Paddle >= 2.6."""
    x, y = binary_operands("divide", x, y)
    if x._data.dtype.kind in "biu":
        x, y = cast(x, "float32"), cast(y, "float32")
    return dispatch(DIVIDE, (x, y))


# ---- scale: a * x + b with scalar attributes (Paddle's scale op) ----------------------
def scale_meta(x, scale=1.0, bias=0.0, bias_after_scale=True) -> MetaTensor:
    for attr, value in (("scale", scale), ("bias", bias)):
        if isinstance(value, Tensor):
            continue
        if not isinstance(value, (int, float, np.number)) or isinstance(value, bool):
            raise invalid_argument("scale", f"'{attr}' got {type(value).__name__}, expected a number.")
    return MetaTensor(x.shape, x.dtype)


def scale_grad(node, dout):
    return scale(dout, node.scale, 0.0)


def scale_kernel(x, scale=1.0, bias=0.0, bias_after_scale=True):
    t = x.dtype.type
    if bias_after_scale:
        return x * t(scale) + t(bias)
    return (x + t(bias)) * t(scale)


SCALE = register_op("scale", inputs=("x",), infer_meta=scale_meta, backward=scale_grad,
                    attrs={"scale": (float, 1.0), "bias": (float, 0.0), "bias_after_scale": (bool, True)})
add_kernel("scale", "cpu", NUMERIC + COMPLEX, scale_kernel, name="numpy")
add_kernel("scale", "cpu", BFLOAT16, upcast_bfloat16(scale_kernel), name="numpy_float32")


def scale(x, scale=1.0, bias=0.0, bias_after_scale=True, act=None, name=None) -> Tensor:
    """`scale * x + bias` (or `scale * (x + bias)` when bias_after_scale=False)."""
    x = as_tensor("scale", "x", x)
    if isinstance(scale, Tensor):
        scale = scale.item()
    return dispatch(SCALE, (x,), {"scale": scale, "bias": bias, "bias_after_scale": bias_after_scale})


# ---- unary math ----------------------------------------------------------------------
def neg_grad(node, dout):
    return -dout


def abs_grad(node, dout):
    return dout * sign(node.x)


def exp_grad(node, dout):
    return dout * _conj(node.out)


def log_grad(node, dout):
    return dout / _conj(node.x)


def log1p_grad(node, dout):
    return dout / _conj(node.x + 1.0)


def sqrt_grad(node, dout):
    return dout * 0.5 / _conj(node.out)


def rsqrt_grad(node, dout):
    out = node.out
    return dout * -0.5 * out * out * out


def reciprocal_grad(node, dout):
    out = _conj(node.out)
    return -dout * out * out


def square_grad(node, dout):
    return dout * 2.0 * _conj(node.x)


def sin_grad(node, dout):
    return dout * _conj(cos(node.x))


def cos_grad(node, dout):
    return -dout * _conj(sin(node.x))


def tanh_grad(node, dout):
    out = _conj(node.out)
    return dout * (1.0 - out * out)


def erf_grad(node, dout):
    x = node.x
    return dout * 1.1283791670955126 * exp(-(x * x))


def zero_grad(node, dout):
    """Piecewise-constant ops (sign, floor, ceil, round): the gradient is zero."""
    return zeros_like(dout)


def _numpy_round(x):
    return np.copysign(np.floor(np.abs(x) + 0.5), x)


def _numpy_rsqrt(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        return 1.0 / np.sqrt(x)


def _quiet(fn):
    """numpy warns on log(0), sqrt(-1), complex x / 0; Paddle returns inf/nan silently (the NaN checker
    reports them)."""
    def kernel(*arrays):
        with np.errstate(divide="ignore", invalid="ignore"):
            return fn(*arrays)
    kernel.__name__ = kernel.__qualname__ = f"numpy_{fn.__name__}"
    kernel.__wrapped__ = fn
    return kernel


def exp_meta(x) -> MetaTensor:
    require_dtype("exp", "x", x, "fc", FLOAT_OR_COMPLEX)
    return MetaTensor(x.shape, x.dtype)


def log_meta(x) -> MetaTensor:
    require_dtype("log", "x", x, "fc", FLOAT_OR_COMPLEX)
    return MetaTensor(x.shape, x.dtype)


def log1p_meta(x) -> MetaTensor:
    require_dtype("log1p", "x", x, "fc", FLOAT_OR_COMPLEX)
    return MetaTensor(x.shape, x.dtype)


def sqrt_meta(x) -> MetaTensor:
    require_dtype("sqrt", "x", x, "fc", FLOAT_OR_COMPLEX)
    return MetaTensor(x.shape, x.dtype)


def rsqrt_meta(x) -> MetaTensor:
    require_dtype("rsqrt", "x", x, "fc", FLOAT_OR_COMPLEX)
    return MetaTensor(x.shape, x.dtype)


def reciprocal_meta(x) -> MetaTensor:
    require_dtype("reciprocal", "x", x, "fc", FLOAT_OR_COMPLEX)
    return MetaTensor(x.shape, x.dtype)


def sin_meta(x) -> MetaTensor:
    require_dtype("sin", "x", x, "fc", FLOAT_OR_COMPLEX)
    return MetaTensor(x.shape, x.dtype)


def cos_meta(x) -> MetaTensor:
    require_dtype("cos", "x", x, "fc", FLOAT_OR_COMPLEX)
    return MetaTensor(x.shape, x.dtype)


def tanh_meta(x) -> MetaTensor:
    require_dtype("tanh", "x", x, "fc", FLOAT_OR_COMPLEX)
    return MetaTensor(x.shape, x.dtype)


def erf_meta(x) -> MetaTensor:
    require_dtype("erf", "x", x, "fc", FLOAT_OR_COMPLEX)
    return MetaTensor(x.shape, x.dtype)


def sign_meta(x) -> MetaTensor:
    require_dtype("sign", "x", x, "fc", FLOAT_OR_COMPLEX)
    return MetaTensor(x.shape, x.dtype)


def floor_meta(x) -> MetaTensor:
    require_dtype("floor", "x", x, "fc", FLOAT_OR_COMPLEX)
    return MetaTensor(x.shape, x.dtype)


def ceil_meta(x) -> MetaTensor:
    require_dtype("ceil", "x", x, "fc", FLOAT_OR_COMPLEX)
    return MetaTensor(x.shape, x.dtype)


def round_meta(x) -> MetaTensor:
    require_dtype("round", "x", x, "fc", FLOAT_OR_COMPLEX)
    return MetaTensor(x.shape, x.dtype)


NEG = register_op("neg", inputs=("x",), infer_meta=unary_meta, backward=neg_grad)
ABS = register_op("abs", inputs=("x",), infer_meta=real_part_meta, backward=abs_grad, save=("x",))
EXP = register_op("exp", inputs=("x",), infer_meta=exp_meta, backward=exp_grad, save=("out",))
LOG = register_op("log", inputs=("x",), infer_meta=log_meta, backward=log_grad, save=("x",))
LOG1P = register_op("log1p", inputs=("x",), infer_meta=log1p_meta, backward=log1p_grad, save=("x",))
SQRT = register_op("sqrt", inputs=("x",), infer_meta=sqrt_meta, backward=sqrt_grad, save=("out",))
RSQRT = register_op("rsqrt", inputs=("x",), infer_meta=rsqrt_meta, backward=rsqrt_grad, save=("out",))
RECIPROCAL = register_op("reciprocal", inputs=("x",), infer_meta=reciprocal_meta, backward=reciprocal_grad,
                         save=("out",))
SQUARE = register_op("square", inputs=("x",), infer_meta=unary_meta, backward=square_grad, save=("x",))
SIN = register_op("sin", inputs=("x",), infer_meta=sin_meta, backward=sin_grad, save=("x",))
COS = register_op("cos", inputs=("x",), infer_meta=cos_meta, backward=cos_grad, save=("x",))
TANH = register_op("tanh", inputs=("x",), infer_meta=tanh_meta, backward=tanh_grad, save=("out",))
ERF = register_op("erf", inputs=("x",), infer_meta=erf_meta, backward=erf_grad, save=("x",))
SIGN = register_op("sign", inputs=("x",), infer_meta=sign_meta, backward=zero_grad)
FLOOR = register_op("floor", inputs=("x",), infer_meta=floor_meta, backward=zero_grad)
CEIL = register_op("ceil", inputs=("x",), infer_meta=ceil_meta, backward=zero_grad)
ROUND = register_op("round", inputs=("x",), infer_meta=round_meta, backward=zero_grad)
register_elementwise_kernels("neg", P.neg, np.negative, floats_only=False)
register_elementwise_kernels("abs", P.abs, np.abs, floats_only=False)
register_elementwise_kernels("exp", P.exp, np.exp)
register_elementwise_kernels("log", P.log, _quiet(np.log))
register_elementwise_kernels("log1p", P.log1p, _quiet(np.log1p))
register_elementwise_kernels("sqrt", P.sqrt, _quiet(np.sqrt))
register_elementwise_kernels("rsqrt", P.rsqrt, _numpy_rsqrt)
register_elementwise_kernels("reciprocal", P.reciprocal, _quiet(np.reciprocal))
register_elementwise_kernels("square", P.square, np.square, floats_only=False)
register_elementwise_kernels("sin", P.sin, np.sin)
register_elementwise_kernels("cos", P.cos, np.cos)
register_elementwise_kernels("tanh", P.tanh, np.tanh)
register_elementwise_kernels("erf", P.erf, None)
register_elementwise_kernels("sign", P.sign, np.sign)
register_elementwise_kernels("floor", P.floor, np.floor)
register_elementwise_kernels("ceil", P.ceil, np.ceil)
register_elementwise_kernels("round", P.round, _numpy_round)


def neg(x, name=None) -> Tensor:
    """-x, elementwise. Math: primitives.py::neg."""
    return dispatch(NEG, (as_tensor("neg", "x", x),))


def abs(x, name=None) -> Tensor:  # noqa: A001
    """|x|, elementwise; of a complex tensor, the real magnitude. Math: primitives.py::abs."""
    return dispatch(ABS, (as_tensor("abs", "x", x),))


def exp(x, name=None) -> Tensor:
    """e ** x, elementwise. Math: primitives.py::exp."""
    return dispatch(EXP, (as_tensor("exp", "x", x),))


def log(x, name=None) -> Tensor:
    """The natural logarithm, elementwise (log(0) is -inf, of a negative nan). Math: primitives.py::log."""
    return dispatch(LOG, (as_tensor("log", "x", x),))


def log1p(x, name=None) -> Tensor:
    """log(1 + x), elementwise, accurate for small x. Math: primitives.py::log1p."""
    return dispatch(LOG1P, (as_tensor("log1p", "x", x),))


def sqrt(x, name=None) -> Tensor:
    """The square root, elementwise (nan for negative x). Math: primitives.py::sqrt."""
    return dispatch(SQRT, (as_tensor("sqrt", "x", x),))


def rsqrt(x, name=None) -> Tensor:
    """1 / sqrt(x), elementwise. Math: primitives.py::rsqrt."""
    return dispatch(RSQRT, (as_tensor("rsqrt", "x", x),))


def reciprocal(x, name=None) -> Tensor:
    """1 / x, elementwise. Math: primitives.py::reciprocal."""
    return dispatch(RECIPROCAL, (as_tensor("reciprocal", "x", x),))


def square(x, name=None) -> Tensor:
    """x * x, elementwise. Math: primitives.py::square."""
    return dispatch(SQUARE, (as_tensor("square", "x", x),))


def sin(x, name=None) -> Tensor:
    """The sine, elementwise (radians). Math: primitives.py::sin."""
    return dispatch(SIN, (as_tensor("sin", "x", x),))


def cos(x, name=None) -> Tensor:
    """The cosine, elementwise (radians). Math: primitives.py::cos."""
    return dispatch(COS, (as_tensor("cos", "x", x),))


def tanh(x, name=None) -> Tensor:
    """The hyperbolic tangent, elementwise. Math: primitives.py::tanh."""
    return dispatch(TANH, (as_tensor("tanh", "x", x),))


def erf(x, name=None) -> Tensor:
    """The error function, elementwise (numba kernel only: numpy has no erf). Math: primitives.py::erf."""
    return dispatch(ERF, (as_tensor("erf", "x", x),))


def sign(x, name=None) -> Tensor:
    """-1, 0 or 1 by the sign of x, elementwise; its gradient is zero. Math: primitives.py::sign."""
    return dispatch(SIGN, (as_tensor("sign", "x", x),))


def floor(x, name=None) -> Tensor:
    """x rounded down, elementwise; its gradient is zero. Math: primitives.py::floor."""
    return dispatch(FLOOR, (as_tensor("floor", "x", x),))


def ceil(x, name=None) -> Tensor:
    """x rounded up, elementwise; its gradient is zero. Math: primitives.py::ceil."""
    return dispatch(CEIL, (as_tensor("ceil", "x", x),))


def round(x, name=None) -> Tensor:  # noqa: A001
    """x rounded to the nearest integer, halves away from zero; its gradient is zero. Math: primitives.py::round."""
    return dispatch(ROUND, (as_tensor("round", "x", x),))


register_parallel_kernel("exp", P.exp)
register_parallel_kernel("log", P.log)
register_parallel_kernel("sqrt", P.sqrt)
register_parallel_kernel("tanh", P.tanh)

# complex64 / complex128: numpy's ufuncs (abs gives the real magnitude, sign z / |z|); ops Paddle has no complex
# kernel for (maximum, floor, rsqrt, ...) have none here either, and say so when called
add_kernel("add", "cpu", COMPLEX, _quiet(np.add), name="numpy")
add_kernel("subtract", "cpu", COMPLEX, _quiet(np.subtract), name="numpy")
add_kernel("multiply", "cpu", COMPLEX, _quiet(np.multiply), name="numpy")
add_kernel("divide", "cpu", COMPLEX, _quiet(np.divide), name="numpy")
add_kernel("elementwise_pow", "cpu", COMPLEX, _quiet(np.power), name="numpy")
add_kernel("neg", "cpu", COMPLEX, _quiet(np.negative), name="numpy")
add_kernel("abs", "cpu", COMPLEX, _quiet(np.abs), name="numpy")
add_kernel("exp", "cpu", COMPLEX, _quiet(np.exp), name="numpy")
add_kernel("log", "cpu", COMPLEX, _quiet(np.log), name="numpy")
add_kernel("log1p", "cpu", COMPLEX, _quiet(np.log1p), name="numpy")
add_kernel("sqrt", "cpu", COMPLEX, _quiet(np.sqrt), name="numpy")
add_kernel("reciprocal", "cpu", COMPLEX, _quiet(np.reciprocal), name="numpy")
add_kernel("square", "cpu", COMPLEX, _quiet(np.square), name="numpy")
add_kernel("sin", "cpu", COMPLEX, _quiet(np.sin), name="numpy")
add_kernel("cos", "cpu", COMPLEX, _quiet(np.cos), name="numpy")
add_kernel("tanh", "cpu", COMPLEX, _quiet(np.tanh), name="numpy")
add_kernel("sign", "cpu", COMPLEX, _quiet(np.sign), name="numpy")


def add_n(inputs, name=None) -> Tensor:
    """The sum of a list of tensors of one shape and dtype: `paddle.add_n([a, b, c])` is a + b + c."""
    if isinstance(inputs, Tensor):
        inputs = [inputs]
    if not isinstance(inputs, (list, tuple)) or not inputs:
        got = "an empty list" if isinstance(inputs, (list, tuple)) else type(inputs).__name__
        raise invalid_argument("add_n", f"inputs got {got}, expected a Tensor or a non-empty list of Tensors.")
    first = as_tensor("add_n", "inputs[0]", inputs[0])
    for i, t in enumerate(inputs[1:], 1):
        t = as_tensor("add_n", f"inputs[{i}]", t)
        if t._data.shape != first._data.shape or t._data.dtype != first._data.dtype:
            raise invalid_argument("add_n", f"inputs[{i}] has shape {list(t._data.shape)} and dtype {t._data.dtype}, "
                                            f"expected inputs[0]'s shape {list(first._data.shape)} and dtype "
                                            f"{first._data.dtype}.")
    if len(inputs) == 1:
        return dispatch(ASSIGN, (first,))
    total = dispatch(ADD, (first, inputs[1]))
    for t in inputs[2:]:
        total = dispatch(ADD, (total, t))
    return total


def pow(x, y, name=None) -> Tensor:  # noqa: A001 - Paddle's name
    """x ** y; y is a number or a Tensor."""
    if not isinstance(x, Tensor):  # 2 ** tensor
        x, y = binary_operands("pow", x, y)
        return dispatch(ELEMENTWISE_POW, (x, y))
    if isinstance(y, (int, float, np.number)) and not isinstance(y, bool):
        if x._data.dtype.kind == "f" or (isinstance(y, int) and y >= 0):
            return dispatch(ELEMENTWISE_POW, (x, follow_place(Tensor._wrap(np.array(y, dtype=x._data.dtype)), x)))
    x, y = binary_operands("pow", x, y)
    return dispatch(ELEMENTWISE_POW, (x, y))


# ---- cast, assign, where --------------------------------------------------------------
def cast_meta(x, dtype=None) -> MetaTensor:
    return MetaTensor(x.shape, dtype)


def cast_grad(node, dout):
    return cast(dout, node.input_metas[0][1])


CAST = register_op("cast", inputs=("x",), infer_meta=cast_meta, backward=cast_grad,
                   attrs={"dtype": (np.dtype, None)})


def cast_kernel(x, dtype=None):
    if x.dtype.kind == "c" and dtype.kind != "c":  # complex -> real keeps the real part, as Paddle (numpy warns)
        x = x.real
    return x.astype(dtype)


add_kernel("cast", "cpu", ALL, cast_kernel, name="numpy")


def cast(x, dtype, name=None) -> Tensor:
    """A copy of x with another dtype: `paddle.cast(x, "float64")`."""
    x = as_tensor("cast", "x", x)
    return dispatch(CAST, (x,), {"dtype": dtype_of("cast", dtype)})


def assign_kernel(x):
    return x.copy()


ASSIGN = register_op("assign", inputs=("x",), infer_meta=unary_meta, backward=lambda node, dout: dout)
add_kernel("assign", "cpu", ALL, assign_kernel, name="numpy")


def assign(x, output=None) -> Tensor:
    """A copy of x (a Tensor, numpy array or nested list); into `output` when given."""
    if not isinstance(x, Tensor):
        x = to_tensor(x)
    out = dispatch(ASSIGN, (x,))
    if output is not None:
        output._check_inplace("assign")
        return output._assign_result(out, "assign")
    return out


def where_meta(condition, x, y) -> MetaTensor:
    if condition.dtype != np.bool_:
        raise invalid_argument("where", f"condition has dtype {condition.dtype}, expected bool.")
    same_dtype("where", x, y)
    shape = broadcast_shape("where", broadcast_shape("where", condition.shape, x.shape), y.shape)
    return MetaTensor(shape, x.dtype)


def where_grad(node, dout):
    cond = node.condition
    zero = zeros_like(dout)
    return None, where(cond, dout, zero), where(cond, zero, dout)


WHERE = register_op("where", inputs=("condition", "x", "y"), infer_meta=where_meta,
                    backward=where_grad, save=("condition",), differentiable_inputs=(1, 2), kernel_input=1)
add_kernel("where", "cpu", ALL, np.where, name="numpy")
add_kernel("where", "cpu", ("float32", "float64", "int32", "int64"),
           LazyKernel("minipaddle.framework.kernels.cpu.select:where_kernel"), name="numba", priority=1)


def where(condition, x=None, y=None, name=None):
    """Pick x where condition is True, else y. With only condition: the indices where it holds."""
    condition = as_tensor("where", "condition", condition)
    if x is None and y is None:
        from .indexing import nonzero
        return nonzero(condition, as_tuple=True)
    if x is None or y is None:
        raise invalid_argument("where", "give both x and y, or neither.")
    if not isinstance(x, Tensor) and not isinstance(y, Tensor):
        raise invalid_argument("where", "at least one of x and y must be a Tensor.")
    x, y = binary_operands("where", x, y)
    return dispatch(WHERE, (condition, x, y))


__all__ = ["add", "subtract", "multiply", "divide", "floor_divide", "remainder", "mod", "maximum", "minimum",
           "elementwise_pow", "pow", "scale", "neg", "abs", "exp", "log", "log1p", "sqrt", "rsqrt", "reciprocal",
           "square", "add_n",
           "sin", "cos", "tanh", "erf", "sign", "floor", "ceil", "round", "cast", "assign", "where"]
TENSOR_METHODS = [n for n in __all__ if n not in ("assign", "where", "add_n")] + ["astype"]
astype = cast
