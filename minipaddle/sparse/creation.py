"""paddle.sparse.sparse_coo_tensor and sparse_csr_tensor: build a sparse tensor and check its layout.

Every check happens here, once, so the ops can trust their inputs: indices are integers of rank 2
and inside the shape, crows start at 0, never decrease and end at nnz, cols are inside the shape,
and there are as many values as indices.
"""
from __future__ import annotations

import numpy as np

from ..framework.creation import to_tensor
from ..framework.errors import invalid_argument, invalid_type
from ..framework.ops.elementwise import cast
from ..framework.tensor import Tensor
from .tensor import SparseCooTensor, SparseCsrTensor


def _index_array(op: str, what: str, data) -> np.ndarray:
    array = data.numpy() if isinstance(data, Tensor) else np.asarray(data)
    if array.size == 0 and array.dtype.kind == "f":   # an empty list is a float array to numpy
        array = array.astype(np.int64)
    if array.dtype.kind not in "iu":
        raise invalid_type(op, f"the dtype of {what} must be 'int8', 'int16', 'int32' or 'int64', "
                               f"got {array.dtype}.")
    return array.astype(np.int64)


def _values_tensor(values, dtype, place, stop_gradient: bool) -> Tensor:
    """The values as a Tensor: a Tensor passed with stop_gradient=False keeps its graph (gradients
    flow back to it); with the default stop_gradient=True it is cut off, as Paddle does."""
    if isinstance(values, Tensor):
        out = values if dtype is None else cast(values, dtype)
        if stop_gradient:
            return out.detach()
        if out.stop_gradient:       # a leaf of our own that needs grad: share storage, not history
            out = out.detach()
            out.stop_gradient = False
        return out
    return to_tensor(values, dtype=dtype, place=place, stop_gradient=stop_gradient)


def sparse_coo_tensor(indices, values, shape=None, dtype=None, place=None,
                      stop_gradient: bool = True) -> SparseCooTensor:
    """A COO sparse tensor: `values[k]` sits at position `indices[:, k]`.

    `shape` defaults to the smallest that holds every index. Repeated indices are kept (they add up
    in `to_dense()`; `coalesce()` merges them).

    >>> x = paddle.sparse.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], [2, 2])   # doctest: +SKIP
    >>> x.to_dense().numpy()                                                        # doctest: +SKIP
    array([[0., 1.], [2., 0.]], dtype=float32)
    """
    op = "sparse_coo_tensor"
    index = _index_array(op, "indices", indices)
    if index.ndim != 2:
        raise invalid_argument(op, f"'indices' must be 2-D [sparse_dim, nnz], got shape {list(index.shape)}.")
    value = _values_tensor(values, dtype, place, stop_gradient)
    nnz = index.shape[1]
    if value.ndim == 0 or value.shape[0] != nnz:
        raise invalid_argument(op, f"the indices and values must have the same number of non-zeros, "
                                   f"got {nnz} and {value.shape[0] if value.ndim else 'a 0-D value'}.")
    dense_shape = list(value.shape[1:])
    smallest = [int(m) + 1 for m in index.max(axis=1)] if nnz else [0] * index.shape[0]
    if shape is None:
        shape = smallest + dense_shape
    shape = [int(s) for s in shape]
    if len(shape) != index.shape[0] + len(dense_shape):
        raise invalid_argument(op, f"len(shape) must be sparse_dim ({index.shape[0]}) + dense_dim "
                                   f"({len(dense_shape)}), got shape {shape}.")
    if nnz and (index.min() < 0 or any(m > s for m, s in zip(smallest, shape))):
        raise invalid_argument(op, f"indices lie outside the shape {shape}: they need at least "
                                   f"{smallest} and the smallest index is {int(index.min())}.",
                               hint="every index i of dim d must satisfy 0 <= i < shape[d].")
    if shape[index.shape[0]:] != dense_shape:
        raise invalid_argument(op, f"the dense dims of shape {shape[index.shape[0]:]} must equal "
                                   f"values.shape[1:] {dense_shape}.")
    return SparseCooTensor(to_tensor(index), value, shape)


def sparse_csr_tensor(crows, cols, values, shape=None, dtype=None, place=None,
                      stop_gradient: bool = True) -> SparseCsrTensor:
    """A CSR sparse matrix [rows, cols] (or a batch [batch, rows, cols]).

    Row i holds `values[crows[i]:crows[i+1]]` at columns `cols[crows[i]:crows[i+1]]`.

    >>> x = paddle.sparse.sparse_csr_tensor([0, 1, 2], [1, 0], [1.0, 2.0], [2, 2])   # doctest: +SKIP
    """
    op = "sparse_csr_tensor"
    crow = _index_array(op, "crows", crows)
    col = _index_array(op, "cols", cols)
    value = _values_tensor(values, dtype, place, stop_gradient)
    if crow.ndim != 1 or col.ndim != 1 or value.ndim != 1:
        raise invalid_argument(op, f"crows, cols and values must be 1-D, got shapes {list(crow.shape)}, "
                                   f"{list(col.shape)} and {value.shape}.")
    if col.shape[0] != value.shape[0]:
        raise invalid_argument(op, f"the length of cols ({col.shape[0]}) must equal the length of values "
                                   f"({value.shape[0]}).")
    if shape is None:
        shape = [crow.shape[0] - 1, int(col.max()) + 1 if col.size else 0]
    shape = [int(s) for s in shape]
    check_csr_layout(op, crow, col, shape)
    return SparseCsrTensor(to_tensor(crow), to_tensor(col), value, shape)


def check_csr_layout(op: str, crows: np.ndarray, cols: np.ndarray, shape: list) -> None:
    """Raise InvalidArgument unless crows/cols describe a valid CSR matrix (or batch) of `shape`."""
    if len(shape) not in (2, 3):
        raise invalid_argument(op, f"a SparseCsrTensor is a 2-D or 3-D matrix, got shape {shape}.")
    batch, rows, n_cols = ([1] + shape)[-3:]
    if crows.shape[0] != batch * (rows + 1):
        raise invalid_argument(op, f"the length of crows ({crows.shape[0]}) must be rows + 1 = {rows + 1}"
                                   f"{f' per matrix, times the batch {batch}' if batch > 1 else ''} "
                                   f"for shape {shape}.")
    per_matrix = crows.reshape(batch, rows + 1)
    if np.any(per_matrix[:, 0] != 0):
        raise invalid_argument(op, f"every matrix's crows must start at 0, got {per_matrix[:, 0].tolist()}.")
    if np.any(np.diff(per_matrix, axis=1) < 0):
        bad = int(np.argmax(np.diff(per_matrix, axis=1).ravel() < 0))
        raise invalid_argument(op, f"crows must never decrease (row pointers), but crows goes from "
                                   f"{crows[bad]} down to {crows[bad + 1]} at position {bad}.")
    if int(per_matrix[:, -1].sum()) != cols.shape[0]:
        raise invalid_argument(op, f"the last value of crows must equal the number of non-zeros "
                                   f"({cols.shape[0]}), got {per_matrix[:, -1].tolist()}.")
    if cols.size and (cols.min() < 0 or cols.max() >= n_cols):
        raise invalid_argument(op, f"cols must lie in [0, {n_cols}) for shape {shape}, got values from "
                                   f"{int(cols.min())} to {int(cols.max())}.")
