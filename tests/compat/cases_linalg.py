"""Golden cases: linalg (issue: scientific computing) -- paddle.linalg's solvers, decompositions,
norms and paddle.einsum: values, output dtypes and shapes, gradients and the errors Paddle raises.

Eigen- and singular vectors are returned through abs() or a reconstruction: their signs are LAPACK's
choice, not part of the API."""
from __future__ import annotations

from .harness import case, outcome

A = [[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]]    # symmetric positive-definite
B = [[1.0, 2.0], [0.0, 1.0], [3.0, -1.0]]
W = [[1.0, -2.0, 0.5], [0.3, 0.7, -1.0], [2.0, 0.1, 0.4]]   # cotangent weights


@case
def inv_det_slogdet(paddle):
    x = paddle.to_tensor(A, stop_gradient=False)
    w = paddle.to_tensor(W)
    (paddle.linalg.inv(x) * w).sum().backward()
    grad_inv = x.grad
    y = paddle.to_tensor(A, stop_gradient=False)
    paddle.linalg.det(y).backward()
    batch = paddle.to_tensor([A, W])
    return {"inv": paddle.linalg.inv(x), "inverse": paddle.inverse(x), "method": x.inverse(), "grad inv": grad_inv,
            "det": paddle.linalg.det(x), "grad det": y.grad, "batched det": paddle.linalg.det(batch),
            "slogdet": paddle.linalg.slogdet(batch), "slogdet singular": paddle.linalg.slogdet(
                paddle.to_tensor([[1.0, 2.0], [2.0, 4.0]])),
            "det singular": paddle.linalg.det(paddle.to_tensor([[1.0, 2.0], [2.0, 4.0]])),
            "float64": paddle.linalg.inv(paddle.to_tensor(A, dtype="float64"))}


@case
def inv_det_errors(paddle):
    singular = paddle.to_tensor([[1.0, 2.0], [2.0, 4.0]])
    return {"inv singular": outcome(lambda: paddle.linalg.inv(singular)),
            "inv non-square": outcome(lambda: paddle.linalg.inv(paddle.ones([2, 3]))),
            "inv 1-D": outcome(lambda: paddle.linalg.inv(paddle.ones([3]))),
            "det non-square": outcome(lambda: paddle.linalg.det(paddle.ones([2, 3]))),
            "solve singular": outcome(lambda: paddle.linalg.solve(singular, paddle.ones([2, 1]))),
            "cholesky not positive-definite": outcome(
                lambda: paddle.linalg.cholesky(paddle.to_tensor([[1.0, 2.0], [2.0, 1.0]]))),
            "matrix_power singular": outcome(lambda: paddle.linalg.matrix_power(singular, -1))}


@case
def solve(paddle):
    x = paddle.to_tensor(A, stop_gradient=False)
    y = paddle.to_tensor(B, stop_gradient=False)
    out = paddle.linalg.solve(x, y)
    (out * paddle.to_tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])).sum().backward()
    batch = paddle.to_tensor([A, [[2.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 0.0, 4.0]]])
    return {"matrix": out, "grad x": x.grad, "grad y": y.grad,
            "vector": paddle.linalg.solve(x, paddle.to_tensor([1.0, 2.0, 3.0])),
            "batch with a shared y": paddle.linalg.solve(batch, paddle.to_tensor(B)),
            "batch with a vector": paddle.linalg.solve(batch, paddle.to_tensor([1.0, 2.0, 3.0])),
            "left=False": paddle.linalg.solve(x, paddle.to_tensor([[1.0, 2.0, 3.0]]), left=False),
            "mismatch": outcome(lambda: paddle.linalg.solve(x, paddle.ones([2, 1])))}


