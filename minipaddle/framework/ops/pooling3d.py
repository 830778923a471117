"""3-D pooling ops on NCDHW: max_pool3d (with its argmax mask) and avg_pool3d, and their gradients.

The windows and output sizes follow the 2-D ops exactly (pooling.py: `pool_out_size` per dim, clipped
windows, `exclusive` counts only positions inside the input), now along depth, height and width.
Paddings are (front, back, top, bottom, left, right).

Gradients, as in 2-D: max pooling saves its mask (the flat d*H*W + h*W + w index of each window's
max, int32 as in Paddle) and max_pool3d_grad sends each gradient there; the gradient of that
gathers at the mask again. Average pooling is linear: avg_pool3d_grad spreads each gradient over
its window, and its own gradient is avg_pool3d.
"""
from __future__ import annotations

from numbers import Integral

from ..dispatch import dispatch
from ..errors import invalid_argument
from ..registry import LazyKernel, MetaTensor, add_kernel, new_meta, register_op
from ..tensor import Tensor
from .pooling import MASK_DTYPE, POOL_FLOATS, pool_out_size

_DIMS = ("depth", "height", "width")


def _check(op: str, x, kernel_size, strides, paddings) -> None:
    if len(x.shape) != 5:
        raise invalid_argument(op, f"x must be 5-D (N, C, D, H, W), got shape {list(x.shape)}.")
    if x.dtype.kind != "f":
        raise invalid_argument(op, f"x has dtype {x.dtype}, expected float32 or float64.")
    for name, values, count, low in (("kernel_size", kernel_size, 3, 1), ("strides", strides, 3, 1),
                                     ("paddings", paddings, 6, 0)):
        if len(values) != count or any(not isinstance(v, Integral) or isinstance(v, bool) or v < low
                                       for v in values):
            raise invalid_argument(op, f"{name} {list(values)} must be {count} ints >= {low}.")


def _out_shape(op: str, x, kernel_size, strides, paddings, ceil_mode) -> tuple:
    _check(op, x, kernel_size, strides, paddings)
    sizes = tuple(pool_out_size(op, x.shape[2 + i], kernel_size[i], strides[i], paddings[2 * i],
                                paddings[2 * i + 1], ceil_mode, _DIMS[i]) for i in range(3))
    return tuple(x.shape[:2]) + sizes


def max_pool3d_meta(x, kernel_size=(1, 1, 1), strides=(1, 1, 1), paddings=(0,) * 6, ceil_mode=False):
    shape = _out_shape("max_pool3d", x, kernel_size, strides, paddings, ceil_mode)
    return new_meta(shape, x.dtype), new_meta(shape, MASK_DTYPE)


def max_pool3d_grad_meta(dout, mask, input_size=(1, 1, 1)) -> MetaTensor:
    if tuple(mask.shape) != tuple(dout.shape):
        raise invalid_argument("max_pool3d_grad", f"mask has shape {list(mask.shape)} but dout has shape "
                                                  f"{list(dout.shape)}; expected the same.")
    return new_meta(tuple(dout.shape[:2]) + tuple(input_size), dout.dtype)


def avg_pool3d_meta(x, kernel_size=(1, 1, 1), strides=(1, 1, 1), paddings=(0,) * 6, ceil_mode=False,
                    exclusive=True, divisor=0.0) -> MetaTensor:
    return new_meta(_out_shape("avg_pool3d", x, kernel_size, strides, paddings, ceil_mode), x.dtype)


def avg_pool3d_grad_meta(dout, kernel_size=(1, 1, 1), strides=(1, 1, 1), paddings=(0,) * 6, ceil_mode=False,
                         exclusive=True, divisor=0.0, input_size=(1, 1, 1)) -> MetaTensor:
    return new_meta(tuple(dout.shape[:2]) + tuple(input_size), dout.dtype)


def max_pool3d_backward(node, dout, dmask=None):
    """Each gradient goes to the position of its window's max (the saved mask)."""
    return dispatch(MAX_POOL3D_GRAD, (dout, node.mask), {"input_size": node.input_metas[0][0][2:]})


