"""Neural-network ops of `paddle.nn.functional`: linear, dropout, alpha_dropout, embedding, interpolate.

Each is one op (one OpDef, one kernel call) so a training step stays short:

    linear       x @ W + b with ONE BLAS call, whatever the number of leading dims of x
    dropout      draws its keep-mask inside the kernel (Philox under a key from the generator
                 `paddle.seed` sets: the GPU's mask for the same seed; a static Program draws a new
                 mask every run) and returns it as a second output;
                 the backward rule multiplies by that saved mask
    embedding    rows of W picked by integer ids; its gradient scatter-adds rows (embedding_grad)
    interpolate  resizing is separable: along each spatial axis the output is a fixed (out, in)
                 matrix times the input, so every mode is "apply one small matrix per axis", and
                 the backward rule applies the transposed matrices (interpolate_grad)

The activations that the top level lacks (selu, celu, prelu, ...) live in nn_activation.py.
The Paddle-shaped argument handling (size vs scale_factor, data_format, ...) is in
`minipaddle/nn/functional/common.py`; the functions here take checked, normalized arguments.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..dispatch import dispatch
from ..errors import invalid_argument
from ..registry import LazyKernel, MetaTensor, add_kernel, new_meta, register_op
from ..tensor import Tensor
from . import nn_activation  # noqa: F401 - registers selu, celu, prelu, ... with the op library
from .common import FLOATS, require_dtype
from .index_parsing import check_index_values
from .linalg import MATMUL, matmul
from .manipulation import reshape
from .reduction import SUM

FLOAT_WHAT = "a floating dtype (float16, float32, float64)"


def _same_float_dtype(op: str, **tensors) -> None:
    """Every named tensor is a float tensor, all of one dtype."""
    first_name, first = next(iter(tensors.items()))
    require_dtype(op, first_name, first, "f", FLOAT_WHAT)
    for name, t in tensors.items():
        if t.dtype != first.dtype:
            raise invalid_argument(op, f"'{name}' has dtype {t.dtype} but '{first_name}' has {first.dtype}; "
                                       "expected one dtype.", hint="cast one of them with .astype(...).")


# ---- linear: x @ W + b ---------------------------------------------------------------------
def _check_x_and_weight(x, weight) -> None:
    """x [..., in_features] and weight [in_features, out_features], float, of one dtype."""
    _same_float_dtype("linear", x=x, weight=weight)
    xs, ws = tuple(x.shape), tuple(weight.shape)  # tuple(): a GPU array's shape has no [-1] in the simulator
    if len(ws) != 2:
        raise invalid_argument("linear", f"weight has shape {list(ws)}, expected a 2-D [in_features, "
                                         "out_features] tensor.")
    if len(xs) == 0:
        raise invalid_argument("linear", "x is 0-D, expected at least 1 dim whose last is in_features.")
    if xs[-1] != ws[0] and -1 not in (xs[-1], ws[0]):
        raise invalid_argument("linear", f"x's last dim ({xs[-1]}) must equal weight's first dim ({ws[0]}); "
                                         f"got x of shape {list(xs)} and weight of shape {list(ws)}.",
                               hint="Paddle's weight is [in_features, out_features], the transpose of PyTorch's.")


def linear_meta(x, weight, bias) -> MetaTensor:
    xs, ws = tuple(x.shape), tuple(weight.shape)  # tuple(): a GPU array's shape has no [-1] in the simulator
    if len(ws) == 2 and len(xs) >= 1 and xs[-1] == ws[0] and bias.shape == (ws[1],) \
            and x.dtype == weight.dtype == bias.dtype and x.dtype.kind == "f":
        return new_meta(xs[:-1] + (ws[1],), x.dtype)  # the common case, checked in one line
    _check_x_and_weight(x, weight)
    _same_float_dtype("linear", x=x, bias=bias)
    if tuple(bias.shape) not in ((ws[1],), (-1,)):
        raise invalid_argument("linear", f"bias has shape {list(bias.shape)}, expected [{ws[1]}] "
                                         "(out_features).")
    return new_meta(xs[:-1] + (ws[1],), x.dtype)


def linear_kernel(x, weight, bias):
    if x.ndim == 2:
        out = np.matmul(x, weight)
    else:  # fold the leading dims into rows: one gemm instead of one per batch entry
        out = np.matmul(x.reshape(-1, x.shape[-1]), weight).reshape(x.shape[:-1] + weight.shape[1:])
    out += bias
    return out


def linear_grad(node, dout):
    """dx = dout @ W^T, dW = x^T @ dout (leading dims folded into rows), db = dout summed over rows."""
    x, weight = node.x, node.weight
    dx = dweight = dbias = None
    if node.needs_grad(0):
        dx = matmul(dout, weight, transpose_y=True)
    if node.needs_grad(1):
        if x.ndim == 2:
            dweight = matmul(x, dout, transpose_x=True)
        else:
            rows_x = reshape(x, [-1, weight.shape[0]])
            dweight = matmul(rows_x, reshape(dout, [-1, weight.shape[1]]), transpose_x=True)
    if node.needs_grad(2):  # the sum op straight away: the axes need no parsing
        rows = tuple(range(dout.ndim - 1))
        dbias = dispatch(SUM, (dout,), {"axis": rows, "keepdim": False, "dtype": None}) if rows else dout
    return dx, dweight, dbias


LINEAR = register_op("linear", inputs=("x", "weight", "bias"), infer_meta=linear_meta, backward=linear_grad,
                     save=("x", "weight"))
add_kernel("linear", "cpu", FLOATS, linear_kernel, name="blas")


def linear(x: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """x @ weight + bias; weight is [in_features, out_features]. Without bias: one matmul."""
    if bias is None:
        _check_x_and_weight(x._data, weight._data)
        return dispatch(MATMUL, (x, weight), {"transpose_x": False, "transpose_y": False})
    return dispatch(LINEAR, (x, weight, bias))


# ---- dropout and alpha_dropout: the mask is the op's second output -------------------------
DROPOUT_MODES = ("upscale_in_train", "downscale_in_infer")


def _mask_shape(shape: tuple, axis) -> tuple:
    """The mask varies only along `axis` (None: all axes); elsewhere it broadcasts (size 1)."""
    if axis is None:
        return tuple(shape)
    return tuple(n if i in axis else 1 for i, n in enumerate(shape))


def dropout_meta(x, p=0.5, axis=None, mode="upscale_in_train") -> tuple:
    require_dtype("dropout", "x", x, "f", FLOAT_WHAT)
    return new_meta(x.shape, x.dtype), new_meta(_mask_shape(x.shape, axis), x.dtype)


def _keep(shape: tuple, p: float, dtype) -> np.ndarray:
    """True where an element is kept: a uniform draw >= p, as Paddle's kernel does. The uniforms are
    Philox's, as on the GPU, and p is rounded as the GPU kernel rounds it: the same mask on either device."""
    from ..kernels.cpu import philox_draws  # numba loads with the first draw, not with minipaddle
    compare_as = np.float64 if np.dtype(dtype) == np.float64 else np.float32
    return philox_draws.uniforms_like(shape) >= compare_as(p)


