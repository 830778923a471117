"""x[i] in a static Program where `i` (or a slice bound) is a Variable: a loop counter in converted code.

A Variable has no value while the Program is built, so the index cannot be parsed into getitem's
attribute. `getitem_dynamic` keeps the index's structure as the attribute -- ints, None, slices --
with a placeholder `"$k"` where a Variable goes, and takes the Variables' values as one int64 input
(`values[k]`), read when the op runs (Paddle's slice op with StartsTensorList / EndsTensorList):

    x[i]          index=("$0",)               values=[i]
    x[:, i:i+2]   index=((None, None, None), ("$0", "$1", None))    values=[i, i + 2]

A Variable that is one int drops its axis like a Python int (shape [] and [1] alike, as gather+squeeze
did before); its gradient op `getitem_dynamic_grad` scatters dout back, and its own gradient is
getitem_dynamic again, so double grad works.
"""
from __future__ import annotations

import numpy as np

from ..dispatch import dispatch
from ..errors import invalid_argument
from ..registry import ARRAY_TYPES, MetaTensor, add_kernel, register_op
from ..tensor import Tensor
from .common import ALL, NUMERIC
from .index_parsing import FULL, indexed_shape, out_of_range

__all__ = ["is_dynamic_index", "getitem_dynamic", "GETITEM_DYNAMIC", "GETITEM_DYNAMIC_GRAD"]

_NO_ADVANCED = np.zeros((0,), np.int64)


def _is_variable(value) -> bool:
    """A Tensor with no values yet: a static Variable (its `_data` is a VarMeta, not a host or GPU array)."""
    return isinstance(value, Tensor) and type(value._data) not in ARRAY_TYPES


def is_dynamic_index(index) -> bool:
    """Whether a Python index holds a Variable (directly or as a slice bound)."""
    for item in index if isinstance(index, tuple) else (index,):
        if _is_variable(item):
            return True
        if isinstance(item, slice) and any(_is_variable(p) for p in (item.start, item.stop, item.step)):
            return True
    return False


# ---- the op --------------------------------------------------------------------------------------------
def _resolve(index: tuple, values: np.ndarray) -> tuple:
    """The attribute with each "$k" replaced by values[k]: getitem's item format (ints, None, tuples)."""
    def value(p):
        return int(values[int(p[1:])]) if isinstance(p, str) else p
    return tuple(tuple(value(p) for p in item) if isinstance(item, tuple) else value(item) for item in index)


def _shape_unknown_values(x_shape: tuple, index: tuple) -> tuple:
    """The output shape while building: a Variable int drops its axis; a slice with a Variable bound has -1."""
    out, axis = [], 0
    for item in index:
        if item is None:
            out.append(1)
            continue
        n = x_shape[axis]
        if isinstance(item, int) and n >= 0 and not -n <= item < n:
            raise out_of_range("getitem", item, f"axis {axis}", n, -n)
        if isinstance(item, tuple):
            dynamic = any(isinstance(p, str) for p in item)
            out.append(-1 if dynamic or n < 0 else len(range(*slice(*item).indices(n))))
        axis += 1
    return tuple(out) + tuple(x_shape[axis:])


def getitem_dynamic_meta(x, values, index=()) -> MetaTensor:
    if values.dtype != np.int64 or len(values.shape) != 1:
        raise invalid_argument("getitem", f"the index values are {values.dtype}{list(values.shape)}, expected "
                                          "a 1-D int64 tensor.")
    if isinstance(values, np.ndarray):  # running: the values are known, so the shape (and the bounds check)
        return MetaTensor(indexed_shape("getitem", tuple(x.shape), _resolve(index, values), _NO_ADVANCED), x.dtype)
    return MetaTensor(_shape_unknown_values(tuple(x.shape), index), x.dtype)


def _numpy_index(index: tuple, values: np.ndarray) -> tuple:
    return tuple(slice(*item) if isinstance(item, tuple) else item for item in _resolve(index, values))


def getitem_dynamic_kernel(x, values, index=()):
    return np.array(x[_numpy_index(index, values) + (Ellipsis,)])   # a copy: the program owns its outputs


def getitem_dynamic_backward(node, dout):
    grad = dispatch(GETITEM_DYNAMIC_GRAD, (dout, node.values), {"index": node.index, "shape": node.input_metas[0][0]})
    return grad, None


