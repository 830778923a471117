"""sparse.nn: relu-like activations on the values, and the softmax over each row's stored entries."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
from tests.ops.opcheck import check_grad

from .helpers import coo_parts, random_sparse

S = paddle.sparse
F = S.nn.functional
A = random_sparse((5, 6), 0.4, seed=31) * 4


def _row_softmax_reference(dense: np.ndarray) -> np.ndarray:
    """Softmax over the non-zeros of each row (entries not stored count as -inf)."""
    out = np.zeros_like(dense)
    for i, row in enumerate(dense):
        stored = row != 0
        if stored.any():
            e = np.exp(row[stored] - row[stored].max())
            out[i, stored] = e / e.sum()
    return out


@pytest.mark.parametrize("layout", ["coo", "csr"])
def test_softmax_normalizes_each_rows_stored_entries(layout):
    x = paddle.to_tensor(A)
    x = x.to_sparse_csr() if layout == "csr" else x.to_sparse_coo(2)
    out = F.softmax(x)
    np.testing.assert_allclose(out.to_dense().numpy(), _row_softmax_reference(A), rtol=1e-12)
    assert S.nn.Softmax()(x).nnz() == x.nnz()
    with pytest.raises(NotImplementedError, match="axis=-1"):
        F.softmax(x, axis=0)


def test_softmax_of_a_batched_csr_works_per_matrix():
    batch = random_sparse((2, 3, 4), 0.5, seed=32)
    out = F.softmax(paddle.to_tensor(batch).to_sparse_csr())
    for b in range(2):
        np.testing.assert_allclose(out.to_dense().numpy()[b], _row_softmax_reference(batch[b]))


def test_softmax_gradient():
    index, values = coo_parts(A)

    def f(v):
        return F.softmax(S.sparse_coo_tensor(index, v, A.shape, stop_gradient=False).to_sparse_csr()).values()
    check_grad(f, [values])


def test_relu_family_on_values():
    x = paddle.to_tensor(A).to_sparse_coo(2)
    np.testing.assert_array_equal(F.relu(x).to_dense().numpy(), np.maximum(A, 0))
    np.testing.assert_array_equal(S.nn.ReLU()(x).to_dense().numpy(), np.maximum(A, 0))
    np.testing.assert_array_equal(S.nn.ReLU6()(x).to_dense().numpy(), np.clip(A, 0, 6))
    np.testing.assert_allclose(S.nn.LeakyReLU(0.1)(x).to_dense().numpy(), np.where(A > 0, A, 0.1 * A))
    assert F.relu(x).nnz() == x.nnz()