@case
def triangular_solve(paddle):
    x = paddle.to_tensor(W, stop_gradient=False)
    y = paddle.to_tensor(B, stop_gradient=False)
    out = paddle.linalg.triangular_solve(x, y)
    (out * paddle.to_tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])).sum().backward()
    return {"upper": out, "grad x": x.grad, "grad y": y.grad,
            "lower": paddle.linalg.triangular_solve(x, y, upper=False),
            "transpose": paddle.linalg.triangular_solve(x, y, transpose=True),
            "unitriangular": paddle.linalg.triangular_solve(x, y, upper=False, unitriangular=True),
            "broadcast batch": paddle.linalg.triangular_solve(paddle.to_tensor([W, A]), y),
            "1-D y": outcome(lambda: paddle.linalg.triangular_solve(x, paddle.ones([3])))}


@case
def cholesky(paddle):
    x = paddle.to_tensor(A, stop_gradient=False)
    (paddle.linalg.cholesky(x) * paddle.to_tensor(W)).sum().backward()
    grad_lower = x.grad
    z = paddle.to_tensor(A, stop_gradient=False)
    (paddle.linalg.cholesky(z, upper=True) * paddle.to_tensor(W)).sum().backward()
    lower = paddle.linalg.cholesky(x)
    return {"lower": lower, "upper": paddle.linalg.cholesky(x, upper=True), "grad lower": grad_lower,
            "grad upper": z.grad, "paddle.cholesky": paddle.cholesky(x), "method": x.cholesky(),
            "cholesky_solve": paddle.linalg.cholesky_solve(paddle.to_tensor(B), lower),
            "cholesky_solve upper": paddle.linalg.cholesky_solve(paddle.to_tensor(B),
                                                                 paddle.linalg.cholesky(x, upper=True), upper=True),
            "cholesky_inverse": paddle.linalg.cholesky_inverse(lower),
            "cholesky_solve 1-D": outcome(lambda: paddle.linalg.cholesky_solve(paddle.ones([3]), lower))}


@case
def qr(paddle):
    x = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]])
    q, r = paddle.linalg.qr(x)
    qc, rc = paddle.linalg.qr(x, mode="complete")
    qw, rw = paddle.linalg.qr(paddle.to_tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 7.0]]))
    return {"q": q, "r": r, "r mode": paddle.linalg.qr(x, mode="r"), "complete shapes": [qc.shape, rc.shape],
            "rebuilt": paddle.matmul(q, r), "wide": [qw, rw],
            "bad mode": outcome(lambda: paddle.linalg.qr(x, mode="x")),
            "1-D": outcome(lambda: paddle.linalg.qr(paddle.ones([3])))}


@case
def svd(paddle):
    x = paddle.to_tensor(B, stop_gradient=False)
    u, s, vh = paddle.linalg.svd(x)
    (s * paddle.to_tensor([1.0, 2.0])).sum().backward()
    uf, sf, vhf = paddle.linalg.svd(x, full_matrices=True)
    return {"s": s, "|u|": paddle.abs(u), "|vh|": paddle.abs(vh), "grad of s": x.grad,
            "rebuilt": paddle.matmul(u * s.unsqueeze(0), vh),
            "full shapes": [uf.shape, sf.shape, vhf.shape], "svdvals": paddle.linalg.svdvals(x),
            "batched shapes": [t.shape for t in paddle.linalg.svd(paddle.ones([2, 3, 4]))]}


@case
def eigh_and_eigvalsh(paddle):
    x = paddle.to_tensor(A, stop_gradient=False)
    w, v = paddle.linalg.eigh(x)
    (w * paddle.to_tensor([1.0, -2.0, 0.5])).sum().backward()
    return {"w": w, "|v|": paddle.abs(v), "grad of w": x.grad, "UPLO U": paddle.linalg.eigh(x, UPLO="U")[0],
            "eigvalsh": paddle.linalg.eigvalsh(x), "dtypes": [str(w.dtype), str(v.dtype)],
            "bad UPLO": outcome(lambda: paddle.linalg.eigh(x, UPLO="X"))}