def dropout_kernel(x, p=0.5, axis=None, mode="upscale_in_train"):
    keep = _keep(_mask_shape(x.shape, axis), p, x.dtype)
    mask = keep.astype(x.dtype)
    if mode == "upscale_in_train" and p < 1:
        mask *= x.dtype.type(1.0 / (1.0 - p))  # kept elements are scaled up so the expectation is x
    return x * mask, mask


def dropout_grad(node, dout, dmask):
    return dout * node.mask  # the mask does not depend on x: its own gradient is dropped


DROPOUT = register_op("dropout", inputs=("x",), outputs=("out", "mask"), infer_meta=dropout_meta,
                      backward=dropout_grad, save=("mask",),
                      attrs={"p": (float, 0.5), "axis": (tuple, None), "mode": (str, "upscale_in_train")})
add_kernel("dropout", "cpu", FLOATS, dropout_kernel, name="numpy")

# SELU's fixed point (Klambauer et al. 2017): alpha_dropout keeps its mean 0 and variance 1
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def alpha_dropout_meta(x, p=0.5) -> tuple:
    require_dtype("alpha_dropout", "x", x, "f", FLOAT_WHAT)
    return new_meta(x.shape, x.dtype), new_meta(x.shape, x.dtype)


def alpha_dropout_kernel(x, p=0.5):
    """Dropped elements become SELU's negative saturation value, then an affine map a * y + b
    restores mean 0 and variance 1 (Paddle's formula)."""
    alpha_p = -SELU_ALPHA * SELU_SCALE
    a = ((1 - p) * (1 + p * alpha_p ** 2)) ** -0.5
    b = -a * alpha_p * p
    keep = _keep(x.shape, p, x.dtype)
    mask = keep.astype(x.dtype)
    mask *= x.dtype.type(a)
    fill = np.where(keep, x.dtype.type(b), x.dtype.type(a * alpha_p + b))
    return x * mask + fill, mask


