"""Functional API, common layers: linear, dropout (and 2d/3d/alpha), embedding, one_hot, pad, interpolate /
upsample, cosine_similarity, pairwise_distance, normalize, label_smooth.

Paddle's argument handling lives here (defaults, spellings, checks that raise Paddle's errors); the
math is one registered op each (framework/ops/nn_ops.py), or a few existing ops where Paddle composes
them too (cosine_similarity, normalize, label_smooth), so their gradients come from those ops.

    >>> y = F.linear(x, weight, bias)               # weight is [in_features, out_features]
    >>> y = F.dropout(x, p=0.1, training=True)      # paddle.seed(...) makes the mask reproducible
"""
from __future__ import annotations

from numbers import Number

import numpy as np

from ...framework.errors import invalid_argument
from ...framework.ops import nn_ops
from ...framework.ops.common import as_tensor
from ...framework.ops.activation import clip
from ...framework.ops.elementwise import maximum, scale, sqrt
from ...framework.ops.indexing import one_hot
from ...framework.ops.linalg import matmul
from ...framework.ops.manipulation import pad, reshape, transpose, unsqueeze
from ...framework.ops.reduction import norm, sum
from ...framework.tensor import Tensor

__all__ = ["linear", "bilinear", "dropout", "dropout2d", "dropout3d", "alpha_dropout", "embedding", "one_hot", "pad",
           "zeropad2d", "interpolate", "upsample", "cosine_similarity", "pairwise_distance", "normalize",
           "label_smooth"]


def linear(x: Tensor, weight: Tensor, bias: Tensor | None = None, name: str | None = None) -> Tensor:
    """x @ weight + bias in one op (one BLAS call); weight is [in_features, out_features].

    x may have any number of leading dims: shape [..., in_features] -> [..., out_features].
    """
    x = as_tensor("linear", "x", x)
    weight = as_tensor("linear", "weight", weight)
    if bias is not None:
        bias = as_tensor("linear", "bias", bias)
    return nn_ops.linear(x, weight, bias)


def bilinear(x1: Tensor, x2: Tensor, weight: Tensor, bias: Tensor | None = None, name: str | None = None) -> Tensor:
    """out[n, k] = x1[n] @ weight[k] @ x2[n] + bias[0, k]; weight is [out_features, in1_features, in2_features].

    Composed of one matmul (x1 against every weight[k] at once), a multiply and a sum.
    """
    x1, x2 = as_tensor("bilinear", "x1", x1), as_tensor("bilinear", "x2", x2)
    weight = as_tensor("bilinear", "weight", weight)
    if weight.ndim != 3 or x1.ndim != 2 or x2.ndim != 2:
        raise invalid_argument("bilinear", f"got x1 {x1.shape}, x2 {x2.shape}, weight {weight.shape}; expected "
                                           "x1 [N, in1], x2 [N, in2] and weight [out, in1, in2].")
    out_f, in1, in2 = weight.shape
    if x1.shape[1] != in1 or x2.shape[1] != in2 or x1.shape[0] != x2.shape[0]:
        raise invalid_argument("bilinear", f"x1 {x1.shape} and x2 {x2.shape} do not fit weight {weight.shape}; "
                                           f"expected x1 [N, {in1}] and x2 [N, {in2}].")
    per_k = reshape(transpose(weight, [1, 0, 2]), [in1, out_f * in2])
    out = sum(reshape(matmul(x1, per_k), [-1, out_f, in2]) * unsqueeze(x2, 1), axis=2)
    return out if bias is None else out + as_tensor("bilinear", "bias", bias)


# ---- dropout -----------------------------------------------------------------------------------
def _probability(op: str, p) -> float:
    if isinstance(p, Tensor):
        p = p.item()
    if isinstance(p, bool) or not isinstance(p, (Number, np.number)) or isinstance(p, complex):
        raise invalid_argument(op, f"p got {type(p).__name__}, expected a number in [0, 1].")
    if not 0 <= p <= 1:
        raise invalid_argument(op, f"p is {p}, expected a probability in [0, 1].")
    return float(p)


