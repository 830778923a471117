"""Tensor summaries for the trace document, and turning Python values into JSON-safe ones.

A summary is what the debugger shows for a tensor without keeping its values: exact statistics
(numel, min/max/mean/std over the finite values, NaN and Inf counts) and a 32-bin histogram over
[min, max] (of a strided sample, for tensors over HIST_SAMPLE values). `summarize` returns a
compact tuple so a long recording holds many; `summary_to_json` expands it into the document's
"summary" object. `same_values` tells when one summary fits two arrays (bit-for-bit equal).

    >>> s = summarize(np.array([1.0, 2.0, np.nan]))
    >>> summary_to_json(s)["nan_count"]
    1

JSON has no NaN or Infinity: values are written as the strings "NaN", "Infinity", "-Infinity"
(`json_number`), so every document is strict JSON a browser's JSON.parse accepts.
"""
from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

BINS = 32


class Summary(NamedTuple):
    """Statistics of one tensor state; min/max/mean/std are None when no value is finite."""
    numel: int
    min: float | None
    max: float | None
    mean: float | None
    std: float | None
    nan_count: int
    inf_count: int
    hist: np.ndarray | None   # BINS int64 counts over [min, max]; None for empty/all-non-finite
    hist_stride: int = 1      # the histogram counts every hist_stride-th value (1: all of them)

    @property
    def has_nan_inf(self) -> bool:
        return self.nan_count > 0 or self.inf_count > 0


# Up to SMALL elements one careful compiled pass is quickest; above, one vectorized pass finds min,
# max and the moments, and tells whether every value is finite (else the careful pass counts NaN and
# Inf). The histogram of a big tensor counts a strided sample of at most HIST_SAMPLE values (its
# `stride` says so): the picture is the same at a fraction of the cost. A 784x256 float32 tensor
# takes ~55 us with its data in cache (numpy's min and max alone: ~30 us).
SMALL = 128
HIST_SAMPLE = 4096
_kernels = None
_new = tuple.__new__  # Summary(...) without the NamedTuple's Python-level __new__ (all fields given)


def _load_kernels():
    global _kernels
    if _kernels is None:  # numba loads on the first summary, never at import
        from . import summary_kernels
        _kernels = summary_kernels
    return _kernels


