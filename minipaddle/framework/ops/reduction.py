"""Reductions: sum, mean, max, min, amax, amin, prod, argmax, argmin, cumsum, logsumexp,
var, std, norm (softmax and log_softmax: softmax.py).

A reduction's gradient spreads `dout` back over the reduced axes: reshape it so the
reduced axes have size 1 (`keepdim` shape), then let broadcasting carry it to the
input's shape. Every rule below is written with minipaddle ops, so double grad works.

Ties in max/min follow Paddle: `max`/`min` give the full gradient to every tied
position; `amax`/`amin` share it equally among them.
"""
from __future__ import annotations

import numpy as np

from ..dispatch import dispatch
from ..errors import invalid_argument, unimplemented
from ..registry import MetaTensor, add_kernel, new_meta, register_op
from ..tensor import Tensor
from . import common, manipulation
from ..kernels.cpu.elementwise import upcast_bfloat16
from .common import ALL, BFLOAT16, COMPLEX, FLOATS, NUMERIC, as_tensor, dtype_of, normalize_axes, normalize_axis

REAL = NUMERIC + ("int8", "int16", "uint8")   # every dtype but bool
INT64 = np.dtype("int64")
FLOAT_ONLY = "a floating dtype (float16, bfloat16, float32, float64)"


# ---- shape helpers (the autograd engine imports sum and expand_reduced) ---------------
def reduced_shape(shape: tuple, axes: tuple | None, keepdim: bool) -> tuple:
    if axes is None:
        if not keepdim:
            return ()
        axes = tuple(range(len(shape)))
    if keepdim:
        return tuple(1 if i in axes else n for i, n in enumerate(shape))
    return tuple(n for i, n in enumerate(shape) if i not in axes)


def align_reduced(t: Tensor, input_shape: tuple, axes: tuple | None, keepdim: bool) -> Tensor:
    """A reduction's output (or its gradient) shaped to broadcast against the input.

    The reduced axes come back as size-1 dims -- except leading ones (axis=None, axis=0),
    which numpy's right-aligned broadcasting lines up without a reshape.
    """
    if keepdim or axes is None or axes == tuple(range(len(axes))):
        return t
    return manipulation.reshape(t, list(reduced_shape(input_shape, axes, True)))


def expand_reduced(dout: Tensor, input_shape: tuple, axes: tuple | None, keepdim: bool) -> Tensor:
    """Bring a reduction's output gradient back to the input's shape."""
    # input_shape is already checked: dispatch the op directly, without the API's parsing, and with
    # nothing for broadcast_to's infer_meta to reject (checked=True)
    return dispatch(manipulation.BROADCAST_TO, (align_reduced(dout, input_shape, axes, keepdim),),
                    {"shape": input_shape}, True)


def reduced_count(shape: tuple, axes: tuple | None) -> int:
    """How many input elements fold into each output element."""
    axes = range(len(shape)) if axes is None else axes
    return int(np.prod([shape[i] for i in axes], dtype=np.int64))


def _np_axis(x: np.ndarray, axes):
    """numpy rejects axis=(0,) on a 0-D array; reducing a 0-D array over 'its' axis is a no-op."""
    return None if x.ndim == 0 else axes


def _axes(op: str, axis, ndim: int):
    """Paddle's axis argument (None, int, list/tuple, Tensor; [] means all) -> sorted tuple or None."""
    if isinstance(axis, Tensor):
        axis = axis._data.tolist()
    if isinstance(axis, (list, tuple)) and len(axis) == 0:
        return None
    if axis is not None and not isinstance(axis, (int, np.integer, list, tuple)):
        raise invalid_argument(op, f"axis must be None, an int or a list of ints, got {type(axis).__name__}.")
    return normalize_axes(op, axis, ndim)


