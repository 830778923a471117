"""paddle.linalg's decompositions -- qr, svd, eig, eigh -- and what is built on them: svdvals,
eigvals, eigvalsh, pinv, lstsq, matrix_rank, cond and the matrix norms (the solvers: matrix.py).

Kernels are numpy.linalg's LAPACK calls, batched over the leading dims. The backward rules are
the standard results (Murray 2016; Walter & Lehmann 2018; PyTorch's FunctionsManual), written in
minipaddle ops so double grad works. With E[j, k] = s_k^2 - s_j^2 (svd) or w_k - w_j (eig, eigh):

    qr    A = QR (m >= n)   M = R dR^T - dQ^T Q,  dA = (dQ + Q copyltu(M)) R^-T
    svd   A = U S V^T       dA = U [skew(U^T dU)/E S + S skew(V^T dV)/E + diag(dS)] V^T
                                 + (I - U U^T) dU S^-1 V^T + U S^-1 dV^T (I - V V^T)
    eigh  A = V W V^T       dA = sym(V [(V^T dV)/E + diag(dW)] V^T)
    eig   A = V W V^-1      dA = V^-H [(V^H dV - V^H V Re diag(V^H dV))/conj(E) + diag(dW)] V^H

These hold for distinct singular values / eigenvalues: where two coincide, E has a zero and the
gradient of the vectors is not defined (the values' gradient still is).
"""
from __future__ import annotations

import numpy as np

from ..dispatch import dispatch
from ..errors import invalid_argument, unimplemented
from ..registry import MetaTensor, add_kernel, register_op
from ..tensor import Tensor
from .common import COMPLEX, as_tensor
from .complex import conj_if_complex, real
from . import elementwise, reduction
from .elementwise import cast, where
from .joining import concat
from .linalg import matmul
from .manipulation import squeeze, transpose, tril, unsqueeze
from .matrix import (LINALG_FLOATS, adjoint, eye_like, inv, matrix_transpose, require_matrix, require_real,
                     triangular_solve)
from .reduction import vector_norm


def _real_dtype(dtype: np.dtype) -> np.dtype:
    return np.empty(0, dtype).real.dtype   # complex64 -> float32; a real dtype stays itself


def _complex_dtype(dtype: np.dtype) -> np.dtype:
    return np.result_type(dtype, np.complex64)   # float32 -> complex64, float64 -> complex128


def _off_diagonal_over(x: Tensor, e: Tensor) -> Tensor:
    """x / e off the diagonal, 0 on it (e's diagonal is 0: an eigenvalue minus itself)."""
    eye = eye_like(x, x.shape[-1])
    return x / (e + eye) * (1.0 - eye)


# ---- qr ----------------------------------------------------------------------------
def qr_meta(x, mode="reduced"):
    require_matrix("qr", x, square=False)
    m, n = x.shape[-2], x.shape[-1]
    k = min(m, n) if -1 not in (m, n) else -1
    batch = tuple(x.shape[:-2])
    q_cols, r_rows = (m, m) if mode == "complete" else (k, k)
    return MetaTensor(batch + (m, q_cols), x.dtype), MetaTensor(batch + (r_rows, n), x.dtype)


def _qr_tall_grad(q: Tensor, r: Tensor, dq: Tensor, dr: Tensor) -> Tensor:
    """The m >= n rule: dA = (dQ + Q copyltu(M)) R^-T with M = R dR^T - dQ^T Q."""
    m = matmul(r, dr, transpose_y=True) - matmul(dq, q, transpose_x=True)
    copyltu = tril(m) + matrix_transpose(tril(m, -1))   # M's lower triangle mirrored upward
    b = dq + matmul(q, copyltu)
    return matrix_transpose(triangular_solve(r, matrix_transpose(b), upper=True))   # b R^-T