def summarize(array: np.ndarray) -> Summary:
    """Summarize a numpy array of any dtype and layout (bool and integers as numbers)."""
    a = array if type(array) is np.ndarray else np.asarray(array)
    n = a.size
    if n == 0:
        return Summary(0, None, None, None, None, 0, 0, None)
    if a.dtype.char not in "fd":  # the kernels take float32/float64; complex: the magnitude
        a = np.abs(a) if a.dtype.kind == "c" else a.astype(np.float64)
    flat = a.ravel()  # a view when contiguous
    k = _kernels if _kernels is not None else _load_kernels()
    hist = np.empty(BINS, np.int64)
    if n > SMALL:
        stride = -(-n // HIST_SAMPLE)
        big = k.big_summary32 if a.dtype.char == "f" else k.big_summary64
        finite, lo, hi, shift, total, squares = big(flat, stride, hist)
        if finite and not (math.isfinite(total) and math.isfinite(squares)):
            shift = lo * 0.5 + hi * 0.5  # float64 values near 1e308: sums around the midrange may fit
            total, squares = k.moments(flat, shift)
        # not finite: NaN/Inf somewhere, or sums that still overflow -- the careful pass below
        if finite and math.isfinite(total) and math.isfinite(squares):
            mean = total / n
            var = squares / n - mean * mean
            std = math.sqrt(var) if var > 0.0 else 0.0
            return _new(Summary, (n, lo, hi, shift + mean, std, 0, 0, hist, stride))
    finite, nans, infs, lo, hi, mean, std = k.summarize_flat(flat, hist)
    if finite == 0:
        return Summary(n, None, None, None, None, nans, infs, None)
    return _new(Summary, (n, lo, hi, mean, std, nans, infs, hist, 1))


def same_values(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two arrays hold bit-for-bit the same values (same shape and dtype): then one summary
    describes both. About a third of the cost of summarizing it (one compiled pass, no temporaries)."""
    if a.shape != b.shape or a.dtype != b.dtype or a.dtype.kind not in "fiu":
        return False
    if a is b:
        return True
    if not (a.flags.c_contiguous and b.flags.c_contiguous):
        return bool(np.array_equal(a, b))
    if a.dtype.itemsize not in (4, 8):
        return a.tobytes() == b.tobytes()
    view = np.uint32 if a.dtype.itemsize == 4 else np.uint64
    k = _kernels if _kernels is not None else _load_kernels()
    return bool(k.same_bits(a.reshape(-1).view(view), b.reshape(-1).view(view)))


def summary_to_json(s: Summary) -> dict:
    """The document's "summary" object. Statistics are written to 4 significant digits (a picture
    and a table need no more; a long training trace holds thousands of summaries): min and max
    rounded outward, so every value still lies in [min, max], the histogram's range."""
    lo = hi = mean = std = None
    if s.min is not None and s.min == s.max:  # one value (or all equal): one number, as it was
        lo = hi = round_significant(s.min)
    elif s.min is not None:
        lo, hi = round_outward(s.min, down=True), round_outward(s.max, down=False)
    hist = None
    if s.hist is not None:
        hist = {"min": lo, "max": hi, "counts": s.hist.tolist(), "stride": s.hist_stride}
    if s.mean is not None:  # a float64 sum near 1e308 can overflow: still strict JSON
        mean, std = json_number(round_significant(s.mean)), json_number(round_significant(s.std))
    return {"numel": s.numel, "min": lo, "max": hi, "mean": mean, "std": std,
            "nan_count": s.nan_count, "inf_count": s.inf_count, "histogram": hist}


SIGNIFICANT_FORMAT = ".4g"  # statistics in the document: 4 significant digits


def round_significant(v: float) -> float:
    """`v` to 4 significant digits (0.30606988 -> 0.3061); a non-finite value stays as it is."""
    if v - v != 0.0:  # inf or nan
        return v
    r = float(format(v, SIGNIFICANT_FORMAT))
    return r if r - r == 0.0 else v  # (1.7976e308 would round up to inf)


def round_outward(v: float, down: bool) -> float:
    """`v` to 4 significant digits, rounded down (a minimum) or up (a maximum)."""
    r = round_significant(v)
    if (r > v) if down else (r < v):
        unit = 10.0 ** (math.floor(math.log10(abs(v))) - 3)
        r = round_significant(r - unit if down else r + unit)
        if (r > v) if down else (r < v):  # (cannot happen; never write a bound inside the values)
            return v
    return r


# The health view (iterations.py) shows how much of an activation's output sits in its flat region,
# where gradients vanish: |y| > 0.97 for tanh, y < 0.03 or y > 0.97 for sigmoid, y == 0 ("dead") for relu.
# (lo, hi) of the unsaturated range; lo == hi: the saturated value itself
SATURATION_RANGE = {"tanh": (-0.97, 0.97), "sigmoid": (0.03, 0.97), "relu": (0.0, 0.0)}
SATURATION_OPS = frozenset(SATURATION_RANGE)


def saturation(op: str, array: np.ndarray) -> float | None:
    """The fraction of `array` (the output of `op`, one of SATURATION_OPS) that is saturated: exact
    up to HIST_SAMPLE values, above that of the strided sample the histogram counts too."""
    if array.size == 0 or array.dtype.char not in "fd":
        return None
    flat = array.reshape(-1)  # a view when contiguous
    stride = -(-flat.size // HIST_SAMPLE)
    lo, hi = SATURATION_RANGE[op]
    k = _kernels if _kernels is not None else _load_kernels()
    return k.saturated_count(flat, stride, lo, hi) / len(range(0, flat.size, stride))


def json_number(v: float) -> float | str:
    """A float as JSON allows it: non-finite values become "NaN", "Infinity", "-Infinity"."""
    if math.isfinite(v):
        return v
    if math.isnan(v):
        return "NaN"
    return "Infinity" if v > 0 else "-Infinity"


def values_to_json(array: np.ndarray, has_nan_inf: bool) -> list:
    """A tensor's values, flattened in row-major order (the tensor record has the shape)."""
    a = np.asarray(array)
    if a.dtype.kind == "b":
        a = a.astype(np.int8)
    elif a.dtype.kind == "c":
        a = np.abs(a)
    flat = a.reshape(-1)
    if a.dtype.char in "fe":
        # 0.1 as a float32 is 0.10000000149011612 as a double: write the shortest text that reads back
        # as the same float32 ("0.1"; numpy's str), or, for many values, 9 (float16: 5) digits, also exact.
        if flat.size <= 4096:
            out = [float(str(v)) for v in flat]
        else:
            digits = ".9g" if a.dtype.char == "f" else ".5g"
            out = [float(format(v, digits)) for v in flat.tolist()]
    else:
        out = flat.tolist()
    if has_nan_inf:
        out = [json_number(v) for v in out]
    return out


def jsonable(value: Any, depth: int = 0) -> Any:
    """An op attribute as plain JSON: numbers, strings, lists, dicts; anything else as its repr."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return json_number(value)
    if isinstance(value, np.generic):
        return jsonable(value.item(), depth)
    if isinstance(value, np.dtype):
        return str(value)
    if depth < 4:
        if isinstance(value, (list, tuple)):
            return [jsonable(v, depth + 1) for v in value[:64]]
        if isinstance(value, dict):
            return {str(k): jsonable(v, depth + 1) for k, v in list(value.items())[:64]}
        if isinstance(value, np.ndarray) and value.size <= 16:
            return values_to_json(value, not np.all(np.isfinite(value)) if value.dtype.kind in "fc" else False)
    if isinstance(value, slice):
        return f"slice({value.start}, {value.stop}, {value.step})"
    text = repr(value)
    return text if len(text) <= 200 else text[:197] + "..."
