"""Indexing: x[index] and x[index] = value, gather, gather_nd, index_select, scatter, one_hot,
masked_fill, masked_select, nonzero. (take_along_axis / put_along_axis live in sorting.py,
beside the argsort whose indices they apply.)

`x[index]` follows numpy's rules (which Paddle follows too). index_parsing.py normalizes the
Python index once into a hashable attribute (a tuple of items) and one int64 input holding every
index array.

Each "pick" op here has a "scatter-add" partner that is its gradient (getitem ->
getitem_grad, gather -> gather_grad, ...), and the partner's gradient is the pick op
again: so grads of grads work with no extra code.
"""
from __future__ import annotations

from numbers import Number

import numpy as np

from ..dispatch import dispatch
from ..errors import invalid_argument, precondition_not_met
from ..registry import MetaTensor, add_kernel, register_op
from ..tensor import Tensor
from .common import (ALL, INTS, NUMERIC, as_tensor, broadcast_shape, follow_place, normalize_axis,
                     require_dtype)
from .index_parsing import (ADVANCED, IndexOutOfRange, check_index_values, has_advanced,  # noqa: F401
                            indexed_shape, normalize_index, numpy_index, out_of_range)
from .manipulation import view_of
from .index_dynamic import getitem_dynamic, is_dynamic_index  # registers getitem_dynamic (static path)

def scatter_grad_meta(dout, *inputs, **attrs) -> MetaTensor:
    """infer_meta of every *_grad op here: zeros of the forward input's shape (attr `shape`)."""
    return MetaTensor(tuple(attrs["shape"]), dout.dtype)


def _index_dtype(op: str, arg: str, index) -> None:
    require_dtype(op, arg, index, "iu", "int32 or int64")


# ---- getitem and its gradient ------------------------------------------------------------
def getitem_meta(x, advanced, index=()) -> MetaTensor:
    return MetaTensor(indexed_shape("getitem", x.shape, index, advanced), x.dtype)


def getitem_kernel(x, advanced, index=()):
    if has_advanced(index):
        return x[numpy_index(index, advanced)]  # advanced indexing copies
    return x[numpy_index(index, advanced) + (Ellipsis,)]  # a view; `...` keeps 0-D results arrays


def getitem_backward(node, dout):
    grad = dispatch(GETITEM_GRAD, (dout, node.advanced),
                    {"index": node.index, "shape": node.input_metas[0][0]})
    return grad, None


def getitem_grad_kernel(dout, advanced, index=(), shape=()):
    """Zeros of x's shape with dout added where x[index] was read (repeats add up)."""
    out = np.zeros(shape, dout.dtype)
    if has_advanced(index):
        np.add.at(out, numpy_index(index, advanced), dout)
    else:
        out[numpy_index(index, advanced)] = dout
    return out


def getitem_grad_backward(node, ddx):
    return _getitem(ddx, node.advanced, node.index), None


GETITEM = register_op("getitem", inputs=("x", "advanced"), infer_meta=getitem_meta,
                      backward=getitem_backward, attrs={"index": (tuple, ())}, save=("advanced",),
                      differentiable_inputs=(0,))
GETITEM_GRAD = register_op("getitem_grad", inputs=("dout", "advanced"), infer_meta=scatter_grad_meta,
                           backward=getitem_grad_backward, attrs={"index": (tuple, ()), "shape": (tuple, ())},
                           save=("advanced",), differentiable_inputs=(0,))
add_kernel("getitem", "cpu", ALL, getitem_kernel, name="numpy")
add_kernel("getitem_grad", "cpu", NUMERIC, getitem_grad_kernel, name="numpy")


def _getitem(x: Tensor, advanced: Tensor, items: tuple) -> Tensor:
    out = dispatch(GETITEM, (x, advanced), {"index": items})
    return out if has_advanced(items) else view_of(out, x)


def getitem(x, index) -> Tensor:
    """`x[index]` (Tensor.__getitem__): ints, slices, None, ..., int/bool arrays, numpy's rules.

    Basic indexing (no arrays) returns a view sharing x's storage, as numpy and Paddle do.
    """
    x = as_tensor("getitem", "x", x)
    if type(index) is not int and is_dynamic_index(index):  # a Variable in the index: a static Program
        return getitem_dynamic(x, index)
    items, advanced = normalize_index(tuple(x.shape), index)
    return _getitem(x, follow_place(advanced, x), items)  # the index rows go where x lives