def _dropout_axis(axis, ndim: int) -> tuple | None:
    if axis is None:
        return None
    axes = [axis] if isinstance(axis, (int, np.integer)) and not isinstance(axis, bool) else axis
    if not isinstance(axes, (list, tuple)) or not all(isinstance(a, (int, np.integer)) for a in axes):
        raise invalid_argument("dropout", f"axis got {axis!r}, expected an int or a list of ints.")
    if len(axes) > ndim:
        raise invalid_argument("dropout", f"axis {list(axes)} names more axes than x has dims ({ndim}).")
    for a in axes:
        if not 0 <= a < ndim:
            raise invalid_argument("dropout", f"axis {a} is out of range for a {ndim}-D x; expected "
                                              f"0 <= axis < {ndim}.", hint="Paddle's dropout takes no negative axis.")
    return tuple(sorted({int(a) for a in axes}))


def dropout(x: Tensor, p: float = 0.5, axis=None, training: bool = True, mode: str = "upscale_in_train",
            name: str | None = None) -> Tensor:
    """Zero each element with probability p (with `axis`: whole slices along the other axes share a draw).

    mode 'upscale_in_train': kept elements are divided by (1 - p) while training; evaluation returns x.
    mode 'downscale_in_infer': training keeps x as is; evaluation returns x * (1 - p).
    """
    x = as_tensor("dropout", "x", x)
    p = _probability("dropout", p)
    if mode not in nn_ops.DROPOUT_MODES:
        raise invalid_argument("dropout", f"mode {mode!r} is not one of {list(nn_ops.DROPOUT_MODES)}.")
    axis = _dropout_axis(axis, x.ndim)
    if p == 0:
        return x  # Paddle's fast path: nothing is dropped
    if not training:
        return x if mode == "upscale_in_train" else scale(x, 1.0 - p)
    return nn_ops.dropout(x, p, axis, mode)


def _channel_dropout(op: str, x, p, training: bool, data_format: str, ndim: int, formats: tuple) -> Tensor:
    """dropout2d / dropout3d: one draw per (sample, channel), shared by the whole feature map."""
    x = as_tensor(op, "x", x)
    if x.ndim != ndim:
        raise invalid_argument(op, f"x has {x.ndim} dims (shape {x.shape}), expected {ndim}.")
    if data_format not in formats:
        raise invalid_argument(op, f"data_format {data_format!r} is not one of {list(formats)}.")
    axis = [0, 1] if data_format[1] == "C" else [0, ndim - 1]
    return dropout(x, p, axis=axis, training=training, mode="upscale_in_train")


def dropout2d(x: Tensor, p: float = 0.5, training: bool = True, data_format: str = "NCHW",
              name: str | None = None) -> Tensor:
    """Drop whole channels of a 4-D x ([N, C, H, W] or [N, H, W, C])."""
    return _channel_dropout("dropout2d", x, p, training, data_format, 4, ("NCHW", "NHWC"))


def dropout3d(x: Tensor, p: float = 0.5, training: bool = True, data_format: str = "NCDHW",
              name: str | None = None) -> Tensor:
    """Drop whole channels of a 5-D x ([N, C, D, H, W] or [N, D, H, W, C])."""
    return _channel_dropout("dropout3d", x, p, training, data_format, 5, ("NCDHW", "NDHWC"))


def alpha_dropout(x: Tensor, p: float = 0.5, training: bool = True, name: str | None = None) -> Tensor:
    """Dropout for SELU networks: dropped elements take SELU's saturation value, then an affine map
    keeps mean and variance. Evaluation returns x."""
    x = as_tensor("alpha_dropout", "x", x)
    p = _probability("alpha_dropout", p)
    if not training or p == 0:
        return x
    if p == 1:
        return scale(x, 0.0)
    return nn_ops.alpha_dropout(x, p)


# ---- embedding ---------------------------------------------------------------------------------
def embedding(x: Tensor, weight: Tensor, padding_idx: int | None = None, sparse: bool = False,
              name: str | None = None) -> Tensor:
    """The rows of weight ([num_embeddings, embedding_dim]) at the integer ids in x.

    Output shape: x.shape + [embedding_dim]. Rows read at `padding_idx` are zeros and get no gradient.
    `sparse=True` is accepted; the gradient is computed dense here.
    """
    x = as_tensor("embedding", "x", x)
    weight = as_tensor("embedding", "weight", weight)
    rows = weight.shape[0] if weight.ndim >= 1 else 0
    if padding_idx is None:
        padding_idx = -1
    else:
        if not isinstance(padding_idx, (int, np.integer)) or isinstance(padding_idx, bool):
            raise invalid_argument("embedding", f"padding_idx got {type(padding_idx).__name__}, expected an int.")
        if not -rows <= padding_idx < rows:
            raise invalid_argument("embedding", f"padding_idx is {padding_idx}, expected it in [-{rows}, {rows}) "
                                                f"for a weight of {rows} rows.")
        padding_idx = int(padding_idx) % rows
    return nn_ops.embedding(x, weight, padding_idx)