ALPHA_DROPOUT = register_op("alpha_dropout", inputs=("x",), outputs=("out", "mask"),
                            infer_meta=alpha_dropout_meta, backward=dropout_grad, save=("mask",),
                            attrs={"p": (float, 0.5)})
add_kernel("alpha_dropout", "cpu", FLOATS, alpha_dropout_kernel, name="numpy")


def dropout(x: Tensor, p: float, axis: tuple | None, mode: str) -> Tensor:
    """Training-mode dropout with checked arguments (nn.functional.dropout decides the rest)."""
    return dispatch(DROPOUT, (x,), {"p": p, "axis": axis, "mode": mode})[0]


def alpha_dropout(x: Tensor, p: float) -> Tensor:
    return dispatch(ALPHA_DROPOUT, (x,), {"p": p})[0]


# ---- embedding: rows of W by id; the gradient scatter-adds rows ----------------------------
def embedding_meta(x, weight, padding_idx=-1) -> MetaTensor:
    require_dtype("embedding", "x", x, "iu", "int32 or int64 ids")
    require_dtype("embedding", "weight", weight, "f", FLOAT_WHAT)
    if len(weight.shape) != 2:
        raise invalid_argument("embedding", f"weight has shape {list(weight.shape)}, expected a 2-D "
                                            "[num_embeddings, embedding_dim] tensor.")
    check_index_values("embedding", x, weight.shape[0], "the rows of weight (num_embeddings)",
                       allow_negative=False)
    return new_meta(tuple(x.shape) + (weight.shape[1],), weight.dtype)


def embedding_kernel(x, weight, padding_idx=-1):
    out = np.take(weight, x, axis=0)
    if padding_idx >= 0:
        out[x == padding_idx] = 0  # Paddle: the padding id reads as a zero row
    return out


def embedding_backward(node, dout):
    attrs = {"num_embeddings": node.input_metas[1][0][0], "padding_idx": node.padding_idx}
    return None, dispatch(EMBEDDING_GRAD, (dout, node.x), attrs)


def embedding_grad_meta(dout, x, num_embeddings=0, padding_idx=-1) -> MetaTensor:
    return new_meta((num_embeddings, tuple(dout.shape)[-1]), dout.dtype)  # tuple(): a GPU array's shape has no [-1]


def embedding_grad_numpy(dout, x, num_embeddings=0, padding_idx=-1):
    """Zeros of W's shape with every row of dout added at its id; the padding row stays 0."""
    dim = dout.shape[-1]
    out = np.zeros((num_embeddings, dim), dout.dtype)
    np.add.at(out, x.reshape(-1), dout.reshape(-1, dim))
    if padding_idx >= 0:
        out[padding_idx] = 0
    return out


def embedding_grad_backward(node, ddweight):
    # embedding_grad is linear in dout and its transpose is embedding itself
    return dispatch(EMBEDDING, (node.x, ddweight), {"padding_idx": node.padding_idx}), None


EMBEDDING = register_op("embedding", inputs=("x", "weight"), infer_meta=embedding_meta,
                        backward=embedding_backward, save=("x",), differentiable_inputs=(1,),
                        attrs={"padding_idx": (int, -1)}, kernel_input=1)
EMBEDDING_GRAD = register_op("embedding_grad", inputs=("dout", "x"), infer_meta=embedding_grad_meta,
                             backward=embedding_grad_backward, save=("x",), differentiable_inputs=(0,),
                             attrs={"num_embeddings": (int, 0), "padding_idx": (int, -1)})
add_kernel("embedding", "cpu", FLOATS, embedding_kernel, name="numpy")
add_kernel("embedding_grad", "cpu", FLOATS, embedding_grad_numpy, name="numpy")
# np.add.at costs ~0.5 ms for 640 rows of 64 float32; numba's plain row loop a few microseconds
add_kernel("embedding_grad", "cpu", ("float32", "float64"),
           LazyKernel("minipaddle.framework.kernels.cpu.nn_common:embedding_grad_numba"), name="numba", priority=1)


