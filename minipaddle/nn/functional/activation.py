"""Functional API: the activations (relu, gelu, softmax, ...), under Paddle's `nn.functional` names.

Most are registered ops defined elsewhere and only re-exported here: framework/ops/activation.py
(relu, gelu, ...), softmax.py, elementwise.py (tanh) and nn_activation.py (selu, prelu, ...).
The few Paddle composes from other ops are composed here the same way (swish is silu, glu is
a * sigmoid(b), maxout a reshape and a max), so their gradients come from those ops.
"""
from __future__ import annotations

from ...framework.errors import invalid_argument
from ...framework.ops.activation import (elu, gelu, hardsigmoid, hardswish, hardtanh, leaky_relu, mish, relu,
                                         relu6, sigmoid, silu, softplus, softsign, tanhshrink)
from ...framework.ops.common import as_tensor, normalize_axis
from ...framework.creation import uniform
from ...framework.ops.elementwise import log, tanh
from ...framework.ops.indexing import one_hot
from ...framework.ops.joining import chunk
from ...framework.ops.manipulation import reshape, transpose
from ...framework.ops.nn_activation import (celu, hardshrink, log_sigmoid, prelu, rrelu, selu, softshrink,
                                            thresholded_relu)
from ...framework.ops.reduction import argmax
from ...framework.ops.reduction import max as reduce_max
from ...framework.ops.softmax import log_softmax, softmax
from ...framework.tensor import Tensor

__all__ = ["celu", "elu", "elu_", "gelu", "glu", "gumbel_softmax", "hardshrink", "hardsigmoid", "hardswish",
           "hardtanh", "hardtanh_", "leaky_relu", "leaky_relu_", "log_sigmoid", "log_softmax", "maxout", "mish",
           "prelu", "relu", "relu_", "relu6", "rrelu", "selu", "sigmoid", "silu", "softmax", "softmax_", "softplus",
           "softshrink", "softsign", "swish", "tanh", "tanh_", "tanhshrink", "thresholded_relu", "thresholded_relu_"]


def swish(x: Tensor, name: str | None = None) -> Tensor:
    """x * sigmoid(x): Paddle's swish is silu."""
    return silu(x)


def glu(x: Tensor, axis: int = -1, name: str | None = None) -> Tensor:
    """Gated linear unit: split x in halves a, b along `axis`; a * sigmoid(b)."""
    x = as_tensor("glu", "x", x)
    axis = normalize_axis("glu", axis, x.ndim)
    if x.shape[axis] % 2:
        raise invalid_argument("glu", f"dim {axis} of x (shape {x.shape}) has odd size {x.shape[axis]}; "
                                      "expected an even size to split in two halves.")
    a, b = chunk(x, 2, axis=axis)
    return a * sigmoid(b)


def maxout(x: Tensor, groups: int, axis: int = 1, name: str | None = None) -> Tensor:
    """The max over each run of `groups` consecutive channels: [N, C, H, W] -> [N, C / groups, H, W]."""
    x = as_tensor("maxout", "x", x)
    if x.ndim != 4:
        raise invalid_argument("maxout", f"x has shape {x.shape}, expected a 4-D tensor.")
    if axis not in (1, -1, 3):
        raise invalid_argument("maxout", f"axis is {axis}, expected 1 (NCHW) or -1 / 3 (NHWC).")
    axis = axis % 4
    channels = x.shape[axis]
    if not isinstance(groups, int) or groups <= 0 or channels % groups:
        raise invalid_argument("maxout", f"groups is {groups!r}, expected a positive divisor of the number of "
                                         f"channels ({channels}).")
    shape = list(x.shape)
    shape[axis:axis + 1] = [channels // groups, groups]
    return reduce_max(reshape(x, shape), axis=axis + 1)


def gumbel_softmax(x: Tensor, temperature: float = 1.0, hard: bool = False, axis: int = -1,
                   name: str | None = None) -> Tensor:
    """softmax((x + g) / temperature) with Gumbel noise g = -log(-log(U)); hard=True returns the one-hot
    of the argmax in the forward pass and the soft gradient in the backward pass (straight-through)."""
    x = as_tensor("gumbel_softmax", "x", x)
    if not temperature > 0:
        raise invalid_argument("gumbel_softmax", f"temperature is {temperature}, expected a number > 0.")
    axis = normalize_axis("gumbel_softmax", axis, x.ndim)
    u = uniform(x.shape, dtype=x._data.dtype, min=1e-10, max=1.0)  # U > 0: log(U) stays finite
    y = softmax((x - log(-log(u))) / temperature, axis=axis)
    if not hard:
        return y
    index = argmax(y, axis=axis)
    hot = one_hot(index, y.shape[axis])  # the class dim comes last: move it back to `axis`
    if axis != x.ndim - 1:
        perm = list(range(axis)) + [x.ndim - 1] + list(range(axis, x.ndim - 1))
        hot = transpose(hot, perm)
    return hot.astype(y.dtype) - y.detach() + y


# Paddle's `relu_`-style functions: check that x may be written, compute, write the result into x
# (its version goes up, so a graph that saved x notices).
def _write_into(name: str, x, compute) -> Tensor:
    x = as_tensor(name, "x", x)
    x._check_inplace(name)
    return x._assign_result(compute(x), name)


def relu_(x, name=None) -> Tensor:
    """In-place relu: writes relu(x) into x."""
    return _write_into("relu_", x, relu)


def elu_(x, alpha=1.0, name=None) -> Tensor:
    """In-place elu: writes elu(x, alpha) into x."""
    return _write_into("elu_", x, lambda t: elu(t, alpha))


def tanh_(x, name=None) -> Tensor:
    """In-place tanh: writes tanh(x) into x."""
    return _write_into("tanh_", x, tanh)


def softmax_(x, axis=-1, dtype=None, name=None) -> Tensor:
    """In-place softmax: writes softmax(x, axis, dtype) into x."""
    return _write_into("softmax_", x, lambda t: softmax(t, axis, dtype))


def hardtanh_(x, min=-1.0, max=1.0, name=None) -> Tensor:  # noqa: A002 - Paddle's argument names
    """In-place hardtanh: writes hardtanh(x, min, max) into x."""
    return _write_into("hardtanh_", x, lambda t: hardtanh(t, min, max))


def leaky_relu_(x, negative_slope=0.01, name=None) -> Tensor:
    """In-place leaky_relu: writes leaky_relu(x, negative_slope) into x."""
    return _write_into("leaky_relu_", x, lambda t: leaky_relu(t, negative_slope))


def thresholded_relu_(x, threshold=1.0, value=0.0, name=None) -> Tensor:
    """In-place thresholded_relu: writes thresholded_relu(x, threshold, value) into x."""
    return _write_into("thresholded_relu_", x, lambda t: thresholded_relu(t, threshold, value))
