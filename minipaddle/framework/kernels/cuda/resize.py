"""interpolate and prelu on the GPU, written as calls of other GPU kernels (as kernels/cuda/composed.py).

interpolate is separable, as on the CPU (ops/nn_ops.py): along each spatial axis the output is a fixed
(n_out, n_in) matrix times the input. The matrix is the CPU's own `interp_matrix` -- made on the host
once per size, mode and dtype, then kept on the device -- and applying it is one GPU matmul of the
input with that axis moved last, (rows, n_in) @ (n_in, n_out). The gradient applies the transposed
matrices. So every mode (nearest, linear, bilinear, trilinear, bicubic, area) computes exactly the
CPU's weights.

prelu is `where(x > 0, x, x * weight)` with the weight reshaped to broadcast along the channel axis.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from ... import gpu
from ...ops.nn_activation import prelu_weight_shape
from ...ops.nn_ops import spatial_axes, interp_matrix
from . import elementwise as E
from .composed import chosen_matmul
from .reduction import permute
from .strided import full, reshaped, scalar_of


@lru_cache(maxsize=128)
def _device_matrix(n_in: int, n_out: int, scale: float, mode: str, align_corners: bool, align_mode: int,
                   dtype: str, transpose: bool):
    """The axis's resize matrix as the right operand of a matmul: (n_in, n_out), or (n_out, n_in) for the gradient."""
    A = interp_matrix(n_in, n_out, scale, mode, align_corners, align_mode, dtype)
    return gpu.to_device(np.ascontiguousarray(A if transpose else A.T))


def _apply_along(x, right, axis: int):
    """x with dimension `axis` multiplied by `right` (n_in, n_out): that axis moved last, one matmul, moved back."""
    ndim = len(x.shape)
    order = tuple(d for d in range(ndim) if d != axis) + (axis,)
    moved = permute(x, order) if axis != ndim - 1 else x
    lead = tuple(moved.shape)[:-1]  # a plain tuple: the simulator's shapes take no negative index
    rows = int(np.prod(lead, dtype=np.int64))
    out = reshaped(chosen_matmul(reshaped(moved, (rows, x.shape[axis])), right), lead + (tuple(right.shape)[1],))
    if axis == ndim - 1:
        return out
    back = tuple(order.index(d) for d in range(ndim))
    return permute(out, back)


def _resize(x, sizes: tuple, scales: tuple, mode: str, align_corners: bool, align_mode: int, channel_last: bool,
            transpose: bool):
    out = x
    for i, axis in enumerate(spatial_axes(len(x.shape), channel_last)):
        n_in, n_out = sizes[i]
        right = _device_matrix(n_in, n_out, scales[i] if scales else -1.0, mode, align_corners, align_mode,
                               np.dtype(x.dtype).name, transpose)
        out = _apply_along(out, right, axis)
    return out


def interpolate(x, out_size=(), scales=(), mode="nearest", align_corners=False, align_mode=0, channel_last=False):
    in_size = tuple(x.shape[a] for a in spatial_axes(len(x.shape), channel_last))
    if in_size == tuple(out_size):
        return E.assign(x)  # Paddle copies when no size changes
    return _resize(x, tuple(zip(in_size, out_size)), scales, mode, align_corners, align_mode, channel_last, False)


def interpolate_grad(dout, in_size=(), out_size=(), scales=(), mode="nearest", align_corners=False, align_mode=0,
                     channel_last=False):
    if tuple(in_size) == tuple(out_size):
        return E.assign(dout)
    return _resize(dout, tuple(zip(in_size, out_size)), scales, mode, align_corners, align_mode, channel_last,
                   True)


def prelu(x, weight, channel_axis=1):
    w = reshaped(weight, prelu_weight_shape(len(x.shape), weight.size, channel_axis))
    zero = full((), scalar_of(x.dtype, 0), x.dtype)
    return E.where(E.greater_than(x, zero), x, E.multiply(x, w))