@case
def eig_and_eigvals(paddle):
    x = paddle.to_tensor([[2.0, 1.0], [0.5, 3.0]], stop_gradient=False)
    w, v = paddle.linalg.eig(x)
    paddle.real(w).sum().backward()
    rotation = paddle.to_tensor([[0.0, -1.0], [1.0, 0.0]], dtype="float64")
    ew = paddle.linalg.eigvals(rotation)
    return {"real w": paddle.real(w), "dtypes": [str(w.dtype), str(v.dtype)],
            "A v - w v": paddle.abs(paddle.matmul(x.astype("complex64"), v) - v * w.unsqueeze(0)).max() < 1e-5,
            "grad of trace": x.grad, "rotation real": paddle.real(ew), "rotation |imag|": paddle.abs(paddle.imag(ew)),
            "eigvals dtype": str(ew.dtype),
            "non-square": outcome(lambda: paddle.linalg.eigvals(paddle.ones([2, 3])))}


@case
def matrix_power_multi_dot_cross(paddle):
    x = paddle.to_tensor([[2.0, 1.0], [1.0, 3.0]])
    u = paddle.to_tensor([[1.0, 2.0, 3.0], [0.0, 1.0, 0.0]], stop_gradient=False)
    # both need a gradient: Paddle 3.3.1's cross_grad crashes when only one does
    v = paddle.to_tensor([[3.0, 2.0, 1.0], [1.0, 0.0, 0.0]], stop_gradient=False)
    weights = paddle.to_tensor([[1.0, 2.0, 3.0], [0.0, 1.0, 0.0]])
    (paddle.linalg.cross(u, v, axis=1) * weights).sum().backward()
    return {"power 3": paddle.linalg.matrix_power(x, 3), "power 0": paddle.linalg.matrix_power(x, 0),
            "power -2": paddle.linalg.matrix_power(x, -2), "method": x.matrix_power(2),
            "batched": paddle.linalg.matrix_power(paddle.ones([2, 2, 2]), 2),
            "multi_dot": paddle.linalg.multi_dot([paddle.ones([3]), paddle.ones([3, 4]), paddle.ones([4])]),
            "multi_dot matrices": paddle.linalg.multi_dot([x, x, paddle.ones([2, 3])]),
            "multi_dot one": outcome(lambda: paddle.linalg.multi_dot([x])),
            "multi_dot mismatch": outcome(lambda: paddle.linalg.multi_dot([paddle.ones([2, 3]), paddle.ones([4, 2])])),
            "cross": paddle.linalg.cross(u, v, axis=1), "cross default axis": paddle.cross(u, v),
            "cross int": paddle.cross(paddle.to_tensor([1, 2, 3]), paddle.to_tensor([3, 2, 1])),
            "grad u": u.grad, "grad v": v.grad,
            "cross no size 3": outcome(lambda: paddle.cross(paddle.ones([2, 4]), paddle.ones([2, 4]))),
            "cross bad axis": outcome(lambda: paddle.cross(u, v, axis=0))}


@case
def pinv_lstsq_rank_cond(paddle):
    x = paddle.to_tensor(B)
    sq = paddle.to_tensor([[2.0, 1.0], [1.0, 3.0]])
    y = paddle.to_tensor([[1.0], [2.0], [2.0]])
    shapes = {}
    for driver in (None, "gelsy", "gelsd", "gelss", "gels"):
        out = paddle.linalg.lstsq(x, y, driver=driver)
        shapes[str(driver)] = [[t.shape, str(t.dtype)] for t in out]
    return {"pinv": paddle.linalg.pinv(x), "pinv hermitian": paddle.linalg.pinv(sq, hermitian=True),
            "lstsq": paddle.linalg.lstsq(x, y)[0], "lstsq gelsd": list(paddle.linalg.lstsq(x, y, driver="gelsd")),
            "lstsq shapes": shapes,
            "rank": paddle.linalg.matrix_rank(paddle.to_tensor([[1.0, 2.0], [2.0, 4.0]])),
            "rank batch": paddle.linalg.matrix_rank(paddle.ones([3, 2, 2])),
            "rank tol": paddle.linalg.matrix_rank(sq, tol=2.0),
            "rank hermitian": paddle.linalg.matrix_rank(sq, hermitian=True),
            "cond": {str(p): paddle.linalg.cond(sq, p=p) for p in (None, "fro", "nuc", 1, -1, 2, -2)},
            "cond non-square": paddle.linalg.cond(x),
            "cond non-square fro": outcome(lambda: paddle.linalg.cond(x, p="fro"))}


