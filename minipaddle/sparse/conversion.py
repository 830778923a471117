"""Moving between layouts: dense <-> COO <-> CSR, and coalesce.

The index arithmetic is numpy on the int64 index arrays (no gradient ever flows there). The values
move with dense ops -- `gather` to pick, `scatter(..., overwrite=False)` to add up -- so every
conversion is differentiable with respect to the values (and to the dense tensor it came from).
"""
from __future__ import annotations

import numpy as np

from ..framework.creation import to_tensor, zeros
from ..framework.errors import invalid_argument, unimplemented
from ..framework.ops.indexing import gather, scatter
from ..framework.ops.manipulation import reshape
from ..framework.tensor import Tensor
from .tensor import SparseCooTensor, SparseCsrTensor, SparseTensor


# ---- index helpers ----------------------------------------------------------------------------
def linear_keys(indices: np.ndarray, sparse_shape) -> np.ndarray:
    """Row-major position of each COO entry among the sparse dims (sorting keys sorts entries)."""
    if indices.shape[0] == 0:
        return np.zeros(indices.shape[1], dtype=np.int64)
    return np.ravel_multi_index(tuple(indices), tuple(sparse_shape)).astype(np.int64)


def csr_entry_rows(crows: np.ndarray, shape) -> tuple[np.ndarray, np.ndarray]:
    """(matrix index, row index) of every stored entry of a CSR matrix or batch."""
    batch, rows = ([1] + list(shape))[-3:-1]
    per_matrix = crows.reshape(batch, rows + 1)
    counts = np.diff(per_matrix, axis=1).ravel()
    flat_rows = np.repeat(np.arange(batch * rows, dtype=np.int64), counts)
    return flat_rows // max(rows, 1), flat_rows % max(rows, 1)


def sum_into(n: int, positions: np.ndarray, values: Tensor) -> Tensor:
    """out[p] = sum of values[k] with positions[k] == p, for p < n (a segment sum that autograd follows)."""
    out = zeros([n] + values.shape[1:], dtype=values.dtype)
    if positions.size == 0:
        return out
    return scatter(out, to_tensor(positions), values, overwrite=False)


# ---- dense ------------------------------------------------------------------------------------
def to_dense(x: SparseTensor) -> Tensor:
    """The dense tensor x stands for; repeated COO entries add up."""
    if isinstance(x, SparseCsrTensor):
        x = csr_to_coo(x)
    sparse_shape = x.shape[:x.sparse_dim]
    keys = linear_keys(x.indices().numpy(), sparse_shape)
    flat = sum_into(int(np.prod(sparse_shape, dtype=np.int64)), keys, x.values())
    return reshape(flat, x.shape)


def dense_to_coo(x: Tensor, sparse_dim: int) -> SparseCooTensor:
    """The entries of x whose slice over the last ndim - sparse_dim dims is not all zero."""
    if isinstance(sparse_dim, bool) or not isinstance(sparse_dim, (int, np.integer)) \
            or not 0 < sparse_dim <= x.ndim:
        raise invalid_argument("to_sparse_coo", f"sparse_dim must be an int in [1, {x.ndim}] for a "
                                                f"{x.ndim}-D tensor, got {sparse_dim!r}.")
    sparse_shape = x.shape[:sparse_dim]
    data = x.numpy().reshape(sparse_shape + [-1]) if x.size else x.numpy().reshape(sparse_shape + [0])
    index = np.stack(np.nonzero(np.any(data != 0, axis=-1))).astype(np.int64).reshape(sparse_dim, -1)
    flat = reshape(x, [int(np.prod(sparse_shape))] + x.shape[sparse_dim:])
    values = gather(flat, to_tensor(linear_keys(index, sparse_shape)))
    return SparseCooTensor(to_tensor(index), values, x.shape)


def dense_to_csr(x: Tensor) -> SparseCsrTensor:
    if x.ndim not in (2, 3):
        raise invalid_argument("to_sparse_csr", f"a SparseCsrTensor is 2-D or 3-D, got a tensor of shape "
                                                f"{x.shape}.")
    return coo_to_csr(dense_to_coo(x, x.ndim))


# ---- COO <-> CSR ------------------------------------------------------------------------------
def coalesce(x: SparseCooTensor) -> SparseCooTensor:
    """Sum repeated indices and sort the entries row-major (what most kernels expect)."""
    if not isinstance(x, SparseCooTensor):
        raise unimplemented("coalesce", f"coalesce works on a SparseCooTensor, got {type(x).__name__}.",
                            hint="a CSR tensor is kept sorted and has no repeats to merge.")
    sparse_shape = x.shape[:x.sparse_dim]
    keys = linear_keys(x.indices().numpy(), sparse_shape)
    if keys.size == 0 or np.all(keys[1:] > keys[:-1]):
        return x                                   # sorted, no repeats: nothing to do
    unique, inverse = np.unique(keys, return_inverse=True)
    index = np.stack(np.unravel_index(unique, sparse_shape)).astype(np.int64)
    values = sum_into(unique.size, inverse.ravel(), x.values())
    return SparseCooTensor(to_tensor(index), values, x.shape)


def coo_to_csr(x: SparseCooTensor) -> SparseCsrTensor:
    if x.sparse_dim != x.ndim or x.ndim not in (2, 3):
        raise unimplemented("to_sparse_csr", f"only a COO tensor whose dims are all sparse and that is 2-D "
                                             f"or 3-D converts to CSR; got shape {x.shape} with sparse_dim "
                                             f"{x.sparse_dim}.", hint="go through x.to_dense().to_sparse_csr().")
    x = coalesce(x)
    index = x.indices().numpy()
    batch, rows = ([1] + x.shape)[-3:-1]
    matrix = index[0] if x.ndim == 3 else np.zeros(index.shape[1], dtype=np.int64)
    counts = np.bincount(matrix * rows + index[-2], minlength=batch * rows).reshape(batch, rows)
    crows = np.concatenate([np.zeros((batch, 1), np.int64), np.cumsum(counts, axis=1)], axis=1)
    return SparseCsrTensor(to_tensor(crows.ravel()), to_tensor(index[-1].copy()), x.values(), x.shape)


def csr_to_coo(x: SparseCsrTensor) -> SparseCooTensor:
    matrix, row = csr_entry_rows(x.crows().numpy(), x.shape)
    parts = ([matrix] if x.ndim == 3 else []) + [row, x.cols().numpy()]
    return SparseCooTensor(to_tensor(np.stack(parts).astype(np.int64)), x.values(), x.shape)


# ---- the Tensor-style methods -----------------------------------------------------------------
def to_sparse_coo(x, sparse_dim: int) -> SparseCooTensor:
    """x as COO with `sparse_dim` sparse dims (x dense, COO or CSR)."""
    if isinstance(x, SparseCsrTensor):
        return csr_to_coo(x) if sparse_dim == x.ndim else dense_to_coo(to_dense(x), sparse_dim)
    if isinstance(x, SparseCooTensor):
        return x if sparse_dim == x.sparse_dim else dense_to_coo(to_dense(x), sparse_dim)
    return dense_to_coo(x, sparse_dim)


def to_sparse_csr(x) -> SparseCsrTensor:
    """x as CSR (x dense, COO or CSR)."""
    if isinstance(x, SparseCsrTensor):
        return x
    if isinstance(x, SparseCooTensor):
        return coo_to_csr(x)
    return dense_to_csr(x)