def _check_not_empty(op: str, x, axes) -> None:
    """max/min/argmax have no identity: reducing an empty axis is an error, as in Paddle."""
    dims = range(len(x.shape)) if axes is None else axes
    if any(x.shape[i] == 0 for i in dims if i < len(x.shape)):  # a 0-D x "has" axis 0 of size 1
        raise invalid_argument(op, f"cannot reduce over an empty dim of x with shape {list(x.shape)}.",
                               hint="max/min/argmax need at least one element along the reduced axes.")


def _reduce_attrs() -> dict:
    return {"axis": (tuple, None), "keepdim": (bool, False)}


def reduce_meta(op: str, x, axis, keepdim: bool, float_only: bool = False, nonempty: bool = False) -> MetaTensor:
    """The infer_meta of a reduction whose output keeps the input's dtype (each op's own calls it)."""
    if float_only:
        common.require_dtype(op, "x", x, "fc", "a floating or complex dtype")
    elif x.dtype.kind == "b":
        raise invalid_argument(op, "argument 'x' has dtype bool, expected a number dtype.",
                               hint="cast it with x.astype('int64') first.")
    if nonempty:
        _check_not_empty(op, x, axis)
    return MetaTensor(reduced_shape(x.shape, axis, keepdim), x.dtype)


def _reduce_attrs_of(op: str, x: Tensor, axis, keepdim) -> dict:
    """The attrs of a reduction over `axis` (Paddle's None / int / list / Tensor), checked against x."""
    return {"axis": _axes(op, axis, x._data.ndim), "keepdim": bool(keepdim)}


# ---- sum ---------------------------------------------------------------------------
def _sum_dtype(x_dtype: np.dtype, dtype) -> np.dtype:
    if dtype is not None:
        return dtype
    if x_dtype.kind in "biu":  # Paddle sums bool and int32 (and the smaller ints) into int64
        return INT64
    return x_dtype


def sum_meta(x, axis=None, keepdim=False, dtype=None) -> MetaTensor:
    if axis is None and not keepdim and dtype is None and x.dtype.kind not in "biu":  # x.sum() of a loss: no calls
        return new_meta((), x.dtype)
    return new_meta(reduced_shape(x.shape, axis, keepdim), _sum_dtype(x.dtype, dtype))


def sum_grad(node, dout):
    return expand_reduced(dout, node.input_metas[0][0], node.axis, node.keepdim)


def sum_kernel(x, axis=None, keepdim=False, dtype=None):
    # np.add.reduce is np.sum without its Python wrapper (~1.5 µs a call)
    return np.add.reduce(x, axis=_np_axis(x, axis), keepdims=keepdim, dtype=_sum_dtype(x.dtype, dtype))


SUM = register_op("sum", inputs=("x",), infer_meta=sum_meta, backward=sum_grad,
                  attrs={**_reduce_attrs(), "dtype": (np.dtype, None)})
add_kernel("sum", "cpu", ALL, sum_kernel, name="numpy")
add_kernel("sum", "cpu", BFLOAT16, upcast_bfloat16(sum_kernel), name="numpy_float32", priority=1)  # sums in float32


def sum(x, axis=None, dtype=None, keepdim=False, name=None) -> Tensor:
    """Sum over `axis` (None or [] for all axes); bool and int32 inputs sum into int64."""
    if type(x) is not Tensor:  # (tested here: as_tensor costs a call)
        x = as_tensor("sum", "x", x)
    if axis is None and dtype is None:  # the sum of everything, a loss's last op: no parsing to do
        return dispatch(SUM, (x,), {"axis": None, "keepdim": bool(keepdim), "dtype": None})
    axes = None if axis is None else _axes("sum", axis, x._data.ndim)
    return dispatch(SUM, (x,), {"axis": axes, "keepdim": bool(keepdim),
                                "dtype": None if dtype is None else dtype_of("sum", dtype)})


# ---- mean --------------------------------------------------------------------------
def mean_grad(node, dout):
    from .elementwise import scale
    shape = node.input_metas[0][0]
    count = reduced_count(shape, node.axis)
    return expand_reduced(scale(dout, 1.0 / count if count else 1.0), shape, node.axis, node.keepdim)