def zeropad2d(x: Tensor, padding, data_format: str = "NCHW", name: str | None = None) -> Tensor:
    """Zero-pad the last two spatial dims; padding is [left, right, top, bottom]."""
    return pad(x, padding, mode="constant", value=0.0, data_format=data_format)


# ---- interpolate / upsample --------------------------------------------------------------------
_MODE_DIMS = {"linear": (3,), "bilinear": (4,), "bicubic": (4,), "trilinear": (5,), "nearest": (4, 5),
              "area": (3, 4, 5)}
_FORMATS = {3: ("NCW", "NWC"), 4: ("NCHW", "NHWC"), 5: ("NCDHW", "NDHWC")}


def _number_list(op: str, arg: str, value, count: int, kind: type) -> list:
    """An int/float, a list/tuple of them (or of 1-element Tensors), or a Tensor -> `count` numbers."""
    if isinstance(value, Tensor):
        value = value._data.reshape(-1).tolist()
        if len(value) == 1:
            value = value[0]
    if isinstance(value, (Number, np.number)) and not isinstance(value, bool):
        value = [value] * count
    if not isinstance(value, (list, tuple)):
        raise invalid_argument(op, f"'{arg}' got {type(value).__name__}, expected a list, tuple or Tensor.")
    out = [v.item() if isinstance(v, Tensor) else v for v in value]
    if len(out) != count or any(isinstance(v, bool) or not isinstance(v, (Number, np.number)) for v in out):
        raise invalid_argument(op, f"'{arg}' got {value!r}, expected {count} number(s), one per spatial dim "
                                   f"of a {count + 2}-D x.")
    return [kind(v) for v in out]


def _interp_args(x: Tensor, mode: str, align_corners, align_mode, data_format) -> tuple[str, bool]:
    """Check the mode against x's rank and the flags; return (mode, channel_last)."""
    mode = mode.lower() if isinstance(mode, str) else mode
    if mode not in _MODE_DIMS:
        raise invalid_argument("interpolate", f"mode {mode!r} is not one of {list(_MODE_DIMS)}.")
    if x.ndim not in _MODE_DIMS[mode]:
        dims = " or ".join(f"{d}-D" for d in _MODE_DIMS[mode])
        raise invalid_argument("interpolate", f"mode '{mode}' resizes a {dims} x, got a {x.ndim}-D x of shape "
                                              f"{x.shape}.", hint="linear: [N, C, W]; bilinear/bicubic: "
                                                                  "[N, C, H, W]; trilinear: [N, C, D, H, W].")
    if not isinstance(align_corners, bool):
        raise invalid_argument("interpolate", f"align_corners got {align_corners!r}, expected True or False.")
    if align_mode not in (0, 1) or isinstance(align_mode, bool):
        raise invalid_argument("interpolate", f"align_mode got {align_mode!r}, expected 0 or 1.")
    if align_corners and mode in ("nearest", "area"):
        raise invalid_argument("interpolate", f"align_corners=True has no meaning in mode '{mode}'; it applies "
                                              "to linear, bilinear, bicubic and trilinear.")
    formats = _FORMATS[x.ndim]
    data_format = formats[0] if data_format is None else str(data_format).upper()
    if data_format not in formats:
        raise invalid_argument("interpolate", f"data_format {data_format!r} does not fit a {x.ndim}-D x; "
                                              f"expected one of {list(formats)}.")
    return mode, data_format != formats[0]


