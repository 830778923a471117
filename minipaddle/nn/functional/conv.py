"""Functional API: conv1d, conv2d, conv2d_transpose (Paddle 2.x signatures and semantics).

Each function turns Paddle's argument spellings into the explicit attributes of the NCHW ops in
framework/ops/conv.py, then adds the bias:

- `padding`: an int, a list of one int per spatial dim, a list of (before, after) per spatial dim
  ([top, bottom, left, right] for 2-D), a list of pairs for every dim including batch and channel
  (those must be [0, 0]), or "SAME" / "VALID". "SAME" pads so that out = ceil(in / stride), the
  extra pixel going after; as in Paddle it sets the dilation to 1.
- `data_format` "NHWC" / "NLC": x is transposed to channels-first and the result back.
- conv1d is conv2d on x viewed as (N, C, 1, L) with a (OC, C/groups, 1, K) kernel.

    >>> x = paddle.randn([2, 3, 8, 8]); w = paddle.randn([6, 3, 3, 3])     # doctest: +SKIP
    >>> F.conv2d(x, w, padding=1).shape
    [2, 6, 8, 8]
"""
from __future__ import annotations

from numbers import Integral

from ...framework.errors import invalid_argument
from ...framework.ops.common import as_tensor
from ...framework.ops.conv import conv2d_nchw, conv2d_transpose_nchw
from ...framework.ops.conv3d import conv3d_ncdhw, conv3d_transpose_ncdhw
from ...framework.ops.elementwise import add
from ...framework.ops.manipulation import reshape, squeeze, transpose, unsqueeze
from ...framework.tensor import Tensor

__all__ = ["conv1d", "conv2d", "conv2d_transpose", "conv3d", "conv3d_transpose"]

_TO_FIRST = {3: [0, 2, 1], 4: [0, 3, 1, 2], 5: [0, 4, 1, 2, 3]}   # channels-last -> channels-first
_TO_LAST = {3: [0, 2, 1], 4: [0, 2, 3, 1], 5: [0, 2, 3, 4, 1]}


# ---- argument spellings (shared with nn/functional/pooling.py) ---------------------------------
def _is_int(v) -> bool:
    return isinstance(v, Integral) and not isinstance(v, bool)


def int_list(op: str, name: str, value, n: int, low: int = 1) -> list[int]:
    """An int or a list/tuple of n ints (each >= low) as a list of n ints."""
    if _is_int(value):
        values = [int(value)] * n
    elif isinstance(value, (list, tuple)) and len(value) == n and all(_is_int(v) for v in value):
        values = [int(v) for v in value]
    else:
        raise invalid_argument(op, f"{name} got {value!r}, expected an int or a list of {n} ints.")
    if any(v < low for v in values):
        raise invalid_argument(op, f"{name} {values} must be >= {low}.")
    return values


def padding_spec(op: str, padding, nd: int, channel_last: bool) -> tuple[list[int] | None, str]:
    """Paddle's padding forms -> ([before_0, after_0, before_1, after_1, ...], "EXPLICIT"), or
    (None, "SAME") / ([0, ...], "VALID")."""
    if isinstance(padding, str):
        algorithm = padding.upper()
        if algorithm not in ("SAME", "VALID"):
            raise invalid_argument(op, f"padding {padding!r} is not a padding algorithm; expected 'SAME' or "
                                       "'VALID' (or ints).")
        return (None if algorithm == "SAME" else [0] * (2 * nd)), algorithm
    if _is_int(padding):
        pads = [int(padding)] * (2 * nd)
    elif isinstance(padding, (list, tuple)) and len(padding) == nd + 2 and \
            all(isinstance(p, (list, tuple)) and len(p) == 2 for p in padding):
        outer = (padding[0], padding[-1]) if channel_last else (padding[0], padding[1])
        if any(list(p) != [0, 0] for p in outer):
            raise invalid_argument(op, f"padding {list(padding)} pads the batch or channel dim; only the "
                                       "spatial dims can be padded (their pairs must be [0, 0]).")
        spatial = padding[1:-1] if channel_last else padding[2:]
        pads = [v for pair in spatial for v in pair]
    elif isinstance(padding, (list, tuple)) and len(padding) == nd:
        pads = [v for p in padding for v in (p, p)]
    elif isinstance(padding, (list, tuple)) and len(padding) == 2 * nd:
        pads = list(padding)
    else:
        raise invalid_argument(op, f"padding {padding!r} has a form this {nd}-D op does not take.",
                               hint=f"use an int, {nd} ints, {2 * nd} ints (before, after per dim), "
                                    f"{nd + 2} pairs, or 'SAME' / 'VALID'.")
    if not all(_is_int(p) and p >= 0 for p in pads):
        raise invalid_argument(op, f"padding {padding!r} must hold ints >= 0.")
    return [int(p) for p in pads], "EXPLICIT"


