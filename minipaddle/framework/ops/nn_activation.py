"""Activations of `paddle.nn.functional` that the top level lacks: selu, celu, log_sigmoid, hardshrink,
softshrink, thresholded_relu, prelu (a learnable slope) and rrelu (a random slope).

They follow activation.py's pattern: the math is a scalar primitive below, compiled by numba into a
cached loop (kernels/cpu/elementwise.py), scalar attributes are passed to the loop as extra
arguments, and each backward rule is written with minipaddle ops so grads of grads work. prelu and
rrelu are numpy kernels: prelu broadcasts a weight tensor, rrelu draws random slopes.
"""
from __future__ import annotations

import math

import numpy as np

from ..dispatch import dispatch
from ..errors import invalid_argument
from ..kernels.cpu.elementwise import FLOAT_BINARY, FLOAT_UNARY, ElementwiseKernel
from ..registry import MetaTensor, add_kernel, new_meta, register_op
from ..tensor import Tensor
from .activation import FLOAT_TERNARY, FLOAT_WHAT, float_activation, numba_kernels, sigmoid
from .common import FLOATS, as_tensor, require_dtype
from .elementwise import where, zeros_like
from .manipulation import reshape
from .reduction import sum as reduce_sum


# ---- scalar primitives: the math, once (named *_scalar; the Paddle names are the API below) ----
def selu_scalar(x, scale, alpha):
    return scale * x if x > 0 else scale * alpha * math.expm1(x)


def celu_scalar(x, alpha):
    return x if x > 0 else alpha * math.expm1(x / alpha)


def log_sigmoid_scalar(x):
    # log(1 / (1 + exp(-x))) without exp of a large positive number
    if x < 0:
        return x - math.log1p(math.exp(x))
    return -math.log1p(math.exp(-x))


def hardshrink_scalar(x, threshold):
    return x if x > threshold or x < -threshold else 0.0


def softshrink_scalar(x, threshold):
    if x > threshold:
        return x - threshold
    if x < -threshold:
        return x + threshold
    return 0.0


def thresholded_relu_scalar(x, threshold, value):
    return x if x > threshold else value


_SELU = ElementwiseKernel(selu_scalar, FLOAT_TERNARY)
_CELU = ElementwiseKernel(celu_scalar, FLOAT_BINARY)
_LOG_SIGMOID = ElementwiseKernel(log_sigmoid_scalar, FLOAT_UNARY)
_HARDSHRINK = ElementwiseKernel(hardshrink_scalar, FLOAT_BINARY)
_SOFTSHRINK = ElementwiseKernel(softshrink_scalar, FLOAT_BINARY)
_THRESHOLDED_RELU = ElementwiseKernel(thresholded_relu_scalar, FLOAT_TERNARY)


# ---- kernels: scalar attributes become scalars of x's dtype ------------------------------------
def selu_kernel(x, scale=1.0507009873554805, alpha=1.6732632423543772):
    t = x.dtype.type
    return _SELU(x, t(scale), t(alpha))


def celu_kernel(x, alpha=1.0):
    return _CELU(x, x.dtype.type(alpha))


def log_sigmoid_kernel(x):
    return _LOG_SIGMOID(x)


def hardshrink_kernel(x, threshold=0.5):
    return _HARDSHRINK(x, x.dtype.type(threshold))


def softshrink_kernel(x, threshold=0.5):
    return _SOFTSHRINK(x, x.dtype.type(threshold))


def thresholded_relu_kernel(x, threshold=1.0, value=0.0):
    t = x.dtype.type
    return _THRESHOLDED_RELU(x, t(threshold), t(value))


# ---- infer_meta: the argument checks ------------------------------------------------------------
def selu_meta(x, scale=1.0507009873554805, alpha=1.6732632423543772) -> MetaTensor:
    meta = float_activation("selu", x, scale=scale, alpha=alpha)
    if scale <= 1.0:
        raise invalid_argument("selu", f"'scale' is {scale}, expected a number greater than 1.0.")
    if alpha < 0:
        raise invalid_argument("selu", f"'alpha' is {alpha}, expected a number >= 0.")
    return meta


def celu_meta(x, alpha=1.0) -> MetaTensor:
    meta = float_activation("celu", x, alpha=alpha)
    if alpha == 0:
        raise invalid_argument("celu", "'alpha' is 0; celu divides by alpha, expected a non-zero number.")
    return meta


def log_sigmoid_meta(x) -> MetaTensor:
    return float_activation("log_sigmoid", x)


def hardshrink_meta(x, threshold=0.5) -> MetaTensor:
    return float_activation("hardshrink", x, threshold=threshold)


def softshrink_meta(x, threshold=0.5) -> MetaTensor:
    meta = float_activation("softshrink", x, threshold=threshold)
    if threshold < 0:
        raise invalid_argument("softshrink", f"'threshold' is {threshold}, expected a number >= 0.")
    return meta


def thresholded_relu_meta(x, threshold=1.0, value=0.0) -> MetaTensor:
    return float_activation("thresholded_relu", x, threshold=threshold, value=value)


