"""Sorting: sort, argsort, topk, and the ops that apply their indices: take_along_axis and
put_along_axis.

sort and topk compute the permutation first (numpy's stable argsort / argpartition) and
pick the values with it; their gradient sends dout back through the same indices with
take_along_axis_grad (a scatter-add), whose own gradient is take_along_axis again.
"""
from __future__ import annotations

from numbers import Number

import numpy as np

from ..dispatch import dispatch
from ..errors import invalid_argument, unimplemented
from ..registry import MetaTensor, add_kernel, register_op
from ..tensor import Tensor
from .common import ALL, COMPLEX, NUMERIC, as_tensor, normalize_axis, require_dtype
from .indexing import check_index_values, scatter_grad_meta

INT64 = np.dtype("int64")


# ---- along-axis index helpers -------------------------------------------------------------
def along_axis_index(indices: np.ndarray, axis: int) -> tuple:
    """The numpy index picking position indices[..i..] along `axis` and i itself on other axes."""
    parts = []
    for d, n in enumerate(indices.shape):
        if d == axis:
            parts.append(indices)
        else:
            shape = [1] * indices.ndim
            shape[d] = n
            parts.append(np.arange(n).reshape(shape))
    return tuple(parts)


def along_axis_shapes(op: str, arr_shape: tuple, idx_shape: tuple, axis: int, broadcast: bool):
    """(arr's shape, indices' shape) once broadcast against each other on every axis but `axis`."""
    if len(arr_shape) != len(idx_shape):
        raise invalid_argument(op, f"indices has {len(idx_shape)} dims but arr has {len(arr_shape)}; expected "
                                   "the same number of dims.")
    arr_out, idx_out = list(arr_shape), list(idx_shape)
    for d, (a, i) in enumerate(zip(arr_shape, idx_shape)):
        if d == axis:
            continue
        if broadcast:
            if a != i and 1 not in (a, i) and -1 not in (a, i):
                raise invalid_argument(op, f"indices of shape {list(idx_shape)} cannot be broadcast with arr of "
                                           f"shape {list(arr_shape)}: dim {d} is {i} vs {a}.")
            arr_out[d] = idx_out[d] = -1 if -1 in (a, i) else max(a, i)
        elif i > a >= 0:
            raise invalid_argument(op, f"indices has shape {list(idx_shape)}, larger than arr's "
                                       f"{list(arr_shape)} at dim {d}.", hint="pass broadcast=True.")
    return tuple(arr_out), tuple(idx_out)


# ---- take_along_axis and its gradient -----------------------------------------------------------
def take_along_axis_meta(arr, indices, axis=0, broadcast=True) -> MetaTensor:
    require_dtype("take_along_axis", "indices", indices, "iu", "int32 or int64")
    _, idx_shape = along_axis_shapes("take_along_axis", arr.shape, indices.shape, axis, broadcast)
    check_index_values("take_along_axis", indices, arr.shape[axis], f"axis {axis}", allow_negative=True)
    return MetaTensor(idx_shape, arr.dtype)


def take_along_axis_kernel(arr, indices, axis=0, broadcast=True):
    if broadcast:
        arr_shape, idx_shape = along_axis_shapes("take_along_axis", arr.shape, indices.shape, axis, True)
        arr = np.broadcast_to(arr, arr_shape)
        indices = np.broadcast_to(indices, idx_shape)
    return arr[along_axis_index(indices, axis)]


def take_along_axis_backward(node, dout):
    arr_shape, _ = along_axis_shapes("take_along_axis", node.input_metas[0][0], node.input_metas[1][0],
                                     node.axis, node.broadcast)
    attrs = {"axis": node.axis, "broadcast": node.broadcast, "shape": arr_shape}
    return dispatch(TAKE_ALONG_AXIS_GRAD, (dout, node.indices), attrs), None