def qr_grad(node, dq, dr):
    m, n = node.input_metas[0][0][-2:]
    if node.mode == "complete" and m > n:
        raise unimplemented("qr", "the gradient of mode='complete' with more rows than columns is not "
                                  "defined (Q's extra columns are arbitrary), as in Paddle.",
                            hint="use mode='reduced'.")
    if m >= n:
        return _qr_tall_grad(node.q, node.r, dq, dr)
    # wide A = [X | Y] with X square: X = Q U, Y = Q V (R = [U | V])
    y = node.x[..., :, m:]
    dv = dr[..., :, m:]
    dx = _qr_tall_grad(node.q, node.r[..., :, :m], dq + matmul(y, dv, transpose_y=True), dr[..., :, :m])
    return concat([dx, matmul(node.q, dv)], axis=-1)


def qr_kernel(x, mode="reduced"):
    q, r = np.linalg.qr(x, mode="complete" if mode == "complete" else "reduced")
    return q, r


QR = register_op("qr", inputs=("x",), outputs=("q", "r"), infer_meta=qr_meta, backward=qr_grad,
                 save=("x", "q", "r"), attrs={"mode": (str, "reduced")})
add_kernel("qr", "cpu", LINALG_FLOATS + COMPLEX, qr_kernel, name="lapack")


def qr(x, mode="reduced", name=None):
    """QR decomposition x = Q R, Q with orthonormal columns, R upper triangular.

    mode 'reduced' (Q [m, k], R [k, n], k = min(m, n)), 'complete' (Q [m, m], R [m, n]) or 'r'
    (R alone)."""
    x = as_tensor("qr", "x", x)
    if mode not in ("reduced", "complete", "r"):
        raise invalid_argument("qr", f"mode got {mode!r}, expected 'reduced' (default), 'r' or 'complete'.")
    q, r = dispatch(QR, (x,), {"mode": "reduced" if mode == "r" else mode})
    return r if mode == "r" else (q, r)


# ---- svd ---------------------------------------------------------------------------
def svd_meta(x, full_matrices=False):
    require_matrix("svd", x, square=False)
    m, n = x.shape[-2], x.shape[-1]
    k = min(m, n) if -1 not in (m, n) else -1
    batch = tuple(x.shape[:-2])
    u_cols, vh_rows = (m, n) if full_matrices else (k, k)
    return (MetaTensor(batch + (m, u_cols), x.dtype), MetaTensor(batch + (k,), _real_dtype(x.dtype)),
            MetaTensor(batch + (vh_rows, n), x.dtype))


def svd_grad(node, du, ds, dvh):
    """The rule of the module docstring (PyTorch's svd_backward, real case)."""
    m, n = node.input_metas[0][0][-2:]
    k = min(m, n)
    if node.full_matrices and m != n:
        raise unimplemented("svd", "the gradient with full_matrices=True of a non-square matrix is not "
                                   "defined (the extra singular vectors are arbitrary).",
                            hint="use full_matrices=False.")
    u, s, vh = node.u, node.s, node.vh
    v, dv = matrix_transpose(vh), matrix_transpose(dvh)
    s_row, s_col = unsqueeze(s, -2), unsqueeze(s, -1)   # X * s_row = X S, s_col * X = S X
    s2 = s * s
    e = unsqueeze(s2, -2) - unsqueeze(s2, -1)
    utdu, vtdv = matmul(u, du, transpose_x=True), matmul(v, dv, transpose_x=True)
    inner = _off_diagonal_over((utdu - matrix_transpose(utdu)) * s_row + s_col * (vtdv - matrix_transpose(vtdv)), e)
    inner = inner + eye_like(inner, k) * unsqueeze(ds, -2)
    grad = matmul(matmul(u, inner), vh)
    if m > k:   # the part of dU outside U's columns
        grad = grad + matmul((du - matmul(u, utdu)) / s_row, vh)
    if n > k:
        grad = grad + matmul(u, matrix_transpose((dv - matmul(v, vtdv)) / s_row))
    return grad


def svd_kernel(x, full_matrices=False):
    return tuple(np.linalg.svd(x, full_matrices=full_matrices))


SVD = register_op("svd", inputs=("x",), outputs=("u", "s", "vh"), infer_meta=svd_meta, backward=svd_grad,
                  save=("u", "s", "vh"), attrs={"full_matrices": (bool, False)})
