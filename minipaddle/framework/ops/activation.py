"""Activations: relu, relu6, sigmoid, leaky_relu, gelu, elu, softplus, silu, clip, hardtanh,
hardsigmoid, hardswish, mish, tanhshrink, softsign.

Each op's math is a scalar primitive (primitives.py) compiled to a numba loop. An op with
scalar attributes (leaky_relu's negative_slope, clip's min/max) passes them to the kernel as
extra scalar arguments through a small module-level kernel:

    def leaky_relu_kernel(x, negative_slope=0.01):
        return _LEAKY_RELU(x, x.dtype.type(negative_slope))

Backward rules are written with minipaddle ops, so grads of grads (create_graph=True) work.
These are the math of `paddle.nn.functional`'s activations; the Layer classes build on them.
"""
from __future__ import annotations

import math
from numbers import Number

import numpy as np

from ..dispatch import dispatch
from ..errors import invalid_argument
from ..kernels.cpu.elementwise import FLOAT_BINARY, FLOAT_UNARY, ElementwiseKernel, upcast_float16
from ..kernels.cpu.elementwise_parallel import ParallelElementwiseKernel
from ..registry import MetaTensor, add_kernel, register_op
from ..tensor import Tensor
from . import primitives as P
from .common import FLOATS, INTS, as_tensor, require_dtype
from .elementwise import abs as absolute
from .elementwise import (FLOAT_OR_COMPLEX, PARALLEL_PRIORITY, erf, exp, register_elementwise_kernels,
                          register_parallel_kernel, tanh, where, zeros_like)

FLOAT_TERNARY = ("float32(float32, float32, float32)", "float64(float64, float64, float64)")
INT_TERNARY = ("int32(int32, int32, int32)", "int64(int64, int64, int64)")
FLOAT_WHAT = "a floating dtype (float16, float32, float64)"
INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


# ---- shared helpers -------------------------------------------------------------------
def _number(op: str, attr: str, value) -> None:
    """Scalar attributes must be real numbers (not bool, str, list or None)."""
    if isinstance(value, bool) or not isinstance(value, (Number, np.number)) or isinstance(value, complex):
        raise invalid_argument(op, f"'{attr}' got {type(value).__name__}, expected a number.")


def float_activation(name: str, x, **number_attrs) -> MetaTensor:
    """The meta of a float-only activation whose attributes must all be numbers."""
    require_dtype(name, "x", x, "f", FLOAT_WHAT)
    for attr, value in number_attrs.items():
        _number(name, attr, value)
    return MetaTensor(x.shape, x.dtype)


def numba_kernels(name: str, kernel, loop: ElementwiseKernel, dtypes=("float32", "float64")) -> None:
    """Register `kernel` (a thin caller of `loop`) for `dtypes`, and for float16 by upcast.

    Its `__wrapped__` is the loop kernel, whose own is the primitive: describe() and the debugger
    land on the primitive's source, the math that actually runs.
    """
    kernel.__wrapped__ = loop
    add_kernel(name, "cpu", dtypes, kernel, name="numba")
    add_kernel(name, "cpu", ("float16",), upcast_float16(kernel), name="numba")


def _inside(x: Tensor, low, high) -> Tensor | None:
    """The mask low < x < high (strict, as Paddle's clip/hardtanh gradients); None bounds are open."""
    mask = None if low is None else x > low
    if high is not None:
        below = x < high
        mask = below if mask is None else mask & below
    return mask


# ---- relu, relu6, sigmoid: no attributes ----------------------------------------------
def relu_grad(node, dout):
    return dispatch(RELU_GRAD, (node.out, dout))


def relu_grad_grad(node, ddx):
    """relu_grad is linear in dout with a mask fixed by y: its gradient is the same mask."""
    return None, dispatch(RELU_GRAD, (node.y, ddx))


def relu_grad_meta(y, dout) -> MetaTensor:
    if y.shape != dout.shape or y.dtype != dout.dtype:
        raise invalid_argument("relu_grad", f"y is {y.dtype}{list(y.shape)} but dout is "
                                            f"{dout.dtype}{list(dout.shape)}; expected the same shape and dtype.")
    return MetaTensor(dout.shape, dout.dtype)


