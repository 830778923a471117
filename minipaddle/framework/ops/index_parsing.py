"""Parsing `x[index]`: a Python index -> a hashable tuple of items plus one int64 array.

Used by indexing.py (getitem, setitem). The items are:

    int                 pick one position (the axis disappears)
    (start, stop, step) a slice (a tuple, because slices are not hashable before Python 3.12)
    None                a new axis of size 1
    "advanced"          the next row of the `advanced` array: every index array, broadcast
                        together and stacked (a bool mask becomes one row per mask dim)
    "true" / "false"    a Python bool: numpy's 0-D bool index. It reads no axis of x and adds one of
                        size 1 (True) or 0 (False) where the advanced dims go; its row in `advanced`
                        ([0] or []) only carries that shape
    "sep"               an Ellipsis that stood for no axis, kept only between advanced items: numpy
                        then puts the advanced dims first (they are not adjacent), as it does here

Also the index-range errors every indexing op raises.
"""
from __future__ import annotations

import numpy as np

from ..errors import InvalidArgument, invalid_argument
from ..gpu import to_host
from ..tensor import Tensor

ADVANCED = "advanced"
SEPARATOR = "sep"
BOOL_ITEMS = {True: "true", False: "false"}
_BOOL_VALUES = {"true": True, "false": False}
FULL = (None, None, None)
_NO_ADVANCED = np.zeros((0,), np.int64)
_NO_ADVANCED.flags.writeable = False


class IndexOutOfRange(InvalidArgument, IndexError):
    """An index past the end of an axis. Also an IndexError, so `for row in x:` stops at the end."""


def out_of_range(op: str, value: int, what: str, size: int, lower: int) -> IndexOutOfRange:
    return IndexOutOfRange(str(invalid_argument(
        op, f"index {value} is out of range for {what} of size {size}; expected {lower} <= index < {size}.")))


def check_index_values(op: str, index, size: int, what: str, allow_negative: bool) -> None:
    """Reject index values outside the axis (eager mode only: static MetaTensors carry no values)."""
    if not isinstance(index, np.ndarray) or index.size == 0 or size < 0:
        return
    lower = -size if allow_negative else 0
    lo, hi = int(index.min()), int(index.max())
    if lo < lower:
        raise out_of_range(op, lo, what, size, lower)
    if hi >= size:
        raise out_of_range(op, hi, what, size, lower)


# ---- turning a Python index into (items, advanced) ------------------------------------
def _classify(item):
    """One Python index item -> (kind, value) with kind in int/slice/none/ellipsis/array/mask."""
    if item is None:
        return "none", None
    if item is Ellipsis:
        return "ellipsis", None
    if isinstance(item, (bool, np.bool_)):
        return "bool", bool(item)
    if isinstance(item, (int, np.integer)):
        return "int", int(item)
    if isinstance(item, slice):
        parts = tuple(None if p is None else _slice_bound(p) for p in (item.start, item.stop, item.step))
        if parts[2] == 0:
            raise invalid_argument("getitem", "slice step cannot be zero.")
        return "slice", parts
    if isinstance(item, Tensor):
        item = to_host(item._data)  # a GPU tensor's index is parsed on the host (getitem moves it back)
    elif isinstance(item, (list, tuple)):
        item = np.asarray([i._data if isinstance(i, Tensor) else i for i in item])
        if item.size == 0:
            item = item.astype(np.int64)
    if isinstance(item, np.ndarray):
        if item.dtype.kind == "b":
            if item.ndim == 0:
                raise invalid_argument("getitem", "a 0-D bool index is not supported.",
                                       hint="index with a bool mask that has the indexed dims' shape.")
            return "mask", item
        if item.dtype.kind in "iu":
            return ("int", int(item)) if item.ndim == 0 else ("array", item.astype(np.int64, copy=False))
        raise invalid_argument("getitem", f"an index array has dtype {item.dtype}, expected an integer or "
                                          "bool dtype.")
    raise invalid_argument("getitem", f"an index of type {type(item).__name__} is not supported; expected "
                                      "int, slice, None, Ellipsis, list, numpy array or Tensor.")


def _slice_bound(p) -> int:
    if isinstance(p, Tensor):
        p = p.item()
    if not isinstance(p, (int, np.integer)) or isinstance(p, bool):
        raise invalid_argument("getitem", f"slice bounds must be ints, got {type(p).__name__}.")
    return int(p)


