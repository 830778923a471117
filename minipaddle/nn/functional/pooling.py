"""Functional API: max/avg pooling, fixed and adaptive, 1-D and 2-D (Paddle 2.x signatures).

Each function resolves Paddle's argument spellings (the same padding forms as conv2d, see
nn/functional/conv.py; `stride=None` meaning the kernel size; NHWC) and calls one NCHW op from
framework/ops/pooling.py. The 1-D functions pool x (N, C, L) as a (N, C, 1, L) image.

    >>> F.max_pool2d(paddle.randn([1, 3, 8, 8]), kernel_size=2).shape          # doctest: +SKIP
    [1, 3, 4, 4]
"""
from __future__ import annotations

from numbers import Integral, Real

from ...framework.errors import invalid_argument
from ...framework.ops.common import as_tensor
from ...framework.ops.manipulation import squeeze, transpose, unsqueeze
from ...framework.ops.pooling import (adaptive_avg_pool2d_nchw, adaptive_max_pool2d_nchw, avg_pool2d_nchw,
                                      max_pool2d_nchw, max_pool2d_values_nchw)
from ...framework.ops.pooling3d import avg_pool3d_ncdhw, max_pool3d_ncdhw
from ...framework.tensor import Tensor
from .conv import channel_order, check_ndim, int_list, padding_spec, same_padding

__all__ = ["max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d", "adaptive_avg_pool2d",
           "adaptive_max_pool1d", "adaptive_max_pool2d", "max_pool3d", "avg_pool3d"]

_NHWC_TO_NCHW, _NCHW_TO_NHWC = [0, 3, 1, 2], [0, 2, 3, 1]


def _window(op: str, kernel_size, stride, nd: int) -> tuple[list[int], list[int]]:
    kernel = int_list(op, "kernel_size", kernel_size, nd)
    return kernel, (kernel if stride is None else int_list(op, "stride", stride, nd))


def _pool_padding(op: str, padding, channel_last: bool, ceil_mode: bool, sizes, kernel, stride) -> list[int]:
    pads, algorithm = padding_spec(op, padding, len(sizes), channel_last)
    if algorithm == "VALID" and ceil_mode:
        raise invalid_argument(op, "padding 'VALID' takes ceil_mode=False (it keeps only whole windows).")
    if algorithm == "SAME":
        return same_padding(sizes, kernel, stride)
    return pads


def _prepare_2d(op: str, x, data_format: str) -> tuple[Tensor, bool]:
    x = as_tensor(op, "x", x)
    channel_last = channel_order(op, data_format, ("NCHW", "NHWC"))
    check_ndim(op, x, 2, data_format)
    return (transpose(x, _NHWC_TO_NCHW) if channel_last else x), channel_last


def _prepare_1d(op: str, x) -> Tensor:
    """x (N, C, L) as the image (N, C, 1, L)."""
    x = as_tensor(op, "x", x)
    check_ndim(op, x, 1, "NCL")
    return unsqueeze(x, [2])


def _finish(out, channel_last: bool):
    return transpose(out, _NCHW_TO_NHWC) if channel_last else out


# ---- max pooling ------------------------------------------------------------------------------
def max_pool2d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, data_format="NCHW",
               name=None):
    """The max of each kernel_size window; with return_mask, also where it is (flat h*W + w, int32)."""
    op = "max_pool2d"
    x, channel_last = _prepare_2d(op, x, data_format)
    kernel, stride = _window(op, kernel_size, stride, 2)
    pads = _pool_padding(op, padding, channel_last, ceil_mode, x.shape[2:], kernel, stride)
    if not return_mask:  # Paddle's pool2d: no mask is made, the backward finds the maxima again
        return _finish(max_pool2d_values_nchw(x, tuple(kernel), tuple(stride), tuple(pads), bool(ceil_mode)),
                       channel_last)
    out, mask = max_pool2d_nchw(x, tuple(kernel), tuple(stride), tuple(pads), bool(ceil_mode))
    return _finish(out, channel_last), _finish(mask, channel_last)


def max_pool1d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, name=None):
    """max_pool2d over (N, C, L) with windows along L; the mask indexes L."""
    op = "max_pool1d"
    x = _prepare_1d(op, x)
    kernel, stride = _window(op, kernel_size, stride, 1)
    pads = _pool_padding(op, padding, False, ceil_mode, x.shape[3:], kernel, stride)
    geometry = ((1, kernel[0]), (1, stride[0]), (0, 0) + tuple(pads), bool(ceil_mode))
    if not return_mask:
        return squeeze(max_pool2d_values_nchw(x, *geometry), [2])
    out, mask = max_pool2d_nchw(x, *geometry)
    return squeeze(out, [2]), squeeze(mask, [2])


# ---- average pooling --------------------------------------------------------------------------
def _divisor(op: str, divisor_override) -> float:
    if divisor_override is None:
        return 0.0
    if isinstance(divisor_override, bool) or not isinstance(divisor_override, Real) or divisor_override <= 0:
        raise invalid_argument(op, f"divisor_override must be a number > 0, got {divisor_override!r}.")
    return float(divisor_override)


def avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True, divisor_override=None,
               data_format="NCHW", name=None) -> Tensor:
    """The mean of each window; `exclusive` leaves padding out of the count; `divisor_override`
    replaces the count."""
    op = "avg_pool2d"
    x, channel_last = _prepare_2d(op, x, data_format)
    kernel, stride = _window(op, kernel_size, stride, 2)
    pads = _pool_padding(op, padding, channel_last, ceil_mode, x.shape[2:], kernel, stride)
    out = avg_pool2d_nchw(x, tuple(kernel), tuple(stride), tuple(pads), bool(ceil_mode), bool(exclusive),
                          _divisor(op, divisor_override))
    return _finish(out, channel_last)


