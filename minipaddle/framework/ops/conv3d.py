"""conv3d, conv3d_transpose and conv3d_grad_filter: volumetric convolution on NCDHW tensors.

The same three faces of one linear map as conv2d (see conv.py): with A_w "convolve with w",

    conv3d(x, w)             = A_w x
    conv3d_transpose(y, w)   = A_w^T y        (conv3d's input gradient)
    conv3d_grad_filter(x, g) = dL/dw of <g, A_w x>                     (conv3d's weight gradient)

so each op's backward rule is made of the other two and grads of grads come free. The kernels
(kernels/cpu/conv3d.py) loop over the kd*kh*kw kernel taps and do one batched matrix product per
tap. Attributes: strides (sd, sh, sw), paddings (front, back, top, bottom, left, right),
dilations (dd, dh, dw), groups.
"""
from __future__ import annotations

from numbers import Integral

from ..dispatch import dispatch
from ..errors import invalid_argument
from ..registry import LazyKernel, MetaTensor, add_kernel, new_meta, register_op
from ..tensor import Tensor
from .conv import CONV_FLOATS, check_geometry, conv_out_size

_DIMS = ("depth", "height", "width")


def _check_float_pair(op: str, names: tuple[str, str], a, b) -> None:
    for name, t in zip(names, (a, b)):
        if len(t.shape) != 5:
            raise invalid_argument(op, f"{name} must be 5-D, got shape {list(t.shape)}.")
        if t.dtype.kind != "f":
            raise invalid_argument(op, f"{name} has dtype {t.dtype}, expected float32 or float64.")
    if a.dtype != b.dtype:
        raise invalid_argument(op, f"{names[0]} has dtype {a.dtype} but {names[1]} has dtype {b.dtype}; expected "
                                   "the same dtype.", hint="cast one of them with .astype(...).")


def _check_counts(op: str, strides, paddings, dilations, groups) -> None:
    if len(strides) != 3 or len(dilations) != 3 or len(paddings) != 6:
        raise invalid_argument(op, f"expected 3 strides, 6 paddings and 3 dilations, got {list(strides)}, "
                                   f"{list(paddings)}, {list(dilations)}.")
    check_geometry(op, strides, paddings, dilations, groups)


def _out_dhw(op: str, dhw, kdhw, strides, paddings, dilations) -> tuple:
    return tuple(conv_out_size(op, dhw[i], kdhw[i], strides[i], paddings[2 * i], paddings[2 * i + 1], dilations[i],
                               _DIMS[i]) for i in range(3))


def _groups_divide(op: str, groups: int, **channels: int) -> None:
    for what, count in channels.items():
        if count != -1 and count % groups:
            raise invalid_argument(op, f"groups={groups} must divide the number of {what} ({count}).")


def conv3d_meta(x, weight, strides=(1, 1, 1), paddings=(0,) * 6, dilations=(1, 1, 1), groups=1) -> MetaTensor:
    op = "conv3d"
    _check_float_pair(op, ("x", "weight"), x, weight)
    _check_counts(op, strides, paddings, dilations, groups)
    n, c = x.shape[:2]
    oc, cg = weight.shape[:2]
    _groups_divide(op, groups, **{"input channels": c, "output channels (weight.shape[0])": oc})
    if c != -1 and cg != -1 and c != cg * groups:
        raise invalid_argument(op, f"x has {c} channels but weight of shape {list(weight.shape)} with groups={groups} "
                                   f"expects {cg * groups} (weight.shape[1] * groups).",
                               hint="weight is [out_channels, in_channels / groups, kd, kh, kw].")
    return new_meta((n, oc) + _out_dhw(op, x.shape[2:], weight.shape[2:], strides, paddings, dilations), x.dtype)


def conv3d_transpose_meta(x, weight, strides=(1, 1, 1), paddings=(0,) * 6, dilations=(1, 1, 1), groups=1,
                          output_size=(1, 1, 1)) -> MetaTensor:
    op = "conv3d_transpose"
    _check_float_pair(op, ("x", "weight"), x, weight)
    _check_counts(op, strides, paddings, dilations, groups)
    n, c = x.shape[:2]
    wc, ocg = weight.shape[:2]
    if c != -1 and wc != -1 and c != wc:
        raise invalid_argument(op, f"x has {c} channels but weight of shape {list(weight.shape)} expects {wc} "
                                   "(weight.shape[0]).",
                               hint="weight is [in_channels, out_channels / groups, kd, kh, kw].")
    _groups_divide(op, groups, **{"input channels": c})
    if len(output_size) != 3 or any(not isinstance(s, Integral) or s < 1 for s in output_size):
        raise invalid_argument(op, f"output_size {list(output_size)} must be three ints >= 1.")
    back = _out_dhw(op, tuple(output_size), weight.shape[2:], strides, paddings, dilations)
    if -1 not in x.shape[2:] and back != tuple(x.shape[2:]):
        raise invalid_argument(op, f"output_size {list(output_size)} does not fit: a convolution with these strides, "
                                   f"paddings and dilations maps it to {list(back)}, not to x's size "
                                   f"{list(x.shape[2:])}.")
    return new_meta((n, ocg * groups) + tuple(output_size), x.dtype)