@case
def norm_vector_or_matrix(paddle):
    x = paddle.to_tensor([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]])
    out = {}
    for p in (None, "fro", "nuc", 1, 2, -1, -2):
        out[f"p={p} axis=None"] = paddle.linalg.norm(x, p=p)
        out[f"p={p} axis=[0, 1]"] = paddle.linalg.norm(x, p=p, axis=[0, 1])
    for p in (None, "fro", 0, 1, 3, 0.5):
        out[f"p={p} axis=1"] = paddle.linalg.norm(x, p=p, axis=1)
    out["keepdim"] = paddle.linalg.norm(x, p=2, axis=[0, 1], keepdim=True)
    out["3 axes"] = paddle.linalg.norm(paddle.ones([2, 2, 2]), p=2, axis=[0, 1, 2])
    out["nuc 3-D axes"] = paddle.linalg.norm(paddle.ones([2, 2, 2]), p="nuc", axis=[0, 2])
    out["p=3 over two axes"] = outcome(lambda: paddle.linalg.norm(x, p=3, axis=[0, 1]))
    out["bad p"] = outcome(lambda: paddle.linalg.norm(x, p="abc"))
    out["nuc 3-D"] = outcome(lambda: paddle.linalg.norm(paddle.ones([2, 2, 2]), p="nuc"))
    out["vector_norm"] = [paddle.linalg.vector_norm(x), paddle.linalg.vector_norm(x, p=1, axis=[0, 1])]
    out["matrix_norm"] = [paddle.linalg.matrix_norm(x), paddle.linalg.matrix_norm(x, p=1)]
    out["method"] = x.norm(p="nuc")
    return out


@case
def norm_gradients(paddle):
    grads = {}
    for p in ("fro", "nuc", 1, 2, float("inf")):
        x = paddle.to_tensor([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.5]], stop_gradient=False)
        paddle.linalg.norm(x, p=p, axis=[0, 1]).backward()
        grads[str(p)] = x.grad
    return grads


@case
def einsum(paddle):
    a = paddle.to_tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], stop_gradient=False)
    b = paddle.to_tensor([[1.0, 0.0], [2.0, 1.0], [0.0, 3.0]], stop_gradient=False)
    (paddle.einsum("ij,jk->ik", a, b) * paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    m = paddle.arange(9, dtype="float32").reshape([3, 3])
    q = paddle.arange(24, dtype="float32").reshape([1, 2, 3, 4]) / 10
    k = paddle.arange(16, dtype="float32").reshape([1, 2, 2, 4]) / 10
    return {"matmul": paddle.einsum("ij,jk->ik", a, b), "implicit": paddle.einsum("ij,jk", a, b),
            "grad a": a.grad, "grad b": b.grad, "transpose": paddle.einsum("ij->ji", a),
            "implicit sort": paddle.einsum("ba", a),
            "trace": paddle.einsum("ii", m), "diagonal": paddle.einsum("ii->i", m), "sum": paddle.einsum("ij->", a),
            "dot": paddle.einsum("i,i", a[0], a[1]), "outer": paddle.einsum("i,j->ij", a[0], b[0]),
            "attention": paddle.einsum("bhqd,bhkd->bhqk", q, k),
            "ellipsis": paddle.einsum("...ij,...jk", paddle.ones([2, 2, 3]), b),
            "broadcast a size-1 dim": paddle.einsum("ij,ij->ij", a[:1], a),
            "three operands": paddle.einsum("ab,bc,cd->ad", a, b, m[:2, :2]),
            "size mismatch": outcome(lambda: paddle.einsum("ij,jk->ik", a, a)),
            "unknown output label": outcome(lambda: paddle.einsum("ij->k", a))}