def avg_pool1d(x, kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False, name=None) -> Tensor:
    """avg_pool2d over (N, C, L) with windows along L."""
    op = "avg_pool1d"
    x = _prepare_1d(op, x)
    kernel, stride = _window(op, kernel_size, stride, 1)
    pads = _pool_padding(op, padding, False, ceil_mode, x.shape[3:], kernel, stride)
    out = avg_pool2d_nchw(x, (1, kernel[0]), (1, stride[0]), (0, 0) + tuple(pads), bool(ceil_mode),
                          bool(exclusive), 0.0)
    return squeeze(out, [2])


# ---- adaptive pooling -------------------------------------------------------------------------
def _output_size(op: str, output_size, sizes) -> tuple[int, ...]:
    """An int, or a list with one int (or None: keep the input's size) per spatial dim."""
    nd = len(sizes)
    if isinstance(output_size, Integral) and not isinstance(output_size, bool):
        values = [output_size] * nd
    elif isinstance(output_size, (list, tuple)) and len(output_size) == nd:
        values = [s if v is None else v for v, s in zip(output_size, sizes)]
    else:
        raise invalid_argument(op, f"output_size got {output_size!r}, expected an int or {nd} ints (None keeps "
                                   "the input's size).")
    if not all(isinstance(v, Integral) and not isinstance(v, bool) and v >= 1 for v in values):
        raise invalid_argument(op, f"output_size {list(values)} must be ints >= 1.")
    return tuple(int(v) for v in values)


def adaptive_avg_pool2d(x, output_size, data_format="NCHW", name=None) -> Tensor:
    """Mean over Paddle's adaptive bins: row y of the output covers [floor(y*H/OH), ceil((y+1)*H/OH))."""
    op = "adaptive_avg_pool2d"
    x, channel_last = _prepare_2d(op, x, data_format)
    return _finish(adaptive_avg_pool2d_nchw(x, _output_size(op, output_size, x.shape[2:])), channel_last)


def adaptive_avg_pool1d(x, output_size, name=None) -> Tensor:
    op = "adaptive_avg_pool1d"
    x = _prepare_1d(op, x)
    size = _output_size(op, output_size, x.shape[3:])
    return squeeze(adaptive_avg_pool2d_nchw(x, (1,) + size), [2])


def adaptive_max_pool2d(x, output_size, return_mask=False, name=None):
    """Max over Paddle's adaptive bins; with return_mask, also where each max is (flat h*W + w)."""
    op = "adaptive_max_pool2d"
    x, _ = _prepare_2d(op, x, "NCHW")
    out, mask = adaptive_max_pool2d_nchw(x, _output_size(op, output_size, x.shape[2:]))
    return (out, mask) if return_mask else out


def adaptive_max_pool1d(x, output_size, return_mask=False, name=None):
    op = "adaptive_max_pool1d"
    x = _prepare_1d(op, x)
    out, mask = adaptive_max_pool2d_nchw(x, (1,) + _output_size(op, output_size, x.shape[3:]))
    out = squeeze(out, [2])
    return (out, squeeze(mask, [2])) if return_mask else out


# ---- 3-D pooling ------------------------------------------------------------------------------
_NDHWC_TO_NCDHW, _NCDHW_TO_NDHWC = [0, 4, 1, 2, 3], [0, 2, 3, 4, 1]


def _prepare_3d(op: str, x, data_format: str) -> tuple[Tensor, bool]:
    x = as_tensor(op, "x", x)
    channel_last = channel_order(op, data_format, ("NCDHW", "NDHWC"))
    check_ndim(op, x, 3, data_format)
    return (transpose(x, _NDHWC_TO_NCDHW) if channel_last else x), channel_last


def _finish_3d(out, channel_last: bool):
    return transpose(out, _NCDHW_TO_NDHWC) if channel_last else out


def max_pool3d(x, kernel_size, stride=None, padding=0, ceil_mode=False, return_mask=False, data_format="NCDHW",
               name=None):
    """The max of each kernel_size window of x (N, C, D, H, W); with return_mask, also where it is
    (flat d*H*W + h*W + w, int32)."""
    op = "max_pool3d"
    x, channel_last = _prepare_3d(op, x, data_format)
    kernel, stride = _window(op, kernel_size, stride, 3)
    pads = _pool_padding(op, padding, channel_last, ceil_mode, x.shape[2:], kernel, stride)
    out, mask = max_pool3d_ncdhw(x, tuple(kernel), tuple(stride), tuple(pads), bool(ceil_mode))
    if return_mask:
        return _finish_3d(out, channel_last), _finish_3d(mask, channel_last)
    return _finish_3d(out, channel_last)


def avg_pool3d(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True, divisor_override=None,
               data_format="NCDHW", name=None) -> Tensor:
    """The mean of each window of x (N, C, D, H, W); `exclusive` leaves padding out of the count."""
    op = "avg_pool3d"
    x, channel_last = _prepare_3d(op, x, data_format)
    kernel, stride = _window(op, kernel_size, stride, 3)
    pads = _pool_padding(op, padding, channel_last, ceil_mode, x.shape[2:], kernel, stride)
    out = avg_pool3d_ncdhw(x, tuple(kernel), tuple(stride), tuple(pads), bool(ceil_mode), bool(exclusive),
                           _divisor(op, divisor_override))
    return _finish_3d(out, channel_last)