def same_padding(sizes, kernel, strides) -> list[int]:
    """Paddle's "SAME": out = ceil(in / stride); the padding needed, the odd pixel after."""
    pads = []
    for size, k, s in zip(sizes, kernel, strides):
        out = (size + s - 1) // s
        total = max((out - 1) * s + k - size, 0)
        pads += [total // 2, total - total // 2]
    return pads


def channel_order(op: str, data_format: str, allowed: tuple[str, str]) -> bool:
    """True for channels-last; a clear error for a format the op does not take."""
    if data_format not in allowed:
        raise invalid_argument(op, f"data_format {data_format!r} is not one of {list(allowed)}.")
    return data_format == allowed[1]


def check_ndim(op: str, x: Tensor, nd: int, data_format: str) -> None:
    if x.ndim != nd + 2:
        raise invalid_argument(op, f"x must be {nd + 2}-D ({'/'.join(data_format)}), got shape {x.shape}.",
                               hint="add a batch dim with x.unsqueeze(0)." if x.ndim == nd + 1 else None)


def _add_bias(op: str, out: Tensor, bias) -> Tensor:
    if bias is None:
        return out
    bias = as_tensor(op, "bias", bias)
    channels = out.shape[1]
    if bias.shape != [channels]:
        raise invalid_argument(op, f"bias has shape {bias.shape}, expected [{channels}] (one per output channel).")
    return add(out, reshape(bias, [1, channels] + [1] * (out.ndim - 2)))


# ---- conv2d / conv1d ---------------------------------------------------------------------------
def _check_groups(op: str, groups) -> int:
    if not _is_int(groups) or groups < 1:
        raise invalid_argument(op, f"groups must be an int >= 1, got {groups!r}.")
    return int(groups)


def _resolve_padding(op, padding, channel_last, sizes, kernel, stride, dilation) -> tuple[list, list]:
    """(pads, dilation) with "SAME" worked out for these sizes (Paddle then uses dilation 1)."""
    pads, algorithm = padding_spec(op, padding, len(sizes), channel_last)
    if algorithm == "SAME":
        return same_padding(sizes, kernel, stride), [1] * len(sizes)
    return pads, dilation


def _prepare(op: str, x, weight, stride, padding, dilation, groups, data_format: str, formats: tuple[str, str],
             weight_dims: str):
    """The checks and layout every convolution shares: x and weight as Tensors, x channels-first,
    stride / dilation as lists, padding worked out. Returns (x, weight, stride, pads, dilation, groups,
    channel_last). `weight_dims` names the weight's dims for the error ("out_channels, in_channels /
    groups, kh, kw")."""
    nd = len(formats[0]) - 2
    x, weight = as_tensor(op, "x", x), as_tensor(op, "weight", weight)
    channel_last = channel_order(op, data_format, formats)
    check_ndim(op, x, nd, data_format)
    if weight.ndim != nd + 2:
        raise invalid_argument(op, f"weight must be {nd + 2}-D [{weight_dims}], got shape {weight.shape}.")
    stride, dilation = int_list(op, "stride", stride, nd), int_list(op, "dilation", dilation, nd)
    groups = _check_groups(op, groups)
    if channel_last:
        x = transpose(x, _TO_FIRST[nd + 2])
    pads, dilation = _resolve_padding(op, padding, channel_last, x.shape[2:], weight.shape[2:], stride, dilation)
    return x, weight, stride, pads, dilation, groups, channel_last


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NCHW",
           name=None) -> Tensor:
    """2-D convolution of x (N, C, H, W) with weight (OC, C/groups, kh, kw), plus bias (OC,)."""
    op = "conv2d"
    x, weight, stride, pads, dilation, groups, channel_last = _prepare(
        op, x, weight, stride, padding, dilation, groups, data_format, ("NCHW", "NHWC"),
        "out_channels, in_channels / groups, kh, kw")
    out = _add_bias(op, conv2d_nchw(x, weight, tuple(stride), tuple(pads), tuple(dilation), groups), bias)
    return transpose(out, _TO_LAST[4]) if channel_last else out


def conv1d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NCL",
           name=None) -> Tensor:
    """1-D convolution of x (N, C, L) with weight (OC, C/groups, K), plus bias (OC,)."""
    op = "conv1d"
    x, weight, stride, pads, dilation, groups, channel_last = _prepare(
        op, x, weight, stride, padding, dilation, groups, data_format, ("NCL", "NLC"),
        "out_channels, in_channels / groups, k")
    # conv1d is conv2d over a height of 1: (N, C, 1, L) * (OC, C/g, 1, K)
    out = conv2d_nchw(unsqueeze(x, [2]), unsqueeze(weight, [2]), (1, stride[0]), (0, 0, pads[0], pads[1]),
                      (1, dilation[0]), groups)
    out = _add_bias(op, squeeze(out, [2]), bias)
    return transpose(out, _TO_LAST[3]) if channel_last else out