def mean_kernel(x, axis=None, keepdim=False):
    axis = _np_axis(x, axis)
    acc = np.dtype(np.float32) if x.dtype == np.float16 else x.dtype  # as numpy: float16 sums in float32
    total = np.sum(x, axis=axis, keepdims=keepdim, dtype=acc)
    with np.errstate(invalid="ignore"):  # the mean of nothing is nan, silently (numpy would warn)
        return np.asarray(total / acc.type(reduced_count(x.shape, axis)), dtype=x.dtype)


def mean_meta(x, axis=None, keepdim=False) -> MetaTensor:
    return reduce_meta("mean", x, axis, keepdim, float_only=True)


MEAN = register_op("mean", inputs=("x",), infer_meta=mean_meta, backward=mean_grad, attrs=_reduce_attrs())
add_kernel("mean", "cpu", FLOATS + COMPLEX, mean_kernel, name="numpy")
add_kernel("mean", "cpu", BFLOAT16, upcast_bfloat16(mean_kernel), name="numpy_float32")


def mean(x, axis=None, keepdim=False, name=None) -> Tensor:
    """Arithmetic mean over `axis` (None: all elements)."""
    x = as_tensor("mean", "x", x)
    return dispatch(MEAN, (x,), _reduce_attrs_of("mean", x, axis, keepdim))


# ---- max, min, amax, amin ----------------------------------------------------------
def _extremum_grad(node, dout, share: bool):
    """dout flows to the positions equal to the result: all of them (max) or split (amax)."""
    from .elementwise import cast, where, zeros_like
    shape, axes, keepdim = node.input_metas[0][0], node.axis, node.keepdim
    x = node.x
    hit = x == align_reduced(node.out, shape, axes, keepdim)
    dout = align_reduced(dout, shape, axes, keepdim)
    if share:
        ties = sum(cast(hit, x._data.dtype), axis=axes, keepdim=True)
        dout = dout / ties
    return where(hit, dout, zeros_like(x))


def extremum_grad(node, dout):
    return _extremum_grad(node, dout, share=False)


def shared_extremum_grad(node, dout):
    return _extremum_grad(node, dout, share=True)


def max_kernel(x, axis=None, keepdim=False):
    return np.max(x, axis=_np_axis(x, axis), keepdims=keepdim)


def min_kernel(x, axis=None, keepdim=False):
    return np.min(x, axis=_np_axis(x, axis), keepdims=keepdim)


def max_meta(x, axis=None, keepdim=False) -> MetaTensor:
    return reduce_meta("max", x, axis, keepdim, nonempty=True)


def min_meta(x, axis=None, keepdim=False) -> MetaTensor:
    return reduce_meta("min", x, axis, keepdim, nonempty=True)


def amax_meta(x, axis=None, keepdim=False) -> MetaTensor:
    return reduce_meta("amax", x, axis, keepdim, nonempty=True)


def amin_meta(x, axis=None, keepdim=False) -> MetaTensor:
    return reduce_meta("amin", x, axis, keepdim, nonempty=True)


MAX = register_op("max", inputs=("x",), infer_meta=max_meta, backward=extremum_grad, save=("x", "out"),
                   attrs=_reduce_attrs())
MIN = register_op("min", inputs=("x",), infer_meta=min_meta, backward=extremum_grad, save=("x", "out"),
                   attrs=_reduce_attrs())
AMAX = register_op("amax", inputs=("x",), infer_meta=amax_meta, backward=shared_extremum_grad, save=("x", "out"),
                    attrs=_reduce_attrs())
AMIN = register_op("amin", inputs=("x",), infer_meta=amin_meta, backward=shared_extremum_grad, save=("x", "out"),
                    attrs=_reduce_attrs())
