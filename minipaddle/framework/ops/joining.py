"""Joining and cutting tensors, the second half of the manipulation family: concat, stack,
split, chunk, slice, strided_slice, pad. `paddle.concat` & co. are re-exported by
manipulation.py, which is where a learner looks for them first.

concat and stack take any number of tensors: they are registered `variadic`, so the one
named input "x" stands for the whole list and dispatch passes the tensors positionally.
split and chunk return several outputs, one GradNode output slot each; outputs nobody used
reach the backward rule as zeros (the engine fills them in).
"""
from __future__ import annotations

import builtins
import itertools

import numpy as np

from ..dispatch import dispatch
from ..errors import invalid_argument
from ..registry import MetaTensor, add_kernel, register_op
from ..tensor import Tensor
from .common import ALL, as_tensor, normalize_axis
from .manipulation import as_int, as_int_list, norm_axes, squeeze, view_of



def _tensor_list(op: str, x) -> tuple:
    """concat/stack's `x`: a non-empty list or tuple of Tensors."""
    if not isinstance(x, (list, tuple)):
        raise invalid_argument(op, f"'x' got {type(x).__name__}, expected a list or tuple of Tensors.")
    if not x:
        raise invalid_argument(op, "'x' is an empty list, expected at least one Tensor.")
    return tuple(as_tensor(op, f"x[{i}]", t) for i, t in enumerate(x))


def _same_dtype_and_rank(op: str, xs) -> None:
    first = xs[0]
    for i, x in enumerate(xs):
        if x.dtype != first.dtype:
            raise invalid_argument(op, f"x[{i}] has dtype {x.dtype} but x[0] has dtype {first.dtype}; expected "
                                       "one dtype.", hint="cast the tensors with .astype(...) first.")
        if len(x.shape) != len(first.shape):
            raise invalid_argument(op, f"x[{i}] has shape {list(x.shape)} but x[0] has shape "
                                       f"{list(first.shape)}; expected the same number of dims.")


# ---- concat, stack ---------------------------------------------------------------------
def concat_meta(*xs, axis=0) -> MetaTensor:
    first = xs[0]
    ndim = len(first.shape)
    if ndim == 0:
        raise invalid_argument("concat", "x[0] is 0-D; concat joins tensors along an existing dim.",
                               hint="use paddle.stack to join 0-D tensors into a 1-D one.")
    _same_dtype_and_rank("concat", xs)
    a = normalize_axis("concat", axis, ndim)
    total = 0
    for i, x in enumerate(xs):
        for d, (n, m) in enumerate(zip(x.shape, first.shape)):
            if d != a and n != m and n != -1 and m != -1:
                raise invalid_argument("concat", f"x[{i}] has shape {list(x.shape)} but x[0] has shape "
                                                 f"{list(first.shape)}; all dims but the axis ({a}) must match.")
        total = -1 if total == -1 or x.shape[a] == -1 else total + x.shape[a]
    return MetaTensor(first.shape[:a] + (total,) + first.shape[a + 1:], first.dtype)


def concat_grad(node, dout):
    axis = node.axis % len(dout.shape)
    return tuple(split(dout, [shape[axis] for shape, _ in node.input_metas], axis))


def concat_kernel(*xs, axis=0):
    return np.concatenate(xs, axis=axis)


def stack_meta(*xs, axis=0) -> MetaTensor:
    first = xs[0]
    _same_dtype_and_rank("stack", xs)
    for i, x in enumerate(xs):
        if x.shape != first.shape:
            raise invalid_argument("stack", f"x[{i}] has shape {list(x.shape)} but x[0] has shape "
                                            f"{list(first.shape)}; expected one shape.")
    a = normalize_axis("stack", axis, len(first.shape) + 1)
    return MetaTensor(first.shape[:a] + (len(xs),) + first.shape[a:], first.dtype)


def stack_grad(node, dout):
    axis = node.axis % len(dout.shape)
    return tuple(squeeze(g, axis) for g in split(dout, len(node.input_metas), axis))


def stack_kernel(*xs, axis=0):
    return np.stack(xs, axis=axis)


CONCAT = register_op("concat", inputs=("x",), infer_meta=concat_meta, backward=concat_grad,
                     attrs={"axis": (int, 0)}, variadic=True)
STACK = register_op("stack", inputs=("x",), infer_meta=stack_meta, backward=stack_grad,
                    attrs={"axis": (int, 0)}, variadic=True)