add_kernel("svd", "cpu", LINALG_FLOATS + COMPLEX, svd_kernel, name="lapack")


def svd(x, full_matrices=False, name=None, *, out=None):
    """Singular value decomposition x = U diag(S) VH; returns (U, S, VH), S in descending order."""
    x = as_tensor("svd", "x", x)
    if out is not None:
        raise invalid_argument("svd", "out= is not supported; use the returned tensors.")
    return dispatch(SVD, (x,), {"full_matrices": bool(full_matrices)})


def svdvals(x, name=None) -> Tensor:
    """The singular values of x in descending order (svd's S, with its gradient)."""
    return svd(x)[1]


# ---- eigh, eigvalsh ----------------------------------------------------------------
def eigh_meta(x, UPLO="L"):  # noqa: N803 - Paddle's argument name
    require_matrix("eigh", x)
    return MetaTensor(tuple(x.shape[:-1]), _real_dtype(x.dtype)), MetaTensor(tuple(x.shape), x.dtype)


def eigh_grad(node, dw, dv):
    w, v = node.w, node.v
    vhdv = matmul(adjoint(v), dv)
    inner = _off_diagonal_over(vhdv, unsqueeze(w, -2) - unsqueeze(w, -1))
    inner = inner + eye_like(inner, w.shape[-1]) * unsqueeze(dw, -2)
    grad = matmul(matmul(v, inner), adjoint(v))
    return 0.5 * (grad + adjoint(grad))   # only symmetric perturbations keep A symmetric


def eigh_kernel(x, UPLO="L"):  # noqa: N803
    w, v = np.linalg.eigh(x, UPLO=UPLO)
    return w, v


EIGH = register_op("eigh", inputs=("x",), outputs=("w", "v"), infer_meta=eigh_meta, backward=eigh_grad,
                   save=("w", "v"), attrs={"UPLO": (str, "L")})
add_kernel("eigh", "cpu", LINALG_FLOATS + COMPLEX, eigh_kernel, name="lapack")


def eigh(x, UPLO="L", name=None):  # noqa: N803
    """Eigenvalues (ascending, real) and eigenvectors of a symmetric / Hermitian matrix; only the
    lower (UPLO='L') or upper ('U') triangle is read."""
    x = as_tensor("eigh", "x", x)
    if UPLO not in ("L", "U"):
        raise invalid_argument("eigh", f"UPLO got {UPLO!r}, expected 'L' or 'U'.")
    return dispatch(EIGH, (x,), {"UPLO": UPLO})


def eigvalsh(x, UPLO="L", name=None):  # noqa: N803
    """The eigenvalues of a symmetric / Hermitian matrix, ascending (eigh's first output)."""
    return eigh(x, UPLO)[0]


# ---- eig, eigvals ------------------------------------------------------------------
def eig_meta(x):
    require_matrix("eig", x)
    out = _complex_dtype(x.dtype)
    return MetaTensor(tuple(x.shape[:-1]), out), MetaTensor(tuple(x.shape), out)


def eig_grad(node, dw, dv):
    """The rule of the module docstring; a real input takes the real part of the gradient."""
    w, v = node.w, node.v
    vh = adjoint(v)
    vhdv = matmul(vh, dv)
    eye = eye_like(vhdv, w.shape[-1])
    diag_re = cast(real(reduction.sum(vhdv * eye, axis=-2)), vhdv.dtype)   # Re diag(V^H dV): the unit-norm term
    inner = vhdv - matmul(vh, v) * unsqueeze(diag_re, -2)
    inner = _off_diagonal_over(inner, conj_if_complex(unsqueeze(w, -2) - unsqueeze(w, -1)))
    grad = matmul(matmul(inv(vh), inner + eye * unsqueeze(dw, -2)), vh)
    return real(grad) if node.input_metas[0][1].kind != "c" else grad


def eig_kernel(x):
    w, v = np.linalg.eig(x)
    out = _complex_dtype(x.dtype)
    return w.astype(out), v.astype(out)   # numpy gives a real result when all eigenvalues are real


