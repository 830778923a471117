"""conv2d, conv2d_transpose and conv2d_grad_filter: convolution as im2col + BLAS, or as direct loops.

All three ops work on NCHW tensors with explicit geometry attributes (the functional API in
nn/functional/conv.py turns Paddle's many padding spellings, NHWC and conv1d into these):

    strides (sh, sw)   paddings (top, bottom, left, right)   dilations (dh, dw)   groups

They are three faces of one linear map. Write A_w for "convolve with weight w":

    conv2d(x, w)             = A_w x
    conv2d_transpose(y, w)   = A_w^T y         (Paddle's transposed convolution; conv2d's input grad)
    conv2d_grad_filter(x, g) = dL/dw of <g, A_w x>                          (conv2d's weight grad)

so each op's backward rule is written with the other two, and grads of grads of any order come
from the same three kernels (kernels/cpu/im2col.py, the default; kernels/cpu/conv_direct.py holds
direct numba loops for each op, which the autotuner times against them):

    conv2d:             dx = conv2d_transpose(dout, w)      dw = conv2d_grad_filter(x, dout)
    conv2d_transpose:   dy = conv2d(dout, w)                dw = conv2d_grad_filter(dout, y)
    conv2d_grad_filter: dx = conv2d_transpose(g, dw_bar)    dg = conv2d(x, dw_bar)
"""
from __future__ import annotations

from numbers import Integral

from ..dispatch import dispatch
from ..errors import invalid_argument
from ..registry import LazyKernel, MetaTensor, add_kernel, new_meta, register_op
from ..tensor import Tensor

CONV_FLOATS = ("float32", "float64")
GEOMETRY = ("strides", "paddings", "dilations", "groups")


# ---- shapes and checks -------------------------------------------------------------------------
def check_geometry(op: str, strides, paddings, dilations, groups) -> None:
    """Attributes must be positive (strides, dilations, groups) or >= 0 (paddings) ints."""
    for name, values, low in (("strides", strides, 1), ("paddings", paddings, 0), ("dilations", dilations, 1)):
        if any(not isinstance(v, Integral) or isinstance(v, bool) or v < low for v in values):
            raise invalid_argument(op, f"{name} {list(values)} must be ints >= {low}.")
    if not isinstance(groups, Integral) or isinstance(groups, bool) or groups < 1:
        raise invalid_argument(op, f"groups must be an int >= 1, got {groups!r}.")


def conv_out_size(op: str, size: int, k: int, s: int, before: int, after: int, d: int, dim: str) -> int:
    """Window positions along one dim; a clear error when the kernel does not fit even once."""
    if size == -1 or k == -1:  # unknown in a static Program
        return -1
    extent = d * (k - 1) + 1
    padded = size + before + after
    if extent > padded:
        raise invalid_argument(
            op, f"the kernel spans {extent} along {dim} (size {k}, dilation {d}) but the padded input is only "
                f"{padded} ({size} + padding {before} + {after}).",
            hint="use a smaller kernel or dilation, or pad the input more.")
    return (padded - extent) // s + 1


def _check_float_pair(op: str, names: tuple[str, str], a, b) -> None:
    for name, t in zip(names, (a, b)):
        if len(t.shape) != 4:
            raise invalid_argument(op, f"{name} must be 4-D, got shape {list(t.shape)}.")
        if t.dtype.kind != "f":
            raise invalid_argument(op, f"{name} has dtype {t.dtype}, expected float32 or float64.")
    if a.dtype != b.dtype:
        raise invalid_argument(op, f"{names[0]} has dtype {a.dtype} but {names[1]} has dtype {b.dtype}; "
                                   "expected the same dtype.", hint="cast one of them with .astype(...).")


def _check_groups(op: str, groups: int, **channels: int) -> None:
    for what, count in channels.items():
        if count != -1 and count % groups:
            raise invalid_argument(op, f"groups={groups} must divide the number of {what} ({count}).",
                                   hint="choose groups that divides both the input and output channels.")


def _out_hw(op: str, hw: tuple, khw: tuple, strides, paddings, dilations) -> tuple[int, int]:
    oh = conv_out_size(op, hw[0], khw[0], strides[0], paddings[0], paddings[1], dilations[0], "height")
    ow = conv_out_size(op, hw[1], khw[1], strides[1], paddings[2], paddings[3], dilations[1], "width")
    return oh, ow


def conv2d_meta(x, weight, strides=(1, 1), paddings=(0, 0, 0, 0), dilations=(1, 1), groups=1) -> MetaTensor:
    op = "conv2d"
    _check_float_pair(op, ("x", "weight"), x, weight)
    check_geometry(op, strides, paddings, dilations, groups)
    n, c, h, w = x.shape
    oc, cg, kh, kw = weight.shape
    _check_groups(op, groups, **{"input channels": c, "output channels (weight.shape[0])": oc})
    if c != -1 and cg != -1 and c != cg * groups:
        raise invalid_argument(
            op, f"x has {c} channels but weight of shape {list(weight.shape)} with groups={groups} expects "
                f"{cg * groups} (weight.shape[1] * groups).",
            hint="weight is [out_channels, in_channels / groups, kh, kw].")
    oh, ow = _out_hw(op, (h, w), (kh, kw), strides, paddings, dilations)
    return new_meta((n, oc, oh, ow), x.dtype)