add_kernel("max", "cpu", REAL, max_kernel, name="numpy")
add_kernel("min", "cpu", REAL, min_kernel, name="numpy")
add_kernel("amax", "cpu", REAL, max_kernel, name="numpy")
add_kernel("amin", "cpu", REAL, min_kernel, name="numpy")


def max(x, axis=None, keepdim=False, name=None) -> Tensor:  # noqa: A001
    """Largest element over `axis`; every tied maximum gets the full gradient."""
    x = as_tensor("max", "x", x)
    return dispatch(MAX, (x,), _reduce_attrs_of("max", x, axis, keepdim))


def min(x, axis=None, keepdim=False, name=None) -> Tensor:  # noqa: A001
    """Smallest element over `axis`; every tied minimum gets the full gradient."""
    x = as_tensor("min", "x", x)
    return dispatch(MIN, (x,), _reduce_attrs_of("min", x, axis, keepdim))


def amax(x, axis=None, keepdim=False, name=None) -> Tensor:
    """Largest element over `axis`; tied maxima share the gradient equally."""
    x = as_tensor("amax", "x", x)
    return dispatch(AMAX, (x,), _reduce_attrs_of("amax", x, axis, keepdim))


def amin(x, axis=None, keepdim=False, name=None) -> Tensor:
    """Smallest element over `axis`; tied minima share the gradient equally."""
    x = as_tensor("amin", "x", x)
    return dispatch(AMIN, (x,), _reduce_attrs_of("amin", x, axis, keepdim))


# ---- prod --------------------------------------------------------------------------
def prod_grad(node, dout):
    """d prod / d x_i = product of the other elements -- computed without dividing by zero.

    With no zero in the slice it is P / x_i; with exactly one zero, only that position
    gets P (the product of the non-zeros); with two or more zeros every gradient is 0.
    """
    from .elementwise import ones_like, where
    shape, axes, keepdim = node.input_metas[0][0], node.axis, node.keepdim
    x = node.x
    is_zero = x == 0.0
    nonzero_x = where(is_zero, ones_like(x), x)
    p = prod(nonzero_x, axis=axes, keepdim=True)
    zeros_in_slice = sum(is_zero, axis=axes, keepdim=True)
    others = where(is_zero, where(zeros_in_slice == 1, p, 0.0), where(zeros_in_slice == 0, p / nonzero_x, 0.0))
    return others * align_reduced(dout, shape, axes, keepdim)


def prod_kernel(x, axis=None, keepdim=False):
    return np.prod(x, axis=_np_axis(x, axis), keepdims=keepdim, dtype=x.dtype)


def prod_meta(x, axis=None, keepdim=False) -> MetaTensor:
    return reduce_meta("prod", x, axis, keepdim)


PROD = register_op("prod", inputs=("x",), infer_meta=prod_meta, backward=prod_grad,
                   save=("x",), attrs=_reduce_attrs())
add_kernel("prod", "cpu", REAL, prod_kernel, name="numpy")


def prod(x, axis=None, keepdim=False, dtype=None, name=None) -> Tensor:
    """Product over `axis`; `dtype` casts x first (as Paddle does)."""
    from .elementwise import cast
    x = as_tensor("prod", "x", x)
    if dtype is not None:
        x = cast(x, dtype)
    return dispatch(PROD, (x,), {"axis": _axes("prod", axis, x._data.ndim), "keepdim": bool(keepdim)})


# ---- argmax, argmin ----------------------------------------------------------------
def _arg_meta(op: str, x, axis, keepdim: bool, dtype) -> MetaTensor:
    """The infer_meta of argmax/argmin: an int32/int64 index per reduced slice."""
    if x.dtype.kind == "b":
        raise invalid_argument(op, "argument 'x' has dtype bool, expected a number dtype.")
    if dtype not in (np.dtype("int32"), np.dtype("int64")):
        raise invalid_argument(op, f"dtype must be int32 or int64, got {dtype}.")
    axes = None if axis is None else (axis,)
    _check_not_empty(op, x, axes)
    if axis is None:  # flattened: a 0-D index, or all-ones dims with keepdim
        return MetaTensor((1,) * len(x.shape) if keepdim else (), dtype)
    return MetaTensor(reduced_shape(x.shape, axes, keepdim), dtype)


