"""Elementwise sparse (op) sparse: add, subtract, multiply, divide.

Both operands have one layout and one shape. add, subtract and multiply work on the union of the
two patterns (Paddle's result: a position stored in either input is stored in the output, even when
the product there is 0). divide keeps every position, because 0 / 0 is NaN where neither input
stores anything -- Paddle's result is the full pattern too. multiply and divide also take a Python
number, which scales the values.
"""
from __future__ import annotations

import numbers

import numpy as np

from ..framework.creation import to_tensor
from ..framework.errors import invalid_argument, unimplemented
from ..framework.ops.manipulation import reshape
from ..framework.tensor import Tensor
from .conversion import coalesce, linear_keys, sum_into, to_dense, to_sparse_coo, to_sparse_csr
from .tensor import SparseCooTensor, SparseCsrTensor, SparseTensor


def _check_operands(op: str, x, y) -> None:
    if not isinstance(x, SparseTensor) or not isinstance(y, SparseTensor):
        got = f"x is {type(x).__name__}, y is {type(y).__name__}"
        if isinstance(y, Tensor) or isinstance(x, Tensor):   # Paddle: no sparse (op) dense kernel
            raise unimplemented(op, f"both operands must be sparse tensors; {got}.",
                                hint="convert the dense one with .to_sparse_coo(n) or .to_sparse_csr(), or "
                                     "the sparse one with .to_dense().")
        raise invalid_argument(op, f"both operands must be sparse tensors; {got}.",
                               hint="only multiply and divide take a number.")
    if x.is_sparse_coo() != y.is_sparse_coo():
        raise unimplemented(op, "x and y must have the same layout (both COO or both CSR).",
                            hint="convert one with to_sparse_coo(n) or to_sparse_csr().")
    if x.shape != y.shape:
        raise invalid_argument(op, f"x and y must have the same shape, got {x.shape} and {y.shape}.",
                               hint="sparse ops do not broadcast.")


def _on_union(x: SparseTensor, y: SparseTensor):
    """(pattern, x's values on it, y's values on it): zeros where a tensor stores nothing."""
    if isinstance(x, SparseCsrTensor):
        x, y = to_sparse_coo(x, x.ndim), to_sparse_coo(y, y.ndim)
    x, y = coalesce(x), coalesce(y)
    if x.sparse_dim != y.sparse_dim:
        raise invalid_argument("sparse elementwise", f"x and y must have the same sparse_dim, got "
                                                     f"{x.sparse_dim} and {y.sparse_dim}.")
    sparse_shape = x.shape[:x.sparse_dim]
    keys_x = linear_keys(x.indices().numpy(), sparse_shape)
    keys_y = linear_keys(y.indices().numpy(), sparse_shape)
    union = np.union1d(keys_x, keys_y)
    x_values = sum_into(union.size, np.searchsorted(union, keys_x), x.values())
    y_values = sum_into(union.size, np.searchsorted(union, keys_y), y.values())
    index = np.stack(np.unravel_index(union, sparse_shape)).astype(np.int64).reshape(len(sparse_shape), -1)
    return index, x_values, y_values


def _result(like: SparseTensor, index: np.ndarray, values: Tensor) -> SparseTensor:
    out = SparseCooTensor(to_tensor(index), values, like.shape)
    return to_sparse_csr(out) if isinstance(like, SparseCsrTensor) else out


def add(x, y, name=None):
    """x + y for two sparse tensors of one layout and shape; the result stores the union of both patterns."""
    _check_operands("sparse.add", x, y)
    index, xv, yv = _on_union(x, y)
    return _result(x, index, xv + yv)


def subtract(x, y, name=None):
    """x - y for two sparse tensors of one layout and shape (union of both patterns)."""
    _check_operands("sparse.subtract", x, y)
    index, xv, yv = _on_union(x, y)
    return _result(x, index, xv - yv)


def multiply(x, y, name=None):
    """x * y elementwise (union of both patterns, as Paddle stores it), or x's values times a number."""
    if isinstance(x, SparseTensor) and isinstance(y, numbers.Number) and not isinstance(y, bool):
        return x._with_values(x.values() * y)
    _check_operands("sparse.multiply", x, y)
    index, xv, yv = _on_union(x, y)
    return _result(x, index, xv * yv)


def divide(x, y, name=None):
    """x / y elementwise over every position (0/0 is NaN, so nothing stays implicit), or x's values / a number."""
    if isinstance(x, SparseTensor) and isinstance(y, numbers.Number) and not isinstance(y, bool):
        return x._with_values(x.values() / y)
    _check_operands("sparse.divide", x, y)
    quotient = to_dense(x) / to_dense(y)
    sparse_dim = x.ndim if isinstance(x, SparseCsrTensor) else x.sparse_dim
    sparse_shape = x.shape[:sparse_dim]
    index = np.indices(sparse_shape).reshape(sparse_dim, -1).astype(np.int64)
    values = reshape(quotient, [int(np.prod(sparse_shape))] + x.shape[sparse_dim:])
    return _result(x, index, values)


def is_same_shape(x, y) -> bool:
    """Whether x and y (sparse or dense) have the same shape."""
    return list(x.shape) == list(y.shape)