EIG = register_op("eig", inputs=("x",), outputs=("w", "v"), infer_meta=eig_meta, backward=eig_grad,
                  save=("w", "v"))
add_kernel("eig", "cpu", LINALG_FLOATS + COMPLEX, eig_kernel, name="lapack")


def eig(x, name=None):
    """Eigenvalues and (unit-norm) eigenvectors of a general square matrix, always complex
    (complex64 for float32 input, complex128 for float64)."""
    return dispatch(EIG, (as_tensor("eig", "x", x),))


def eigvals_meta(x):
    require_matrix("eigvals", x)
    return MetaTensor(tuple(x.shape[:-1]), _complex_dtype(x.dtype))


def eigvals_kernel(x):
    return np.linalg.eigvals(x).astype(_complex_dtype(x.dtype))


EIGVALS = register_op("eigvals", inputs=("x",), infer_meta=eigvals_meta)   # no gradient, as in Paddle
add_kernel("eigvals", "cpu", LINALG_FLOATS + COMPLEX, eigvals_kernel, name="lapack")


def eigvals(x, name=None) -> Tensor:
    """The eigenvalues of a general square matrix, complex (not differentiable, as in Paddle;
    use eig for gradients)."""
    return dispatch(EIGVALS, (as_tensor("eigvals", "x", x),))


# ---- pinv --------------------------------------------------------------------------
def pinv(x, rcond=1e-15, hermitian=False, name=None) -> Tensor:
    """The Moore-Penrose pseudo-inverse through svd (eigh when hermitian=True): singular values
    below rcond * the largest count as zero. Differentiable through svd's / eigh's rules."""
    x = as_tensor("pinv", "x", x)
    require_matrix("pinv", x._data, square=bool(hermitian))
    rcond = float(rcond.item()) if isinstance(rcond, Tensor) else float(rcond)
    if hermitian:
        w, v = eigh(x)
        cutoff = rcond * reduction.max(elementwise.abs(w), axis=-1, keepdim=True)
        kept = elementwise.abs(w) > cutoff
        w_inv = where(kept, 1.0 / where(kept, w, 1.0), 0.0)   # no 1/0 even in the branch not taken
        return matmul(v * unsqueeze(cast(w_inv, x.dtype), -2), adjoint(v))
    u, s, vh = svd(x)
    kept = s > rcond * reduction.max(s, axis=-1, keepdim=True)
    s_inv = where(kept, 1.0 / where(kept, s, 1.0), 0.0)
    return matmul(adjoint(vh) * unsqueeze(cast(s_inv, x.dtype), -2), adjoint(u))