def relu6_grad(node, dout):
    out = node.out
    return where((out > 0) & (out < 6), dout, zeros_like(dout))


def sigmoid_grad(node, dout):
    out = node.out
    return dout * out * (1.0 - out)


def _relu_numpy(x):
    return np.maximum(x, x.dtype.type(0))


def _sigmoid_numpy(x):
    # exp(-x) overflows to inf for very negative x, and 1 / (1 + inf) = 0 is the right answer
    with np.errstate(over="ignore"):
        out = np.negative(x, out=np.empty(x.shape, x.dtype))  # an array even for 0-D x
        np.exp(out, out=out)
        out += 1
        np.reciprocal(out, out=out)
    return out


def relu_meta(x) -> MetaTensor:
    require_dtype("relu", "x", x, "fc", FLOAT_OR_COMPLEX)
    return MetaTensor(x.shape, x.dtype)


def relu6_meta(x) -> MetaTensor:
    require_dtype("relu6", "x", x, "fc", FLOAT_OR_COMPLEX)
    return MetaTensor(x.shape, x.dtype)


def sigmoid_meta(x) -> MetaTensor:
    require_dtype("sigmoid", "x", x, "fc", FLOAT_OR_COMPLEX)
    return MetaTensor(x.shape, x.dtype)


RELU = register_op("relu", inputs=("x",), infer_meta=relu_meta, backward=relu_grad, save=("out",))
RELU6 = register_op("relu6", inputs=("x",), infer_meta=relu6_meta, backward=relu6_grad, save=("out",))
SIGMOID = register_op("sigmoid", inputs=("x",), infer_meta=sigmoid_meta, backward=sigmoid_grad, save=("out",))
# Kernel choice, timeit on float32 kernels called directly, 16 elements / 1M elements:
#   relu:    numba 2.0 us / 0.43 ms, np.maximum 2.4 us / 1.3 ms: numba is the default.
#   sigmoid: numba 2.2 us / 13 ms (a scalar float64 exp per element), numpy 1/(1+exp(-x)) in place
#            8.6 us / 2.3 ms (SIMD exp; errstate costs ~2.5 us): numpy is the default, since big
#            tensors are where training spends its time. The autotuner can pick per shape class.
#   relu6:   numba 2.0 us / 0.44 ms beats np.clip 6.5 us / 0.46 ms: numba only.
register_elementwise_kernels("relu", P.relu, _relu_numpy, prefer_numba=True)
# ReLU's backward as one select loop: np.where on the random mask costs ~10x a vectorized select.
RELU_GRAD = register_op("relu_grad", inputs=("y", "dout"), infer_meta=relu_grad_meta, backward=relu_grad_grad,
                        save=("y",), differentiable_inputs=(1,))
register_elementwise_kernels("relu_grad", P.relu_grad)
register_elementwise_kernels("relu6", P.relu6)
register_elementwise_kernels("sigmoid", P.sigmoid, _sigmoid_numpy)


def relu(x, name=None) -> Tensor:
    """max(x, 0), elementwise."""
    return dispatch(RELU, (as_tensor("relu", "x", x),))


def relu6(x, name=None) -> Tensor:
    """min(max(x, 0), 6), elementwise."""
    return dispatch(RELU6, (as_tensor("relu6", "x", x),))


def sigmoid(x, name=None) -> Tensor:
    """1 / (1 + exp(-x)), elementwise."""
    return dispatch(SIGMOID, (as_tensor("sigmoid", "x", x),))


# ---- leaky_relu, elu, softplus: float attributes ---------------------------------------
def leaky_relu_grad(node, dout):
    return where(node.x > 0, dout, dout * node.negative_slope)


def elu_grad(node, dout):
    # for x <= 0, d/dx alpha * (exp(x) - 1) = out + alpha: no exp of a large x in the unused branch
    return where(node.x > 0, dout, dout * (node.out + node.alpha))