# ---- setitem: x[index] = value, through the index_put op -------------------------------------
def index_put_meta(x, value, advanced, index=()) -> MetaTensor:
    region = indexed_shape("setitem", x.shape, index, advanced)
    fits = len(value.shape) <= len(region) and all(
        v in (1, r, -1) or r == -1 for v, r in zip(value.shape[::-1], region[::-1]))
    if not fits:
        raise invalid_argument("setitem", f"value of shape {list(value.shape)} cannot be broadcast to the "
                                          f"selected region of shape {list(region)}.")
    if value.dtype != x.dtype:
        raise invalid_argument("setitem", f"value has dtype {value.dtype} but x has dtype {x.dtype}.")
    return MetaTensor(x.shape, x.dtype)


def index_put_kernel(x, value, advanced, index=()):
    out = x.copy()
    out[numpy_index(index, advanced)] = value
    return out


def index_put_backward(node, dout):
    """dx: dout with the overwritten region zeroed; dvalue: dout read from the region."""
    advanced = node.advanced
    zero = follow_place(Tensor._wrap(np.zeros((), dout._data.dtype)), dout)
    dx = dispatch(INDEX_PUT, (dout, zero, advanced), {"index": node.index})
    return dx, _getitem(dout, advanced, node.index), None


INDEX_PUT = register_op("index_put", inputs=("x", "value", "advanced"), infer_meta=index_put_meta,
                        backward=index_put_backward, attrs={"index": (tuple, ())}, save=("advanced",),
                        differentiable_inputs=(0, 1))
add_kernel("index_put", "cpu", ALL, index_put_kernel, name="numpy")


def setitem(x, index, value) -> None:
    """`x[index] = value` (Tensor.__setitem__): in place; gradients reach x's history and value."""
    x = as_tensor("setitem", "x", x)
    x._check_inplace("setitem")
    base = x._base
    if base is not None and base._node is None and not base.stop_gradient:
        from ..thread_modes import modes
        if modes.grad_enabled:
            raise precondition_not_met("setitem", "x is a view of a leaf tensor that needs grad; writing "
                                                  "into it would change the leaf behind autograd's back.",
                                       hint="do it under `with paddle.no_grad():`, or on a clone().")
    items, advanced = normalize_index(tuple(x.shape), index)
    dtype = x._data.dtype
    if isinstance(value, Tensor):
        if value._data.dtype != dtype:
            from .elementwise import cast
            value = cast(value, dtype)
    elif isinstance(value, (Number, np.number, np.ndarray, list, tuple)):
        value = follow_place(Tensor._wrap(np.asarray(value).astype(dtype)), x)  # made where x lives
    else:
        raise invalid_argument("setitem", f"value of type {type(value).__name__} is not supported; expected "
                                          "a number, numpy array or Tensor.")
    region = indexed_shape("setitem", tuple(x.shape), items, advanced._data)  # (checks the index on the host)
    advanced = follow_place(advanced, x)  # then the index rows go where x lives
    extra = len(value.shape) - len(region)
    if extra > 0 and all(n == 1 for n in value.shape[:extra]):  # numpy drops leading 1s of a value
        from .manipulation import reshape
        if value.size:
            value = reshape(value, value.shape[extra:])
        else:  # reshape reads a 0 as "keep this dim"; an empty value has no gradient anyway
            value = Tensor._wrap(value._data.reshape(value.shape[extra:]))
    result = dispatch(INDEX_PUT, (x, value, advanced), {"index": items})
    x._assign_result(result, "setitem")


# ---- gather, index_select, gather_nd -----------------------------------------------------------
def gather_meta(x, index, axis=0) -> MetaTensor:
    _index_dtype("gather", "index", index)
    if len(x.shape) == 0:
        raise invalid_argument("gather", "x is 0-D, expected a tensor with at least 1 dim.")
    if len(index.shape) > 1:
        raise invalid_argument("gather", f"index has shape {list(index.shape)}, expected a 0-D or 1-D tensor.",
                               hint="flatten the index, or use gather_nd / take_along_axis.")
    check_index_values("gather", index, x.shape[axis], f"axis {axis}", allow_negative=False)
    return MetaTensor(x.shape[:axis] + tuple(index.shape) + x.shape[axis + 1:], x.dtype)


def gather_kernel(x, index, axis=0):
    return np.take(x, index, axis=axis)


def gather_backward(node, dout):
    return dispatch(GATHER_GRAD, (dout, node.index), {"axis": node.axis, "shape": node.input_metas[0][0]}), None