def max_pool3d_grad_backward(node, ddx):
    """max_pool3d_grad scatters dout to the mask; its gradient gathers ddx at the mask."""
    from .manipulation import reshape
    from .sorting import take_along_axis
    n, c = ddx.shape[:2]
    mask = node.mask
    picked = take_along_axis(reshape(ddx, [n, c, -1]), reshape(mask, [n, c, -1]), axis=2)
    return reshape(picked, mask.shape), None


_AVG = ("kernel_size", "strides", "paddings", "ceil_mode", "exclusive", "divisor")


def avg_pool3d_backward(node, dout):
    attrs = {name: getattr(node, name) for name in _AVG}
    return dispatch(AVG_POOL3D_GRAD, (dout,), {**attrs, "input_size": node.input_metas[0][0][2:]})


def avg_pool3d_grad_backward(node, ddx):
    """avg pooling is linear, so the gradient of its gradient is the pooling itself."""
    return dispatch(AVG_POOL3D, (ddx,), {name: getattr(node, name) for name in _AVG})


_FIXED_ATTRS = {"kernel_size": (tuple, (1, 1, 1)), "strides": (tuple, (1, 1, 1)), "paddings": (tuple, (0,) * 6),
                "ceil_mode": (bool, False)}
_AVG_ATTRS = {**_FIXED_ATTRS, "exclusive": (bool, True), "divisor": (float, 0.0)}
MAX_POOL3D = register_op("max_pool3d", inputs=("x",), outputs=("out", "mask"), infer_meta=max_pool3d_meta,
                         backward=max_pool3d_backward, save=("mask",), attrs=_FIXED_ATTRS)
MAX_POOL3D_GRAD = register_op("max_pool3d_grad", inputs=("dout", "mask"), infer_meta=max_pool3d_grad_meta,
                              backward=max_pool3d_grad_backward, save=("mask",),
                              attrs={"input_size": (tuple, (1, 1, 1))}, differentiable_inputs=(0,))
AVG_POOL3D = register_op("avg_pool3d", inputs=("x",), infer_meta=avg_pool3d_meta, backward=avg_pool3d_backward,
                         attrs=_AVG_ATTRS)
AVG_POOL3D_GRAD = register_op("avg_pool3d_grad", inputs=("dout",), infer_meta=avg_pool3d_grad_meta,
                              backward=avg_pool3d_grad_backward,
                              attrs={**_AVG_ATTRS, "input_size": (tuple, (1, 1, 1))})
add_kernel("max_pool3d", "cpu", POOL_FLOATS,
           LazyKernel("minipaddle.framework.kernels.cpu.pooling3d:max_pool3d_kernel"), name="taps")
add_kernel("max_pool3d_grad", "cpu", POOL_FLOATS,
           LazyKernel("minipaddle.framework.kernels.cpu.pooling3d:max_pool3d_grad_kernel"), name="taps")
add_kernel("avg_pool3d", "cpu", POOL_FLOATS,
           LazyKernel("minipaddle.framework.kernels.cpu.pooling3d:avg_pool3d_kernel"), name="taps")
add_kernel("avg_pool3d_grad", "cpu", POOL_FLOATS,
           LazyKernel("minipaddle.framework.kernels.cpu.pooling3d:avg_pool3d_grad_kernel"), name="taps")


def max_pool3d_ncdhw(x: Tensor, kernel_size: tuple, strides: tuple, paddings: tuple,
                     ceil_mode: bool) -> tuple[Tensor, Tensor]:
    """(out, mask) of max pooling NCDHW x with explicit (front, back, top, bottom, left, right) paddings."""
    return dispatch(MAX_POOL3D, (x,), {"kernel_size": kernel_size, "strides": strides, "paddings": paddings,
                                       "ceil_mode": ceil_mode})


def avg_pool3d_ncdhw(x: Tensor, kernel_size: tuple, strides: tuple, paddings: tuple, ceil_mode: bool,
                     exclusive: bool, divisor: float) -> Tensor:
    return dispatch(AVG_POOL3D, (x,), {"kernel_size": kernel_size, "strides": strides, "paddings": paddings,
                                       "ceil_mode": ceil_mode, "exclusive": exclusive, "divisor": divisor})


__all__ = ["max_pool3d_ncdhw", "avg_pool3d_ncdhw"]
