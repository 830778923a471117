"""Ops that move pixels between space and channels: unfold / fold (sliding windows) and
pixel_shuffle / pixel_unshuffle (sub-pixel rearrangement).

unfold (Paddle's im2col) copies every kh x kw window of an NCHW image into one column:

    x [N, C, H, W]  ->  out [N, C*kh*kw, L]     L = OH * OW window positions, row-major
    out[n, (c, i, j), (y, x)] = x[n, c, y*sh - pt + i*dh, x*sw - pl + j*dw]      (0 in the padding)

fold is its adjoint (col2im): every column is added back onto the window it came from, so where
windows overlap the values sum. Each is therefore the other's gradient, and grads of grads of any
order come from the same two kernels (kernels/cpu/patches.py, on conv2d's numba im2col loops).

pixel_shuffle turns [N, C*r*r, H, W] into [N, C, H*r, W*r]: each group of r*r channels becomes an
r x r block of pixels (Shi et al. 2016). pixel_unshuffle is its inverse, and each is the other's
gradient (a permutation's adjoint is its inverse). channel_shuffle (ShuffleNet) interleaves g groups
of channels: channels seen as a (g, C/g) grid are read column by column; its inverse, and so its
gradient, is channel_shuffle with C/g groups.

Paddings here are Paddle's unfold/fold order: (top, left, bottom, right).
"""
from __future__ import annotations

from numbers import Integral

from ..dispatch import dispatch
from ..errors import invalid_argument
from ..registry import LazyKernel, MetaTensor, add_kernel, new_meta, register_op
from ..tensor import Tensor
from .conv import conv_out_size

PATCH_FLOATS = ("float32", "float64")


# ---- unfold / fold -----------------------------------------------------------------------------
def _check_float(op: str, x, ndim: int, layout: str) -> None:
    if len(x.shape) != ndim:
        raise invalid_argument(op, f"x must be {ndim}-D {layout}, got shape {list(x.shape)}.")
    if x.dtype.kind != "f":
        raise invalid_argument(op, f"x has dtype {x.dtype}, expected float32 or float64.")


def _check_geometry(op: str, kernel_sizes, strides, paddings, dilations) -> None:
    for name, values, count, low in (("kernel_sizes", kernel_sizes, 2, 1), ("strides", strides, 2, 1),
                                     ("paddings", paddings, 4, 0), ("dilations", dilations, 2, 1)):
        if len(values) != count or any(not isinstance(v, Integral) or isinstance(v, bool) or v < low
                                       for v in values):
            raise invalid_argument(op, f"{name} {list(values)} must be {count} ints >= {low}.")


def _windows(op: str, hw, kernel_sizes, strides, paddings, dilations) -> tuple[int, int]:
    """(OH, OW): window positions; paddings are (top, left, bottom, right)."""
    oh = conv_out_size(op, hw[0], kernel_sizes[0], strides[0], paddings[0], paddings[2], dilations[0], "height")
    ow = conv_out_size(op, hw[1], kernel_sizes[1], strides[1], paddings[1], paddings[3], dilations[1], "width")
    return oh, ow


def unfold_meta(x, kernel_sizes=(1, 1), strides=(1, 1), paddings=(0, 0, 0, 0), dilations=(1, 1)) -> MetaTensor:
    op = "unfold"
    _check_float(op, x, 4, "[N, C, H, W]")
    _check_geometry(op, kernel_sizes, strides, paddings, dilations)
    n, c, h, w = x.shape
    oh, ow = _windows(op, (h, w), kernel_sizes, strides, paddings, dilations)
    rows = -1 if c == -1 else c * kernel_sizes[0] * kernel_sizes[1]
    return new_meta((n, rows, -1 if -1 in (oh, ow) else oh * ow), x.dtype)