def embedding(x: Tensor, weight: Tensor, padding_idx: int = -1) -> Tensor:
    """Rows of weight at the ids in x; padding_idx (>= 0, or -1 for none) reads as zeros."""
    return dispatch(EMBEDDING, (x, weight), {"padding_idx": padding_idx})


# ---- interpolate: one (out, in) matrix per spatial axis ------------------------------------
INTERP_MODES = ("nearest", "linear", "bilinear", "trilinear", "bicubic", "area")


def _ratio(n_in: int, n_out: int, scale: float, align_corners: bool) -> np.float32:
    """Paddle's source step per output step, in float32 as its kernel computes it."""
    if n_out <= 1:
        return np.float32(0.0)
    if align_corners:
        return np.float32(n_in - 1) / np.float32(n_out - 1)
    if scale > 0:  # Paddle keeps the scale as a float32 attribute and divides in double
        return np.float32(1.0 / float(np.float32(scale)))
    return np.float32(n_in) / np.float32(n_out)


def _linear_taps(n_in: int, n_out: int, r: np.float32, align_corners: bool, align_mode: int):
    """(lower index, upper index, upper weight) per output position, as Paddle's linear kernels."""
    k = np.arange(n_out)
    half = r.astype(np.float64) * (k + 0.5) - 0.5  # float * double in C++: computed in double
    plain = r * k.astype(np.float32)
    align_flag = align_mode == 0 and not align_corners
    lo = np.maximum((half if align_flag else plain).astype(np.int64), 0)  # astype truncates toward 0
    hi = np.minimum(lo + 1, n_in - 1)
    frac = (np.maximum(half, 0).astype(np.float32) if align_flag else plain) - lo
    return lo, hi, frac


def _cubic_weights(t: np.ndarray) -> list[np.ndarray]:
    """Keys' cubic convolution weights (a = -0.75, as Paddle and PyTorch) for taps -1, 0, 1, 2."""
    a = -0.75

    def near(d):  # |d| <= 1
        return ((a + 2) * d - (a + 3)) * d * d + 1

    def far(d):   # 1 < |d| < 2
        return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a
    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


@lru_cache(maxsize=256)
def interp_matrix(n_in: int, n_out: int, scale: float, mode: str, align_corners: bool, align_mode: int,
                  dtype: str = "float64") -> np.ndarray:
    """The (n_out, n_in) matrix that resizes one axis: out = A @ x along that axis (cached, read-only)."""
    A = np.zeros((n_out, n_in))
    rows = np.arange(n_out)
    r = _ratio(n_in, n_out, scale, align_corners)
    if mode == "nearest":
        src = r * rows.astype(np.float32)
        if align_corners:
            src = src + np.float32(0.5)
        A[rows, np.minimum(src.astype(np.int64), n_in - 1)] = 1.0
    elif mode == "area":  # adaptive average pooling: the mean of x over [floor(k n/m), ceil((k+1) n/m))
        for k in range(n_out):
            start, end = (k * n_in) // n_out, -((-(k + 1) * n_in) // n_out)
            A[k, start:end] = 1.0 / (end - start)
    elif mode == "bicubic":
        src = r * rows if align_corners else r.astype(np.float64) * (rows + 0.5) - 0.5
        src = src.astype(np.float32)
        base = np.floor(src).astype(np.int64)
        for tap, w in enumerate(_cubic_weights((src - base).astype(np.float64))):
            np.add.at(A, (rows, np.clip(base - 1 + tap, 0, n_in - 1)), w)  # clamped taps may coincide
    else:  # linear, bilinear, trilinear
        lo, hi, frac = _linear_taps(n_in, n_out, r, align_corners, align_mode)
        np.add.at(A, (rows, lo), 1.0 - frac.astype(np.float64))
        np.add.at(A, (rows, hi), frac.astype(np.float64))
    A = A.astype(dtype)
    A.setflags(write=False)
    return A


def _apply_along(x: np.ndarray, A: np.ndarray, axis: int) -> np.ndarray:
    """A @ x along `axis`: tensordot folds the other axes into one gemm."""
    out = np.tensordot(x, A, axes=([axis], [1]))
    return np.moveaxis(out, -1, axis)


def spatial_axes(ndim: int, channel_last: bool) -> range:
    return range(1, ndim - 1) if channel_last else range(2, ndim)


