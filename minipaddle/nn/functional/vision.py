"""Functional API, spatial rearrangement: unfold / fold (sliding windows <-> columns) and pixel_shuffle /
pixel_unshuffle. Paddle's argument spellings are turned into the explicit attributes of the ops in
framework/ops/patches.py.

    >>> F.unfold(paddle.rand([1, 3, 8, 8]), kernel_sizes=3).shape      # doctest: +SKIP
    [1, 27, 36]
"""
from __future__ import annotations

from numbers import Integral

from ...framework.errors import invalid_argument, invalid_type
from ...framework.ops import patches
from ...framework.ops.common import as_tensor
from ...framework.tensor import Tensor

__all__ = ["unfold", "fold", "pixel_shuffle", "pixel_unshuffle"]


def _pair(op: str, name: str, value) -> tuple[int, int]:
    if isinstance(value, Integral) and not isinstance(value, bool):
        return int(value), int(value)
    if isinstance(value, (list, tuple)) and len(value) == 2 and all(isinstance(v, Integral) for v in value):
        return int(value[0]), int(value[1])
    raise invalid_argument(op, f"{name} got {value!r}, expected an int or a list of two ints.")


def _paddings(op: str, value) -> tuple[int, int, int, int]:
    """Paddle's unfold/fold paddings: an int, [h, w] or [top, left, bottom, right]."""
    if isinstance(value, Integral) and not isinstance(value, bool):
        return (int(value),) * 4
    if isinstance(value, (list, tuple)) and len(value) in (2, 4) and all(isinstance(v, Integral) for v in value):
        values = [int(v) for v in value]
        return tuple(values * 2 if len(values) == 2 else values)
    raise invalid_argument(op, f"paddings got {value!r}, expected an int or a list of 2 or 4 ints "
                               "([padding_h, padding_w] or [top, left, bottom, right]).")


def unfold(x: Tensor, kernel_sizes, strides=1, paddings=0, dilations=1, name: str | None = None) -> Tensor:
    """Every kh x kw window of x [N, C, H, W] as a column: [N, C*kh*kw, L] (Paddle's im2col)."""
    op = "unfold"
    x = as_tensor(op, "x", x)
    return patches.unfold(x, _pair(op, "kernel_sizes", kernel_sizes), _pair(op, "strides", strides),
                          _paddings(op, paddings), _pair(op, "dilations", dilations))


def fold(x: Tensor, output_sizes, kernel_sizes, strides=1, paddings=0, dilations=1, name: str | None = None) -> Tensor:
    """The inverse layout of unfold: columns [N, C*kh*kw, L] summed back into windows of [N, C, H, W]."""
    op = "fold"
    x = as_tensor(op, "x", x)
    return patches.fold(x, _pair(op, "output_sizes", output_sizes), _pair(op, "kernel_sizes", kernel_sizes),
                        _pair(op, "strides", strides), _paddings(op, paddings), _pair(op, "dilations", dilations))


def _factor(op: str, name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise invalid_type(op, f"{name} must be an int, got {type(value).__name__} {value!r}.")
    if value <= 0:
        raise invalid_argument(op, f"{name} must be positive, got {value}.")
    return int(value)


def pixel_shuffle(x: Tensor, upscale_factor: int, data_format: str = "NCHW", name: str | None = None) -> Tensor:
    """[N, C*r*r, H, W] -> [N, C, H*r, W*r]: each r*r channels become an r x r block of pixels."""
    op = "pixel_shuffle"
    return patches.pixel_shuffle(as_tensor(op, "x", x), _factor(op, "upscale_factor", upscale_factor), data_format)


def pixel_unshuffle(x: Tensor, downscale_factor: int, data_format: str = "NCHW", name: str | None = None) -> Tensor:
    """[N, C, H*r, W*r] -> [N, C*r*r, H, W]: the inverse of pixel_shuffle."""
    op = "pixel_unshuffle"
    return patches.pixel_unshuffle(as_tensor(op, "x", x), _factor(op, "downscale_factor", downscale_factor),
                                   data_format)