def fold_meta(x, output_sizes=(1, 1), kernel_sizes=(1, 1), strides=(1, 1), paddings=(0, 0, 0, 0),
              dilations=(1, 1)) -> MetaTensor:
    op = "fold"
    _check_float(op, x, 3, "[N, C*kh*kw, L]")
    _check_geometry(op, kernel_sizes, strides, paddings, dilations)
    if len(output_sizes) != 2 or any(not isinstance(s, Integral) or s < 1 for s in output_sizes):
        raise invalid_argument(op, f"output_sizes {list(output_sizes)} must be two ints >= 1.")
    n, rows, length = x.shape
    taps = kernel_sizes[0] * kernel_sizes[1]
    if rows != -1 and rows % taps:
        raise invalid_argument(op, f"x's dim 1 ({rows}) must be divisible by kh*kw = {taps} (kernel_sizes "
                                   f"{list(kernel_sizes)}): it holds C*kh*kw values per window.")
    oh, ow = _windows(op, output_sizes, kernel_sizes, strides, paddings, dilations)
    if length != -1 and length != oh * ow:
        raise invalid_argument(op, f"x has {length} windows (dim 2) but output_sizes {list(output_sizes)} with these "
                                   f"kernel_sizes, strides, paddings and dilations has {oh} x {ow} = {oh * ow}.")
    return new_meta((n, -1 if rows == -1 else rows // taps) + tuple(output_sizes), x.dtype)


_GEOMETRY = ("kernel_sizes", "strides", "paddings", "dilations")


def _geometry(node) -> dict:
    return {name: getattr(node, name) for name in _GEOMETRY}


def unfold_grad(node, dout):
    """unfold is linear; its adjoint, fold, sends each column back to its window."""
    return dispatch(FOLD, (dout,), {**_geometry(node), "output_sizes": tuple(node.input_metas[0][0][2:])})


def fold_grad(node, dout):
    """fold's adjoint is unfold: each window reads the gradient of the pixels it was added to."""
    return dispatch(UNFOLD, (dout,), _geometry(node))


_ATTRS = {"kernel_sizes": (tuple, (1, 1)), "strides": (tuple, (1, 1)), "paddings": (tuple, (0, 0, 0, 0)),
          "dilations": (tuple, (1, 1))}
UNFOLD = register_op("unfold", inputs=("x",), infer_meta=unfold_meta, backward=unfold_grad, attrs=_ATTRS)
FOLD = register_op("fold", inputs=("x",), infer_meta=fold_meta, backward=fold_grad,
                   attrs={"output_sizes": (tuple, (1, 1)), **_ATTRS})
add_kernel("unfold", "cpu", PATCH_FLOATS,
           LazyKernel("minipaddle.framework.kernels.cpu.patches:unfold_im2col"), name="im2col")
add_kernel("fold", "cpu", PATCH_FLOATS,
           LazyKernel("minipaddle.framework.kernels.cpu.patches:fold_col2im"), name="col2im")


# ---- pixel_shuffle / pixel_unshuffle -----------------------------------------------------------
def _check_shuffle(op: str, x, factor: int, data_format: str) -> tuple[int, int, int]:
    """(C, H, W) of a 4-D float x in data_format; a clear error otherwise."""
    if len(x.shape) != 4:
        raise invalid_argument(op, f"x must be 4-D ({data_format}), got shape {list(x.shape)}.")
    if not isinstance(factor, Integral) or isinstance(factor, bool) or factor < 1:
        raise invalid_argument(op, f"the factor must be an int >= 1, got {factor!r}.")
    if data_format not in ("NCHW", "NHWC"):
        raise invalid_argument(op, f"data_format got {data_format!r}, expected 'NCHW' or 'NHWC'.")
    if data_format == "NCHW":
        return x.shape[1], x.shape[2], x.shape[3]
    return x.shape[3], x.shape[1], x.shape[2]


def _layout(n: int, c: int, h: int, w: int, data_format: str) -> tuple:
    return (n, c, h, w) if data_format == "NCHW" else (n, h, w, c)


def pixel_shuffle_meta(x, upscale_factor=1, data_format="NCHW") -> MetaTensor:
    op = "pixel_shuffle"
    c, h, w = _check_shuffle(op, x, upscale_factor, data_format)
    r = upscale_factor
    if c != -1 and c % (r * r):
        raise invalid_argument(op, f"x has {c} channels, which upscale_factor {r} cannot split into r*r = {r * r} "
                                   "sub-pixels: the channels must be divisible by upscale_factor ** 2.")
    c_out = -1 if c == -1 else c // (r * r)
    return new_meta(_layout(x.shape[0], c_out, -1 if h == -1 else h * r, -1 if w == -1 else w * r, data_format),
                    x.dtype)


def pixel_unshuffle_meta(x, downscale_factor=1, data_format="NCHW") -> MetaTensor:
    op = "pixel_unshuffle"
    c, h, w = _check_shuffle(op, x, downscale_factor, data_format)
    r = downscale_factor
    if (h != -1 and h % r) or (w != -1 and w % r):
        raise invalid_argument(op, f"x's height and width ({h}, {w}) must be divisible by downscale_factor {r}.")
    c_out = -1 if c == -1 else c * r * r
    return new_meta(_layout(x.shape[0], c_out, -1 if h == -1 else h // r, -1 if w == -1 else w // r, data_format),
                    x.dtype)


def pixel_shuffle_kernel(x, upscale_factor=1, data_format="NCHW"):
    r = upscale_factor
    if data_format == "NCHW":
        n, c, h, w = x.shape
        blocks = x.reshape(n, c // (r * r), r, r, h, w).transpose(0, 1, 4, 2, 5, 3)
        return blocks.reshape(n, c // (r * r), h * r, w * r)
    n, h, w, c = x.shape
    blocks = x.reshape(n, h, w, c // (r * r), r, r).transpose(0, 1, 4, 2, 5, 3)
    return blocks.reshape(n, h * r, w * r, c // (r * r))


def pixel_unshuffle_kernel(x, downscale_factor=1, data_format="NCHW"):
    r = downscale_factor
    if data_format == "NCHW":
        n, c, h, w = x.shape
        blocks = x.reshape(n, c, h // r, r, w // r, r).transpose(0, 1, 3, 5, 2, 4)
        return blocks.reshape(n, c * r * r, h // r, w // r)
    n, h, w, c = x.shape
    blocks = x.reshape(n, h // r, r, w // r, r, c).transpose(0, 1, 3, 5, 2, 4)
    return blocks.reshape(n, h // r, w // r, c * r * r)


def pixel_shuffle_grad(node, dout):
    return dispatch(PIXEL_UNSHUFFLE, (dout,), {"downscale_factor": node.upscale_factor,
                                               "data_format": node.data_format})


def pixel_unshuffle_grad(node, dout):
    return dispatch(PIXEL_SHUFFLE, (dout,), {"upscale_factor": node.downscale_factor,
                                             "data_format": node.data_format})


PIXEL_SHUFFLE = register_op("pixel_shuffle", inputs=("x",), infer_meta=pixel_shuffle_meta,
                            backward=pixel_shuffle_grad,
                            attrs={"upscale_factor": (int, 1), "data_format": (str, "NCHW")})
PIXEL_UNSHUFFLE = register_op("pixel_unshuffle", inputs=("x",), infer_meta=pixel_unshuffle_meta,
                              backward=pixel_unshuffle_grad,
                              attrs={"downscale_factor": (int, 1), "data_format": (str, "NCHW")})
def channel_shuffle_meta(x, groups=1, data_format="NCHW") -> MetaTensor:
    op = "channel_shuffle"
    c, _, _ = _check_shuffle(op, x, groups, data_format)
    if c != -1 and c % groups:
        raise invalid_argument(op, f"x has {c} channels, which {groups} groups cannot split evenly.")
    return new_meta(tuple(x.shape), x.dtype)


def channel_shuffle_kernel(x, groups=1, data_format="NCHW"):
    if data_format == "NCHW":
        n, c, h, w = x.shape
        return x.reshape(n, groups, c // groups, h, w).transpose(0, 2, 1, 3, 4).reshape(n, c, h, w)
    n, h, w, c = x.shape
    return x.reshape(n, h, w, groups, c // groups).transpose(0, 1, 2, 4, 3).reshape(n, h, w, c)


def channel_shuffle_grad(node, dout):
    channels = node.input_metas[0][0][1 if node.data_format == "NCHW" else 3]
    return dispatch(CHANNEL_SHUFFLE, (dout,), {"groups": channels // node.groups, "data_format": node.data_format})


CHANNEL_SHUFFLE = register_op("channel_shuffle", inputs=("x",), infer_meta=channel_shuffle_meta,
                              backward=channel_shuffle_grad, attrs={"groups": (int, 1), "data_format": (str, "NCHW")})
_ALL = ("float16", "float32", "float64", "int32", "int64", "bool")
add_kernel("pixel_shuffle", "cpu", _ALL, pixel_shuffle_kernel, name="numpy")
add_kernel("pixel_unshuffle", "cpu", _ALL, pixel_unshuffle_kernel, name="numpy")
add_kernel("channel_shuffle", "cpu", _ALL, channel_shuffle_kernel, name="numpy")


# ---- the op calls the functional API makes -----------------------------------------------------
def unfold(x: Tensor, kernel_sizes: tuple, strides: tuple, paddings: tuple, dilations: tuple) -> Tensor:
    return dispatch(UNFOLD, (x,), {"kernel_sizes": kernel_sizes, "strides": strides, "paddings": paddings,
                                   "dilations": dilations})


def fold(x: Tensor, output_sizes: tuple, kernel_sizes: tuple, strides: tuple, paddings: tuple,
         dilations: tuple) -> Tensor:
    return dispatch(FOLD, (x,), {"output_sizes": output_sizes, "kernel_sizes": kernel_sizes, "strides": strides,
                                 "paddings": paddings, "dilations": dilations})


def pixel_shuffle(x: Tensor, upscale_factor: int, data_format: str) -> Tensor:
    return dispatch(PIXEL_SHUFFLE, (x,), {"upscale_factor": upscale_factor, "data_format": data_format})


def pixel_unshuffle(x: Tensor, downscale_factor: int, data_format: str) -> Tensor:
    return dispatch(PIXEL_UNSHUFFLE, (x,), {"downscale_factor": downscale_factor, "data_format": data_format})


def channel_shuffle(x: Tensor, groups: int, data_format: str) -> Tensor:
    return dispatch(CHANNEL_SHUFFLE, (x,), {"groups": groups, "data_format": data_format})


__all__ = ["unfold", "fold", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle"]