def argmax_meta(x, axis=None, keepdim=False, dtype=INT64) -> MetaTensor:
    return _arg_meta("argmax", x, axis, keepdim, dtype)


def argmin_meta(x, axis=None, keepdim=False, dtype=INT64) -> MetaTensor:
    return _arg_meta("argmin", x, axis, keepdim, dtype)


def _arg_index(numpy_fn, x, axis, keepdim: bool, dtype):
    """np.argmax/np.argmin with Paddle's axis=None (the flattened x) and keepdim."""
    if axis is None or x.ndim == 0:
        index = numpy_fn(x.reshape(-1))
        shape = (1,) * x.ndim if keepdim else ()
        return np.full(shape, index, dtype=dtype)
    return numpy_fn(x, axis=axis, keepdims=keepdim).astype(dtype)


def argmax_kernel(x, axis=None, keepdim=False, dtype=INT64):
    return _arg_index(np.argmax, x, axis, keepdim, dtype)


def argmin_kernel(x, axis=None, keepdim=False, dtype=INT64):
    return _arg_index(np.argmin, x, axis, keepdim, dtype)


_ARG_ATTRS = {"axis": (int, None), "keepdim": (bool, False), "dtype": (np.dtype, INT64)}
ARGMAX = register_op("argmax", inputs=("x",), infer_meta=argmax_meta, attrs=_ARG_ATTRS)
ARGMIN = register_op("argmin", inputs=("x",), infer_meta=argmin_meta, attrs=_ARG_ATTRS)
add_kernel("argmax", "cpu", REAL, argmax_kernel, name="numpy")
add_kernel("argmin", "cpu", REAL, argmin_kernel, name="numpy")


def argmax(x, axis=None, keepdim=False, dtype="int64", name=None) -> Tensor:
    """Index of the largest element along `axis` (None: of the flattened x)."""
    x = as_tensor("argmax", "x", x)
    return dispatch(ARGMAX, (x,), _arg_attrs("argmax", x, axis, keepdim, dtype))


def argmin(x, axis=None, keepdim=False, dtype="int64", name=None) -> Tensor:
    """Index of the smallest element along `axis` (None: of the flattened x)."""
    x = as_tensor("argmin", "x", x)
    return dispatch(ARGMIN, (x,), _arg_attrs("argmin", x, axis, keepdim, dtype))


def _arg_attrs(op: str, x: Tensor, axis, keepdim, dtype) -> dict:
    if axis is not None:
        axis = normalize_axis(op, axis, x._data.ndim)
    return {"axis": axis, "keepdim": bool(keepdim), "dtype": dtype_of(op, dtype)}


# ---- cumsum ------------------------------------------------------------------------
def cumsum_meta(x, axis=None, reverse=False) -> MetaTensor:
    if x.dtype.kind == "b":
        raise invalid_argument("cumsum", "argument 'x' has dtype bool, expected a number dtype.",
                               hint="pass dtype='int64'.")
    if axis is None:  # Paddle flattens first
        size = -1 if -1 in x.shape else int(np.prod(x.shape, dtype=np.int64))
        return MetaTensor((size,), x.dtype)
    return MetaTensor(x.shape, x.dtype)


def cumsum_grad(node, dout):
    """The gradient of a running sum is the running sum from the other end."""
    from .manipulation import reshape
    g = dispatch(CUMSUM, (dout,), {"axis": node.axis, "reverse": not node.reverse})
    if node.axis is None:
        g = reshape(g, list(node.input_metas[0][0]))
    return g


