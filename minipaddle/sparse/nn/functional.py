"""paddle.sparse.nn.functional: activations on a sparse tensor's stored values, and the row softmax.

relu, relu6 and leaky_relu map 0 to 0, so applying them to the stored values is applying them to
the whole tensor. softmax is different: Paddle's sparse softmax normalizes over the *stored* entries
of each row only (an entry that is not stored counts as -inf, not as 0), so a row of a CSR matrix
becomes a probability distribution over its own non-zeros -- the attention pattern of a graph.
"""
from __future__ import annotations

import numpy as np

from ...framework.creation import to_tensor
from ...framework.errors import invalid_argument, unimplemented
from ...framework.ops import activation as A
from ...framework.ops.elementwise import exp
from ...framework.ops.indexing import gather
from ..conversion import csr_entry_rows, linear_keys, sum_into
from ..tensor import SparseCsrTensor, SparseTensor

__all__ = ["relu", "relu6", "leaky_relu", "softmax"]


def _require_sparse(op: str, x) -> None:
    if not isinstance(x, SparseTensor):
        raise invalid_argument(op, f"x must be a sparse tensor, got {type(x).__name__}.",
                               hint=f"use paddle.nn.functional.{op.split('.')[-1]} for a dense tensor.")


def relu(x, name=None):
    """max(x, 0) on the stored values; the pattern stays."""
    _require_sparse("sparse.relu", x)
    return x._with_values(A.relu(x.values()))


def relu6(x, name=None):
    """min(max(x, 0), 6) on the stored values."""
    _require_sparse("sparse.relu6", x)
    return x._with_values(A.relu6(x.values()))


def leaky_relu(x, negative_slope: float = 0.01, name=None):
    """x where x > 0, else negative_slope * x, on the stored values."""
    _require_sparse("sparse.leaky_relu", x)
    return x._with_values(A.leaky_relu(x.values(), negative_slope))


def _row_groups(x) -> np.ndarray:
    """For every stored entry, the id of its row (the entries that share all but the last index)."""
    if isinstance(x, SparseCsrTensor):
        matrix, rows = csr_entry_rows(x.crows().numpy(), x.shape)
        return matrix * x.shape[-2] + rows
    if x.sparse_dim != x.ndim:
        raise unimplemented("sparse.softmax", f"a COO tensor needs every dim sparse, got sparse_dim "
                                              f"{x.sparse_dim} of {x.ndim}.")
    index = x.indices().numpy()
    return linear_keys(index[:-1], x.shape[:-1])


def softmax(x, axis: int = -1, name=None):
    """Softmax over the stored entries of each row (axis=-1 only, as in Paddle).

    >>> a = paddle.sparse.sparse_csr_tensor([0, 2, 3], [0, 2, 1], [1.0, 2.0, 3.0], [2, 3])  # doctest: +SKIP
    >>> paddle.sparse.nn.functional.softmax(a).values().numpy()                            # doctest: +SKIP
    array([0.26894143, 0.7310586 , 1.        ], dtype=float32)
    """
    _require_sparse("sparse.softmax", x)
    if axis not in (-1, x.ndim - 1):
        raise unimplemented("sparse.softmax", f"only axis=-1 is supported (rows are read in order), got {axis}.")
    groups = _row_groups(x)
    if groups.size == 0:
        return x
    _, groups = np.unique(groups, return_inverse=True)
    groups = groups.ravel()
    n_groups = int(groups.max()) + 1
    values = x.values()
    row_max = np.full(n_groups, -np.inf, dtype=values.numpy().dtype)
    np.maximum.at(row_max, groups, values.numpy())
    # subtracting a per-row constant does not change softmax (nor its gradient); it keeps exp finite
    shifted = exp(values - to_tensor(row_max[groups]))
    row_sum = sum_into(n_groups, groups, shifted)
    return x._with_values(shifted / gather(row_sum, to_tensor(groups)))