def softplus_grad(node, dout):
    bx = node.x * node.beta
    return where(bx > node.threshold, dout, dout * sigmoid(bx))


_LEAKY_RELU = ElementwiseKernel(P.leaky_relu, FLOAT_BINARY)
_ELU = ElementwiseKernel(P.elu, FLOAT_BINARY)
_SOFTPLUS = ElementwiseKernel(P.softplus, FLOAT_TERNARY)


def leaky_relu_kernel(x, negative_slope=0.01):
    return _LEAKY_RELU(x, x.dtype.type(negative_slope))


def elu_kernel(x, alpha=1.0):
    return _ELU(x, x.dtype.type(alpha))


def softplus_kernel(x, beta=1.0, threshold=20.0):
    t = x.dtype.type
    return _SOFTPLUS(x, t(beta), t(threshold))


def leaky_relu_meta(x, negative_slope=0.01) -> MetaTensor:
    return float_activation("leaky_relu", x, negative_slope=negative_slope)


def elu_meta(x, alpha=1.0) -> MetaTensor:
    return float_activation("elu", x, alpha=alpha)


def softplus_meta(x, beta=1.0, threshold=20.0) -> MetaTensor:
    meta = float_activation("softplus", x, beta=beta, threshold=threshold)
    if beta == 0:
        raise invalid_argument("softplus", "'beta' is 0; softplus divides by beta, expected a non-zero number.")
    return meta


LEAKY_RELU = register_op("leaky_relu", inputs=("x",), infer_meta=leaky_relu_meta,
                         backward=leaky_relu_grad, save=("x",), attrs={"negative_slope": (float, 0.01)})
ELU = register_op("elu", inputs=("x",), infer_meta=elu_meta, backward=elu_grad,
                  save=("x", "out"), attrs={"alpha": (float, 1.0)})
SOFTPLUS = register_op("softplus", inputs=("x",), infer_meta=softplus_meta, backward=softplus_grad,
                       save=("x",), attrs={"beta": (float, 1.0), "threshold": (float, 20.0)})
# numba only: leaky_relu as numpy needs a compare, a multiply and a where -- measured
# 6.3 us / 7.6 ms against numba's 3.3 us / 0.9 ms (16 / 1M float32); elu and softplus need more.
numba_kernels("leaky_relu", leaky_relu_kernel, _LEAKY_RELU)
numba_kernels("elu", elu_kernel, _ELU)
numba_kernels("softplus", softplus_kernel, _SOFTPLUS)


def leaky_relu(x, negative_slope=0.01, name=None) -> Tensor:
    """x where x > 0, else negative_slope * x."""
    x = as_tensor("leaky_relu", "x", x)
    return dispatch(LEAKY_RELU, (x,), {"negative_slope": negative_slope})


def elu(x, alpha=1.0, name=None) -> Tensor:
    """x where x > 0, else alpha * (exp(x) - 1)."""
    return dispatch(ELU, (as_tensor("elu", "x", x),), {"alpha": alpha})


def softplus(x, beta=1, threshold=20, name=None) -> Tensor:
    """log(1 + exp(beta * x)) / beta; just x where beta * x > threshold."""
    x = as_tensor("softplus", "x", x)
    return dispatch(SOFTPLUS, (x,), {"beta": beta, "threshold": threshold})


# ---- gelu (exact erf form or tanh approximation), silu -------------------------------
def gelu_grad(node, dout):
    x = node.x
    if node.approximate:
        k = P.SQRT_2_OVER_PI
        t = tanh(k * (x + 0.044715 * x * x * x))
        return dout * (0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * k * (1.0 + 3 * 0.044715 * x * x))
    cdf = 0.5 * (1.0 + erf(x * P.SQRT_HALF))
    pdf = exp(-0.5 * x * x) * INV_SQRT_2PI
    return dout * (cdf + x * pdf)


def silu_grad(node, dout):
    x = node.x
    s = sigmoid(x)
    return dout * s * (1.0 + x * (1.0 - s))