def cumsum_kernel(x, axis=None, reverse=False):
    if axis is None:
        x, axis = x.reshape(-1), 0
    if x.ndim == 0:
        return x.copy()
    if reverse:
        flipped = np.cumsum(np.flip(x, axis), axis=axis, dtype=x.dtype)
        return np.ascontiguousarray(np.flip(flipped, axis))
    return np.cumsum(x, axis=axis, dtype=x.dtype)  # dtype: numpy would widen int32 to int64


CUMSUM = register_op("cumsum", inputs=("x",), infer_meta=cumsum_meta, backward=cumsum_grad,
                     attrs={"axis": (int, None), "reverse": (bool, False)})
add_kernel("cumsum", "cpu", REAL + COMPLEX, cumsum_kernel, name="numpy")


def cumsum(x, axis=None, dtype=None, name=None) -> Tensor:
    """Running sum along `axis` (None: of the flattened x); `dtype` casts x first."""
    from .elementwise import cast
    x = as_tensor("cumsum", "x", x)
    if dtype is not None:
        x = cast(x, dtype)
    if axis is not None:
        axis = normalize_axis("cumsum", axis, x._data.ndim)
    return dispatch(CUMSUM, (x,), {"axis": axis, "reverse": False})


# ---- logsumexp ---------------------------------------------------------------------
def logsumexp_grad(node, dout):
    from .elementwise import exp
    shape, axes, keepdim = node.input_metas[0][0], node.axis, node.keepdim
    softmax_x = exp(node.x - align_reduced(node.out, shape, axes, keepdim))
    return align_reduced(dout, shape, axes, keepdim) * softmax_x


def logsumexp_kernel(x, axis=None, keepdim=False):
    """log(sum(exp(x))) = m + log(sum(exp(x - m))) with m the max: no overflow."""
    axis = _np_axis(x, axis)
    m = np.max(x, axis=axis, keepdims=True, initial=-np.inf)
    m = np.where(np.isfinite(m), m, 0)  # all -inf (or empty) slices: nothing to shift
    with np.errstate(divide="ignore"):
        out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return out if keepdim else out.reshape(reduced_shape(x.shape, axis, False))


def logsumexp_meta(x, axis=None, keepdim=False) -> MetaTensor:
    return reduce_meta("logsumexp", x, axis, keepdim, float_only=True)


LOGSUMEXP = register_op("logsumexp", inputs=("x",), infer_meta=logsumexp_meta, backward=logsumexp_grad,
                        save=("x", "out"), attrs=_reduce_attrs())
add_kernel("logsumexp", "cpu", FLOATS, logsumexp_kernel, name="numpy")


def logsumexp(x, axis=None, keepdim=False, name=None) -> Tensor:
    """log(sum(exp(x))) over `axis`, computed stably."""
    x = as_tensor("logsumexp", "x", x)
    return dispatch(LOGSUMEXP, (x,), _reduce_attrs_of("logsumexp", x, axis, keepdim))


# ---- var, std ----------------------------------------------------------------------
def _centered_over_dof(node, x):
    """(x - mean(x)) / (N - ddof): the common factor of var's and std's gradients."""
    from .elementwise import scale
    shape, axes = node.input_metas[0][0], node.axis
    dof = reduced_count(shape, axes) - (1 if node.unbiased else 0)
    centered = x - mean(x, axis=axes, keepdim=True)
    return scale(centered, 1.0 / dof if dof > 0 else float("nan"))


def var_grad(node, dout):
    shape, axes, keepdim = node.input_metas[0][0], node.axis, node.keepdim
    return align_reduced(dout, shape, axes, keepdim) * 2.0 * _centered_over_dof(node, node.x)


def std_grad(node, dout):
    from .elementwise import where
    shape, axes, keepdim = node.input_metas[0][0], node.axis, node.keepdim
    std_k = align_reduced(node.out, shape, axes, keepdim)
    safe_std = where(std_k == 0.0, std_k + 1.0, std_k)  # a constant slice has std 0: gradient 0, not nan
    return align_reduced(dout, shape, axes, keepdim) * _centered_over_dof(node, node.x) / safe_std