def getitem_dynamic_grad_meta(dout, values, index=(), shape=()) -> MetaTensor:
    return MetaTensor(tuple(shape), dout.dtype)


def getitem_dynamic_grad_kernel(dout, values, index=(), shape=()):
    out = np.zeros(shape, dout.dtype)
    out[_numpy_index(index, values)] = dout
    return out


def getitem_dynamic_grad_backward(node, ddx):
    return dispatch(GETITEM_DYNAMIC, (ddx, node.values), {"index": node.index}), None


GETITEM_DYNAMIC = register_op(
    "getitem_dynamic", inputs=("x", "values"), infer_meta=getitem_dynamic_meta, backward=getitem_dynamic_backward,
    attrs={"index": (tuple, ())}, save=("values",), differentiable_inputs=(0,),
    doc="x[index] where index holds run-time ints ('$k': values[k]), e.g. a loop counter Variable.")
GETITEM_DYNAMIC_GRAD = register_op(
    "getitem_dynamic_grad", inputs=("dout", "values"), infer_meta=getitem_dynamic_grad_meta,
    backward=getitem_dynamic_grad_backward, attrs={"index": (tuple, ()), "shape": (tuple, ())},
    save=("values",), differentiable_inputs=(0,),
    doc="getitem_dynamic's gradient: zeros of x's shape with dout written where x[index] was read.")
add_kernel("getitem_dynamic", "cpu", ALL, getitem_dynamic_kernel, name="numpy")
add_kernel("getitem_dynamic_grad", "cpu", NUMERIC, getitem_dynamic_grad_kernel, name="numpy")


# ---- from a Python index -----------------------------------------------------------------------------
def _scalar(value, values: list, what: str):
    """An index part: a Python int as it is, a one-int Variable as "$k" (appended to `values`)."""
    if value is None or (isinstance(value, (int, np.integer)) and not isinstance(value, bool)):
        return None if value is None else int(value)
    if isinstance(value, Tensor):
        data = value._data
        if data.dtype.kind in "iu" and tuple(data.shape) in ((), (1,)):
            if not _is_variable(value):
                return int(np.asarray(data).reshape(-1)[0])
            values.append(value)
            return f"${len(values) - 1}"
        raise invalid_argument("getitem", f"{what} is a {data.dtype}{list(data.shape)} Variable; a Variable index "
                                          "must hold one int (a loop counter).",
                               hint="index with a tensor of indices through paddle.gather / paddle.index_select, "
                                    "or with a mask through paddle.masked_select.")
    raise invalid_argument("getitem", f"{what} of type {type(value).__name__} cannot be combined with a Variable "
                                      "index; expected ints, slices, None or '...'.")


def _items(ndim: int, index, values: list) -> tuple:
    parts = index if isinstance(index, tuple) else (index,)
    if sum(p is Ellipsis for p in parts) > 1:
        raise invalid_argument("getitem", "an index can only have a single Ellipsis ('...').")
    consumed = sum(p is not None and p is not Ellipsis for p in parts)
    if consumed > ndim:
        raise invalid_argument("getitem", f"too many indices: x is {ndim}-D but {consumed} dims are indexed.")
    items: list = []
    for p in parts:
        if p is Ellipsis:
            items.extend([FULL] * (ndim - consumed))
        elif p is None:
            items.append(None)
        elif isinstance(p, slice):
            bounds = tuple(_scalar(b, values, f"slice {name}") for b, name in
                           zip((p.start, p.stop, p.step), ("start", "stop", "step")))
            if isinstance(bounds[2], str):
                raise invalid_argument("getitem", "a slice step cannot be a Variable.",
                                       hint="use a Python int step; start and stop may be Variables.")
            if bounds[2] == 0:
                raise invalid_argument("getitem", "slice step cannot be zero.")
            items.append(bounds)
        else:
            items.append(_scalar(p, values, "an index"))
    return tuple(items)


def getitem_dynamic(x: Tensor, index) -> Tensor:
    """`x[index]` while building a Program, with Variables in the index (see the module docstring)."""
    from .elementwise import cast
    from .manipulation import concat, reshape
    values: list = []
    items = _items(len(x._data.shape), index, values)
    parts = [reshape(v if v._data.dtype == np.int64 else cast(v, "int64"), [1]) for v in values]
    packed = parts[0] if len(parts) == 1 else concat(parts)
    return dispatch(GETITEM_DYNAMIC, (x, packed), {"index": items})