def normalize_index(x_shape: tuple, index) -> tuple[tuple, Tensor]:
    """A Python index -> (items, advanced): the attribute and the extra int64 input of getitem."""
    if type(index) is int and x_shape:  # x[i], the most common index (and iteration): no parsing
        return (index,), Tensor._wrap(_NO_ADVANCED)
    parts = [_classify(i) for i in (index if isinstance(index, tuple) else (index,))]
    if sum(kind == "ellipsis" for kind, _ in parts) > 1:
        raise invalid_argument("getitem", "an index can only have a single Ellipsis ('...').")
    ndim = len(x_shape)
    consumed = sum(1 if kind in ("int", "slice", "array") else v.ndim if kind == "mask" else 0
                   for kind, v in parts)
    if consumed > ndim:
        raise invalid_argument("getitem", f"too many indices: x is {ndim}-D but {consumed} dims are indexed.")
    items, arrays, axis = [], [], 0
    for kind, v in parts:
        if kind == "ellipsis":
            items.extend([FULL] * (ndim - consumed) or [SEPARATOR])
            axis += ndim - consumed
        elif kind == "none":
            items.append(None)
        elif kind == "bool":   # x[True]: a new axis of size 1 (0 for False), placed as an advanced index
            items.append(BOOL_ITEMS[v])
            arrays.append(np.zeros(1 if v else 0, np.int64))
        elif kind == "mask":
            dims = tuple(x_shape[axis:axis + v.ndim])
            if any(d not in (m, -1) for d, m in zip(dims, v.shape)):
                raise invalid_argument("getitem", f"a bool mask of shape {list(v.shape)} does not match the "
                                                  f"indexed dims {list(dims)} (from axis {axis}).")
            for rows in np.nonzero(v):
                items.append(ADVANCED)
                arrays.append(rows)
            axis += v.ndim
        else:
            items.append(ADVANCED if kind == "array" else v)
            if kind == "array":
                arrays.append(v)
            axis += 1
    while items and items[-1] == FULL:  # trailing full slices change nothing
        items.pop()
    if SEPARATOR in items:  # it matters only in advanced indexing, with advanced items (ints too) on both sides
        at = items.index(SEPARATOR)
        joins = [isinstance(i, int) or i in (ADVANCED, "true", "false") for i in items]
        if not (has_advanced(items) and any(joins[:at]) and any(joins[at + 1:])):
            del items[at]
    return tuple(items), Tensor._wrap(_stack_advanced(arrays))


def _stack_advanced(arrays: list) -> np.ndarray:
    if not arrays:
        return _NO_ADVANCED
    if len({a.shape for a in arrays}) == 1:  # nothing to broadcast
        return np.stack(arrays) if len(arrays) > 1 else arrays[0][None]
    try:
        shape = np.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError:
        raise invalid_argument("getitem", "index arrays of shapes " +
                               ", ".join(str(list(a.shape)) for a in arrays) + " cannot be broadcast together.",
                               hint="index arrays broadcast like operands of x + y.") from None
    return np.stack([np.broadcast_to(a, shape) for a in arrays]).astype(np.int64, copy=False)


def has_advanced(items: tuple) -> bool:
    """Whether x[items] is advanced indexing (numpy copies) rather than basic (a view)."""
    return ADVANCED in items or "true" in items or "false" in items


def indexed_shape(op: str, x_shape: tuple, items: tuple, advanced) -> tuple:
    """The shape of x[items] by numpy's rules; checks every index against its axis."""
    advanced_items = has_advanced(items)
    out, positions, insert_at, axis, row = [], [], None, 0, 0
    for pos, item in enumerate(items):
        if item is None:
            out.append(1)
            continue
        if item == SEPARATOR:  # no axis; its position keeps the advanced items apart
            continue
        if item in _BOOL_VALUES:   # reads no axis of x; its size joins the advanced dims
            row += 1
            positions.append(pos)
            if insert_at is None:
                insert_at = len(out)
            continue
        n = x_shape[axis]
        if item == ADVANCED:
            check_index_values(op, advanced[row] if isinstance(advanced, np.ndarray) else None, n,
                               f"axis {axis}", allow_negative=True)
            row += 1
        elif isinstance(item, int):
            if n >= 0 and not -n <= item < n:
                raise out_of_range(op, item, f"axis {axis}", n, -n)
        else:
            out.append(-1 if n < 0 else len(range(*slice(*item).indices(n))))
        if item == ADVANCED or (advanced_items and isinstance(item, int)):  # ints join advanced indices
            positions.append(pos)
            if insert_at is None:
                insert_at = len(out)
        axis += 1
    out.extend(x_shape[axis:])
    if advanced_items:
        adjacent = positions[-1] - positions[0] == len(positions) - 1
        at = insert_at if adjacent else 0  # numpy: separated advanced indices put their dims first
        out[at:at] = advanced.shape[1:]
    return tuple(out)


def numpy_index(items: tuple, advanced: np.ndarray) -> tuple:
    """The attribute back as a numpy index tuple."""
    rows = iter(advanced)
    out = []
    for item in items:
        if item == ADVANCED:
            out.append(next(rows))
        elif item in _BOOL_VALUES:
            next(rows)              # its row only carried the shape
            out.append(_BOOL_VALUES[item])
        elif item == SEPARATOR:
            out.append(Ellipsis)
        else:
            out.append(slice(*item) if isinstance(item, tuple) else item)
    return tuple(out)