def gelu_meta(x, approximate=False) -> MetaTensor:
    require_dtype("gelu", "x", x, "f", FLOAT_WHAT)
    if not isinstance(approximate, bool):
        raise invalid_argument("gelu", f"'approximate' got {approximate!r}, expected True or False.")
    return MetaTensor(x.shape, x.dtype)


_GELU = ElementwiseKernel(P.gelu, FLOAT_UNARY)
_GELU_TANH = ElementwiseKernel(P.gelu_tanh, FLOAT_UNARY)


def gelu_kernel(x, approximate=False):
    # approximate=True runs primitives.gelu_tanh, defined right below gelu
    return _GELU_TANH(x) if approximate else _GELU(x)


def silu_meta(x) -> MetaTensor:
    require_dtype("silu", "x", x, "fc", FLOAT_OR_COMPLEX)
    return MetaTensor(x.shape, x.dtype)


GELU = register_op("gelu", inputs=("x",), infer_meta=gelu_meta, backward=gelu_grad, save=("x",),
                   attrs={"approximate": (bool, False)})
SILU = register_op("silu", inputs=("x",), infer_meta=silu_meta, backward=silu_grad, save=("x",))
numba_kernels("gelu", gelu_kernel, _GELU)  # numpy has no erf: numba only
_GELU_PARALLEL = ParallelElementwiseKernel(P.gelu, FLOAT_UNARY)
_GELU_TANH_PARALLEL = ParallelElementwiseKernel(P.gelu_tanh, FLOAT_UNARY)


def gelu_parallel_kernel(x, approximate=False):
    # the same primitives as gelu_kernel, on numba's thread pool: a candidate the autotuner times
    return _GELU_TANH_PARALLEL(x) if approximate else _GELU_PARALLEL(x)


gelu_parallel_kernel.__wrapped__ = _GELU_PARALLEL


def register_parallel_candidates() -> None:
    """Make prange loops of relu, sigmoid and gelu candidates the autotuner times (below the defaults)."""
    register_parallel_kernel("relu", P.relu)
    register_parallel_kernel("sigmoid", P.sigmoid)
    add_kernel("gelu", "cpu", ("float32", "float64"), gelu_parallel_kernel, name="numba_parallel",
               priority=PARALLEL_PRIORITY)


register_parallel_candidates()
register_elementwise_kernels("silu", P.silu)


def gelu(x, approximate=False, name=None) -> Tensor:
    """x * Phi(x) (Phi: the standard normal CDF); approximate=True uses the tanh formula."""
    x = as_tensor("gelu", "x", x)
    if isinstance(approximate, str) and approximate in ("tanh", "none"):  # Paddle 3's spelling
        approximate = approximate == "tanh"
    return dispatch(GELU, (x,), {"approximate": approximate})


def silu(x, name=None) -> Tensor:
    """x * sigmoid(x) (also called swish)."""
    return dispatch(SILU, (as_tensor("silu", "x", x),))


# ---- clip and hardtanh: bounds ---------------------------------------------------------
def clip_meta(x, min=None, max=None) -> MetaTensor:
    if x.dtype.name not in FLOATS + INTS:
        raise invalid_argument("clip", f"argument 'x' has dtype {x.dtype}, expected one of float16, float32, "
                                       "float64, int32, int64.")
    for attr, value in (("min", min), ("max", max)):
        if value is not None:
            _number("clip", attr, value)
    if min is not None and max is not None and min > max:
        raise invalid_argument("clip", f"min ({min}) is greater than max ({max}); expected min <= max.")
    return MetaTensor(x.shape, x.dtype)


def clip_grad(node, dout):
    # Paddle's rule: the gradient passes only strictly inside (min, max), 0 at the bounds
    mask = _inside(node.x, node.min, node.max)
    return dout if mask is None else where(mask, dout, zeros_like(dout))


def hardtanh_meta(x, min=-1.0, max=1.0) -> MetaTensor:
    meta = float_activation("hardtanh", x, min=min, max=max)
    if min > max:
        raise invalid_argument("hardtanh", f"min ({min}) is greater than max ({max}); expected min <= max.")
    return meta


def hardtanh_grad(node, dout):
    return where(_inside(node.x, node.min, node.max), dout, zeros_like(dout))