def conv2d_transpose_meta(x, weight, strides=(1, 1), paddings=(0, 0, 0, 0), dilations=(1, 1), groups=1,
                          output_size=(1, 1)) -> MetaTensor:
    op = "conv2d_transpose"
    _check_float_pair(op, ("x", "weight"), x, weight)
    check_geometry(op, strides, paddings, dilations, groups)
    n, c, h, w = x.shape
    wc, ocg, kh, kw = weight.shape
    if c != -1 and wc != -1 and c != wc:
        raise invalid_argument(op, f"x has {c} channels but weight of shape {list(weight.shape)} expects {wc} "
                                   "(weight.shape[0]).", hint="weight is [in_channels, out_channels / groups, kh, kw].")
    _check_groups(op, groups, **{"input channels": c})
    if len(output_size) != 2 or any(not isinstance(s, Integral) or s < 1 for s in output_size):
        raise invalid_argument(op, f"output_size {list(output_size)} must be two ints >= 1.")
    # the output is the input of the conv2d this op is the transpose of: that conv2d must map it to (h, w)
    back = _out_hw(op, tuple(output_size), (kh, kw), strides, paddings, dilations)
    if -1 not in (h, w) and back != (h, w):
        raise invalid_argument(
            op, f"output_size {list(output_size)} does not fit: a convolution with these strides, paddings and "
                f"dilations maps it to {list(back)}, not to x's size {[h, w]}.",
            hint="output_size must lie in [(H-1)*stride - pad + dilation*(k-1) + 1, that + stride) per dim.")
    return new_meta((n, ocg * groups, output_size[0], output_size[1]), x.dtype)