def take_along_axis_grad_kernel(dout, indices, axis=0, broadcast=True, shape=()):
    """Zeros of arr's (broadcast) shape with dout added at the positions that were taken."""
    out = np.zeros(shape, dout.dtype)
    np.add.at(out, along_axis_index(np.broadcast_to(indices, dout.shape), axis), dout)
    return out


def take_along_axis_grad_backward(node, ddx):
    attrs = {"axis": node.axis, "broadcast": node.broadcast}
    return dispatch(TAKE_ALONG_AXIS, (ddx, node.indices), attrs), None


TAKE_ALONG_AXIS = register_op("take_along_axis", inputs=("arr", "indices"), infer_meta=take_along_axis_meta,
                              backward=take_along_axis_backward, save=("indices",),
                              attrs={"axis": (int, 0), "broadcast": (bool, True)}, differentiable_inputs=(0,))
TAKE_ALONG_AXIS_GRAD = register_op(
    "take_along_axis_grad", inputs=("dout", "indices"),
    infer_meta=scatter_grad_meta,
    backward=take_along_axis_grad_backward, save=("indices",),
    attrs={"axis": (int, 0), "broadcast": (bool, True), "shape": (tuple, ())}, differentiable_inputs=(0,))
add_kernel("take_along_axis", "cpu", ALL, take_along_axis_kernel, name="numpy")
add_kernel("take_along_axis_grad", "cpu", NUMERIC, take_along_axis_grad_kernel, name="numpy")


def take_along_axis(arr, indices, axis, broadcast=True, name=None) -> Tensor:
    """out[..i..] = arr[..indices[..i..]..] along `axis` (numpy's take_along_axis)."""
    arr = as_tensor("take_along_axis", "arr", arr)
    indices = as_tensor("take_along_axis", "indices", indices)
    axis = normalize_axis("take_along_axis", axis, len(arr.shape))
    return dispatch(TAKE_ALONG_AXIS, (arr, indices), {"axis": axis, "broadcast": bool(broadcast)})


# ---- put_along_axis ---------------------------------------------------------------------------
REDUCES = ("assign", "add", "mul", "multiply")


def put_along_axis_meta(arr, indices, values, axis=0, reduce="assign", include_self=True) -> MetaTensor:
    op = "put_along_axis"
    require_dtype(op, "indices", indices, "iu", "int32 or int64")
    along_axis_shapes(op, arr.shape, indices.shape, axis, broadcast=False)
    fits = len(values.shape) <= len(indices.shape) and all(
        v in (1, i, -1) or i == -1 for v, i in zip(values.shape[::-1], indices.shape[::-1]))
    if not fits:
        raise invalid_argument(op, f"values of shape {list(values.shape)} cannot be broadcast to indices' "
                                   f"shape {list(indices.shape)}.")
    if values.dtype != arr.dtype:
        raise invalid_argument(op, f"values has dtype {values.dtype} but arr has dtype {arr.dtype}.")
    check_index_values(op, indices, arr.shape[axis], f"axis {axis}", allow_negative=True)
    return MetaTensor(arr.shape, arr.dtype)


def put_along_axis_kernel(arr, indices, values, axis=0, reduce="assign", include_self=True):
    out = arr.copy()
    where = along_axis_index(indices, axis)
    values = np.broadcast_to(values, indices.shape)
    if reduce == "assign":
        out[where] = values
    elif reduce == "add":
        if not include_self:
            out[where] = 0
        np.add.at(out, where, values)
    else:
        if not include_self:
            out[where] = 1
        np.multiply.at(out, where, values)
    return out


def put_along_axis_backward(node, dout):
    if node.reduce != "assign" and node.reduce != "add":
        raise unimplemented("put_along_axis", f"the gradient of reduce='{node.reduce}' is not implemented.",
                            hint="use reduce='assign' or 'add' where a gradient is needed.")
    indices, axis = node.indices, node.axis
    if node.reduce == "assign" or not node.include_self:  # overwritten entries of arr get no gradient
        zero = Tensor._wrap(np.zeros((), dout._data.dtype))
        darr = dispatch(PUT_ALONG_AXIS, (dout, indices, zero),
                        {"axis": axis, "reduce": "assign", "include_self": True})
    else:
        darr = dout
    dvalues = dispatch(TAKE_ALONG_AXIS, (dout, indices), {"axis": axis, "broadcast": False})
    return darr, None, dvalues