def var_kernel(x, axis=None, keepdim=False, unbiased=True):
    axis = _np_axis(x, axis)
    centered = x - mean_kernel(x, axis, keepdim=True)
    dof = reduced_count(x.shape, axis) - (1 if unbiased else 0)
    with np.errstate(invalid="ignore", divide="ignore"):  # one element, unbiased: nan, as in Paddle
        return np.sum(centered * centered, axis=axis, keepdims=keepdim) / x.dtype.type(dof)


def std_kernel(x, axis=None, keepdim=False, unbiased=True):
    return np.sqrt(var_kernel(x, axis, keepdim, unbiased))


def var_meta(x, axis=None, keepdim=False, unbiased=True) -> MetaTensor:
    return reduce_meta("var", x, axis, keepdim, float_only=True)


def std_meta(x, axis=None, keepdim=False, unbiased=True) -> MetaTensor:
    return reduce_meta("std", x, axis, keepdim, float_only=True)


_VAR_ATTRS = {**_reduce_attrs(), "unbiased": (bool, True)}
VAR = register_op("var", inputs=("x",), infer_meta=var_meta, backward=var_grad, save=("x",), attrs=_VAR_ATTRS)
STD = register_op("std", inputs=("x",), infer_meta=std_meta, backward=std_grad, save=("x", "out"), attrs=_VAR_ATTRS)
add_kernel("var", "cpu", FLOATS, var_kernel, name="numpy")
add_kernel("std", "cpu", FLOATS, std_kernel, name="numpy")


def var(x, axis=None, unbiased=True, keepdim=False, name=None) -> Tensor:
    """Variance over `axis`; unbiased=True divides by N - 1 (Paddle's default)."""
    x = as_tensor("var", "x", x)
    return dispatch(VAR, (x,), {"axis": _axes("var", axis, x._data.ndim), "keepdim": bool(keepdim),
                                "unbiased": bool(unbiased)})


def std(x, axis=None, unbiased=True, keepdim=False, name=None) -> Tensor:
    """Standard deviation over `axis`; unbiased=True divides by N - 1 (Paddle's default)."""
    x = as_tensor("std", "x", x)
    return dispatch(STD, (x,), {"axis": _axes("std", axis, x._data.ndim), "keepdim": bool(keepdim),
                                "unbiased": bool(unbiased)})


# ---- norm (Paddle's p_norm: a vector norm over some axes, flattened; matrix norms: decomposition.py)
def p_norm_grad(node, dout):
    from .elementwise import abs, pow, sign, where, zeros_like
    shape, axes, keepdim, p = node.input_metas[0][0], node.axis, node.keepdim, node.porder
    x = node.x
    dout = align_reduced(dout, shape, axes, keepdim)
    if p == 0.0:
        return zeros_like(x)
    if p == 1.0:
        return dout * sign(x)
    norm_k = align_reduced(node.out, shape, axes, keepdim)
    if np.isinf(p):  # the largest (smallest) |x| gets it, every tie in full, like max
        return where(abs(x) == norm_k, dout * sign(x), zeros_like(x))
    safe_norm = where(norm_k == 0.0, norm_k + 1.0, norm_k)  # at x = 0 the gradient is 0, not 0/0
    if p == 2.0:
        return dout * x / safe_norm
    ratio = pow(abs(x) / safe_norm, p - 1.0)  # |x|/norm <= 1: no overflow for large p
    return where(x == 0.0, zeros_like(x), dout * sign(x) * ratio)


