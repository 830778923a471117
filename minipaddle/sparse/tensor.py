"""The two sparse layouts: SparseCooTensor (indices + values) and SparseCsrTensor (crows + cols + values).

Each holds ordinary minipaddle Tensors: the index tensors are int64 and never need grad, the values
tensor carries the numbers and the autograd history. An op on a sparse tensor computes new values
with dense ops (or a registered op such as the CSR matmul), so gradients reach `values` through the
normal engine; `x.grad` is that gradient laid out on x's pattern.
"""
from __future__ import annotations

import numpy as np

from ..framework.errors import invalid_argument, unimplemented
from ..framework.tensor import Tensor


class SparseTensor:
    """What both layouts share: shape, dtype, place, stop_gradient, grad and the predicates."""

    _values: Tensor
    _shape: tuple

    # ---- metadata ------------------------------------------------------------------------------
    @property
    def shape(self) -> list[int]:
        return list(self._shape)

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def place(self):
        return self._values.place

    @property
    def ndim(self) -> int:
        return len(self._shape)

    def dim(self) -> int:
        return len(self._shape)

    def values(self) -> Tensor:
        """The stored numbers: [nnz] for CSR, [nnz, *dense_dims] for COO (shares the graph)."""
        return self._values

    def is_sparse(self) -> bool:
        return True

    def is_dense(self) -> bool:
        return False

    # ---- autograd: everything lives on the values tensor -----------------------------------------
    @property
    def stop_gradient(self) -> bool:
        return self._values.stop_gradient

    @stop_gradient.setter
    def stop_gradient(self, value: bool) -> None:
        self._values.stop_gradient = bool(value)

    @property
    def grad(self):
        """The gradient on this tensor's pattern (None before backward reaches the values)."""
        g = self._values.grad
        return None if g is None else self._with_values(g)

    def clear_grad(self) -> None:
        self._values.clear_grad()

    def detach(self):
        return self._with_values(self._values.detach())

    def numpy(self):
        raise unimplemented("Tensor.numpy", f"{type(self).__name__} has no dense array of its own.",
                            hint="use x.to_dense().numpy(), or x.values().numpy() for the stored numbers.")

    def __repr__(self) -> str:
        parts = ", ".join(f"{k}={np.array2string(v, separator=', ')}" for k, v in self._repr_parts())
        return (f"Tensor(shape={self.shape}, dtype={self.dtype}, place={self.place}, "
                f"stop_gradient={self.stop_gradient}, {parts})")

    # Tensor-style methods are attached in minipaddle/sparse/__init__.py (to_dense, coalesce, ...).


class SparseCooTensor(SparseTensor):
    """COO layout: `indices` [sparse_dim, nnz] (int64) and `values` [nnz, *dense_dims].

    Entries may repeat and come in any order until `coalesce()` sums the repeats and sorts them.
    """

    def __init__(self, indices: Tensor, values: Tensor, shape) -> None:
        self._indices = indices
        self._values = values
        self._shape = tuple(int(s) for s in shape)

    def indices(self) -> Tensor:
        return self._indices

    def nnz(self) -> int:
        return int(self._indices.shape[1])

    @property
    def sparse_dim(self) -> int:
        return int(self._indices.shape[0])

    def is_sparse_coo(self) -> bool:
        return True

    def is_sparse_csr(self) -> bool:
        return False

    def crows(self) -> Tensor:
        raise invalid_argument("crows", "this method is only effective for SparseCsrTensor; x is COO.",
                               hint="x.to_sparse_csr().crows()")

    def cols(self) -> Tensor:
        raise invalid_argument("cols", "this method is only effective for SparseCsrTensor; x is COO.",
                               hint="x.to_sparse_csr().cols()")

    def _with_values(self, values: Tensor) -> "SparseCooTensor":
        return SparseCooTensor(self._indices, values, self._shape)

    def _repr_parts(self):
        return [("indices", self._indices.numpy()), ("values", self._values.numpy())]


class SparseCsrTensor(SparseTensor):
    """CSR layout of a matrix [rows, cols] or a batch [batch, rows, cols].

    Row i's entries are `cols[crows[i]:crows[i+1]]` and `values[crows[i]:crows[i+1]]`; a batch
    stacks one crows array of length rows+1 per matrix.
    """

    def __init__(self, crows: Tensor, cols: Tensor, values: Tensor, shape) -> None:
        self._crows = crows
        self._cols = cols
        self._values = values
        self._shape = tuple(int(s) for s in shape)

    def crows(self) -> Tensor:
        return self._crows

    def cols(self) -> Tensor:
        return self._cols

    def nnz(self) -> int:
        return int(self._cols.shape[0])

    def is_sparse_coo(self) -> bool:
        return False

    def is_sparse_csr(self) -> bool:
        return True

    def indices(self) -> Tensor:
        raise invalid_argument("indices", "this method is only effective for SparseCooTensor; x is CSR.",
                               hint="x.to_sparse_coo(x.ndim).indices()")

    def _with_values(self, values: Tensor) -> "SparseCsrTensor":
        return SparseCsrTensor(self._crows, self._cols, values, self._shape)

    def _repr_parts(self):
        return [("crows", self._crows.numpy()), ("cols", self._cols.numpy()), ("values", self._values.numpy())]
