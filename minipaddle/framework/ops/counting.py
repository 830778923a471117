"""Counting and binning values: unique, bincount, histogram, searchsorted, bucketize.

    paddle.unique(x, return_counts=True)           # the sorted distinct values and how often each occurs
    paddle.bincount(x)                             # counts[v] = how many times the int v occurs in x
    paddle.histogram(x, bins=4, min=0, max=4)      # counts per equal-width bin
    paddle.searchsorted(edges, v)                  # where v would go to keep edges sorted

Their outputs are counts and positions, so none of them has a gradient. The sizes of unique's and
bincount's outputs depend on the values in x, so in a static Program they are -1 (known at run time).
"""
from __future__ import annotations

import numpy as np

from ..dispatch import dispatch
from ..errors import invalid_argument, invalid_type
from ..registry import MetaTensor, add_kernel, register_op
from ..tensor import Tensor
from .common import ALL, NUMERIC, as_tensor, dtype_of, normalize_axis

INT64 = np.dtype("int64")


def _values_known(*arrays) -> bool:
    """True in eager mode (infer_meta gets arrays), False while a Program is built (MetaTensors)."""
    return all(isinstance(a, np.ndarray) for a in arrays)


# ---- unique --------------------------------------------------------------------------------------
def unique_meta(x, axis=None, dtype=INT64) -> tuple:
    if axis is not None and len(x.shape) == 0:
        raise invalid_argument("unique", "x is 0-D, so it has no axis to take unique slices along.")
    n_items = -1
    if _values_known(x):
        n_items = len(_unique(x, axis)[0]) if axis is None else _unique(x, axis)[0].shape[axis]
    if axis is None:
        out_shape = (n_items,)
        inverse = (-1 if -1 in x.shape else int(np.prod(x.shape, dtype=np.int64)),)
    else:
        out_shape = tuple(n_items if d == axis else s for d, s in enumerate(x.shape))
        inverse = (x.shape[axis],)
    return (MetaTensor(out_shape, x.dtype), MetaTensor((n_items,), dtype), MetaTensor(inverse, dtype),
            MetaTensor((n_items,), dtype))


def _unique(x: np.ndarray, axis):
    return np.unique(x.reshape(-1) if axis is None else x, return_index=True, return_inverse=True,
                     return_counts=True, axis=axis)


def unique_kernel(x, axis=None, dtype=INT64):
    out, index, inverse, counts = _unique(x, axis)
    return (out, index.astype(dtype), inverse.reshape(-1).astype(dtype), counts.astype(dtype))


UNIQUE = register_op("unique", inputs=("x",), infer_meta=unique_meta,
                     outputs=("out", "indices", "inverse", "counts"),
                     attrs={"axis": (int, None), "dtype": (np.dtype, INT64)})
add_kernel("unique", "cpu", ALL, unique_kernel, name="numpy")


def unique(x, return_index: bool = False, return_inverse: bool = False, return_counts: bool = False, axis=None,
           dtype="int64", name=None):
    """The sorted distinct values of x (flattened, or distinct slices along `axis`), and on request:
    `index` (where each first occurs), `inverse` (which distinct value each entry of x is) and `counts`.
    Returns out alone, or (out, [index], [inverse], [counts]) in that order."""
    x = as_tensor("unique", "x", x)
    d = dtype_of("unique", dtype)
    if d.kind not in "iu":
        raise invalid_argument("unique", f"dtype got {d}, expected int32 or int64 (the dtype of index, inverse "
                                         "and counts).")
    if axis is not None:
        axis = normalize_axis("unique", axis, x._data.ndim)
    out, index, inverse, counts = dispatch(UNIQUE, (x,), {"axis": axis, "dtype": d})
    wanted = [t for t, flag in ((index, return_index), (inverse, return_inverse), (counts, return_counts)) if flag]
    return tuple([out] + wanted) if wanted else out


# ---- bincount ---------------------------------------------------------------------------------------
def bincount_meta(x, weights, minlength=0) -> MetaTensor:
    op = "bincount"
    if x.dtype.kind not in "iu":
        raise invalid_type(op, f"x has dtype {x.dtype}, expected an integer dtype (the values are counted).")
    if len(x.shape) != 1:
        raise invalid_argument(op, f"x has shape {list(x.shape)}, expected a 1-D tensor.")
    has_weights = len(weights.shape) != 0 or weights.dtype != np.bool_
    if has_weights and tuple(weights.shape) != tuple(x.shape):
        raise invalid_argument(op, f"weights has shape {list(weights.shape)}, expected x's shape {list(x.shape)}.")
    size = -1
    if _values_known(x):
        if x.size and x.min() < 0:
            raise invalid_argument(op, f"x holds {int(x.min())}, expected non-negative integers only.")
        size = max(int(x.max()) + 1 if x.size else 0, minlength)
    if not has_weights:
        dtype = INT64
    else:
        dtype = weights.dtype if weights.dtype.kind == "f" else np.dtype("float64")
    return MetaTensor((size,), dtype)