# ---- conv2d_transpose --------------------------------------------------------------------------
def _transpose_output_size(op: str, in_hw, kernel, stride, pads, dilation, output_padding, output_size):
    """Paddle's output size: (H-1)*s - pads + d*(k-1) + 1, then + output_padding or output_size."""
    base = [(h - 1) * s - pads[2 * i] - pads[2 * i + 1] + d * (k - 1) + 1
            for i, (h, k, s, d) in enumerate(zip(in_hw, kernel, stride, dilation))]
    if any(b < 1 for b in base):
        raise invalid_argument(op, f"the padding {pads} removes the whole output (size before padding "
                                   f"{[b + pads[2 * i] + pads[2 * i + 1] for i, b in enumerate(base)]}).")
    if output_size is not None:
        if output_padding != 0:
            raise invalid_argument(op, "output_padding and output_size are mutually exclusive; give one.")
        size = int_list(op, "output_size", output_size, len(in_hw))
        for b, got, s in zip(base, size, stride):
            if not b <= got < b + s:
                raise invalid_argument(op, f"output_size {size} is out of range: each dim must lie in "
                                           f"[{b}, {b + s}) here (the smallest output plus less than one stride).")
        return size
    extra = int_list(op, "output_padding", output_padding, len(in_hw), low=0)
    if any(e >= s for e, s in zip(extra, stride)):
        raise invalid_argument(op, f"output_padding {extra} must be smaller than the stride {list(stride)}.",
                               hint="output_padding picks one of the `stride` output sizes that all map back "
                                    "to x's size.")
    return [b + e for b, e in zip(base, extra)]


def conv2d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, dilation=1, groups=1,
                     output_size=None, data_format="NCHW", name=None) -> Tensor:
    """Transposed 2-D convolution (the gradient of conv2d with respect to its input):
    x (N, C, H, W), weight (C, OC/groups, kh, kw) -> (N, OC, H', W'), plus bias (OC,)."""
    op = "conv2d_transpose"
    x, weight, stride, pads, dilation, groups, channel_last = _prepare(
        op, x, weight, stride, padding, dilation, groups, data_format, ("NCHW", "NHWC"),
        "in_channels, out_channels / groups, kh, kw")
    kernel = weight.shape[2:]
    size = _transpose_output_size(op, x.shape[2:], kernel, stride, pads, dilation, output_padding, output_size)
    out = conv2d_transpose_nchw(x, weight, tuple(stride), tuple(pads), tuple(dilation), groups, tuple(size))
    out = _add_bias(op, out, bias)
    return transpose(out, _TO_LAST[4]) if channel_last else out


# ---- conv3d / conv3d_transpose -----------------------------------------------------------------
def conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NCDHW",
           name=None) -> Tensor:
    """3-D convolution of x (N, C, D, H, W) with weight (OC, C/groups, kd, kh, kw), plus bias (OC,)."""
    op = "conv3d"
    x, weight, stride, pads, dilation, groups, channel_last = _prepare(
        op, x, weight, stride, padding, dilation, groups, data_format, ("NCDHW", "NDHWC"),
        "out_channels, in_channels / groups, kd, kh, kw")
    out = _add_bias(op, conv3d_ncdhw(x, weight, tuple(stride), tuple(pads), tuple(dilation), groups), bias)
    return transpose(out, _TO_LAST[5]) if channel_last else out


def conv3d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1,
                     output_size=None, data_format="NCDHW", name=None) -> Tensor:
    """Transposed 3-D convolution: x (N, C, D, H, W), weight (C, OC/groups, kd, kh, kw) -> (N, OC, D', H', W')."""
    op = "conv3d_transpose"
    x, weight, stride, pads, dilation, groups, channel_last = _prepare(
        op, x, weight, stride, padding, dilation, groups, data_format, ("NCDHW", "NDHWC"),
        "in_channels, out_channels / groups, kd, kh, kw")
    kernel = weight.shape[2:]
    size = _transpose_output_size(op, x.shape[2:], kernel, stride, pads, dilation, output_padding, output_size)
    out = conv3d_transpose_ncdhw(x, weight, tuple(stride), tuple(pads), tuple(dilation), groups, tuple(size))
    out = _add_bias(op, out, bias)
    return transpose(out, _TO_LAST[5]) if channel_last else out