def conv2d_grad_filter_meta(x, dout, strides=(1, 1), paddings=(0, 0, 0, 0), dilations=(1, 1), groups=1,
                            filter_size=(1, 1)) -> MetaTensor:
    op = "conv2d_grad_filter"
    _check_float_pair(op, ("x", "dout"), x, dout)
    check_geometry(op, strides, paddings, dilations, groups)
    n, c, h, w = x.shape
    oc = dout.shape[1]
    _check_groups(op, groups, **{"input channels": c, "output channels": oc})
    expected = (n, oc) + _out_hw(op, (h, w), tuple(filter_size), strides, paddings, dilations)
    if any(e != d for e, d in zip(expected, dout.shape) if -1 not in (e, d)):
        raise invalid_argument(op, f"dout has shape {list(dout.shape)}, expected {list(expected)} (conv2d's "
                                   f"output for x of shape {list(x.shape)}).")
    return new_meta((oc, c // groups if c != -1 else -1, filter_size[0], filter_size[1]), x.dtype)


# ---- backward rules: each op's gradient is made of the other two ops -----------------------------
def _geometry(node) -> dict:
    return {"strides": node.strides, "paddings": node.paddings, "dilations": node.dilations, "groups": node.groups}


def conv2d_grad(node, dout):
    x_meta, w_meta = node.input_metas
    dx = dw = None
    if node.needs_grad(0):  # skip what nobody needs (the image batch rarely needs a grad)
        dx = dispatch(CONV2D_TRANSPOSE, (dout, node.weight), {**_geometry(node), "output_size": x_meta[0][2:]})
    if node.needs_grad(1):
        dw = dispatch(CONV2D_GRAD_FILTER, (node.x, dout), {**_geometry(node), "filter_size": w_meta[0][2:]})
    return dx, dw


def conv2d_transpose_grad(node, dout):
    w_meta = node.input_metas[1]
    dx = dw = None
    if node.needs_grad(0):
        dx = dispatch(CONV2D, (dout, node.weight), _geometry(node))
    if node.needs_grad(1):
        dw = dispatch(CONV2D_GRAD_FILTER, (dout, node.x), {**_geometry(node), "filter_size": w_meta[0][2:]})
    return dx, dw


def conv2d_grad_filter_grad(node, ddw):
    x_meta = node.input_metas[0]
    dx = ddout = None
    if node.needs_grad(0):
        dx = dispatch(CONV2D_TRANSPOSE, (node.dout, ddw), {**_geometry(node), "output_size": x_meta[0][2:]})
    if node.needs_grad(1):
        ddout = dispatch(CONV2D, (node.x, ddw), _geometry(node))
    return dx, ddout


_ATTRS = {"strides": (tuple, (1, 1)), "paddings": (tuple, (0, 0, 0, 0)), "dilations": (tuple, (1, 1)),
          "groups": (int, 1)}
CONV2D = register_op("conv2d", inputs=("x", "weight"), infer_meta=conv2d_meta, backward=conv2d_grad,
                     save=("x", "weight"), attrs=_ATTRS)
CONV2D_TRANSPOSE = register_op("conv2d_transpose", inputs=("x", "weight"), infer_meta=conv2d_transpose_meta,
                               backward=conv2d_transpose_grad, save=("x", "weight"),
                               attrs={**_ATTRS, "output_size": (tuple, (1, 1))})
CONV2D_GRAD_FILTER = register_op("conv2d_grad_filter", inputs=("x", "dout"), infer_meta=conv2d_grad_filter_meta,
                                 backward=conv2d_grad_filter_grad, save=("x", "dout"),
                                 attrs={**_ATTRS, "filter_size": (tuple, (1, 1))})
add_kernel("conv2d", "cpu", CONV_FLOATS,
           LazyKernel("minipaddle.framework.kernels.cpu.im2col:conv2d_im2col"), name="im2col")
add_kernel("conv2d_transpose", "cpu", CONV_FLOATS,
           LazyKernel("minipaddle.framework.kernels.cpu.im2col:conv2d_transpose_col2im"), name="col2im")
add_kernel("conv2d_grad_filter", "cpu", CONV_FLOATS,
           LazyKernel("minipaddle.framework.kernels.cpu.im2col:conv2d_grad_filter_im2col"), name="im2col")
# Image by image (kernels/cpu/conv_fast.py): no transposed copies, columns in cache; the default. The threaded
# variants, the batch-wide im2col and the direct loops below stay candidates the autotuner times.
add_kernel("conv2d", "cpu", CONV_FLOATS,
           LazyKernel("minipaddle.framework.kernels.cpu.conv_fast:conv2d_images"), name="images", priority=2)
add_kernel("conv2d", "cpu", CONV_FLOATS,
           LazyKernel("minipaddle.framework.kernels.cpu.conv_fast:conv2d_images_parallel"),
           name="images_parallel", priority=1)
add_kernel("conv2d_transpose", "cpu", CONV_FLOATS,
           LazyKernel("minipaddle.framework.kernels.cpu.conv_fast:conv2d_transpose_images"),
           name="images", priority=2)
add_kernel("conv2d_transpose", "cpu", CONV_FLOATS,
           LazyKernel("minipaddle.framework.kernels.cpu.conv_fast:conv2d_transpose_images_parallel"),
           name="images_parallel", priority=1)
add_kernel("conv2d_grad_filter", "cpu", CONV_FLOATS,
           LazyKernel("minipaddle.framework.kernels.cpu.conv_fast:conv2d_grad_filter_images"),
           name="images", priority=2)
add_kernel("conv2d_grad_filter", "cpu", CONV_FLOATS,
           LazyKernel("minipaddle.framework.kernels.cpu.conv_fast:conv2d_grad_filter_images_parallel"),
           name="images_parallel", priority=1)
# The direct numba loops (kernels/cpu/conv_direct.py): no im2col copy, faster for few channels. im2col stays
# the default (higher priority); with autotune on, both are timed per shape class and the faster one runs.
add_kernel("conv2d", "cpu", CONV_FLOATS,
           LazyKernel("minipaddle.framework.kernels.cpu.conv_direct:conv2d_direct"), name="direct", priority=-1)
# Channels-last patches and one GEMM (kernels/cpu/conv_channels_last.py): a candidate (measured 0.9-0.97x of
# the default on ResNet's small maps here).
add_kernel("conv2d", "cpu", CONV_FLOATS,
           LazyKernel("minipaddle.framework.kernels.cpu.conv_channels_last:conv2d_channels_last"),
           name="channels_last", priority=-2)
add_kernel("conv2d_transpose", "cpu", CONV_FLOATS,
           LazyKernel("minipaddle.framework.kernels.cpu.conv_direct:conv2d_transpose_direct"),
           name="direct", priority=-1)
add_kernel("conv2d_grad_filter", "cpu", CONV_FLOATS,
           LazyKernel("minipaddle.framework.kernels.cpu.conv_direct:conv2d_grad_filter_direct"),
           name="direct", priority=-1)


# ---- the op calls the functional API makes -----------------------------------------------------
def conv2d_nchw(x: Tensor, weight: Tensor, strides: tuple, paddings: tuple, dilations: tuple,
                groups: int) -> Tensor:
    """conv2d on NCHW with explicit (top, bottom, left, right) paddings; no bias."""
    return dispatch(CONV2D, (x, weight), {"strides": strides, "paddings": paddings, "dilations": dilations,
                                          "groups": groups})


def conv2d_transpose_nchw(x: Tensor, weight: Tensor, strides: tuple, paddings: tuple, dilations: tuple,
                          groups: int, output_size: tuple) -> Tensor:
    """conv2d_transpose on NCHW to an explicit output (height, width); no bias."""
    return dispatch(CONV2D_TRANSPOSE, (x, weight), {"strides": strides, "paddings": paddings,
                                                    "dilations": dilations, "groups": groups,
                                                    "output_size": output_size})


__all__ = ["conv2d_nchw", "conv2d_transpose_nchw", "conv_out_size", "check_geometry"]
