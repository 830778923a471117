"""paddle.linalg (framework/ops/matrix.py, decomposition.py): every op's values against numpy,
output dtypes, batching and broadcasting, float64 gradients against central differences, double
grads, Paddle's norm rules, and the errors a learner meets (non-square, singular, not
positive-definite, wrong dtype or argument)."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument, InvalidType, Unimplemented

from .opcheck import check_double_grad, check_grad, torch_or_skip

L = paddle.linalg
RNG = np.random.default_rng(7)


def well_conditioned(*shape) -> np.ndarray:
    """Random square matrices with a dominant diagonal (invertible, far from singular)."""
    n = shape[-1]
    return RNG.normal(size=shape) + 3.0 * np.eye(n)


def spd(*shape) -> np.ndarray:
    a = RNG.normal(size=shape)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


def sym(a):
    """(a + a^T) / 2: the symmetric matrix a perturbation of a stands for (cholesky, eigh read one triangle)."""
    return (a + L.matrix_transpose(a)) * 0.5


def t(a, dtype=None):
    return paddle.to_tensor(a if dtype is None else np.asarray(a, dtype=dtype))


# ---- values against numpy ------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4)], ids=str)
def test_inv_det_slogdet_match_numpy(dtype, shape):
    a = well_conditioned(*shape).astype(dtype)
    tol = 1e-4 if dtype == "float32" else 1e-10
    inv = L.inv(t(a))
    assert inv.dtype == getattr(paddle, dtype) and inv.shape == list(shape)
    np.testing.assert_allclose(inv.numpy(), np.linalg.inv(a), rtol=tol, atol=tol)
    np.testing.assert_allclose(L.det(t(a)).numpy(), np.linalg.det(a), rtol=tol)
    sign, logabs = np.linalg.slogdet(a)
    out = L.slogdet(t(a))
    assert out.shape == [2] + list(shape[:-2]) and out.dtype == getattr(paddle, dtype)
    np.testing.assert_allclose(out.numpy(), np.stack([sign, logabs]), rtol=tol, atol=tol)


def test_det_of_a_singular_and_an_empty_matrix():
    assert L.det(t([[1.0, 2.0], [2.0, 4.0]])).item() == 0.0
    assert L.det(paddle.ones([0, 0])).item() == 1.0
    np.testing.assert_allclose(L.slogdet(t([[1.0, 2.0], [2.0, 4.0]])).numpy(), [0.0, -np.inf])


def test_inv_and_det_of_complex_matrices():
    a = (RNG.normal(size=(3, 3)) + 1j * RNG.normal(size=(3, 3))).astype("complex64")
    assert L.inv(t(a)).dtype == paddle.complex64
    np.testing.assert_allclose(L.inv(t(a)).numpy(), np.linalg.inv(a), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(L.det(t(a)).numpy(), np.linalg.det(a), rtol=1e-4)


def test_solve_vectors_batches_broadcasting_and_left_false():
    a, b = well_conditioned(3, 3), RNG.normal(size=(3, 2))
    np.testing.assert_allclose(L.solve(t(a), t(b)).numpy(), np.linalg.solve(a, b), rtol=1e-10)
    np.testing.assert_allclose(L.solve(t(a), t(b[:, 0])).numpy(), np.linalg.solve(a, b[:, 0]), rtol=1e-10)
    batch = well_conditioned(4, 3, 3)
    assert L.solve(t(batch), t(b)).shape == [4, 3, 2]
    assert L.solve(t(batch), t(b[:, 0])).shape == [4, 3]  # a vector against a batch, as Paddle
    np.testing.assert_allclose(L.solve(t(batch), t(b)).numpy(), np.linalg.solve(batch, b), rtol=1e-10)
    right = L.solve(t(a), t(b.T), left=False)   # X a = b^T
    np.testing.assert_allclose(right.numpy() @ a, b.T, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("transpose", [True, False])
@pytest.mark.parametrize("unitriangular", [True, False])
def test_triangular_solve_reads_one_triangle(upper, transpose, unitriangular):
    a, b = well_conditioned(2, 3, 3), RNG.normal(size=(3, 2))   # the other triangle is noise it must ignore
    tri = np.triu(a) if upper else np.tril(a)
    if unitriangular:
        tri[..., np.arange(3), np.arange(3)] = 1.0
    op = np.swapaxes(tri, -1, -2) if transpose else tri
    out = L.triangular_solve(t(a), t(b), upper=upper, transpose=transpose, unitriangular=unitriangular)
    np.testing.assert_allclose(out.numpy(), np.linalg.solve(op, b), rtol=1e-10)


def test_triangular_solve_with_a_zero_pivot_gives_inf_as_paddle():
    out = L.triangular_solve(t([[0.0, 1.0], [0.0, 3.0]]), t([[1.0], [1.0]]))
    assert np.isinf(out.numpy()[0, 0]) and out.numpy()[1, 0] == pytest.approx(1 / 3)


def test_cholesky_lower_upper_and_solve():
    a = spd(2, 3, 3)
    lower = L.cholesky(t(a))
    np.testing.assert_allclose(lower.numpy(), np.linalg.cholesky(a), rtol=1e-10)
    np.testing.assert_allclose(L.cholesky(t(a), upper=True).numpy(), np.swapaxes(np.linalg.cholesky(a), -1, -2))
    b = RNG.normal(size=(2, 3, 2))
    np.testing.assert_allclose(L.cholesky_solve(t(b), lower).numpy(), np.linalg.solve(a, b), rtol=1e-9)
    upper = L.cholesky(t(a), upper=True)
    np.testing.assert_allclose(L.cholesky_solve(t(b), upper, upper=True).numpy(), np.linalg.solve(a, b), rtol=1e-9)
    np.testing.assert_allclose(L.cholesky_inverse(lower[0]).numpy(), np.linalg.inv(a[0]), rtol=1e-9)


@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 3, 3)], ids=str)
def test_qr_matches_numpy(mode, shape):
    a = RNG.normal(size=shape)
    out = L.qr(t(a), mode=mode)
    want = np.linalg.qr(a, mode=mode)
    if mode == "r":
        np.testing.assert_allclose(out.numpy(), want, rtol=1e-10, atol=1e-12)
        return
    for got, expected in zip(out, want):
        np.testing.assert_allclose(got.numpy(), expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("full_matrices", [False, True])
@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 3, 3)], ids=str)
def test_svd_reconstructs_and_matches_numpy(full_matrices, shape):
    a = RNG.normal(size=shape).astype("float32")
    u, s, vh = L.svd(t(a), full_matrices=full_matrices)
    nu, ns, nvh = np.linalg.svd(a, full_matrices=full_matrices)
    assert (u.shape, s.shape, vh.shape) == (list(nu.shape), list(ns.shape), list(nvh.shape))
    assert s.dtype == paddle.float32
    np.testing.assert_allclose(s.numpy(), ns, rtol=1e-5)
    k = ns.shape[-1]
    rebuilt = (u.numpy()[..., :k] * s.numpy()[..., None, :]) @ vh.numpy()[..., :k, :]
    np.testing.assert_allclose(rebuilt, a, atol=1e-5)
    np.testing.assert_allclose(L.svdvals(t(a)).numpy(), ns, rtol=1e-5)


def test_eigh_and_eigvalsh_match_numpy_reading_one_triangle():
    a = spd(2, 3, 3)
    noisy = a + np.triu(RNG.normal(size=(3, 3)), 1)   # UPLO='L' must not see the upper noise
    w, v = L.eigh(t(noisy))
    nw, nv = np.linalg.eigh(a)
    np.testing.assert_allclose(w.numpy(), nw, rtol=1e-10)
    np.testing.assert_allclose(np.abs(v.numpy()), np.abs(nv), rtol=1e-8, atol=1e-10)   # up to sign
    np.testing.assert_allclose(L.eigvalsh(t(a.swapaxes(-1, -2) + np.tril(a, -1)), UPLO="U").numpy(), nw, rtol=1e-10)
    h = np.array([[2.0, 1 - 1j], [1 + 1j, 3.0]], dtype="complex64")
    hw, hv = L.eigh(t(h))
    assert hw.dtype == paddle.float32 and hv.dtype == paddle.complex64


@pytest.mark.parametrize("dtype, complex_dtype", [("float32", paddle.complex64), ("float64", paddle.complex128)])
def test_eig_and_eigvals_are_complex(dtype, complex_dtype):
    a = RNG.normal(size=(2, 4, 4)).astype(dtype)
    w, v = L.eig(t(a))
    assert w.dtype == complex_dtype and v.dtype == complex_dtype
    av = t(a).astype(w.dtype).numpy() @ v.numpy()
    np.testing.assert_allclose(av, v.numpy() * w.numpy()[..., None, :], atol=1e-4)   # A v = w v
    np.testing.assert_allclose(np.sort_complex(L.eigvals(t(a)).numpy()), np.sort_complex(np.linalg.eigvals(a)),
                               rtol=1e-4, atol=1e-5)
    # real eigenvalues still come back complex (numpy would hand back a real array)
    assert L.eigvals(t(np.diag([1.0, 2.0]).astype(dtype))).dtype == complex_dtype


def test_matrix_power_multi_dot_cross_pinv_match_numpy():
    a = well_conditioned(2, 3, 3)
    for n in (-3, -1, 0, 1, 2, 5):
        np.testing.assert_allclose(L.matrix_power(t(a), n).numpy(), np.linalg.matrix_power(a, n), rtol=1e-9)
    chain = [RNG.normal(size=s) for s in [(4,), (4, 5), (5, 2), (2, 3), (3,)]]
    np.testing.assert_allclose(L.multi_dot([t(m) for m in chain]).numpy(), np.linalg.multi_dot(chain), rtol=1e-10)
    x, y = RNG.normal(size=(3, 2)), RNG.normal(size=(3, 2))
    np.testing.assert_allclose(L.cross(t(x), t(y)).numpy(), np.cross(x, y, axis=0))   # the first dim of size 3
    np.testing.assert_allclose(paddle.cross(t(x.T), t(y.T), axis=1).numpy(), np.cross(x.T, y.T))
    wide = RNG.normal(size=(2, 3, 5))
    np.testing.assert_allclose(L.pinv(t(wide)).numpy(), np.linalg.pinv(wide), rtol=1e-9, atol=1e-12)
    s = spd(3, 3)
    np.testing.assert_allclose(L.pinv(t(s), hermitian=True).numpy(), np.linalg.inv(s), rtol=1e-9)


def test_matrix_rank_thresholds():
    x = t(np.stack([np.eye(3), np.diag([1.0, 1e-17, 0.0]), np.ones((3, 3))]))
    rank = L.matrix_rank(x)
    assert rank.dtype == paddle.int64 and rank.numpy().tolist() == [3, 1, 1]
    assert L.matrix_rank(x, tol=2.0).numpy().tolist() == [0, 0, 1]
    assert L.matrix_rank(x, atol=0.5, rtol=0.0).numpy().tolist() == [3, 1, 1]
    assert L.matrix_rank(x, hermitian=True).numpy().tolist() == [3, 1, 1]


@pytest.mark.parametrize("driver", [None, "gelsy", "gelsd", "gelss", "gels"])
def test_lstsq_outputs_per_driver_as_paddle(driver):
    x, y = RNG.normal(size=(5, 3)).astype("float32"), RNG.normal(size=(5, 2)).astype("float32")
    solution, residuals, rank, values = L.lstsq(t(x), t(y), driver=driver)
    want, want_res, want_rank, want_values = np.linalg.lstsq(x, y)
    np.testing.assert_allclose(solution.numpy(), want, rtol=1e-4, atol=1e-5)
    assert residuals.shape == ([0] if driver in (None, "gelsy") else [2])
    assert (rank.dtype, rank.shape) == ((paddle.int64, [0]) if driver == "gels" else (paddle.int32, []))
    assert values.shape == ([3] if driver in ("gelsd", "gelss") else [0])
    if residuals.shape == [2]:
        np.testing.assert_allclose(residuals.numpy(), want_res, rtol=1e-4)


# ---- norm: Paddle 3's vector / matrix rules ----------------------------------------------
MATRIX_P = ["fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf]


@pytest.mark.parametrize("p", MATRIX_P, ids=str)
@pytest.mark.parametrize("axis", [[0, 1], [2, 0]], ids=str)
def test_norm_over_two_axes_is_the_matrix_norm(p, axis):
    x = RNG.normal(size=(3, 4, 2))
    want = np.linalg.norm(x, ord=p, axis=tuple(axis))
    np.testing.assert_allclose(L.norm(t(x), p=p, axis=axis).numpy(), want, rtol=1e-10)
    np.testing.assert_allclose(L.matrix_norm(t(x), p=p, axis=axis).numpy(), want, rtol=1e-10)
    kept = L.norm(t(x), p=p, axis=axis, keepdim=True)
    assert kept.shape == list(np.linalg.norm(x, ord=p, axis=tuple(axis), keepdims=True).shape)


def test_norm_without_two_axes_is_a_vector_norm():
    x = RNG.normal(size=(2, 3))
    assert L.norm(t(x)).item() == pytest.approx(np.linalg.norm(x.ravel()))       # p=None: 2-norm of all
    assert L.norm(t(x), p=np.inf).item() == pytest.approx(np.abs(x).max())      # flattened, not the matrix inf-norm
    assert L.norm(t(x), p="nuc").item() == pytest.approx(np.linalg.norm(x, "nuc"))  # 'nuc': a 2-D x's own axes
    np.testing.assert_allclose(L.norm(t(x), p="fro", axis=1).numpy(), np.linalg.norm(x, axis=1))
    np.testing.assert_allclose(L.vector_norm(t(x), p=3, axis=[0, 1]).numpy(), np.sum(np.abs(x) ** 3) ** (1 / 3))
    cube = RNG.normal(size=(2, 2, 2))
    assert L.vector_norm(t(cube), p=1, axis=[0, 1, 2]).item() == pytest.approx(np.abs(cube).sum())   # any axes


# ---- gradients (float64, central differences) --------------------------------------
@pytest.mark.parametrize("fn", [L.inv, L.det, L.slogdet, lambda a: L.matrix_power(a, 3),
                                lambda a: L.matrix_power(a, -2), lambda a: L.cond(a), lambda a: L.cond(a, "fro")],
                         ids=["inv", "det", "slogdet", "power3", "power-2", "cond2", "cond_fro"])
def test_square_op_gradients(fn):
    check_grad(fn, [well_conditioned(2, 3, 3)])


def test_solver_gradients_with_broadcast_batches():
    check_grad(L.solve, [well_conditioned(2, 3, 3), RNG.normal(size=(3, 2))])
    check_grad(L.solve, [well_conditioned(3, 3), RNG.normal(size=(3,))])
    check_grad(lambda a, b: L.solve(a, b, left=False), [well_conditioned(3, 3), RNG.normal(size=(2, 3))])
    for upper, transpose, unit in [(True, False, False), (False, True, False), (True, True, True)]:
        check_grad(L.triangular_solve, [well_conditioned(2, 3, 3), RNG.normal(size=(3, 2))],
                   kwargs={"upper": upper, "transpose": transpose, "unitriangular": unit})
    check_grad(L.cholesky_solve, [RNG.normal(size=(3, 2)), np.linalg.cholesky(spd(3, 3))])


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_gradient(upper):
    check_grad(lambda a: L.cholesky(sym(a), upper=upper), [spd(2, 3, 3)])


@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (3, 4)], ids=str)
def test_qr_and_svd_gradients(shape):
    a = RNG.normal(size=shape)
    check_grad(lambda x: L.qr(x)[0], [a])
    check_grad(lambda x: L.qr(x)[1], [a])
    for i in range(3):
        check_grad(L.svd, [a], out_index=i)
    check_grad(L.pinv, [a])


def test_eigh_and_eig_gradients():
    s = spd(3, 3)
    check_grad(lambda a: L.eigh(sym(a))[0], [s])
    check_grad(lambda a: L.eigh(sym(a))[1], [s])
    check_grad(lambda a: L.eigvalsh(sym(a), UPLO="U"), [s])
    a = RNG.normal(size=(3, 3))
    check_grad(lambda x: paddle.real(L.eig(x)[0]), [a])
    check_grad(lambda x: paddle.imag(L.eig(x)[0]), [a])
    check_grad(lambda x: paddle.abs(L.eig(x)[1]), [a])   # |v|: free of each eigenvector's phase


@pytest.mark.parametrize("p", MATRIX_P, ids=str)
def test_matrix_norm_gradients(p):
    check_grad(lambda x: L.norm(x, p=p, axis=[0, 1]), [RNG.normal(size=(3, 2))])


def test_cross_and_multi_dot_gradients():
    check_grad(L.cross, [RNG.normal(size=(2, 3)), RNG.normal(size=(2, 3))])
    check_grad(lambda *m: L.multi_dot(list(m)), [RNG.normal(size=s) for s in [(3,), (3, 4), (4, 2), (2, 2)]])


@pytest.mark.parametrize("name, fn, make", [
    ("inv", L.inv, lambda: [well_conditioned(3, 3)]),
    ("det", L.det, lambda: [well_conditioned(3, 3)]),
    ("solve", L.solve, lambda: [well_conditioned(3, 3), RNG.normal(size=(3, 2))]),
    ("triangular_solve", lambda a, b: L.triangular_solve(a, b, upper=False), lambda: [well_conditioned(3, 3),
                                                                                       RNG.normal(size=(3, 1))]),
    ("cholesky", lambda a: L.cholesky(sym(a)), lambda: [spd(3, 3)]),
    ("eigh", lambda a: L.eigvalsh(sym(a)), lambda: [spd(3, 3)]),
    ("svd", lambda a: L.svd(a)[1], lambda: [RNG.normal(size=(3, 2))]),
    ("qr", lambda a: L.qr(a)[1], lambda: [RNG.normal(size=(3, 2))]),
    ("cross", L.cross, lambda: [RNG.normal(size=(3,)), RNG.normal(size=(3,))]),
], ids=lambda v: v if isinstance(v, str) else "")
def test_double_grads(name, fn, make):
    check_double_grad(fn, make())


def test_gradients_agree_with_pytorch():
    torch = torch_or_skip()
    a = spd(3, 3)
    c = RNG.normal(size=(3, 3))
    x = paddle.to_tensor(a, stop_gradient=False)
    (L.eigh(x)[1] ** 2 * t(c)).sum().backward()   # squared: free of each vector's sign, which LAPACKs pick
    xt = torch.tensor(a, requires_grad=True)
    (torch.linalg.eigh(xt)[1] ** 2 * torch.tensor(c)).sum().backward()
    expected = xt.grad.numpy()
    np.testing.assert_allclose(x.grad.numpy(), 0.5 * (expected + expected.T), rtol=1e-8, atol=1e-10)
    x = paddle.to_tensor(a, stop_gradient=False)
    (L.svd(x)[0] ** 2 * t(c)).sum().backward()
    xt = torch.tensor(a, requires_grad=True)
    (torch.linalg.svd(xt, full_matrices=False)[0] ** 2 * torch.tensor(c)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-8, atol=1e-10)


def test_no_gradient_where_paddle_has_none():
    x = paddle.to_tensor(well_conditioned(3, 3), stop_gradient=False)
    for out in (L.eigvals(x), L.matrix_rank(x), L.lstsq(x, paddle.ones([3, 1], dtype="float64"))[0]):
        assert out.stop_gradient


# ---- errors ------------------------------------------------------------------------
def test_non_square_and_non_matrix_inputs_are_named():
    for fn in (L.inv, L.det, L.slogdet, L.cholesky, L.eig, L.eigh, L.eigvals):
        with pytest.raises(InvalidArgument, match=r"must be a square matrix .* 2 and 3 \(shape \[2, 3\]\)"):
            fn(paddle.ones([2, 3]))
    with pytest.raises(InvalidArgument, match=r"inv: argument 'x' has shape \[3\]; expected a matrix"):
        L.inv(paddle.ones([3]))
    with pytest.raises(InvalidArgument, match="only .* fro|must be a square matrix"):
        L.cond(paddle.ones([2, 3]), p="fro")


def test_singular_matrices_are_named_with_their_batch_entry():
    singular = t([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(InvalidArgument, match="inv: the matrix is singular"):
        L.inv(singular)
    with pytest.raises(InvalidArgument, match="solve: the matrix is singular"):
        L.solve(singular, paddle.ones([2, 1]))
    with pytest.raises(InvalidArgument, match=r"inv: the matrix \(batch entry \(1,\)\) is singular"):
        L.inv(t(np.stack([np.eye(2), np.ones((2, 2))])))
    with pytest.raises(InvalidArgument, match="inv: the matrix is singular"):
        L.matrix_power(singular, -1)


def test_cholesky_of_a_matrix_that_is_not_positive_definite():
    with pytest.raises(InvalidArgument, match="cholesky: the matrix is not positive-definite"):
        L.cholesky(t([[1.0, 2.0], [2.0, 1.0]]))
    with pytest.raises(InvalidArgument, match=r"cholesky: the matrix \(batch entry \(0, 1\)\) is not positive"):
        L.cholesky(t(np.stack([[np.eye(2), -np.eye(2)]])))


def test_argument_errors():
    with pytest.raises(InvalidArgument, match="inv: argument 'x' has dtype int64, expected float32 or float64"):
        L.inv(t([[1, 2], [3, 4]]))
    with pytest.raises(InvalidArgument, match="solve: complex input"):
        L.solve(t(np.eye(2, dtype="complex64")), t(np.eye(2, dtype="complex64")))
    with pytest.raises(InvalidArgument, match=r"solve: x's size \(2\) must equal y's second-to-last dim \(3\)"):
        L.solve(t(np.eye(2)), t(np.ones((3, 1))))
    with pytest.raises(InvalidArgument, match="qr: mode got 'x'"):
        L.qr(paddle.ones([3, 3]), mode="x")
    with pytest.raises(InvalidArgument, match="eigh: UPLO got 'X'"):
        L.eigh(paddle.ones([2, 2]), UPLO="X")
    with pytest.raises(InvalidArgument, match=r"cross: x has shape \[2, 4\]; no dim has size 3"):
        L.cross(paddle.ones([2, 4]), paddle.ones([2, 4]))
    with pytest.raises(InvalidArgument, match=r"cross: dim 0 of x has size 2"):
        L.cross(paddle.ones([2, 3]), paddle.ones([2, 3]), axis=0)
    with pytest.raises(InvalidArgument, match=r"multi_dot: x\[0\] of shape \[2, 3\] and x\[1\] of shape \[4, 2\]"):
        L.multi_dot([paddle.ones([2, 3]), paddle.ones([4, 2])])
    with pytest.raises(InvalidArgument, match="multi_dot: x must be a list of at least 2"):
        L.multi_dot([paddle.ones([2, 2])])
    with pytest.raises(InvalidType, match="matrix_power: n got float"):
        L.matrix_power(paddle.ones([2, 2]), 2.0)
    with pytest.raises(InvalidArgument, match="lstsq: driver got 'lu'"):
        L.lstsq(paddle.ones([3, 2]), paddle.ones([3, 1]), driver="lu")
    with pytest.raises(InvalidArgument, match="matrix_norm: p got 3; over two axes"):
        L.norm(paddle.ones([2, 2]), p=3, axis=[0, 1])
    with pytest.raises(InvalidArgument, match="matrix_rank: pass tol alone"):
        L.matrix_rank(paddle.ones([2, 2]), tol=1.0, atol=1.0)
    with pytest.raises(InvalidArgument, match=r"cholesky_solve: x has shape \[2\]"):
        L.cholesky_solve(paddle.ones([2]), paddle.ones([2, 2]))


def test_gradients_that_are_not_defined_say_so():
    x = paddle.to_tensor(RNG.normal(size=(4, 3)), stop_gradient=False)
    with pytest.raises(Unimplemented, match="qr: the gradient of mode='complete'"):
        L.qr(x, mode="complete")[0].sum().backward()
    with pytest.raises(Unimplemented, match="svd: the gradient with full_matrices=True"):
        L.svd(x, full_matrices=True)[0].sum().backward()


# ---- the public names --------------------------------------------------------------
def test_paddle_names_and_tensor_methods():
    assert paddle.inverse is L.inv and paddle.cholesky is L.cholesky and paddle.cross is L.cross
    a = t(spd(3, 3))
    np.testing.assert_allclose(a.inverse().numpy(), L.inv(a).numpy())
    np.testing.assert_allclose(a.cholesky().numpy(), L.cholesky(a).numpy())
    np.testing.assert_allclose(a.solve(paddle.ones([3, 1], dtype="float64")).numpy(),
                               L.solve(a, paddle.ones([3, 1], dtype="float64")).numpy())
    for name in ("slogdet", "qr", "eig", "eigvals", "eigvalsh", "matrix_power", "pinv", "lstsq", "cond", "cross",
                 "cholesky_solve", "norm"):
        assert hasattr(paddle.Tensor, name), name
    assert not hasattr(paddle.Tensor, "det")   # as in Paddle


def test_describe_shows_the_backward_rule():
    from minipaddle.framework.ops import describe
    d = describe("inverse")
    assert d["backward_name"] == "inv_grad" and d["kernels"][0]["name"] == "lapack"