PUT_ALONG_AXIS = register_op("put_along_axis", inputs=("arr", "indices", "values"),
                             infer_meta=put_along_axis_meta, backward=put_along_axis_backward,
                             save=("indices",), differentiable_inputs=(0, 2),
                             attrs={"axis": (int, 0), "reduce": (str, "assign"), "include_self": (bool, True)})
add_kernel("put_along_axis", "cpu", ALL, put_along_axis_kernel, name="numpy")


def put_along_axis(arr, indices, values, axis, reduce="assign", include_self=True, broadcast=True,
                   name=None) -> Tensor:
    """arr with `values` written (reduce='assign'), added or multiplied at indices along `axis`."""
    op = "put_along_axis"
    arr = as_tensor(op, "arr", arr)
    indices = as_tensor(op, "indices", indices)
    axis = normalize_axis(op, axis, len(arr.shape))
    if reduce not in REDUCES:
        raise unimplemented(op, f"reduce={reduce!r} is not supported; expected one of {list(REDUCES)}.")
    reduce = "mul" if reduce == "multiply" else reduce
    dtype = arr._data.dtype
    if isinstance(values, Tensor):
        if values._data.dtype != dtype:
            from .elementwise import cast
            values = cast(values, dtype)
    elif isinstance(values, (Number, np.number, np.ndarray, list)):
        values = Tensor._wrap(np.asarray(values).astype(dtype))
    else:
        raise invalid_argument(op, f"values got {type(values).__name__}, expected a number or Tensor.")
    if broadcast:  # indices are data, not differentiable: broadcast them here, once
        _, idx_shape = along_axis_shapes(op, tuple(arr.shape), tuple(indices.shape), axis, True)
        if idx_shape != tuple(indices.shape):
            indices = Tensor._wrap(np.array(np.broadcast_to(indices._data, idx_shape)))
    attrs = {"axis": axis, "reduce": reduce, "include_self": bool(include_self)}
    return dispatch(PUT_ALONG_AXIS, (arr, indices, values), attrs)