def bincount_kernel(x, weights, minlength=0):
    if weights.ndim == 0 and weights.dtype == np.bool_:   # the "no weights" placeholder
        return np.bincount(x, minlength=minlength).astype(INT64)
    dtype = weights.dtype if weights.dtype.kind == "f" else np.dtype("float64")
    return np.bincount(x, weights=weights, minlength=minlength).astype(dtype)


BINCOUNT = register_op("bincount", inputs=("x", "weights"), infer_meta=bincount_meta,
                       attrs={"minlength": (int, 0)})
add_kernel("bincount", "cpu", ("int8", "int16", "int32", "int64", "uint8"), bincount_kernel, name="numpy")


def bincount(x, weights=None, minlength: int = 0, name=None) -> Tensor:
    """counts[v] = how many times v occurs in the 1-D non-negative int tensor x (or the sum of the
    weights where it does); the result has max(x) + 1 entries, at least `minlength`."""
    x = as_tensor("bincount", "x", x)
    if not isinstance(minlength, (int, np.integer)) or isinstance(minlength, bool) or minlength < 0:
        raise invalid_argument("bincount", f"minlength got {minlength!r}, expected an int >= 0.")
    w = Tensor._wrap(np.array(False)) if weights is None else as_tensor("bincount", "weights", weights)
    return dispatch(BINCOUNT, (x, w), {"minlength": int(minlength)})