def gather_grad_kernel(dout, index, axis=0, shape=()):
    out = np.zeros(shape, dout.dtype)
    np.add.at(out, (slice(None),) * axis + (index,), dout)
    return out


def gather_grad_backward(node, ddx):
    return dispatch(GATHER, (ddx, node.index), {"axis": node.axis}), None


def index_select_meta(x, index, axis=0) -> MetaTensor:
    _index_dtype("index_select", "index", index)
    if len(index.shape) != 1:
        raise invalid_argument("index_select", f"index has shape {list(index.shape)}, expected a 1-D tensor.")
    check_index_values("index_select", index, x.shape[axis], f"axis {axis}", allow_negative=False)
    return MetaTensor(x.shape[:axis] + tuple(index.shape) + x.shape[axis + 1:], x.dtype)


GATHER = register_op("gather", inputs=("x", "index"), infer_meta=gather_meta, backward=gather_backward,
                     attrs={"axis": (int, 0)}, save=("index",), differentiable_inputs=(0,))
GATHER_GRAD = register_op("gather_grad", inputs=("dout", "index"), infer_meta=scatter_grad_meta,
                          backward=gather_grad_backward, attrs={"axis": (int, 0), "shape": (tuple, ())},
                          save=("index",), differentiable_inputs=(0,))
INDEX_SELECT = register_op("index_select", inputs=("x", "index"), infer_meta=index_select_meta,
                           backward=gather_backward, attrs={"axis": (int, 0)}, save=("index",),
                           differentiable_inputs=(0,))
add_kernel("gather", "cpu", ALL, gather_kernel, name="numpy")
add_kernel("index_select", "cpu", ALL, gather_kernel, name="numpy")
add_kernel("gather_grad", "cpu", NUMERIC, gather_grad_kernel, name="numpy")


def _axis_arg(op: str, axis, ndim: int) -> int:
    if isinstance(axis, Tensor):
        axis = axis.item()
    return normalize_axis(op, 0 if axis is None else axis, ndim)


def gather(x, index, axis=None, name=None) -> Tensor:
    """Entries of x along `axis` (default 0) at the positions in the 0-D or 1-D `index`."""
    x = as_tensor("gather", "x", x)
    index = as_tensor("gather", "index", index)
    return dispatch(GATHER, (x, index), {"axis": _axis_arg("gather", axis, len(x.shape))})


def index_select(x, index, axis=0, name=None) -> Tensor:
    """Entries of x along `axis` at the positions in the 1-D `index`."""
    x = as_tensor("index_select", "x", x)
    index = as_tensor("index_select", "index", index)
    return dispatch(INDEX_SELECT, (x, index), {"axis": _axis_arg("index_select", axis, len(x.shape))})


def gather_nd_meta(x, index) -> MetaTensor:
    _index_dtype("gather_nd", "index", index)
    k = tuple(index.shape)[-1] if index.shape else -1  # tuple(): a GPU array's shape has no [-1]
    if not 0 <= k <= len(x.shape):
        raise invalid_argument("gather_nd", f"index has shape {list(index.shape)}; expected at least 1 dim and "
                                            f"a known last dim <= x's rank ({len(x.shape)}).")
    if isinstance(index, np.ndarray):
        for j in range(k):
            check_index_values("gather_nd", index[..., j], x.shape[j], f"axis {j}", allow_negative=False)
    return MetaTensor(tuple(index.shape[:-1]) + tuple(x.shape[k:]), x.dtype)


def _nd_index(index: np.ndarray) -> tuple:
    return tuple(np.moveaxis(index, -1, 0))


def gather_nd_kernel(x, index):
    if index.shape[-1] == 0:  # an empty coordinate picks all of x, once per index row
        return np.array(np.broadcast_to(x, index.shape[:-1] + x.shape))
    return x[_nd_index(index)]


def gather_nd_backward(node, dout):
    return dispatch(GATHER_ND_GRAD, (dout, node.index), {"shape": node.input_metas[0][0]}), None


def gather_nd_grad_kernel(dout, index, shape=()):
    if index.shape[-1] == 0:
        return dout.reshape((-1,) + tuple(shape)).sum(axis=0)
    out = np.zeros(shape, dout.dtype)
    np.add.at(out, _nd_index(index), dout)
    return out


def gather_nd_grad_backward(node, ddx):
    return dispatch(GATHER_ND, (ddx, node.index)), None


GATHER_ND = register_op("gather_nd", inputs=("x", "index"), infer_meta=gather_nd_meta,
                        backward=gather_nd_backward, save=("index",), differentiable_inputs=(0,))
