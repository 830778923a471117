"""Functional API, spatial rearrangement and sampling: unfold / fold (sliding windows <-> columns),
pixel_shuffle / pixel_unshuffle (framework/ops/patches.py) and affine_grid / grid_sample
(framework/ops/sampling.py). Paddle's argument spellings are turned into the ops' explicit attributes.

    >>> F.unfold(paddle.rand([1, 3, 8, 8]), kernel_sizes=3).shape      # doctest: +SKIP
    [1, 27, 36]
"""
from __future__ import annotations

from numbers import Integral

from ...framework.errors import invalid_argument, invalid_type
from ...framework.ops import patches, sampling
from ...framework.ops.common import as_tensor
from ...framework.tensor import Tensor

__all__ = ["unfold", "fold", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "affine_grid", "grid_sample"]


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


def channel_shuffle(x: Tensor, groups: int, data_format: str = "NCHW", name: str | None = None) -> Tensor:
    """Interleave `groups` groups of channels (ShuffleNet), so the next grouped conv mixes them."""
    op = "channel_shuffle"
    return patches.channel_shuffle(as_tensor(op, "x", x), _factor(op, "groups", groups), data_format)


def affine_grid(theta: Tensor, out_shape, align_corners: bool = True, name: str | None = None) -> Tensor:
    """Sampling positions [N, H, W, 2] (or [N, D, H, W, 3]) for affine matrices theta [N, 2, 3] ([N, 3, 4]).

    out_shape is [N, C, H, W] ([N, C, D, H, W]): a list, or an int Tensor as in Paddle.
    """
    op = "affine_grid"
    if not isinstance(theta, Tensor):
        raise invalid_type(op, f"theta must be a Tensor, got {type(theta).__name__}.")
    if isinstance(out_shape, Tensor):
        out_shape = out_shape.numpy().tolist()
    if not isinstance(out_shape, (list, tuple)) or not all(isinstance(s, Integral) for s in out_shape):
        raise invalid_argument(op, f"out_shape got {out_shape!r}, expected a list of ints [N, C, H, W].")
    return sampling.affine_grid(theta, tuple(int(s) for s in out_shape), bool(align_corners))


def grid_sample(x: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool = True, name: str | None = None) -> Tensor:
    """x [N, C, H, W] read at grid [N, H_out, W_out, 2] ((x, y) in [-1, 1]) -> [N, C, H_out, W_out];
    in 3-D, x [N, C, D, H, W] at grid [N, D_out, H_out, W_out, 3] ((x, y, z)) -> [N, C, D_out, H_out, W_out]."""
    op = "grid_sample"
    return sampling.grid_sample(as_tensor(op, "x", x), as_tensor(op, "grid", grid), mode, padding_mode,
                                bool(align_corners))