add_kernel("concat", "cpu", ALL, concat_kernel, name="numpy")
add_kernel("stack", "cpu", ALL, stack_kernel, name="numpy")


def concat(x, axis=0, name=None) -> Tensor:
    """Join tensors along an existing dim: concat([a of [2, 3], b of [4, 3]]) has shape [6, 3]."""
    xs = _tensor_list("concat", x)
    return dispatch(CONCAT, xs, {"axis": as_int("concat", "axis", axis)})


def stack(x, axis=0, name=None) -> Tensor:
    """Join same-shape tensors along a new dim: stack([a, b]) of two [3] tensors has shape [2, 3]."""
    xs = _tensor_list("stack", x)
    return dispatch(STACK, xs, {"axis": as_int("stack", "axis", axis)})


# ---- split, chunk ----------------------------------------------------------------------
def _split_sizes(op: str, dim: int, axis: int, num_or_sections) -> tuple:
    """Section sizes along `axis`: n equal parts (an int) or given sizes with at most one -1."""
    if isinstance(num_or_sections, int):
        n = num_or_sections
        if n <= 0:
            raise invalid_argument(op, f"the number of parts is {n}, expected a positive int.")
        if dim == -1:
            return (-1,) * n
        if dim % n:
            raise invalid_argument(op, f"dim {axis} of x has size {dim}, which does not split into {n} equal "
                                       "parts.", hint="pass a list of section sizes instead.")
        return (dim // n,) * n
    sections = list(num_or_sections)
    if not sections or sections.count(-1) > 1 or any(s < -1 for s in sections):
        raise invalid_argument(op, f"sections {sections} must be a non-empty list of sizes >= 0 with at most "
                                   "one -1 (inferred).")
    if dim == -1:
        return tuple(sections)
    known = builtins.sum(s for s in sections if s != -1)
    if -1 in sections and known <= dim:
        sections[sections.index(-1)] = dim - known
    elif known != dim:
        raise invalid_argument(op, f"sections {list(num_or_sections)} add up to {known}, but dim {axis} of x "
                                   f"has size {dim}.")
    return tuple(sections)


def _split_metas(op: str, x, num_or_sections, axis) -> tuple:
    if len(x.shape) == 0:
        raise invalid_argument(op, "x is 0-D; expected at least one dim to split.")
    a = normalize_axis(op, axis, len(x.shape))
    sizes = _split_sizes(op, x.shape[a], a, num_or_sections)
    return tuple(MetaTensor(x.shape[:a] + (n,) + x.shape[a + 1:], x.dtype) for n in sizes)


def split_meta(x, num_or_sections=1, axis=0) -> tuple:
    return _split_metas("split", x, num_or_sections, axis)


def chunk_meta(x, chunks=1, axis=0) -> tuple:
    return _split_metas("chunk", x, chunks, axis)


def split_grad(node, *douts):
    return concat(list(douts), axis=node.axis)


def split_kernel(x, num_or_sections=1, axis=0):
    axis = axis % x.ndim
    sizes = _split_sizes("split", x.shape[axis], axis, num_or_sections)
    bounds = np.cumsum((0,) + sizes)
    head = (builtins.slice(None),) * axis
    return tuple(x[head + (builtins.slice(lo, hi),)].copy() for lo, hi in itertools.pairwise(bounds))


def chunk_kernel(x, chunks=1, axis=0):
    return split_kernel(x, chunks, axis)


SPLIT = register_op("split", inputs=("x",), infer_meta=split_meta, backward=split_grad,
                    attrs={"num_or_sections": (tuple, 1), "axis": (int, 0)})
CHUNK = register_op("chunk", inputs=("x",), infer_meta=chunk_meta, backward=split_grad,
                    attrs={"chunks": (int, 1), "axis": (int, 0)})
add_kernel("split", "cpu", ALL, split_kernel, name="numpy")
add_kernel("chunk", "cpu", ALL, chunk_kernel, name="numpy")


def split(x, num_or_sections, axis=0, name=None) -> list[Tensor]:
    """Cut x along `axis` into n equal parts (an int) or parts of given sizes (one may be -1)."""
    x = as_tensor("split", "x", x)
    if isinstance(num_or_sections, (list, tuple)):
        num_or_sections = tuple(as_int_list("split", "num_or_sections", num_or_sections))
    else:
        num_or_sections = as_int("split", "num_or_sections", num_or_sections)
    return list(dispatch(SPLIT, (x,), {"num_or_sections": num_or_sections, "axis": as_int("split", "axis", axis)}))


def chunk(x, chunks, axis=0, name=None) -> list[Tensor]:
    """Cut x along `axis` into `chunks` equal parts (the size must divide evenly, as in Paddle)."""
    x = as_tensor("chunk", "x", x)
    attrs = {"chunks": as_int("chunk", "chunks", chunks), "axis": as_int("chunk", "axis", axis)}
    return list(dispatch(CHUNK, (x,), attrs))


# ---- slice, strided_slice -----------------------------------------------------------------
def _slice_index(op: str, shape: tuple, axes, starts, ends, strides) -> tuple:
    """A numpy index (one Python slice per dim) and the output shape.

    Python's slice rules are Paddle's: a negative start/end counts from the end, and values
    past either end are clamped, so slice(x, [0], [-100], [100]) takes all of dim 0.
    """
    if not len(axes) == len(starts) == len(ends) == len(strides):
        raise invalid_argument(op, f"axes {list(axes)}, starts {list(starts)}, ends {list(ends)} (and strides) "
                                   "must have the same length.")
    if len(shape) == 0:
        raise invalid_argument(op, "x is 0-D; there is no dim to slice.")
    index = [builtins.slice(None)] * len(shape)
    out = list(shape)
    for a, start, end, step in zip(norm_axes(op, axes, len(shape)), starts, ends, strides):
        if step == 0:
            raise invalid_argument(op, f"strides {list(strides)} has a 0, expected non-zero steps.")
        index[a] = builtins.slice(start, end, step)
        out[a] = -1 if shape[a] == -1 else len(range(*index[a].indices(shape[a])))
    return tuple(index), tuple(out)


def slice_meta(x, axes=(), starts=(), ends=()) -> MetaTensor:
    return MetaTensor(_slice_index("slice", x.shape, axes, starts, ends, (1,) * len(axes))[1], x.dtype)


def strided_slice_meta(x, axes=(), starts=(), ends=(), strides=()) -> MetaTensor:
    return MetaTensor(_slice_index("strided_slice", x.shape, axes, starts, ends, strides)[1], x.dtype)


def strided_slice_grad_meta(out_grad, input_shape=(), axes=(), starts=(), ends=(), strides=()) -> MetaTensor:
    return MetaTensor(tuple(input_shape), out_grad.dtype)


def slice_grad(node, dout):
    ones = (1,) * len(node.axes)
    return _strided_slice_grad(dout, node.input_metas[0][0], node.axes, node.starts, node.ends, ones)


def strided_slice_grad(node, dout):
    return _strided_slice_grad(dout, node.input_metas[0][0], node.axes, node.starts, node.ends, node.strides)


def strided_slice_grad_grad(node, ddx):
    return strided_slice(ddx, list(node.axes), list(node.starts), list(node.ends), list(node.strides))


def slice_kernel(x, axes=(), starts=(), ends=()):
    return x[_slice_index("slice", x.shape, axes, starts, ends, (1,) * len(axes))[0]]  # a view


def strided_slice_kernel(x, axes=(), starts=(), ends=(), strides=()):
    return x[_slice_index("strided_slice", x.shape, axes, starts, ends, strides)[0]].copy()


def strided_slice_grad_kernel(out_grad, input_shape=(), axes=(), starts=(), ends=(), strides=()):
    """Scatter the slice's gradient into zeros of the input's shape."""
    dx = np.zeros(input_shape, out_grad.dtype)
    dx[_slice_index("strided_slice_grad", tuple(input_shape), axes, starts, ends, strides)[0]] = out_grad
    return dx


_SLICE_ATTRS = {"axes": (tuple, ()), "starts": (tuple, ()), "ends": (tuple, ())}
SLICE = register_op("slice", inputs=("x",), infer_meta=slice_meta, backward=slice_grad, attrs=_SLICE_ATTRS)
STRIDED_SLICE = register_op("strided_slice", inputs=("x",), infer_meta=strided_slice_meta,
                            backward=strided_slice_grad, attrs={**_SLICE_ATTRS, "strides": (tuple, ())})
STRIDED_SLICE_GRAD = register_op("strided_slice_grad", inputs=("out_grad",), infer_meta=strided_slice_grad_meta,
                                 backward=strided_slice_grad_grad,
                                 attrs={"input_shape": (tuple, ()), **_SLICE_ATTRS, "strides": (tuple, ())})
add_kernel("slice", "cpu", ALL, slice_kernel, name="numpy")
add_kernel("strided_slice", "cpu", ALL, strided_slice_kernel, name="numpy")
add_kernel("strided_slice_grad", "cpu", ALL, strided_slice_grad_kernel, name="numpy")


def _strided_slice_grad(dout, input_shape, axes, starts, ends, strides) -> Tensor:
    attrs = {"input_shape": tuple(input_shape), "axes": axes, "starts": starts, "ends": ends, "strides": strides}
    return dispatch(STRIDED_SLICE_GRAD, (dout,), attrs)


def _slice_attrs(op: str, axes, starts, ends) -> dict:
    return {"axes": tuple(as_int_list(op, "axes", axes)), "starts": tuple(as_int_list(op, "starts", starts)),
            "ends": tuple(as_int_list(op, "ends", ends))}


def slice(input, axes, starts, ends, name=None) -> Tensor:  # Paddle's names, shadowing builtins
    """input[starts[i]:ends[i]] along each axes[i]; out-of-range bounds are clamped. A view."""
    x = as_tensor("slice", "input", input)
    return view_of(dispatch(SLICE, (x,), _slice_attrs("slice", axes, starts, ends)), x)


def strided_slice(x, axes, starts, ends, strides, name=None) -> Tensor:
    """x[starts[i]:ends[i]:strides[i]] along each axes[i] (negative strides walk backwards)."""
    x = as_tensor("strided_slice", "x", x)
    attrs = _slice_attrs("strided_slice", axes, starts, ends)
    attrs["strides"] = tuple(as_int_list("strided_slice", "strides", strides))
    return dispatch(STRIDED_SLICE, (x,), attrs)


# ---- pad -----------------------------------------------------------------------------------
_MODES = ("constant", "reflect", "replicate", "circular")
_CHANNEL_FIRST = ("NCL", "NCHW", "NCDHW")
_CHANNEL_LAST = ("NLC", "NHWC", "NDHWC")


def _pad_widths(ndim: int, pad: list, mode: str, data_format: str) -> tuple:
    """Paddle's `pad` list as one (before, after) pair per dim of x.

    - mode 'constant' with 2 * ndim numbers: pairs from the FIRST dim on,
      [d0_before, d0_after, d1_before, d1_after, ...];
    - otherwise x is 3-D/4-D/5-D (N, C and 1-3 spatial dims, per data_format) and pad holds
      2 * (ndim - 2) numbers from the LAST spatial dim backwards:
      [left, right] (W), [left, right, top, bottom] (W, H), [..., front, back] (W, H, D).
    """
    if mode == "constant" and len(pad) == 2 * ndim:
        return tuple((pad[2 * i], pad[2 * i + 1]) for i in range(ndim))
    hint = f"in 'constant' mode any x takes {2 * ndim} numbers, a (before, after) pair per dim from dim 0."
    if ndim not in (3, 4, 5):
        raise invalid_argument("pad", f"got {len(pad)} pads in mode '{mode}' for a {ndim}-D x; "
                                      f"this form pads the spatial dims of a 3-D, 4-D or 5-D x.", hint=hint)
    if len(pad) != 2 * (ndim - 2):
        raise invalid_argument("pad", f"got {len(pad)} pads for a {ndim}-D x in mode '{mode}', expected "
                                      f"{2 * (ndim - 2)} (a pair per spatial dim, last dim first).", hint=hint)
    if data_format in _CHANNEL_FIRST:
        spatial = range(2, ndim)
    elif data_format in _CHANNEL_LAST:
        spatial = range(1, ndim - 1)
    else:
        raise invalid_argument("pad", f"data_format {data_format!r} is not one of "
                                      f"{list(_CHANNEL_FIRST + _CHANNEL_LAST)}.")
    widths = [(0, 0)] * ndim
    for k, axis in enumerate(reversed(spatial)):
        widths[axis] = (pad[2 * k], pad[2 * k + 1])
    return tuple(widths)


def _source_index(n: int, before: int, after: int, mode: str) -> np.ndarray:
    """For each position of the padded dim, the position of x it copies."""
    i = np.arange(-before, n + after)
    if mode == "replicate":
        return np.clip(i, 0, n - 1)
    if mode == "circular":
        return np.mod(i, n)
    i = np.abs(i)  # reflect: mirror about the first and the last element, which are not repeated
    return np.where(i > n - 1, 2 * (n - 1) - i, i)


def pad_meta(x, paddings=(), mode="constant", value=0.0) -> MetaTensor:
    out = []
    for axis, ((before, after), n) in enumerate(zip(paddings, x.shape)):
        if before < 0 or after < 0:
            raise invalid_argument("pad", f"dim {axis} has pads ({before}, {after}); expected pads >= 0.")
        if mode != "constant" and (before or after) and n != -1:
            if n == 0:
                raise invalid_argument("pad", f"mode '{mode}' cannot pad dim {axis}: it is empty.")
            if mode == "reflect" and max(before, after) > n - 1:
                raise invalid_argument("pad", f"mode 'reflect' pads dim {axis} (size {n}) by ({before}, {after}); "
                                              f"expected pads <= {n - 1}, the size - 1.")
        out.append(-1 if n == -1 else n + before + after)
    return MetaTensor(tuple(out), x.dtype)


def pad_grad_meta(out_grad, paddings=(), mode="constant") -> MetaTensor:
    return MetaTensor(tuple(n - b - a for n, (b, a) in zip(out_grad.shape, paddings)), out_grad.dtype)


def pad_grad(node, dout):
    return dispatch(PAD_GRAD, (dout,), {"paddings": node.paddings, "mode": node.mode})


def pad_grad_grad(node, ddx):
    # pad is linear (plus a constant) and pad_grad is its transpose, so pad_grad's own
    # gradient is pad again, with a zero fill.
    return dispatch(PAD, (ddx,), {"paddings": node.paddings, "mode": node.mode, "value": 0.0})


def pad_kernel(x, paddings=(), mode="constant", value=0.0):
    if x.ndim == 0:
        return x.copy()
    if mode == "constant":
        return np.pad(x, paddings, constant_values=value)
    out = x
    for axis, (before, after) in enumerate(paddings):
        if before or after:
            out = np.take(out, _source_index(x.shape[axis], before, after, mode), axis=axis)
    return out.copy() if out is x else out


def pad_grad_kernel(out_grad, paddings=(), mode="constant"):
    """The transpose of pad: sum every padded cell's gradient into the cell of x it copied."""
    if mode == "constant":
        return out_grad[tuple(builtins.slice(b, n - a) for n, (b, a) in zip(out_grad.shape, paddings))].copy()
    g = out_grad
    for axis, (before, after) in enumerate(paddings):
        if before or after:
            g = _fold_axis(g, axis, before, after, mode)
    return g.copy() if g is out_grad else g


def _fold_axis(g: np.ndarray, axis: int, before: int, after: int, mode: str) -> np.ndarray:
    n = g.shape[axis] - before - after
    source = _source_index(n, before, after, mode)
    g = np.moveaxis(g, axis, 0)
    dx = g[before:before + n].copy()
    for j in itertools.chain(range(before), range(before + n, len(source))):  # only the pads: few rows
        dx[source[j]] += g[j]
    return np.moveaxis(dx, 0, axis)


PAD = register_op("pad", inputs=("x",), infer_meta=pad_meta, backward=pad_grad,
                  attrs={"paddings": (tuple, ()), "mode": (str, "constant"), "value": (float, 0.0)})
PAD_GRAD = register_op("pad_grad", inputs=("out_grad",), infer_meta=pad_grad_meta, backward=pad_grad_grad,
                       attrs={"paddings": (tuple, ()), "mode": (str, "constant")})
add_kernel("pad", "cpu", ALL, pad_kernel, name="numpy")
add_kernel("pad_grad", "cpu", ALL, pad_grad_kernel, name="numpy")


def pad(x, pad, mode="constant", value=0.0, data_format="NCHW", name=None) -> Tensor:
    """Pad x (Paddle's paddle.nn.functional.pad); see `_pad_widths` for the order of `pad`.

        pad(x of [1, 1, 3], [1, 2], mode="reflect")   # [1, 1, 6]: 1 before, 2 after the last dim
        pad(x of [2, 3], [1, 1, 0, 2])                 # [4, 5]: constant, pairs from dim 0
    """
    x = as_tensor("pad", "x", x)
    if mode not in _MODES:
        raise invalid_argument("pad", f"mode {mode!r} is not one of {list(_MODES)}.")
    if not isinstance(value, (int, float, np.number)) or isinstance(value, bool):
        raise invalid_argument("pad", f"'value' got {type(value).__name__}, expected a number.")
    widths = _pad_widths(x.ndim, as_int_list("pad", "pad", pad), mode, data_format)
    return dispatch(PAD, (x,), {"paddings": widths, "mode": mode, "value": float(value)})