def interpolate(x: Tensor, size=None, scale_factor=None, mode: str = "nearest", align_corners: bool = False,
                align_mode: int = 0, data_format: str | None = None, recompute_scale_factor: bool | None = None,
                name: str | None = None) -> Tensor:
    """Resize the spatial dims of x to `size`, or by `scale_factor` (exactly one of them).

    Modes: 'nearest' (4-D, 5-D), 'linear' (3-D), 'bilinear' and 'bicubic' (4-D), 'trilinear' (5-D),
    'area' (adaptive average pooling). Index rules follow Paddle's kernels: align_corners=True maps
    corner to corner; align_mode=0 samples pixel centres, 1 pixel corners (src = dst * in / out).
    """
    x = as_tensor("interpolate", "x", x)
    mode, channel_last = _interp_args(x, mode, align_corners, align_mode, data_format)
    n = x.ndim - 2
    spatial = x.shape[1:-1] if channel_last else x.shape[2:]
    if (size is None) == (scale_factor is None):
        raise invalid_argument("interpolate", "got both size and scale_factor" if size is not None else
                               "got neither size nor scale_factor", hint="give exactly one of them.")
    scales: list = []
    if size is not None:
        out_size = _number_list("interpolate", "size", size, n, int)
    else:
        scales = _number_list("interpolate", "scale_factor", scale_factor, n, float)
        if any(s <= 0 for s in scales):
            raise invalid_argument("interpolate", f"scale_factor {scales} must be > 0.")
        if mode == "area":
            raise invalid_argument("interpolate", "mode 'area' needs size, got scale_factor.")
        out_size = [nn_ops.interp_out_size(m, s) for m, s in zip(spatial, scales)]
        if recompute_scale_factor:
            scales = []  # the ratio then comes from the sizes, as with an explicit size
    if any(m <= 0 for m in out_size):
        raise invalid_argument("interpolate", f"the output size {out_size} must be > 0 in every dim "
                                              f"(input spatial size {spatial}).")
    return nn_ops.interpolate(x, tuple(out_size), tuple(scales), mode, align_corners, int(align_mode),
                              channel_last)


def upsample(x: Tensor, size=None, scale_factor=None, mode: str = "nearest", align_corners: bool = False,
             align_mode: int = 0, data_format: str | None = None, name: str | None = None) -> Tensor:
    """The same as `interpolate` (Paddle keeps both names)."""
    return interpolate(x, size, scale_factor, mode, align_corners, align_mode, data_format)


# ---- similarity and normalization, composed of existing ops ------------------------------------
def cosine_similarity(x1: Tensor, x2: Tensor, axis: int = 1, eps: float = 1e-8) -> Tensor:
    """x1 . x2 / max(|x1| |x2|, eps) along `axis` (x1 and x2 broadcast)."""
    x1 = as_tensor("cosine_similarity", "x1", x1)
    x2 = as_tensor("cosine_similarity", "x2", x2)
    w12 = sum(x1 * x2, axis=axis)
    w1 = sum(x1 * x1, axis=axis)
    w2 = sum(x2 * x2, axis=axis)
    return w12 / sqrt(clip(w1 * w2, min=eps * eps))


def pairwise_distance(x: Tensor, y: Tensor, p: float = 2.0, epsilon: float = 1e-6, keepdim: bool = False,
                      name: str | None = None) -> Tensor:
    """The p-norm of x - y + epsilon along the last axis."""
    x = as_tensor("pairwise_distance", "x", x)
    y = as_tensor("pairwise_distance", "y", y)
    return norm(x - y + epsilon, p=p, axis=-1, keepdim=keepdim)


def normalize(x: Tensor, p: float = 2, axis: int = 1, epsilon: float = 1e-12, name: str | None = None) -> Tensor:
    """x / max(||x||_p, epsilon) along `axis`."""
    x = as_tensor("normalize", "x", x)
    n = norm(x, p=p, axis=axis, keepdim=True)
    return x / maximum(n, Tensor._wrap(np.array(epsilon, dtype=x._data.dtype)))


def label_smooth(label: Tensor, prior_dist: Tensor | None = None, epsilon: float = 0.1,
                 name: str | None = None) -> Tensor:
    """(1 - epsilon) * label + epsilon * prior_dist (default: uniform over the last dim's classes)."""
    label = as_tensor("label_smooth", "label", label)
    if isinstance(epsilon, bool) or not isinstance(epsilon, (Number, np.number)) or not 0 <= epsilon <= 1:
        raise invalid_argument("label_smooth", f"epsilon is {epsilon!r}, expected a number in [0, 1].")
    if label._data.dtype.kind != "f":
        raise invalid_argument("label_smooth", f"label has dtype {label._data.dtype}, expected a float dtype.",
                               hint="smooth a one-hot label: F.one_hot(ids, num_classes).")
    if prior_dist is None:
        return scale(label, 1.0 - epsilon, epsilon / label.shape[-1])
    prior_dist = as_tensor("label_smooth", "prior_dist", prior_dist)
    return scale(label, 1.0 - epsilon) + scale(prior_dist, float(epsilon))