GATHER_ND_GRAD = register_op("gather_nd_grad", inputs=("dout", "index"),
                             infer_meta=scatter_grad_meta,
                             backward=gather_nd_grad_backward, attrs={"shape": (tuple, ())}, save=("index",),
                             differentiable_inputs=(0,))
add_kernel("gather_nd", "cpu", ALL, gather_nd_kernel, name="numpy")
add_kernel("gather_nd_grad", "cpu", NUMERIC, gather_nd_grad_kernel, name="numpy")


def gather_nd(x, index, name=None) -> Tensor:
    """x at the coordinates in index's last dim: out[i..] = x[index[i.., 0], index[i.., 1], ...]."""
    x = as_tensor("gather_nd", "x", x)
    return dispatch(GATHER_ND, (x, as_tensor("gather_nd", "index", index)))


# ---- scatter ----------------------------------------------------------------------------------
def scatter_meta(x, index, updates, overwrite=True) -> MetaTensor:
    _index_dtype("scatter", "index", index)
    if len(x.shape) == 0 or len(index.shape) > 1:
        raise invalid_argument("scatter", f"x has shape {list(x.shape)} and index {list(index.shape)}; "
                                          "expected x with at least 1 dim and a 0-D or 1-D index.")
    expected = tuple(index.shape) + tuple(x.shape[1:])
    if len(updates.shape) != len(expected) or any(u not in (e, -1) and e != -1
                                                   for u, e in zip(updates.shape, expected)):
        raise invalid_argument("scatter", f"updates has shape {list(updates.shape)}, expected "
                                          f"{list(expected)} (index's shape + x's shape[1:]).")
    if updates.dtype != x.dtype:
        raise invalid_argument("scatter", f"updates has dtype {updates.dtype} but x has dtype {x.dtype}.")
    check_index_values("scatter", index, x.shape[0], "axis 0", allow_negative=False)
    return MetaTensor(x.shape, x.dtype)


def scatter_kernel(x, index, updates, overwrite=True):
    out = x.copy()
    if overwrite:
        out[index] = updates
    else:  # Paddle: the indexed rows start from zero and sum every update sent to them
        out[index] = 0
        np.add.at(out, index, updates)
    return out


def scatter_backward(node, dout):
    index = node.index
    zeros = Tensor._wrap(np.zeros(*node.input_metas[2]))
    dx = dispatch(SCATTER, (dout, index, zeros), {"overwrite": True})
    return dx, None, dispatch(GATHER, (dout, index), {"axis": 0})


SCATTER = register_op("scatter", inputs=("x", "index", "updates"), infer_meta=scatter_meta,
                      backward=scatter_backward, attrs={"overwrite": (bool, True)}, save=("index",),
                      differentiable_inputs=(0, 2))
add_kernel("scatter", "cpu", ALL, scatter_kernel, name="numpy")


def scatter(x, index, updates, overwrite=True, name=None) -> Tensor:
    """x with rows `index` replaced by `updates` (overwrite=False: rows are the sum of their updates)."""
    x = as_tensor("scatter", "x", x)
    index = as_tensor("scatter", "index", index)
    updates = as_tensor("scatter", "updates", updates)
    return dispatch(SCATTER, (x, index, updates), {"overwrite": bool(overwrite)})


# ---- one_hot, masked_fill, masked_select, nonzero --------------------------------------------
def one_hot_meta(x, num_classes=1) -> MetaTensor:
    _index_dtype("one_hot", "x", x)
    check_index_values("one_hot", x, num_classes, "num_classes", allow_negative=False)
    return MetaTensor(tuple(x.shape) + (num_classes,), np.dtype("float32"))


def one_hot_kernel(x, num_classes=1):
    out = np.zeros(x.shape + (num_classes,), np.float32)
    np.put_along_axis(out, x[..., None].astype(np.int64), 1.0, axis=-1)
    return out


ONE_HOT = register_op("one_hot", inputs=("x",), infer_meta=one_hot_meta, attrs={"num_classes": (int, 1)})
add_kernel("one_hot", "cpu", INTS, one_hot_kernel, name="numpy")


def one_hot(x, num_classes, name=None) -> Tensor:
    """Integer labels -> float32 one-hot rows of length num_classes (no gradient)."""
    x = as_tensor("one_hot", "x", x)
    if isinstance(num_classes, Tensor):
        num_classes = num_classes.item()
    if not isinstance(num_classes, (int, np.integer)) or isinstance(num_classes, bool) or num_classes < 1:
        raise invalid_argument("one_hot", f"num_classes got {num_classes!r}, expected an int >= 1.")
    return dispatch(ONE_HOT, (x,), {"num_classes": int(num_classes)})


