"""Activation CUDA kernels: relu, sigmoid, gelu, silu, ... built from the scalar primitives.

The same primitives as the CPU loops (ops/primitives.py, and the *_scalar functions of
ops/nn_activation.py), run by CudaElementwiseKernel (kernels/cuda/elementwise.py). An op with
scalar attributes has a small kernel with the CPU kernel's signature that passes them on:

    def leaky_relu(x, negative_slope=0.01):
        return _LEAKY_RELU(x, negative_slope)     # a float32 kernel gets a float32 slope
"""
from __future__ import annotations

import math

import numpy as np

from ...ops import nn_activation as NA
from ...ops import primitives as P
from .elementwise import FLOATS, CudaElementwiseKernel

# ---- no attributes ------------------------------------------------------------------------
relu = CudaElementwiseKernel(P.relu, FLOATS)
relu_grad = CudaElementwiseKernel(P.relu_grad, FLOATS)
relu6 = CudaElementwiseKernel(P.relu6, FLOATS)
sigmoid = CudaElementwiseKernel(P.sigmoid, FLOATS)
silu = CudaElementwiseKernel(P.silu, FLOATS)
hardswish = CudaElementwiseKernel(P.hardswish, FLOATS)
mish = CudaElementwiseKernel(P.mish, FLOATS)
tanhshrink = CudaElementwiseKernel(P.tanhshrink, FLOATS)
softsign = CudaElementwiseKernel(P.softsign, FLOATS)
log_sigmoid = CudaElementwiseKernel(NA.log_sigmoid_scalar, FLOATS)

# ---- gelu: the exact (erf) form or the tanh approximation ------------------------------------
_GELU_ERF = CudaElementwiseKernel(P.gelu, FLOATS)
_GELU_TANH = CudaElementwiseKernel(P.gelu_tanh, FLOATS)


def gelu(x, approximate=False):
    return _GELU_TANH(x) if approximate else _GELU_ERF(x)


gelu.__wrapped__ = _GELU_ERF

# ---- float attributes ---------------------------------------------------------------------
_LEAKY_RELU = CudaElementwiseKernel(P.leaky_relu, FLOATS)
_ELU = CudaElementwiseKernel(P.elu, FLOATS)
_SOFTPLUS = CudaElementwiseKernel(P.softplus, FLOATS)
_HARDSIGMOID = CudaElementwiseKernel(P.hardsigmoid, FLOATS)
_CLIP = CudaElementwiseKernel(P.clip, FLOATS + ("int32", "int64"))
_SELU = CudaElementwiseKernel(NA.selu_scalar, FLOATS)
_CELU = CudaElementwiseKernel(NA.celu_scalar, FLOATS)
_HARDSHRINK = CudaElementwiseKernel(NA.hardshrink_scalar, FLOATS)
_SOFTSHRINK = CudaElementwiseKernel(NA.softshrink_scalar, FLOATS)
_THRESHOLDED_RELU = CudaElementwiseKernel(NA.thresholded_relu_scalar, FLOATS)


def leaky_relu(x, negative_slope=0.01):
    return _LEAKY_RELU(x, negative_slope)


def elu(x, alpha=1.0):
    return _ELU(x, alpha)


def softplus(x, beta=1.0, threshold=20.0):
    return _SOFTPLUS(x, beta, threshold)


def hardsigmoid(x, slope=0.1666667, offset=0.5):
    return _HARDSIGMOID(x, slope, offset)


def _bound(dtype: np.dtype, value, default_sign: int):
    """A clip bound for x's dtype; None is open (+-inf, or the ends of the int range), as the CPU kernel."""
    if dtype.kind == "i":
        info = np.iinfo(dtype)
        if value is None:
            return int(info.max if default_sign > 0 else info.min)
        return int(max(info.min, min(info.max, value)))  # truncate toward zero, as Paddle
    return default_sign * math.inf if value is None else float(value)


def clip(x, min=None, max=None):  # noqa: A002 - Paddle's attribute names
    dtype = np.dtype(x.dtype)
    return _CLIP(x, _bound(dtype, min, -1), _bound(dtype, max, 1))


def hardtanh(x, min=-1.0, max=1.0):  # noqa: A002
    return _CLIP(x, min, max)


def selu(x, scale=1.0507009873554805, alpha=1.6732632423543772):
    return _SELU(x, scale, alpha)


def celu(x, alpha=1.0):
    return _CELU(x, alpha)


def hardshrink(x, threshold=0.5):
    return _HARDSHRINK(x, threshold)


def softshrink(x, threshold=0.5):
    return _SOFTSHRINK(x, threshold)


def thresholded_relu(x, threshold=1.0, value=0.0):
    return _THRESHOLDED_RELU(x, threshold, value)