def interpolate_meta(x, out_size=(), scales=(), mode="nearest", align_corners=False, align_mode=0,
                     channel_last=False) -> MetaTensor:
    require_dtype("interpolate", "x", x, "f", FLOAT_WHAT)
    shape = list(x.shape)
    for axis, n in zip(spatial_axes(len(shape), channel_last), out_size):
        shape[axis] = n
    return new_meta(tuple(shape), x.dtype)


def _resize(x: np.ndarray, sizes: tuple, scales: tuple, mode: str, align_corners: bool, align_mode: int,
            channel_last: bool, transpose: bool) -> np.ndarray:
    """Apply each spatial axis's matrix (transposed, for the gradient) in turn."""
    axes = spatial_axes(x.ndim, channel_last)
    out = x
    for i, axis in enumerate(axes):
        n_in, n_out = sizes[i]
        A = interp_matrix(n_in, n_out, scales[i] if scales else -1.0, mode, align_corners, align_mode,
                          x.dtype.name)
        out = _apply_along(out, A.T if transpose else A, axis)
    return np.ascontiguousarray(out)


def interpolate_kernel(x, out_size=(), scales=(), mode="nearest", align_corners=False, align_mode=0,
                       channel_last=False):
    in_size = tuple(x.shape[a] for a in spatial_axes(x.ndim, channel_last))
    if in_size == tuple(out_size):
        return x.copy()  # Paddle copies when no size changes, whatever the mode or scale
    return _resize(x, tuple(zip(in_size, out_size)), scales, mode, align_corners, align_mode, channel_last,
                   transpose=False)


def interpolate_backward(node, dout):
    attrs = dict(node.attrs)
    attrs["in_size"] = tuple(node.input_metas[0][0][a] for a in spatial_axes(dout.ndim, node.channel_last))
    return dispatch(INTERPOLATE_GRAD, (dout,), attrs)


def interpolate_grad_meta(dout, in_size=(), out_size=(), scales=(), mode="nearest", align_corners=False,
                          align_mode=0, channel_last=False) -> MetaTensor:
    shape = list(dout.shape)
    for axis, n in zip(spatial_axes(len(shape), channel_last), in_size):
        shape[axis] = n
    return new_meta(tuple(shape), dout.dtype)


def interpolate_grad_kernel(dout, in_size=(), out_size=(), scales=(), mode="nearest", align_corners=False,
                            align_mode=0, channel_last=False):
    if tuple(in_size) == tuple(out_size):
        return dout.copy()
    return _resize(dout, tuple(zip(in_size, out_size)), scales, mode, align_corners, align_mode, channel_last,
                   transpose=True)


def interpolate_grad_backward(node, ddx):
    attrs = {k: v for k, v in node.attrs.items() if k != "in_size"}
    return dispatch(INTERPOLATE, (ddx,), attrs)  # the transpose of the transpose: interpolate again


_INTERP_ATTRS = {"out_size": (tuple, ()), "scales": (tuple, ()), "mode": (str, "nearest"),
                 "align_corners": (bool, False), "align_mode": (int, 0), "channel_last": (bool, False)}
INTERPOLATE = register_op("interpolate", inputs=("x",), infer_meta=interpolate_meta, backward=interpolate_backward,
                          attrs=_INTERP_ATTRS)
INTERPOLATE_GRAD = register_op("interpolate_grad", inputs=("dout",), infer_meta=interpolate_grad_meta,
                               backward=interpolate_grad_backward, attrs={"in_size": (tuple, ()), **_INTERP_ATTRS})
add_kernel("interpolate", "cpu", FLOATS, interpolate_kernel, name="numpy")
add_kernel("interpolate_grad", "cpu", FLOATS, interpolate_grad_kernel, name="numpy")


def interpolate(x: Tensor, out_size: tuple, scales: tuple, mode: str, align_corners: bool, align_mode: int,
                channel_last: bool) -> Tensor:
    """Resize the spatial dims of x to `out_size` (arguments already checked by nn.functional)."""
    return dispatch(INTERPOLATE, (x,), {"out_size": tuple(out_size), "scales": tuple(scales), "mode": mode,
                                        "align_corners": align_corners, "align_mode": align_mode,
                                        "channel_last": channel_last})


def interp_out_size(n_in: int, scale: float) -> int:
    """Paddle's output size for a scale factor: int(in * scale), multiplied in float32."""
    return int(np.float32(n_in) * np.float32(scale))


__all__ = ["linear", "embedding"]