def masked_fill(x, mask, value, name=None) -> Tensor:
    """x with `value` where mask is True (mask broadcasts); the gradient is zero there.

    Paddle builds it from where(); so does minipaddle: where(mask, value, x).
    """
    from .elementwise import cast, where
    x = as_tensor("masked_fill", "x", x)
    mask = as_tensor("masked_fill", "mask", mask)
    if mask._data.dtype != np.bool_:
        raise invalid_argument("masked_fill", f"mask has dtype {mask._data.dtype}, expected bool.")
    broadcast_shape("masked_fill", tuple(x.shape), tuple(mask.shape))
    if isinstance(value, Tensor):
        if value._data.dtype != x._data.dtype:
            value = cast(value, x._data.dtype)
    elif isinstance(value, (Number, np.number)):
        value = Tensor._wrap(np.array(value).astype(x._data.dtype))
    else:
        raise invalid_argument("masked_fill", f"value got {type(value).__name__}, expected a number or Tensor.")
    return where(mask, value, x)


def _bool_mask(op: str, mask) -> None:
    if mask.dtype != np.bool_:
        raise invalid_argument(op, f"mask has dtype {mask.dtype}, expected bool.")


def masked_select_meta(x, mask) -> MetaTensor:
    _bool_mask("masked_select", mask)
    shape = broadcast_shape("masked_select", tuple(x.shape), tuple(mask.shape))
    count = -1
    if isinstance(mask, np.ndarray) and -1 not in shape:
        count = int(np.count_nonzero(np.broadcast_to(mask, shape)))
    return MetaTensor((count,), x.dtype)


def masked_select_kernel(x, mask):
    xb, mb = np.broadcast_arrays(x, mask)
    return xb[mb]


def masked_select_backward(node, dout):
    shape = broadcast_shape("masked_select", node.input_metas[0][0], node.input_metas[1][0])
    return dispatch(MASKED_SELECT_GRAD, (dout, node.mask), {"shape": shape}), None


def masked_select_grad_kernel(dout, mask, shape=()):
    out = np.zeros(shape, dout.dtype)
    out[np.broadcast_to(mask, shape)] = dout
    return out


def masked_select_grad_backward(node, ddx):
    return dispatch(MASKED_SELECT, (ddx, node.mask)), None


MASKED_SELECT = register_op("masked_select", inputs=("x", "mask"), infer_meta=masked_select_meta,
                            backward=masked_select_backward, save=("mask",), differentiable_inputs=(0,))
MASKED_SELECT_GRAD = register_op("masked_select_grad", inputs=("dout", "mask"),
                                 infer_meta=scatter_grad_meta,
                                 backward=masked_select_grad_backward, attrs={"shape": (tuple, ())},
                                 save=("mask",), differentiable_inputs=(0,))
add_kernel("masked_select", "cpu", ALL, masked_select_kernel, name="numpy")
add_kernel("masked_select_grad", "cpu", NUMERIC, masked_select_grad_kernel, name="numpy")


def masked_select(x, mask, name=None) -> Tensor:
    """The entries of x where mask (broadcast with x) is True, as a 1-D tensor."""
    x = as_tensor("masked_select", "x", x)
    return dispatch(MASKED_SELECT, (x, as_tensor("masked_select", "mask", mask)))


def nonzero_meta(x) -> MetaTensor:
    count = int(np.count_nonzero(x)) if isinstance(x, np.ndarray) else -1
    return MetaTensor((count, len(x.shape)), np.dtype("int64"))


NONZERO = register_op("nonzero", inputs=("x",), infer_meta=nonzero_meta)
add_kernel("nonzero", "cpu", ALL, lambda x: np.argwhere(x).astype(np.int64, copy=False), name="numpy")


def nonzero(x, as_tuple=False):
    """Coordinates of x's non-zero entries: int64 [z, ndim]; as_tuple: ndim tensors of shape [z, 1]."""
    out = dispatch(NONZERO, (as_tensor("nonzero", "x", x),))
    if not as_tuple:
        return out
    return tuple(getitem(out, (slice(None), slice(i, i + 1))) for i in range(out.shape[1]))


__all__ = ["gather", "gather_nd", "index_select", "masked_fill", "masked_select", "nonzero", "one_hot",
           "scatter"]
TENSOR_METHODS = [n for n in __all__ if n != "one_hot"]