# ---- histogram --------------------------------------------------------------------------------------
def _histogram_range(x: np.ndarray, min: float, max: float) -> tuple[float, float]:  # noqa: A002
    lo, hi = float(min), float(max)
    if lo == 0 and hi == 0 and x.size:   # Paddle: min=max=0 means the data's own range
        lo, hi = float(x.min()), float(x.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    return lo, hi


def histogram_meta(x, weight, bins=100, min=0.0, max=0.0, density=False) -> MetaTensor:  # noqa: A002
    op = "histogram"
    if not isinstance(bins, (int, np.integer)) or isinstance(bins, bool) or bins < 1:
        raise invalid_argument(op, f"bins got {bins!r}, expected an int >= 1.")
    if max < min:
        raise invalid_argument(op, f"max ({max}) is smaller than min ({min}); expected min <= max.")
    if x.dtype.kind not in "iuf":
        raise invalid_argument(op, f"input has dtype {x.dtype}, expected a number dtype.")
    has_weight = len(weight.shape) != 0 or weight.dtype != np.bool_
    if has_weight and tuple(weight.shape) != tuple(x.shape):
        raise invalid_argument(op, f"weight has shape {list(weight.shape)}, expected input's shape "
                                   f"{list(x.shape)}.")
    if density:
        dtype = weight.dtype if has_weight and weight.dtype.kind == "f" else np.dtype("float32")
    else:
        dtype = weight.dtype if has_weight else INT64
    return MetaTensor((int(bins),), dtype)


def histogram_kernel(x, weight, bins=100, min=0.0, max=0.0, density=False):  # noqa: A002
    """Equal-width bins over [min, max]; values outside are left out, max itself goes in the last bin."""
    meta = histogram_meta(x, weight, bins, min, max, density)
    values = x.reshape(-1).astype(np.float64)
    lo, hi = _histogram_range(values, min, max)
    w = None if weight.ndim == 0 and weight.dtype == np.bool_ else weight.reshape(-1).astype(np.float64)
    counts, _ = np.histogram(values, bins=int(bins), range=(lo, hi), weights=w)
    if density:
        total = counts.sum()
        counts = counts / (total * (hi - lo) / bins) if total else np.zeros(int(bins))
    return counts.astype(meta.dtype)


HISTOGRAM = register_op("histogram", inputs=("input", "weight"), infer_meta=histogram_meta,
                        attrs={"bins": (int, 100), "min": (float, 0.0), "max": (float, 0.0),
                               "density": (bool, False)})
add_kernel("histogram", "cpu", NUMERIC, histogram_kernel, name="numpy")


def histogram(input, bins: int = 100, min=0, max=0, weight=None, density: bool = False,  # noqa: A002
              name=None) -> Tensor:
    """Counts of x's values in `bins` equal-width bins over [min, max] (min = max = 0: x's own range).
    int64 counts; with `weight`, sums of weights; with `density`, normalized to integrate to 1."""
    x = as_tensor("histogram", "input", input)
    w = Tensor._wrap(np.array(False)) if weight is None else as_tensor("histogram", "weight", weight)
    for arg, value in (("min", min), ("max", max)):
        if not isinstance(value, (int, float, np.number)) or isinstance(value, bool):
            raise invalid_argument("histogram", f"{arg} got {type(value).__name__}, expected a number.")
    return dispatch(HISTOGRAM, (x, w), {"bins": bins, "min": float(min), "max": float(max),
                                        "density": bool(density)})


# ---- searchsorted, bucketize -------------------------------------------------------------------------
def searchsorted_meta(sorted_sequence, values, out_int32=False, right=False) -> MetaTensor:
    op = "searchsorted"
    seq, vals = tuple(sorted_sequence.shape), tuple(values.shape)
    if len(seq) == 0:
        raise invalid_argument(op, "sorted_sequence is 0-D, expected at least one dim (the sorted values).")
    if len(seq) > 1 and (len(vals) != len(seq) or seq[:-1] != vals[:-1]):
        raise invalid_argument(op, f"sorted_sequence has shape {list(seq)} and values {list(vals)}; an N-D "
                                   "sorted_sequence needs values with the same leading dims (all but the last).",
                               hint="or pass a 1-D sorted_sequence, which every value is searched in.")
    for name, t in (("sorted_sequence", sorted_sequence), ("values", values)):
        if t.dtype.kind not in "iuf":
            raise invalid_argument(op, f"{name} has dtype {t.dtype}, expected a number dtype.")
    return MetaTensor(vals, np.dtype("int32") if out_int32 else INT64)


def searchsorted_kernel(sorted_sequence, values, out_int32=False, right=False):
    side = "right" if right else "left"
    dtype = np.int32 if out_int32 else np.int64
    if sorted_sequence.ndim == 1:
        return np.searchsorted(sorted_sequence, values, side=side).astype(dtype)
    seq = sorted_sequence.reshape(-1, sorted_sequence.shape[-1])
    vals = values.reshape(-1, values.shape[-1])
    out = np.stack([np.searchsorted(s, v, side=side) for s, v in zip(seq, vals)])
    return out.reshape(values.shape).astype(dtype)


SEARCHSORTED = register_op("searchsorted", inputs=("sorted_sequence", "values"), infer_meta=searchsorted_meta,
                           attrs={"out_int32": (bool, False), "right": (bool, False)})
add_kernel("searchsorted", "cpu", NUMERIC, searchsorted_kernel, name="numpy")


def searchsorted(sorted_sequence, values, out_int32: bool = False, right: bool = False, name=None) -> Tensor:
    """For each value, the index where it would be inserted to keep sorted_sequence's last dim sorted
    (right=False: before equal entries; True: after them). An N-D sequence is searched row by row."""
    seq = as_tensor("searchsorted", "sorted_sequence", sorted_sequence)
    vals = as_tensor("searchsorted", "values", values)
    return dispatch(SEARCHSORTED, (seq, vals), {"out_int32": bool(out_int32), "right": bool(right)})


def bucketize(x, sorted_sequence, out_int32: bool = False, right: bool = False, name=None) -> Tensor:
    """The bucket of each entry of x among the 1-D boundaries sorted_sequence (searchsorted, the
    arguments swapped): bucketize([3., 6.], [1., 3., 5.]) is [1, 3]."""
    seq = as_tensor("bucketize", "sorted_sequence", sorted_sequence)
    x = as_tensor("bucketize", "x", x)
    if seq._data.ndim != 1:
        raise invalid_argument("bucketize", f"sorted_sequence has shape {seq.shape}, expected a 1-D tensor.",
                               hint="for row-by-row boundaries use paddle.searchsorted.")
    return dispatch(SEARCHSORTED, (seq, x), {"out_int32": bool(out_int32), "right": bool(right)})


__all__ = ["bincount", "bucketize", "histogram", "searchsorted", "unique"]
TENSOR_METHODS = ["bincount", "bucketize", "histogram", "unique"]