# int loops first: numpy takes the first loop the inputs cast to safely, and int64 -> float64 is "safe"
_CLIP = ElementwiseKernel(P.clip, INT_TERNARY + FLOAT_TERNARY)


def _bound(dtype: np.dtype, value, default_sign: int):
    """A bound as a scalar of x's dtype; None is open (+-inf, or the ends of the int range)."""
    if dtype.kind == "i":
        info = np.iinfo(dtype)
        if value is None:
            return dtype.type(info.max if default_sign > 0 else info.min)
        # C's cast, as Paddle's Scalar.to<int>(): truncate toward zero, after clamping to the range
        return dtype.type(int(max(info.min, min(info.max, value))))
    return dtype.type(default_sign * math.inf if value is None else value)


def clip_kernel(x, min=None, max=None):
    return _CLIP(x, _bound(x.dtype, min, -1), _bound(x.dtype, max, 1))


def hardtanh_kernel(x, min=-1.0, max=1.0):
    t = x.dtype.type
    return _CLIP(x, t(min), t(max))


def clip_numpy(x, min=None, max=None):
    return np.clip(x, _bound(x.dtype, min, -1), _bound(x.dtype, max, 1))


def hardtanh_numpy(x, min=-1.0, max=1.0):
    t = x.dtype.type
    return np.clip(x, t(min), t(max))


CLIP = register_op("clip", inputs=("x",), infer_meta=clip_meta, backward=clip_grad, save=("x",),
                   attrs={"min": (float, None), "max": (float, None)})
HARDTANH = register_op("hardtanh", inputs=("x",), infer_meta=hardtanh_meta, backward=hardtanh_grad,
                       save=("x",), attrs={"min": (float, -1.0), "max": (float, 1.0)})
# clip, float32: np.clip 6.6 us / 0.46 ms, numba 6.1 us / 1.08 ms (16 / 1M; the ternary ufunc with
# two broadcast scalars does not vectorize): np.clip is the default, the numba kernel stays beside it.
numba_kernels("clip", clip_kernel, _CLIP, dtypes=("float32", "float64", "int32", "int64"))
numba_kernels("hardtanh", hardtanh_kernel, _CLIP)
add_kernel("clip", "cpu", FLOATS + INTS, clip_numpy, name="numpy", priority=1)
add_kernel("hardtanh", "cpu", FLOATS, hardtanh_numpy, name="numpy", priority=1)


def _scalar(op: str, attr: str, value):
    """Paddle lets clip's bounds be 0-D tensors; they act as plain numbers (no gradient)."""
    if isinstance(value, Tensor):
        if value.size != 1:
            raise invalid_argument(op, f"'{attr}' is a tensor of shape {value.shape}, expected one element.")
        return value.item()
    return value


def clip(x, min=None, max=None, name=None) -> Tensor:
    """Limit x to [min, max]; a None bound is open. Works on float and int tensors."""
    x = as_tensor("clip", "x", x)
    return dispatch(CLIP, (x,), {"min": _scalar("clip", "min", min), "max": _scalar("clip", "max", max)})


def hardtanh(x, min=-1.0, max=1.0, name=None) -> Tensor:
    """clip(x, min, max) for float tensors, Paddle's functional hardtanh."""
    return dispatch(HARDTANH, (as_tensor("hardtanh", "x", x),), {"min": min, "max": max})


# ---- hardsigmoid, hardswish, mish, tanhshrink, softsign -------------------------------
def hardsigmoid_grad(node, dout):
    out = node.out
    return where((out > 0) & (out < 1), dout * node.slope, zeros_like(dout))


def hardswish_grad(node, dout):
    x = node.x
    middle = where(x > -3, dout * (2.0 * x + 3.0) / 6.0, zeros_like(dout))
    return where(x >= 3, dout, middle)


def mish_grad(node, dout):
    x = node.x
    t = tanh(softplus(x))  # d softplus(x)/dx = sigmoid(x)
    return dout * (t + x * (1.0 - t * t) * sigmoid(x))