def p_norm_kernel(x, porder=2.0, axis=None, keepdim=False):
    axis = _np_axis(x, axis)
    if porder == 2.0:
        return np.sqrt(np.sum(x * x, axis=axis, keepdims=keepdim))
    a = np.abs(x)
    if porder == np.inf:
        return np.max(a, axis=axis, keepdims=keepdim, initial=0)
    if porder == -np.inf:
        return np.min(a, axis=axis, keepdims=keepdim, initial=np.inf)
    if porder == 0.0:
        return np.sum(x != 0, axis=axis, keepdims=keepdim).astype(x.dtype)
    if porder == 1.0:
        return np.sum(a, axis=axis, keepdims=keepdim)
    with np.errstate(divide="ignore"):
        return np.sum(a ** x.dtype.type(porder), axis=axis, keepdims=keepdim) ** x.dtype.type(1.0 / porder)


def p_norm_meta(x, porder=2.0, axis=None, keepdim=False) -> MetaTensor:
    return reduce_meta("norm", x, axis, keepdim, float_only=True)  # named for paddle.norm, which the user called


P_NORM = register_op("p_norm", inputs=("x",), infer_meta=p_norm_meta,
                     backward=p_norm_grad, save=("x", "out"), attrs={"porder": (float, 2.0), **_reduce_attrs()})
add_kernel("p_norm", "cpu", FLOATS, p_norm_kernel, name="numpy")


def vector_norm(x, p=2.0, axis=None, keepdim=False, name=None, *, dtype=None, out=None) -> Tensor:
    """The vector p-norm over `axis` (None: all elements; a list: those dims, flattened together).

    p = 0 counts the nonzeros, inf / -inf take the largest / smallest |x|, any other p is
    (sum |x|^p)^(1/p). A complex x is normed through |x|.
    """
    from .elementwise import abs, cast
    x = as_tensor("vector_norm", "x", x)
    if not isinstance(p, (int, float, np.number)) or isinstance(p, bool):
        raise invalid_argument("vector_norm", f"p got {type(p).__name__} {p!r}, expected an int or a float.")
    if out is not None:
        raise unimplemented("vector_norm", "out= is not supported; use the returned tensor.")
    if dtype is not None:
        x = cast(x, dtype)
    if x._data.dtype.kind == "c":
        x = abs(x)
    return dispatch(P_NORM, (x,), {"porder": float(p), "axis": _axes("norm", axis, x._data.ndim),
                                   "keepdim": bool(keepdim)})


def norm(x, p=None, axis=None, keepdim=False, out=None, dtype=None, name=None) -> Tensor:
    """paddle.norm / paddle.linalg.norm, as Paddle 3 decides between a vector and a matrix norm:

    - p 'fro' over no axis or one axis: the vector 2-norm;
    - p 'fro' / 'nuc' over two axes (axis=None: all of x's, which must then be two): a matrix norm;
    - a number p (None means 2) over two axes: the matrix norm of that order (1, -1, 2, -2, inf,
      -inf; linalg.matrix_norm); over any other axes: the vector p-norm (linalg.vector_norm).
    """
    from .decomposition import matrix_norm   # matrix norms build on svd, which builds on reductions
    x = as_tensor("norm", "x", x)
    if out is not None:
        raise unimplemented("norm", "out= is not supported; use the returned tensor.")
    if isinstance(axis, Tensor):
        axis = axis._data.tolist()
    if isinstance(axis, (list, tuple)):
        axis = axis[0] if len(axis) == 1 else list(axis)
    if isinstance(p, str):
        if p == "fro" and (axis is None or not isinstance(axis, list)):
            return vector_norm(x, 2.0, axis, keepdim, dtype=dtype)
        return matrix_norm(x, p, list(range(x._data.ndim)) if axis is None else axis, keepdim, dtype=dtype)
    p = 2.0 if p is None else p
    if isinstance(axis, list) and len(axis) == 2:
        return matrix_norm(x, p, axis, keepdim, dtype=dtype)
    return vector_norm(x, p, axis, keepdim, dtype=dtype)


__all__ = ["amax", "amin", "argmax", "argmin", "cumsum", "logsumexp", "max", "mean", "min", "norm",
           "prod", "std", "sum", "var"]   # vector_norm: paddle.linalg's (minipaddle/linalg.py)
TENSOR_METHODS = list(__all__)