# ---- backward rules ------------------------------------------------------------------------------
def _masked(mask: Tensor, dout: Tensor) -> Tensor:
    return where(mask, dout, zeros_like(dout))


def selu_grad(node, dout):
    # for x <= 0, d/dx scale * alpha * (exp(x) - 1) = out + scale * alpha
    return where(node.x > 0, dout * node.scale, dout * (node.out + node.scale * node.alpha))


def celu_grad(node, dout):
    # for x <= 0, d/dx alpha * (exp(x / alpha) - 1) = exp(x / alpha) = out / alpha + 1
    return where(node.x > 0, dout, dout * (node.out / node.alpha + 1.0))


def log_sigmoid_grad(node, dout):
    return dout * sigmoid(-node.x)


def hardshrink_grad(node, dout):
    x, t = node.x, node.threshold
    return _masked((x > t) | (x < -t), dout)


def thresholded_relu_grad(node, dout):
    return _masked(node.x > node.threshold, dout)


SELU = register_op("selu", inputs=("x",), infer_meta=selu_meta, backward=selu_grad, save=("x", "out"),
                   attrs={"scale": (float, 1.0507009873554805), "alpha": (float, 1.6732632423543772)})
CELU = register_op("celu", inputs=("x",), infer_meta=celu_meta, backward=celu_grad, save=("x", "out"),
                   attrs={"alpha": (float, 1.0)})
LOG_SIGMOID = register_op("log_sigmoid", inputs=("x",), infer_meta=log_sigmoid_meta, backward=log_sigmoid_grad,
                          save=("x",))
HARDSHRINK = register_op("hardshrink", inputs=("x",), infer_meta=hardshrink_meta, backward=hardshrink_grad,
                         save=("x",), attrs={"threshold": (float, 0.5)})
SOFTSHRINK = register_op("softshrink", inputs=("x",), infer_meta=softshrink_meta, backward=hardshrink_grad,
                         save=("x",), attrs={"threshold": (float, 0.5)})
THRESHOLDED_RELU = register_op("thresholded_relu", inputs=("x",), infer_meta=thresholded_relu_meta,
                               backward=thresholded_relu_grad, save=("x",),
                               attrs={"threshold": (float, 1.0), "value": (float, 0.0)})
numba_kernels("selu", selu_kernel, _SELU)
numba_kernels("celu", celu_kernel, _CELU)
numba_kernels("log_sigmoid", log_sigmoid_kernel, _LOG_SIGMOID)
numba_kernels("hardshrink", hardshrink_kernel, _HARDSHRINK)
numba_kernels("softshrink", softshrink_kernel, _SOFTSHRINK)
numba_kernels("thresholded_relu", thresholded_relu_kernel, _THRESHOLDED_RELU)


# ---- prelu: max(0, x) + weight * min(0, x), one weight per channel or one for all ---------------
def prelu_weight_shape(ndim: int, weight_size: int, channel_axis: int) -> tuple:
    """The shape the weight broadcasts with x in: per channel, or a scalar."""
    if weight_size == 1:
        return ()
    return tuple(weight_size if i == channel_axis else 1 for i in range(ndim))


def prelu_meta(x, weight, channel_axis=1) -> MetaTensor:
    require_dtype("prelu", "x", x, "f", FLOAT_WHAT)
    if weight.dtype != x.dtype:
        raise invalid_argument("prelu", f"weight has dtype {weight.dtype} but x has {x.dtype}; expected one dtype.")
    if len(weight.shape) > 1:
        raise invalid_argument("prelu", f"weight has shape {list(weight.shape)}, expected [], [1] or "
                                        "[num_channels].")
    n = weight.shape[0] if len(weight.shape) == 1 else 1
    if n != 1:
        if len(x.shape) < 2:
            raise invalid_argument("prelu", f"x has shape {list(x.shape)}; a per-channel weight of {n} needs x "
                                            "with at least 2 dims.")
        if x.shape[channel_axis] != n and x.shape[channel_axis] != -1:
            raise invalid_argument("prelu", f"weight has {n} entries but x has {x.shape[channel_axis]} channels "
                                            f"(dim {channel_axis} of shape {list(x.shape)}); expected equal.",
                                   hint="data_format says which dim holds the channels ('NCHW': 1, 'NHWC': last).")
    return new_meta(x.shape, x.dtype)


def prelu_kernel(x, weight, channel_axis=1):
    w = weight.reshape(prelu_weight_shape(x.ndim, weight.size, channel_axis))
    return np.where(x > 0, x, x * w)


def prelu_grad(node, dout):
    x, weight = node.x, node.weight
    n = weight.size
    shape = prelu_weight_shape(x.ndim, n, node.channel_axis)
    positive = x > 0
    dx = dweight = None
    if node.needs_grad(0):
        dx = where(positive, dout, dout * reshape(weight, list(shape)))
    if node.needs_grad(1):
        per_element = where(positive, zeros_like(dout), dout * x)
        if n == 1:
            dweight = reshape(reduce_sum(per_element), list(weight.shape))
        else:
            others = [i for i in range(x.ndim) if i != node.channel_axis]
            dweight = reduce_sum(per_element, axis=others)
    return dx, dweight