def conv3d_grad_filter_meta(x, dout, strides=(1, 1, 1), paddings=(0,) * 6, dilations=(1, 1, 1), groups=1,
                            filter_size=(1, 1, 1)) -> MetaTensor:
    op = "conv3d_grad_filter"
    _check_float_pair(op, ("x", "dout"), x, dout)
    _check_counts(op, strides, paddings, dilations, groups)
    n, c = x.shape[:2]
    oc = dout.shape[1]
    _groups_divide(op, groups, **{"input channels": c, "output channels": oc})
    expected = (n, oc) + _out_dhw(op, x.shape[2:], tuple(filter_size), strides, paddings, dilations)
    if any(e != d for e, d in zip(expected, dout.shape) if -1 not in (e, d)):
        raise invalid_argument(op, f"dout has shape {list(dout.shape)}, expected {list(expected)} (conv3d's output "
                                   f"for x of shape {list(x.shape)}).")
    return new_meta((oc, c // groups if c != -1 else -1) + tuple(filter_size), x.dtype)


def _geometry(node) -> dict:
    return {"strides": node.strides, "paddings": node.paddings, "dilations": node.dilations, "groups": node.groups}


def conv3d_grad(node, dout):
    x_meta, w_meta = node.input_metas
    dx = dw = None
    if node.needs_grad(0):
        dx = dispatch(CONV3D_TRANSPOSE, (dout, node.weight), {**_geometry(node), "output_size": x_meta[0][2:]})
    if node.needs_grad(1):
        dw = dispatch(CONV3D_GRAD_FILTER, (node.x, dout), {**_geometry(node), "filter_size": w_meta[0][2:]})
    return dx, dw


def conv3d_transpose_grad(node, dout):
    w_meta = node.input_metas[1]
    dx = dw = None
    if node.needs_grad(0):
        dx = dispatch(CONV3D, (dout, node.weight), _geometry(node))
    if node.needs_grad(1):
        dw = dispatch(CONV3D_GRAD_FILTER, (dout, node.x), {**_geometry(node), "filter_size": w_meta[0][2:]})
    return dx, dw


def conv3d_grad_filter_grad(node, ddw):
    x_meta = node.input_metas[0]
    dx = ddout = None
    if node.needs_grad(0):
        dx = dispatch(CONV3D_TRANSPOSE, (node.dout, ddw), {**_geometry(node), "output_size": x_meta[0][2:]})
    if node.needs_grad(1):
        ddout = dispatch(CONV3D, (node.x, ddw), _geometry(node))
    return dx, ddout


_ATTRS = {"strides": (tuple, (1, 1, 1)), "paddings": (tuple, (0,) * 6), "dilations": (tuple, (1, 1, 1)),
          "groups": (int, 1)}
CONV3D = register_op("conv3d", inputs=("x", "weight"), infer_meta=conv3d_meta, backward=conv3d_grad,
                     save=("x", "weight"), attrs=_ATTRS)
CONV3D_TRANSPOSE = register_op("conv3d_transpose", inputs=("x", "weight"), infer_meta=conv3d_transpose_meta,
                               backward=conv3d_transpose_grad, save=("x", "weight"),
                               attrs={**_ATTRS, "output_size": (tuple, (1, 1, 1))})
CONV3D_GRAD_FILTER = register_op("conv3d_grad_filter", inputs=("x", "dout"), infer_meta=conv3d_grad_filter_meta,
                                 backward=conv3d_grad_filter_grad, save=("x", "dout"),
                                 attrs={**_ATTRS, "filter_size": (tuple, (1, 1, 1))})
add_kernel("conv3d", "cpu", CONV_FLOATS, LazyKernel("minipaddle.framework.kernels.cpu.conv3d:conv3d_taps"), name="taps")
add_kernel("conv3d_transpose", "cpu", CONV_FLOATS,
           LazyKernel("minipaddle.framework.kernels.cpu.conv3d:conv3d_transpose_taps"), name="taps")
add_kernel("conv3d_grad_filter", "cpu", CONV_FLOATS,
           LazyKernel("minipaddle.framework.kernels.cpu.conv3d:conv3d_grad_filter_taps"), name="taps")


def conv3d_ncdhw(x: Tensor, weight: Tensor, strides: tuple, paddings: tuple, dilations: tuple, groups: int) -> Tensor:
    """conv3d on NCDHW with explicit (front, back, top, bottom, left, right) paddings; no bias."""
    return dispatch(CONV3D, (x, weight), {"strides": strides, "paddings": paddings, "dilations": dilations,
                                          "groups": groups})


def conv3d_transpose_ncdhw(x: Tensor, weight: Tensor, strides: tuple, paddings: tuple, dilations: tuple,
                           groups: int, output_size: tuple) -> Tensor:
    """conv3d_transpose on NCDHW to an explicit output (depth, height, width); no bias."""
    return dispatch(CONV3D_TRANSPOSE, (x, weight), {"strides": strides, "paddings": paddings, "dilations": dilations,
                                                    "groups": groups, "output_size": output_size})


__all__ = ["conv3d_ncdhw", "conv3d_transpose_ncdhw"]