# ---- matrix norms, cond ------------------------------------------------------------
MATRIX_NORM_ORDERS = ("fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf)


def _two_axes(op: str, axis, ndim: int) -> tuple[int, int]:
    if not isinstance(axis, (list, tuple)) or len(axis) != 2:
        raise invalid_argument(op, f"axis got {axis!r}; a matrix norm takes two axes, e.g. [-2, -1].")
    rows, cols = (int(a) + ndim if int(a) < 0 else int(a) for a in axis)
    if not (0 <= rows < ndim and 0 <= cols < ndim) or rows == cols:
        raise invalid_argument(op, f"axis {list(axis)} must name two different dims of a {ndim}-D tensor.")
    return rows, cols


def matrix_norm(x, p="fro", axis=[-2, -1], keepdim=False, name=None, *, dtype=None) -> Tensor:  # noqa: B006
    """The matrix norm over two axes: 'fro', 'nuc' (sum of singular values), 2 / -2 (largest /
    smallest singular value), 1 / -1 (largest / smallest column sum of |x|), inf / -inf (rows)."""
    x = as_tensor("matrix_norm", "x", x)
    if p not in MATRIX_NORM_ORDERS or isinstance(p, bool):
        raise invalid_argument("matrix_norm", f"p got {p!r}; over two axes p must be one of 'fro', 'nuc', "
                                              "1, -1, 2, -2, inf, -inf.",
                               hint="for a vector norm of the flattened matrix use paddle.linalg.vector_norm.")
    rows, cols = _two_axes("matrix_norm", axis, x._data.ndim)
    if dtype is not None:
        x = cast(x, dtype)
    if p == "fro":
        return vector_norm(x, 2.0, [rows, cols], keepdim)
    if p in ("nuc", 2, -2):   # through the singular values: move the two axes last
        others = [d for d in range(x._data.ndim) if d not in (rows, cols)]
        s = svdvals(transpose(x, others + [rows, cols]))
        reduce = reduction.sum if p == "nuc" else reduction.max if p == 2 else reduction.min
        out = reduce(s, axis=-1)
        return unsqueeze(out, sorted([rows, cols])) if keepdim else out
    summed, picked = (rows, cols) if p in (1, -1) else (cols, rows)   # 1: column sums, inf: row sums
    pick = reduction.max if p > 0 else reduction.min
    out = pick(reduction.sum(elementwise.abs(x), axis=summed, keepdim=True), axis=picked, keepdim=True)
    return out if keepdim else squeeze(out, [rows, cols])


def cond(x, p=None, name=None) -> Tensor:
    """The condition number of x in the norm p: for p None / 2 / -2 the ratio of the largest to
    the smallest singular value (or its inverse), otherwise norm(x, p) * norm(inv(x), p)."""
    x = as_tensor("cond", "x", x)
    if p not in (None,) + MATRIX_NORM_ORDERS or isinstance(p, bool):
        raise invalid_argument("cond", f"p got {p!r}, expected None, 'fro', 'nuc', 1, -1, 2, -2, inf or -inf.")
    require_matrix("cond", x._data, square=p not in (None, 2, -2))
    if p in (None, 2, -2):
        s = svdvals(x)
        largest, smallest = reduction.max(s, axis=-1), reduction.min(s, axis=-1)
        return smallest / largest if p == -2 else largest / smallest
    return matrix_norm(x, p, [-2, -1]) * matrix_norm(inv(x), p, [-2, -1])


# ---- matrix_rank -------------------------------------------------------------------
def matrix_rank_meta(x, tol=None, atol=None, rtol=None, hermitian=False):
    require_matrix("matrix_rank", x, square=hermitian)
    return MetaTensor(tuple(x.shape[:-2]), np.dtype("int64"))


def matrix_rank_kernel(x, tol=None, atol=None, rtol=None, hermitian=False):
    if hermitian:
        s = np.abs(np.linalg.eigvalsh(x))
    else:
        s = np.linalg.svd(x, compute_uv=False)
    largest = np.max(s, axis=-1, keepdims=True, initial=0.0)
    if tol is not None:       # an absolute threshold
        threshold = tol
    elif atol is None and rtol is None:   # the default: machine epsilon scaled by size and the norm
        threshold = np.finfo(s.dtype).eps * np.max(x.shape[-2:]) * largest
    else:
        atol = 0.0 if atol is None else atol
        if rtol is None:
            rtol = np.finfo(s.dtype).eps * np.max(x.shape[-2:]) if atol <= 0 else 0.0
        threshold = np.maximum(atol, rtol * largest)
    return np.sum(s > threshold, axis=-1).astype(np.int64)


_RANK_ATTRS = {"tol": (float, None), "atol": (float, None), "rtol": (float, None), "hermitian": (bool, False)}
MATRIX_RANK = register_op("matrix_rank", inputs=("x",), infer_meta=matrix_rank_meta, attrs=_RANK_ATTRS)
add_kernel("matrix_rank", "cpu", LINALG_FLOATS + COMPLEX, matrix_rank_kernel, name="lapack")


def matrix_rank(x, tol=None, hermitian=False, atol=None, rtol=None, name=None) -> Tensor:
    """The number of singular values above a threshold: `tol` (absolute), or max(atol, rtol * the
    largest), by default eps * max(m, n) * the largest. int64, one per matrix of a batch."""
    x = as_tensor("matrix_rank", "x", x)
    if tol is not None and (atol is not None or rtol is not None):
        raise invalid_argument("matrix_rank", "pass tol alone, or atol and rtol without tol.")
    attrs = {"hermitian": bool(hermitian)}
    for key, value in (("tol", tol), ("atol", atol), ("rtol", rtol)):
        attrs[key] = None if value is None else float(value.item() if isinstance(value, Tensor) else value)
    return dispatch(MATRIX_RANK, (x,), attrs)


# ---- lstsq -------------------------------------------------------------------------
LSTSQ_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def lstsq_meta(x, y, rcond=None, driver="gelsy"):
    require_matrix("lstsq", x, square=False)
    require_matrix("lstsq", y, square=False, arg="y")
    require_real("lstsq", x)
    if x.dtype != y.dtype or x.shape[-2] != y.shape[-2]:
        raise invalid_argument("lstsq", f"x ({list(x.shape)}, {x.dtype}) and y ({list(y.shape)}, {y.dtype}) "
                                        "must have one dtype and the same number of rows.")
    batch, (n, k) = tuple(x.shape[:-2]), (x.shape[-1], y.shape[-1])
    svd_driver = driver in ("gelsd", "gelss")
    return (MetaTensor(batch + (n, k), x.dtype), MetaTensor((-1,), x.dtype),   # residuals: data-dependent
            MetaTensor((0,) if driver == "gels" else batch, np.dtype("int64" if driver == "gels" else "int32")),
            MetaTensor(batch + (min(x.shape[-2:]),) if svd_driver else (0,), x.dtype))


def lstsq_kernel(x, y, rcond=None, driver="gelsy"):
    """numpy's SVD least squares (gelsd) per matrix; the outputs each driver fills, as Paddle's."""
    batch = np.broadcast_shapes(x.shape[:-2], y.shape[:-2])
    xs = np.broadcast_to(x, batch + x.shape[-2:]).reshape((-1,) + x.shape[-2:])
    ys = np.broadcast_to(y, batch + y.shape[-2:]).reshape((-1,) + y.shape[-2:])
    solved = [np.linalg.lstsq(a, b, rcond=rcond) for a, b in zip(xs, ys)]
    solution = np.stack([r[0] for r in solved]).reshape(batch + (x.shape[-1], y.shape[-1]))
    full = all(r[1].size for r in solved) and driver != "gelsy"   # m > n and full rank
    residuals = (np.stack([r[1] for r in solved]).reshape(batch + (y.shape[-1],)) if full
                 else np.zeros((0,), x.dtype))
    if driver == "gels":
        rank = np.zeros((0,), np.int64)
    else:
        rank = np.array([r[2] for r in solved], np.int32).reshape(batch)
    if driver in ("gelsd", "gelss"):
        values = np.stack([r[3] for r in solved]).reshape(batch + (-1,))
    else:
        values = np.zeros((0,), x.dtype)
    return (solution.astype(x.dtype), residuals.astype(x.dtype), rank, values.astype(x.dtype))


LSTSQ = register_op("lstsq", inputs=("x", "y"), outputs=("solution", "residuals", "rank", "singular_values"),
                    infer_meta=lstsq_meta, attrs={"rcond": (float, None), "driver": (str, "gelsy")})
add_kernel("lstsq", "cpu", LINALG_FLOATS, lstsq_kernel, name="lapack")


def lstsq(x, y, rcond=None, driver=None, name=None):
    """The least-squares solution of x @ X = y: (solution, residuals, rank, singular_values).

    residuals (squared, per column of y) come with drivers gelsd/gelss/gels when x has more rows
    than columns and full rank; singular_values with gelsd/gelss. Not differentiable, as in Paddle."""
    x, y = as_tensor("lstsq", "x", x), as_tensor("lstsq", "y", y)
    driver = "gelsy" if driver is None else driver   # Paddle's CPU default
    if driver not in LSTSQ_DRIVERS:
        raise invalid_argument("lstsq", f"driver got {driver!r}, expected one of {list(LSTSQ_DRIVERS)}.")
    return dispatch(LSTSQ, (x, y), {"rcond": None if rcond is None else float(rcond), "driver": driver})


__all__ = ["cond", "eig", "eigh", "eigvals", "eigvalsh", "lstsq", "matrix_norm", "matrix_rank", "pinv", "qr",
           "svd", "svdvals"]