# ---- argsort, sort, topk ------------------------------------------------------------------------
def stable_argsort(x: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """Stable argsort; descending keeps equal values in their original order (NaNs first)."""
    if x.ndim == 0:
        return np.zeros((), INT64)
    if not descending:
        return np.argsort(x, axis=axis, kind="stable").astype(INT64, copy=False)
    # sort the reversed array ascending, then reverse: ties come out in original order
    n = x.shape[axis]
    order = np.argsort(np.flip(x, axis), axis=axis, kind="stable")
    return (n - 1 - np.flip(order, axis)).astype(INT64, copy=False)


def sort_meta(x, axis=-1, descending=False):
    return MetaTensor(x.shape, x.dtype), MetaTensor(x.shape, INT64)


def argsort_meta(x, axis=-1, descending=False) -> MetaTensor:
    return MetaTensor(x.shape, INT64)


def argsort_kernel(x, axis=-1, descending=False):
    return stable_argsort(x, axis, descending)


def sort_kernel(x, axis=-1, descending=False):
    indices = stable_argsort(x, axis, descending)
    if x.ndim == 0:
        return x.copy(), indices
    return np.take_along_axis(x, indices, axis), indices


def sort_backward(node, dout, dindices=None):
    """Send each gradient back to the position its value came from."""
    attrs = {"axis": node.axis, "broadcast": False, "shape": node.input_metas[0][0]}
    return dispatch(TAKE_ALONG_AXIS_GRAD, (dout, node.indices), attrs)


ARGSORT = register_op("argsort", inputs=("x",), infer_meta=argsort_meta,
                      attrs={"axis": (int, -1), "descending": (bool, False)})
SORT = register_op("sort", inputs=("x",), outputs=("out", "indices"), infer_meta=sort_meta,
                   backward=sort_backward, save=("indices",), attrs={"axis": (int, -1), "descending": (bool, False)})
_ORDERED = [d for d in ALL if d not in COMPLEX]  # as Paddle, complex tensors are not sorted
add_kernel("argsort", "cpu", _ORDERED, argsort_kernel, name="numpy")
add_kernel("sort", "cpu", _ORDERED, sort_kernel, name="numpy")


def _sort_axis(op: str, x: Tensor, axis) -> int:
    if isinstance(axis, Tensor):
        axis = axis.item()
    return normalize_axis(op, -1 if axis is None else axis, len(x.shape))


def argsort(x, axis=-1, descending=False, stable=False, name=None) -> Tensor:
    """int64 indices that sort x along `axis`; always stable (equal values keep their order)."""
    x = as_tensor("argsort", "x", x)
    return dispatch(ARGSORT, (x,), {"axis": _sort_axis("argsort", x, axis), "descending": bool(descending)})


def sort(x, axis=-1, descending=False, stable=False, name=None) -> Tensor:
    """x sorted along `axis` (ascending unless descending=True); differentiable."""
    x = as_tensor("sort", "x", x)
    attrs = {"axis": _sort_axis("sort", x, axis), "descending": bool(descending)}
    return dispatch(SORT, (x,), attrs)[0]


def topk_meta(x, k=1, axis=-1, largest=True, sorted=True):
    n = x.shape[axis] if x.shape else 1
    if n >= 0 and not 1 <= k <= n:
        raise invalid_argument("topk", f"k={k} is out of range for axis {axis} of size {n}; expected "
                                       f"1 <= k <= {n}.")
    shape = tuple(k if d == axis else s for d, s in enumerate(x.shape))
    return MetaTensor(shape, x.dtype), MetaTensor(shape, INT64)


def topk_kernel(x, k=1, axis=-1, largest=True, sorted=True):
    if x.ndim == 0:
        return x.copy(), np.zeros((), INT64)
    n = x.shape[axis]
    if k == n:
        indices = stable_argsort(x, axis, descending=largest)
    else:
        # argpartition finds the k winners in O(n); sorting only them is O(k log k)
        part = np.argpartition(x, n - k if largest else k - 1, axis=axis)
        winners = np.take(part, np.arange(n - k, n) if largest else np.arange(k), axis=axis)
        indices = np.sort(winners, axis=axis)  # index order: ties then sort stably
        if sorted:
            order = stable_argsort(np.take_along_axis(x, indices, axis), axis, descending=largest)
            indices = np.take_along_axis(indices, order, axis)
    return np.take_along_axis(x, indices, axis), indices.astype(INT64, copy=False)


TOPK = register_op("topk", inputs=("x",), outputs=("out", "indices"), infer_meta=topk_meta,
                   backward=sort_backward, save=("indices",),
                   attrs={"k": (int, 1), "axis": (int, -1), "largest": (bool, True), "sorted": (bool, True)})
add_kernel("topk", "cpu", NUMERIC, topk_kernel, name="numpy")


def topk(x, k, axis=None, largest=True, sorted=True, name=None):
    """The k largest (or smallest) entries along `axis` (default -1): (values, int64 indices)."""
    x = as_tensor("topk", "x", x)
    if isinstance(k, Tensor):
        k = k.item()
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool):
        raise invalid_argument("topk", f"k got {type(k).__name__}, expected an int.")
    attrs = {"k": int(k), "axis": _sort_axis("topk", x, axis), "largest": bool(largest), "sorted": bool(sorted)}
    return dispatch(TOPK, (x,), attrs)


__all__ = ["argsort", "put_along_axis", "sort", "take_along_axis", "topk"]
TENSOR_METHODS = list(__all__)
