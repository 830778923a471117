"""sparse.matmul and friends: the CSR kernel against scipy, gradients against central differences."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument
from tests.ops.opcheck import check_double_grad, check_grad

from .helpers import coo_parts, random_sparse

S = paddle.sparse


@pytest.mark.parametrize("m, k, n, density", [(7, 5, 3, 0.3), (40, 60, 8, 0.05), (3, 4, 2, 0.0), (1, 1, 1, 1.0)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_csr_times_dense_matches_scipy(m, k, n, density, dtype):
    a = random_sparse((m, k), density, seed=m * k, dtype=dtype)
    b = np.random.default_rng(1).standard_normal((k, n)).astype(dtype)
    out = S.matmul(paddle.to_tensor(a).to_sparse_csr(), paddle.to_tensor(b))
    assert out.dtype == getattr(paddle, dtype) and not out.is_sparse()
    np.testing.assert_allclose(out.numpy(), sp.csr_matrix(a) @ b, rtol=1e-5, atol=1e-5)


def test_coo_times_dense_with_repeated_entries():
    x = S.sparse_coo_tensor([[0, 1, 0], [1, 0, 1]], [1.0, 2.0, 3.0], [2, 2])
    y = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose(S.matmul(x, y).numpy(), x.to_dense().numpy() @ y.numpy())


def _product(values, dense, index, shape):
    x = S.sparse_coo_tensor(index, values, shape, stop_gradient=False)
    return S.matmul(x.to_sparse_csr(), dense)


def test_matmul_gradients_to_values_and_dense_operand():
    a = random_sparse((5, 4), 0.5, seed=2)
    index, values = coo_parts(a)
    dense = np.random.default_rng(3).standard_normal((4, 3))
    check_grad(lambda v, d: _product(v, d, index, a.shape), [values, dense])
    check_double_grad(lambda v, d: _product(v, d, index, a.shape), [values, dense])


def test_sparse_times_sparse_keeps_layout_and_matches_dense():
    a, b = random_sparse((4, 5), 0.4, seed=4), random_sparse((5, 3), 0.4, seed=5)
    for to_layout in (lambda t: t.to_sparse_coo(2), lambda t: t.to_sparse_csr()):
        out = S.matmul(to_layout(paddle.to_tensor(a)), to_layout(paddle.to_tensor(b)))
        assert out.is_sparse_coo() == to_layout(paddle.to_tensor(a)).is_sparse_coo()
        np.testing.assert_allclose(out.to_dense().numpy(), a @ b)
        reach = (np.abs(a) > 0).astype(float) @ (np.abs(b) > 0).astype(float)
        assert out.nnz() == np.count_nonzero(reach)


def test_mv_addmm_masked_matmul_match_dense():
    a = random_sparse((4, 6), 0.5, seed=6)
    x = paddle.to_tensor(a).to_sparse_csr()
    vec = np.arange(6.0)
    np.testing.assert_allclose(S.mv(x, paddle.to_tensor(vec)).numpy(), a @ vec)
    y, base = np.ones((6, 2)), np.full((4, 2), 3.0)
    got = S.addmm(paddle.to_tensor(base), x, paddle.to_tensor(y), beta=0.5, alpha=2.0)
    np.testing.assert_allclose(got.numpy(), 0.5 * base + 2.0 * (a @ y))
    p, q = np.random.default_rng(7).standard_normal((4, 3)), np.random.default_rng(8).standard_normal((3, 6))
    for mask in (x, x.to_sparse_coo(2)):
        out = S.masked_matmul(paddle.to_tensor(p), paddle.to_tensor(q), mask)
        np.testing.assert_allclose(out.to_dense().numpy(), np.where(a != 0, p @ q, 0.0))


def test_masked_matmul_gradients():
    mask = paddle.to_tensor(random_sparse((3, 4), 0.5, seed=9)).to_sparse_csr()
    rng = np.random.default_rng(10)
    check_grad(lambda p, q: S.masked_matmul(p, q, mask).values(),
               [rng.standard_normal((3, 2)), rng.standard_normal((2, 4))])


def test_matmul_shape_and_dtype_errors_name_both_operands():
    x = paddle.to_tensor(random_sparse((3, 4), 0.5)).to_sparse_csr()
    with pytest.raises(InvalidArgument, match=r"got x of shape \[3, 4\] and y of shape \[5, 2\]"):
        S.matmul(x, paddle.ones([5, 2], dtype="float64"))
    with pytest.raises(InvalidArgument, match="float64.*float32"):
        S.matmul(x, paddle.ones([4, 2]))
    with pytest.raises(NotImplementedError, match="paddle.matmul"):
        S.matmul(paddle.ones([3, 4]), paddle.ones([4, 2]))


def test_sparse_times_sparse_gradient_reaches_both_values():
    a, b = random_sparse((3, 4), 0.5, seed=13), random_sparse((4, 2), 0.5, seed=14)
    (ia, va), (ib, vb) = coo_parts(a), coo_parts(b)

    def f(x_values, y_values):
        x = S.sparse_coo_tensor(ia, x_values, a.shape, stop_gradient=False)
        y = S.sparse_coo_tensor(ib, y_values, b.shape, stop_gradient=False)
        return S.matmul(x, y).to_dense()
    check_grad(f, [va, vb])


def test_the_csr_kernel_compiles_on_first_use_not_at_import():
    code = ("import sys, minipaddle as paddle; paddle.sparse.sparse_coo_tensor([[0], [0]], [1.0]);"
            "print('minipaddle.sparse.kernels' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_batched_csr_times_batched_dense_and_its_gradients():
    a = random_sparse((2, 3, 4), 0.5, seed=15)
    index, values = coo_parts(a)
    dense = np.random.default_rng(16).standard_normal((2, 4, 3))
    out = S.matmul(paddle.to_tensor(a).to_sparse_csr(), paddle.to_tensor(dense))
    np.testing.assert_allclose(out.numpy(), a @ dense)
    check_grad(lambda v, d: S.matmul(S.sparse_coo_tensor(index, v, a.shape, stop_gradient=False), d),
               [values, dense])
    with pytest.raises(InvalidArgument, match="same batch size"):
        S.matmul(paddle.to_tensor(a).to_sparse_csr(), paddle.ones([3, 4, 3], dtype="float64"))
