"""Moving and reducing sparse entries: transpose, sum, reshape.

Each rewrites the index arrays in numpy and hands the values on (transpose, reshape) or adds
entries that land on one position (sum, through coalesce): the values keep their graph.
"""
from __future__ import annotations

import numpy as np

from ..framework.creation import to_tensor
from ..framework.errors import invalid_argument, unimplemented
from ..framework.ops.elementwise import cast
from ..framework.ops.manipulation import reshape as dense_reshape
from ..framework.ops.reduction import sum as dense_sum
from ..framework.tensor import Tensor
from .conversion import coalesce, coo_to_csr, csr_entry_rows, csr_to_coo, linear_keys
from .tensor import SparseCooTensor, SparseCsrTensor, SparseTensor


def _require_sparse(op: str, x) -> None:
    if not isinstance(x, SparseTensor):
        raise invalid_argument(op, f"x must be a sparse tensor, got {type(x).__name__}.")


def transpose(x, perm, name=None):
    """x with its dims permuted by `perm` (COO keeps the entry order; CSR is re-sorted by row)."""
    _require_sparse("sparse.transpose", x)
    perm = [int(p) for p in perm]
    if sorted(perm) != list(range(x.ndim)):
        raise invalid_argument("sparse.transpose", f"perm must be a permutation of 0..{x.ndim - 1}, got {perm}.")
    coo = csr_to_coo(x) if isinstance(x, SparseCsrTensor) else x
    if perm[coo.sparse_dim:] != list(range(coo.sparse_dim, x.ndim)):
        raise unimplemented("sparse.transpose", f"perm {perm} moves a dense dim (x has sparse_dim "
                                                f"{coo.sparse_dim}); only the sparse dims may be permuted.")
    index = coo.indices().numpy()[perm[:coo.sparse_dim]]
    out = SparseCooTensor(to_tensor(np.ascontiguousarray(index)), coo.values(), [x.shape[p] for p in perm])
    return coo_to_csr(out) if isinstance(x, SparseCsrTensor) else out


def _sum_values(values: Tensor, dtype) -> Tensor:
    if dtype is not None:
        return cast(values, dtype)
    if values.dtype.name in ("int8", "int16", "int32", "uint8", "bool"):
        return cast(values, "int64")     # as paddle.sum does for integers
    return values


def sum(x, axis=None, dtype=None, keepdim: bool = False, name=None):  # noqa: A001 - Paddle's name
    """Sum of x's entries: all of them (axis=None) or along one axis; the result is sparse too.

    A CSR tensor sums over everything or its last axis (as in Paddle); a row with no entries stays
    empty in the result.
    """
    _require_sparse("sparse.sum", x)
    if isinstance(axis, (list, tuple)):
        if len(axis) != 1:
            raise unimplemented("sparse.sum", f"axis takes one int (or None), got {list(axis)}.")
        axis = axis[0]
    values = _sum_values(x.values(), dtype)
    if axis is None:
        total = dense_reshape(dense_sum(values), [1])
        out_ndim = x.ndim if keepdim or isinstance(x, SparseCsrTensor) else 1
        if isinstance(x, SparseCsrTensor):
            return SparseCsrTensor(to_tensor(np.array([0, 1])), to_tensor(np.array([0])), total, [1] * 2)
        return SparseCooTensor(to_tensor(np.zeros((out_ndim, 1), np.int64)), total, [1] * out_ndim)
    if not -x.ndim <= int(axis) < x.ndim:
        raise invalid_argument("sparse.sum", f"axis {axis} is out of range for a {x.ndim}-D tensor.")
    axis = int(axis) % x.ndim
    if isinstance(x, SparseCsrTensor):
        return _sum_csr_rows(x, values, axis)
    return _sum_coo_axis(x, values, axis, keepdim)


def _sum_csr_rows(x: SparseCsrTensor, values: Tensor, axis: int) -> SparseCsrTensor:
    if axis != x.ndim - 1:
        raise unimplemented("sparse.sum", f"a SparseCsrTensor sums over axis None or -1 only, got axis {axis}.",
                            hint="convert first: paddle.sparse.sum(x.to_sparse_coo(x.ndim), axis).")
    matrix, rows = csr_entry_rows(x.crows().numpy(), x.shape)
    index = np.stack(([matrix] if x.ndim == 3 else []) + [rows, np.zeros_like(rows)])
    summed = coalesce(SparseCooTensor(to_tensor(index), values, x.shape[:-1] + [1]))
    return coo_to_csr(summed)


def _sum_coo_axis(x: SparseCooTensor, values: Tensor, axis: int, keepdim: bool) -> SparseCooTensor:
    if axis >= x.sparse_dim:                           # a dense dim: sum inside each stored slice
        values = dense_sum(values, axis=axis - x.sparse_dim + 1, keepdim=keepdim)
        shape = [s for d, s in enumerate(x.shape) if d != axis or keepdim]
        if keepdim:
            shape[axis] = 1
        return SparseCooTensor(x.indices(), values, shape)
    index = x.indices().numpy()
    if keepdim:
        index = index.copy()
        index[axis] = 0
        shape = list(x.shape)
        shape[axis] = 1
    else:
        index = np.delete(index, axis, axis=0)
        shape = x.shape[:axis] + x.shape[axis + 1:]
    return coalesce(SparseCooTensor(to_tensor(index), values, shape))


def reshape(x, shape, name=None):
    """x with a new shape of the same size; only the sparse dims may be reshaped (as in Paddle)."""
    _require_sparse("sparse.reshape", x)
    coo = csr_to_coo(x) if isinstance(x, SparseCsrTensor) else x
    shape = [int(s) for s in shape]
    size = int(np.prod(x.shape))
    if shape.count(-1) == 1:
        known = int(np.prod([s for s in shape if s != -1]))
        shape[shape.index(-1)] = size // known if known else 0
    dense_shape = coo.shape[coo.sparse_dim:]
    if int(np.prod(shape)) != size or shape[len(shape) - len(dense_shape):] != dense_shape:
        raise invalid_argument("sparse.reshape", f"cannot reshape {x.shape} into {shape}: the size must stay "
                                                 f"{size} and the dense dims {dense_shape} must stay last.")
    new_sparse = shape[:len(shape) - len(dense_shape)]
    keys = linear_keys(coo.indices().numpy(), coo.shape[:coo.sparse_dim])
    index = np.stack(np.unravel_index(keys, new_sparse)).astype(np.int64).reshape(len(new_sparse), -1)
    out = SparseCooTensor(to_tensor(index), coo.values(), shape)
    return coo_to_csr(out) if isinstance(x, SparseCsrTensor) else out