def tanhshrink_grad(node, dout):
    t = tanh(node.x)
    return dout * t * t


def softsign_grad(node, dout):
    d = 1.0 + absolute(node.x)
    return dout / (d * d)


def hardsigmoid_meta(x, slope=0.1666667, offset=0.5) -> MetaTensor:
    return float_activation("hardsigmoid", x, slope=slope, offset=offset)


_HARDSIGMOID = ElementwiseKernel(P.hardsigmoid, FLOAT_TERNARY)


def hardsigmoid_kernel(x, slope=0.1666667, offset=0.5):
    t = x.dtype.type
    return _HARDSIGMOID(x, t(slope), t(offset))


HARDSIGMOID = register_op("hardsigmoid", inputs=("x",), infer_meta=hardsigmoid_meta,
                          backward=hardsigmoid_grad, save=("out",),
                          attrs={"slope": (float, 0.1666667), "offset": (float, 0.5)})


def hardswish_meta(x) -> MetaTensor:
    require_dtype("hardswish", "x", x, "fc", FLOAT_OR_COMPLEX)
    return MetaTensor(x.shape, x.dtype)


def mish_meta(x) -> MetaTensor:
    require_dtype("mish", "x", x, "fc", FLOAT_OR_COMPLEX)
    return MetaTensor(x.shape, x.dtype)


def tanhshrink_meta(x) -> MetaTensor:
    require_dtype("tanhshrink", "x", x, "fc", FLOAT_OR_COMPLEX)
    return MetaTensor(x.shape, x.dtype)


def softsign_meta(x) -> MetaTensor:
    require_dtype("softsign", "x", x, "fc", FLOAT_OR_COMPLEX)
    return MetaTensor(x.shape, x.dtype)


HARDSWISH = register_op("hardswish", inputs=("x",), infer_meta=hardswish_meta, backward=hardswish_grad, save=("x",))
MISH = register_op("mish", inputs=("x",), infer_meta=mish_meta, backward=mish_grad, save=("x",))
TANHSHRINK = register_op("tanhshrink", inputs=("x",), infer_meta=tanhshrink_meta, backward=tanhshrink_grad, save=("x",))
SOFTSIGN = register_op("softsign", inputs=("x",), infer_meta=softsign_meta, backward=softsign_grad, save=("x",))
numba_kernels("hardsigmoid", hardsigmoid_kernel, _HARDSIGMOID)
register_elementwise_kernels("hardswish", P.hardswish)
register_elementwise_kernels("mish", P.mish)
register_elementwise_kernels("tanhshrink", P.tanhshrink)
register_elementwise_kernels("softsign", P.softsign)


def hardsigmoid(x, slope=0.1666667, offset=0.5, name=None) -> Tensor:
    """clip(slope * x + offset, 0, 1)."""
    x = as_tensor("hardsigmoid", "x", x)
    return dispatch(HARDSIGMOID, (x,), {"slope": slope, "offset": offset})


def hardswish(x, name=None) -> Tensor:
    """x * relu6(x + 3) / 6."""
    return dispatch(HARDSWISH, (as_tensor("hardswish", "x", x),))


def mish(x, name=None) -> Tensor:
    """x * tanh(softplus(x))."""
    return dispatch(MISH, (as_tensor("mish", "x", x),))


def tanhshrink(x, name=None) -> Tensor:
    """x - tanh(x)."""
    return dispatch(TANHSHRINK, (as_tensor("tanhshrink", "x", x),))


def softsign(x, name=None) -> Tensor:
    """x / (1 + |x|)."""
    return dispatch(SOFTSIGN, (as_tensor("softsign", "x", x),))


__all__ = ["clip", "elu", "gelu", "hardsigmoid", "hardswish", "hardtanh", "leaky_relu", "mish", "relu", "relu6",
           "sigmoid", "silu", "softplus", "softsign", "tanhshrink"]
# Paddle's Tensor has clip and sigmoid as methods; relu too, for x.relu_() (tensor_methods.INPLACE)
TENSOR_METHODS = ["relu", "sigmoid", "clip"]