PRELU = register_op("prelu", inputs=("x", "weight"), infer_meta=prelu_meta, backward=prelu_grad,
                    save=("x", "weight"), attrs={"channel_axis": (int, 1)})
add_kernel("prelu", "cpu", FLOATS, prelu_kernel, name="numpy")


# ---- rrelu: a random negative slope per element while training ---------------------------------
def rrelu_meta(x, lower=0.125, upper=1.0 / 3.0, training=True) -> tuple:
    float_activation("rrelu", x, lower=lower, upper=upper)
    if not 0 <= lower <= 1:
        raise invalid_argument("rrelu", f"'lower' is {lower}, expected a number in [0, 1].")
    if not 0 <= upper <= 1:
        raise invalid_argument("rrelu", f"'upper' is {upper}, expected a number in [0, 1].")
    if lower > upper:
        raise invalid_argument("rrelu", f"'lower' ({lower}) is greater than 'upper' ({upper}); expected "
                                        "lower <= upper.")
    return new_meta(x.shape, x.dtype), new_meta(x.shape, x.dtype)


def rrelu_kernel(x, lower=0.125, upper=1.0 / 3.0, training=True):
    """Slopes ~ U(lower, upper) while training, their mean (lower + upper) / 2 otherwise."""
    t = x.dtype.type
    if training:  # Philox uniforms, as the GPU's rrelu draws them for the same seed
        from ..kernels.cpu import philox_draws
        slope = (lower + (upper - lower) * philox_draws.uniforms_like(x.shape)).astype(x.dtype)
    else:
        slope = np.full(x.shape, t((lower + upper) / 2), x.dtype)
    noise = np.where(x >= 0, t(1), slope)
    return x * noise, noise


def rrelu_grad(node, dout, dnoise):
    return dout * node.noise


RRELU = register_op("rrelu", inputs=("x",), outputs=("out", "noise"), infer_meta=rrelu_meta, backward=rrelu_grad,
                    save=("noise",), attrs={"lower": (float, 0.125), "upper": (float, 1.0 / 3.0),
                                            "training": (bool, True)})
add_kernel("rrelu", "cpu", FLOATS, rrelu_kernel, name="numpy")


# ---- the functional API ---------------------------------------------------------------------------
def selu(x, scale=1.0507009873554804934193349852946, alpha=1.6732632423543772848170429916717,
             name=None) -> Tensor:
    """scale * x where x > 0, else scale * alpha * (exp(x) - 1): self-normalizing."""
    return dispatch(SELU, (as_tensor("selu", "x", x),), {"scale": scale, "alpha": alpha})


def celu(x, alpha=1.0, name=None) -> Tensor:
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    return dispatch(CELU, (as_tensor("celu", "x", x),), {"alpha": alpha})


def log_sigmoid(x, name=None) -> Tensor:
    """log(sigmoid(x)), computed without overflow."""
    return dispatch(LOG_SIGMOID, (as_tensor("log_sigmoid", "x", x),))


def hardshrink(x, threshold=0.5, name=None) -> Tensor:
    """x where |x| > threshold, else 0."""
    return dispatch(HARDSHRINK, (as_tensor("hardshrink", "x", x),), {"threshold": threshold})


def softshrink(x, threshold=0.5, name=None) -> Tensor:
    """x - threshold above threshold, x + threshold below -threshold, else 0."""
    return dispatch(SOFTSHRINK, (as_tensor("softshrink", "x", x),), {"threshold": threshold})


def thresholded_relu(x, threshold=1.0, value=0.0, name=None) -> Tensor:
    """x where x > threshold, else value."""
    x = as_tensor("thresholded_relu", "x", x)
    return dispatch(THRESHOLDED_RELU, (x,), {"threshold": threshold, "value": value})


PRELU_FORMATS = ("NC", "NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC")


def prelu(x, weight, data_format="NCHW", name=None) -> Tensor:
    """x where x > 0, else weight * x; weight is [1] (shared) or [C] (one slope per channel)."""
    x = as_tensor("prelu", "x", x)
    weight = as_tensor("prelu", "weight", weight)
    if data_format not in PRELU_FORMATS:
        raise invalid_argument("prelu", f"data_format {data_format!r} is not one of {list(PRELU_FORMATS)}.")
    channel_axis = 1 if data_format[1] == "C" else max(x.ndim - 1, 0)
    return dispatch(PRELU, (x, weight), {"channel_axis": channel_axis})


def rrelu(x, lower=1.0 / 8.0, upper=1.0 / 3.0, training=True, name=None) -> Tensor:
    """x where x >= 0, else x times a slope drawn from U(lower, upper) (training) or their mean."""
    x = as_tensor("rrelu", "x", x)
    return dispatch(RRELU, (x,), {"lower": lower, "upper": upper, "training": bool(training)})[0]


__all__ = ["selu", "celu", "log_sigmoid", "hardshrink", "softshrink", "thresholded_relu", "prelu", "rrelu"]
