"""add / subtract / multiply / divide: values against the dense computation, patterns as Paddle stores them."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument
from tests.ops.opcheck import check_grad

from .helpers import coo_parts, random_sparse

S = paddle.sparse
A = random_sparse((4, 5), 0.4, seed=11)
B = random_sparse((4, 5), 0.4, seed=12)
LAYOUTS = {"coo": lambda t: t.to_sparse_coo(2), "csr": lambda t: t.to_sparse_csr()}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("op, ref", [(S.add, np.add), (S.subtract, np.subtract), (S.multiply, np.multiply)])
def test_union_ops_match_dense_and_store_the_union(layout, op, ref):
    to = LAYOUTS[layout]
    out = op(to(paddle.to_tensor(A)), to(paddle.to_tensor(B)))
    assert out.is_sparse_coo() == (layout == "coo")
    np.testing.assert_allclose(out.to_dense().numpy(), ref(A, B))
    assert out.nnz() == np.count_nonzero((A != 0) | (B != 0))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_divide_keeps_every_position(layout):
    to = LAYOUTS[layout]
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = A / B
        out = S.divide(to(paddle.to_tensor(A)), to(paddle.to_tensor(B)))
    assert out.nnz() == A.size
    np.testing.assert_allclose(out.to_dense().numpy(), expected)


def test_scalar_multiply_and_divide_scale_the_values():
    x = paddle.to_tensor(A).to_sparse_coo(2)
    np.testing.assert_allclose(S.multiply(x, 2.0).to_dense().numpy(), A * 2)
    np.testing.assert_allclose(S.divide(x, 4.0).to_dense().numpy(), A / 4)
    assert S.multiply(x, 2.0).nnz() == x.nnz()


def test_add_gradient_reaches_both_operands():
    ia, va = coo_parts(A)
    ib, vb = coo_parts(B)

    def f(a_values, b_values):
        x = S.sparse_coo_tensor(ia, a_values, A.shape, stop_gradient=False)
        y = S.sparse_coo_tensor(ib, b_values, B.shape, stop_gradient=False)
        return S.multiply(S.add(x, y), x).to_dense()
    check_grad(f, [va, vb])


def test_bad_operands_are_refused():
    x = paddle.to_tensor(A).to_sparse_coo(2)
    with pytest.raises(InvalidArgument, match=r"same shape, got \[4, 5\] and \[5, 4\]"):
        S.add(x, paddle.to_tensor(A.T).to_sparse_coo(2))
    with pytest.raises(NotImplementedError, match="same layout"):
        S.add(x, x.to_sparse_csr())
    with pytest.raises(NotImplementedError, match="sparse tensors"):
        S.add(x, paddle.to_tensor(A))
    assert S.is_same_shape(x, paddle.to_tensor(A)) and not S.is_same_shape(x, paddle.ones([5, 4]))
