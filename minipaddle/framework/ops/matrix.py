"""paddle.linalg's solvers: inv, det, slogdet, solve, triangular_solve, cholesky, cholesky_solve,
matrix_power, multi_dot, cross (the decompositions and norms: matrix_decomp.py).

Every op reads its matrices from the last two dims and batches over the dims before them, as
Paddle does. The kernels are numpy.linalg's LAPACK calls. Each backward rule is the textbook
matrix-calculus result written in minipaddle ops, so grads of grads come free (A^H is the
conjugate transpose; for real tensors it is A^T):

    inv              X = A^-1             dA = -X^H dX X^H
    det              d = det(A)           dA = dd conj(d) A^-H
    slogdet          (sign, log|det A|)   dA = dlog A^-T
    solve            X = A^-1 B           dB = A^-H dX,  dA = -dB X^H
    triangular_solve X = op(A)^-1 B       dB = op(A)^-H dX, dA = -dB X^T (or -X dB^T), kept triangular
    cholesky         A = L L^T            dA = sym(L^-T Phi(L^T dL) L^-1), Phi: lower half, diagonal halved

cholesky_solve, matrix_power and multi_dot are compositions of these and matmul, so their
gradients are those of the ops they call.
"""
from __future__ import annotations

import numpy as np

from ..dispatch import dispatch
from ..errors import invalid_argument, invalid_type
from ..registry import MetaTensor, add_kernel, register_op
from ..tensor import Tensor
from .common import COMPLEX, INTS, as_tensor, broadcast_shape, normalize_axis, same_dtype
from .complex import conj_if_complex
from .linalg import matmul
from .manipulation import reshape, transpose, tril, triu

LINALG_FLOATS = ("float32", "float64")   # numpy.linalg has no float16 LAPACK (nor has Paddle's)


# ---- helpers the decompositions share (matrix_decomp.py) ------------------------------
def require_matrix(op: str, x, square: bool = True, arg: str = "x") -> None:
    """x is a (batch of) matrix of a float dtype LAPACK serves; square when the op needs it."""
    if x.dtype.kind not in "fc" or x.dtype == np.float16:
        raise invalid_argument(op, f"argument '{arg}' has dtype {x.dtype}, expected float32 or float64"
                                   f"{' (or complex64/complex128)' if x.dtype.kind in 'iub' else ''}.",
                               hint=f"cast it first: {arg}.astype('float32').")
    if len(x.shape) < 2:
        raise invalid_argument(op, f"argument '{arg}' has shape {list(x.shape)}; expected a matrix or a "
                                   "batch of matrices (at least 2 dims).")
    rows, cols = x.shape[-2], x.shape[-1]
    if square and rows != cols and -1 not in (rows, cols):
        raise invalid_argument(op, f"argument '{arg}' must be a square matrix (or a batch of them); its last "
                                   f"two dims are {rows} and {cols} (shape {list(x.shape)}).")


def require_real(op: str, x) -> None:
    if x.dtype.kind == "c":
        raise invalid_argument(op, f"complex input ({x.dtype}) is not supported, as in Paddle; expected "
                                   "float32 or float64.")


def matrix_transpose(x: Tensor, name=None) -> Tensor:
    """Swap the last two dims: [..., m, n] -> [..., n, m] (paddle.linalg.matrix_transpose)."""
    x = as_tensor("matrix_transpose", "x", x)
    ndim = x._data.ndim
    if ndim < 2:
        raise invalid_argument("matrix_transpose", f"x has shape {list(x.shape)}; expected at least 2 dims.")
    return transpose(x, list(range(ndim - 2)) + [ndim - 1, ndim - 2])


def adjoint(x: Tensor) -> Tensor:
    """A^H: the conjugate transpose of the last two dims (the transpose, for real tensors)."""
    return conj_if_complex(matrix_transpose(x))


def eye_like(x: Tensor, n: int) -> Tensor:
    """The n x n identity in x's dtype (it broadcasts against a batch)."""
    return Tensor._wrap(np.eye(n, dtype=x._data.dtype))


def batch_entry(x: np.ndarray, fails) -> str:
    """' (batch entry (i, j))' naming the first matrix of x on which `fails(matrix)` is true."""
    if x.ndim <= 2:
        return ""
    flat = x.reshape((-1,) + x.shape[-2:])
    for i, m in enumerate(flat):
        if fails(m):
            return f" (batch entry {tuple(int(k) for k in np.unravel_index(i, x.shape[:-2]))})"
    return ""


def _is_singular(m: np.ndarray) -> bool:
    try:
        np.linalg.inv(m)
        return False
    except np.linalg.LinAlgError:
        return True


def singular_error(op: str, x: np.ndarray):
    return invalid_argument(op, f"the matrix{batch_entry(x, _is_singular)} is singular (LU found a zero "
                                f"pivot), so it has no inverse; got x of shape {list(x.shape)}.",
                            hint="check for dependent rows/columns; paddle.linalg.pinv or lstsq handle "
                                 "singular systems.")


# ---- inv ---------------------------------------------------------------------------
def inv_meta(x) -> MetaTensor:
    require_matrix("inv", x)
    return MetaTensor(tuple(x.shape), x.dtype)


def inv_grad(node, dout):
    out_h = adjoint(node.out)
    return -matmul(matmul(out_h, dout), out_h)


def inv_kernel(x):
    try:
        return np.linalg.inv(x)
    except np.linalg.LinAlgError:
        raise singular_error("inv", x) from None


INV = register_op("inverse", inputs=("x",), infer_meta=inv_meta, backward=inv_grad, save=("out",))
add_kernel("inverse", "cpu", LINALG_FLOATS + COMPLEX, inv_kernel, name="lapack")


def inv(x, name=None) -> Tensor:
    """The inverse of a square matrix (or of each in a batch); a singular one is an error.

    >>> paddle.linalg.inv(paddle.to_tensor([[2.0, 0.0], [0.0, 4.0]]))   # [[0.5, 0], [0, 0.25]]
    """
    return dispatch(INV, (as_tensor("inv", "x", x),))


# ---- det, slogdet ------------------------------------------------------------------
def det_meta(x) -> MetaTensor:
    require_matrix("det", x)
    return MetaTensor(tuple(x.shape[:-2]), x.dtype)


def det_grad(node, dout):
    scale_ = reshape(dout * conj_if_complex(node.out), list(node.out_metas[0][0]) + [1, 1])
    return scale_ * adjoint(inv(node.x))


def det_kernel(x):
    return np.asarray(np.linalg.det(x), dtype=x.dtype)


DET = register_op("determinant", inputs=("x",), infer_meta=det_meta, backward=det_grad, save=("x", "out"))
add_kernel("determinant", "cpu", LINALG_FLOATS + COMPLEX, det_kernel, name="lapack")


def det(x, name=None) -> Tensor:
    """The determinant of a square matrix (or of each in a batch: shape x.shape[:-2])."""
    return dispatch(DET, (as_tensor("det", "x", x),))


def slogdet_meta(x) -> MetaTensor:
    require_matrix("slogdet", x)
    require_real("slogdet", x)
    return MetaTensor((2,) + tuple(x.shape[:-2]), x.dtype)


def slogdet_grad(node, dout):
    dlog = reshape(dout[1], list(node.input_metas[0][0][:-2]) + [1, 1])  # the sign is piecewise constant
    return dlog * matrix_transpose(inv(node.x))


def slogdet_kernel(x):
    sign, logabs = np.linalg.slogdet(x)
    return np.stack([sign, logabs]).astype(x.dtype)


SLOGDET = register_op("slogdet", inputs=("x",), infer_meta=slogdet_meta, backward=slogdet_grad, save=("x",))
add_kernel("slogdet", "cpu", LINALG_FLOATS, slogdet_kernel, name="lapack")


def slogdet(x, name=None) -> Tensor:
    """sign(det x) and log|det x| stacked in one tensor of shape [2, *batch] (Paddle's layout)."""
    return dispatch(SLOGDET, (as_tensor("slogdet", "x", x),))


# ---- solve -------------------------------------------------------------------------
def _system_shape(op: str, x, y) -> tuple:
    """The shape of X in x X = y: y's batch broadcast against x's, then [n, k]."""
    same_dtype(op, x, y)
    if len(y.shape) < 2:
        raise invalid_argument(op, f"y has shape {list(y.shape)}; expected at least 2 dims [.., n, k].")
    n, rows = x.shape[-1], y.shape[-2]
    if n != rows and -1 not in (n, rows):
        raise invalid_argument(op, f"x's size ({n}) must equal y's second-to-last dim ({rows}); got x of "
                                   f"shape {list(x.shape)} and y of shape {list(y.shape)}.")
    return broadcast_shape(op, tuple(x.shape[:-2]), tuple(y.shape[:-2])) + (n, y.shape[-1])


def solve_meta(x, y) -> MetaTensor:
    require_matrix("solve", x)
    require_real("solve", x)
    return MetaTensor(_system_shape("solve", x, y), x.dtype)


def solve_grad(node, dout):
    dy = dispatch(SOLVE, (matrix_transpose(node.x), dout))
    dx = -matmul(dy, node.out, transpose_y=True) if node.needs_grad(0) else None
    return dx, dy   # batch dims y or x was broadcast along are summed away by the engine


def solve_kernel(x, y):
    try:
        return np.linalg.solve(x, y)
    except np.linalg.LinAlgError:
        raise singular_error("solve", x) from None


SOLVE = register_op("solve", inputs=("x", "y"), infer_meta=solve_meta, backward=solve_grad, save=("x", "out"))
add_kernel("solve", "cpu", LINALG_FLOATS, solve_kernel, name="lapack")


def solve(x, y, left=True, name=None, *, out=None) -> Tensor:
    """Solve x @ X = y for X (left=False: X @ x = y); y may be a vector [n] or a batch [.., n, k].

    >>> a = paddle.to_tensor([[3.0, 1.0], [1.0, 2.0]])
    >>> paddle.linalg.solve(a, paddle.to_tensor([9.0, 8.0]))     # [2., 3.]
    """
    x, y = as_tensor("solve", "x", x), as_tensor("solve", "y", y)
    if out is not None:
        raise invalid_argument("solve", "out= is not supported; use the returned tensor.")
    if not left:  # X x = y  <=>  x^T X^T = y^T
        return matrix_transpose(solve(matrix_transpose(x), matrix_transpose(y)))
    if y._data.ndim == 1:  # a vector right-hand side: solve as a column, then drop the column
        column = dispatch(SOLVE, (x, reshape(y, [-1, 1])))
        return reshape(column, list(column.shape[:-1]))
    return dispatch(SOLVE, (x, y))


# ---- triangular_solve --------------------------------------------------------------
def triangular_solve_meta(x, y, upper=True, transpose=False, unitriangular=False) -> MetaTensor:
    require_matrix("triangular_solve", x)
    require_real("triangular_solve", x)
    return MetaTensor(_system_shape("triangular_solve", x, y), x.dtype)


def triangular_solve_grad(node, dout):
    attrs = {"upper": node.upper, "transpose": not node.transpose, "unitriangular": node.unitriangular}
    dy = dispatch(TRIANGULAR_SOLVE, (node.x, dout), attrs)
    if not node.needs_grad(0):
        return None, dy
    if node.transpose:
        dx = -matmul(node.out, dy, transpose_y=True)
    else:
        dx = -matmul(dy, node.out, transpose_y=True)
    offset = 1 if node.unitriangular else 0   # only the triangle that was read gets a gradient
    return (triu(dx, offset) if node.upper else tril(dx, -offset)), dy


def triangular_solve_kernel(x, y, upper=True, transpose=False, unitriangular=False):
    a = np.triu(x) if upper else np.tril(x)
    if unitriangular:
        n = a.shape[-1]
        a[..., np.arange(n), np.arange(n)] = 1
    if transpose:
        a, upper = np.swapaxes(a, -1, -2), not upper
    try:
        return np.linalg.solve(a, y)
    except np.linalg.LinAlgError:  # a zero on the diagonal: substitute, giving inf/nan as Paddle does
        return _substitute(a, y, lower=not upper)


def _substitute(a: np.ndarray, y: np.ndarray, lower: bool) -> np.ndarray:
    """Forward (lower) or back (upper) substitution, one row at a time, over the whole batch."""
    batch = np.broadcast_shapes(a.shape[:-2], y.shape[:-2])
    a = np.broadcast_to(a, batch + a.shape[-2:])
    y = np.broadcast_to(y, batch + y.shape[-2:])
    n = a.shape[-1]
    out = np.zeros(y.shape, dtype=np.result_type(a, y))
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in range(n) if lower else reversed(range(n)):
            known = slice(0, i) if lower else slice(i + 1, n)
            partial = np.matmul(a[..., i:i + 1, known], out[..., known, :])[..., 0, :]
            out[..., i, :] = (y[..., i, :] - partial) / a[..., i, i:i + 1]
    return out


TRIANGULAR_SOLVE = register_op(
    "triangular_solve", inputs=("x", "y"), infer_meta=triangular_solve_meta, backward=triangular_solve_grad,
    save=("x", "out"), attrs={"upper": (bool, True), "transpose": (bool, False), "unitriangular": (bool, False)})
add_kernel("triangular_solve", "cpu", LINALG_FLOATS, triangular_solve_kernel, name="lapack")


def triangular_solve(x, y, upper=True, transpose=False, unitriangular=False, name=None) -> Tensor:
    """Solve op(x) @ X = y for a triangular x (only its upper or lower triangle is read);
    op(x) is x^T when transpose=True; unitriangular=True takes x's diagonal as ones."""
    x, y = as_tensor("triangular_solve", "x", x), as_tensor("triangular_solve", "y", y)
    return dispatch(TRIANGULAR_SOLVE, (x, y), {"upper": bool(upper), "transpose": bool(transpose),
                                               "unitriangular": bool(unitriangular)})


# ---- cholesky ----------------------------------------------------------------------
def cholesky_meta(x, upper=False) -> MetaTensor:
    require_matrix("cholesky", x)
    require_real("cholesky", x)
    return MetaTensor(tuple(x.shape), x.dtype)


def cholesky_grad(node, dout):
    """dA = sym(L^-T Phi(L^T dL) L^-1) (Murray 2016), L the lower factor; upper U = L^T."""
    lower = matrix_transpose(node.out) if node.upper else node.out
    d_lower = matrix_transpose(dout) if node.upper else dout
    phi = tril(matmul(lower, d_lower, transpose_x=True))
    phi = phi - 0.5 * phi * eye_like(phi, phi.shape[-1])   # the diagonal counts half
    left = triangular_solve(lower, phi, upper=False, transpose=True)                     # L^-T Phi
    grad = matrix_transpose(triangular_solve(lower, matrix_transpose(left), upper=False, transpose=True))
    return 0.5 * (grad + matrix_transpose(grad))


def cholesky_kernel(x, upper=False):
    try:
        lower = np.linalg.cholesky(x)   # reads only the lower triangle of x, as Paddle's kernel does
    except np.linalg.LinAlgError:
        raise invalid_argument("cholesky", f"the matrix{batch_entry(x, _not_positive_definite)} is not "
                                           f"positive-definite (shape {list(x.shape)}).",
                               hint="Cholesky needs a symmetric positive-definite matrix, e.g. a @ a.T + "
                                    "eps * I.") from None
    return np.ascontiguousarray(np.swapaxes(lower, -1, -2)) if upper else lower


def _not_positive_definite(m: np.ndarray) -> bool:
    try:
        np.linalg.cholesky(m)
        return False
    except np.linalg.LinAlgError:
        return True


CHOLESKY = register_op("cholesky", inputs=("x",), infer_meta=cholesky_meta, backward=cholesky_grad,
                       save=("out",), attrs={"upper": (bool, False)})
add_kernel("cholesky", "cpu", LINALG_FLOATS, cholesky_kernel, name="lapack")


def cholesky(x, upper=False, name=None) -> Tensor:
    """The Cholesky factor of a symmetric positive-definite matrix: lower L with x = L L^T, or
    upper U with x = U^T U. Only x's lower triangle is read."""
    return dispatch(CHOLESKY, (as_tensor("cholesky", "x", x),), {"upper": bool(upper)})


def cholesky_solve(x, y, upper=False, name=None) -> Tensor:
    """Solve A @ X = x where y is A's Cholesky factor (lower, or upper with upper=True): two
    triangular solves, L z = x then L^T X = z."""
    x, y = as_tensor("cholesky_solve", "x", x), as_tensor("cholesky_solve", "y", y)
    if x._data.ndim < 2:
        raise invalid_argument("cholesky_solve", f"x has shape {list(x.shape)}; expected at least 2 dims "
                                                 "[.., n, k] (a vector b goes in as b.unsqueeze(-1)).")
    first = triangular_solve(y, x, upper=upper, transpose=upper)          # U^T z = x  or  L z = x
    return triangular_solve(y, first, upper=upper, transpose=not upper)   # U X = z    or  L^T X = z


# ---- matrix_power, multi_dot -------------------------------------------------------
def matrix_power(x, n, name=None) -> Tensor:
    """x multiplied by itself n times (n < 0: of inv(x)); n = 0 gives the identity.

    Built from matmul by repeated squaring: log2(n) products instead of n."""
    from .manipulation import broadcast_to
    x = as_tensor("matrix_power", "x", x)
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
        raise invalid_type("matrix_power", f"n got {type(n).__name__}, expected an int.")
    require_matrix("matrix_power", x._data)
    if n == 0:
        return broadcast_to(eye_like(x, x.shape[-1]), x.shape)
    base = inv(x) if n < 0 else x
    power, result = abs(int(n)), None
    while power:
        if power & 1:
            result = base if result is None else matmul(result, base)
        power >>= 1
        if power:
            base = matmul(base, base)
    return result


def _chain_order(dims: list[int]) -> list[list[int]]:
    """The cheapest parenthesisation of a matrix chain (dynamic programming): split[i][j] is where
    the product of matrices i..j splits."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = float("inf")
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def multi_dot(x, name=None) -> Tensor:
    """The product of a list of matrices in the cheapest order; the first may be a row vector [n]
    and the last a column vector [n], as in numpy.linalg.multi_dot."""
    if not isinstance(x, (list, tuple)) or len(x) < 2:
        raise invalid_argument("multi_dot", f"x must be a list of at least 2 tensors, got "
                                            f"{len(x) if isinstance(x, (list, tuple)) else type(x).__name__}.")
    ts = [as_tensor("multi_dot", f"x[{i}]", t) for i, t in enumerate(x)]
    for i, t in enumerate(ts):
        may_be_vector = i in (0, len(ts) - 1)
        if t._data.ndim != 2 and not (may_be_vector and t._data.ndim == 1):
            raise invalid_argument("multi_dot", f"x[{i}] has shape {list(t.shape)}; expected a 2-D matrix"
                                                f"{' (or a 1-D vector)' if may_be_vector else ''}.")
        if i and ts[i - 1].shape[-1] != t.shape[0]:
            raise invalid_argument("multi_dot", f"x[{i - 1}] of shape {list(ts[i - 1].shape)} and x[{i}] of "
                                                f"shape {list(t.shape)} cannot be multiplied: "
                                                f"{ts[i - 1].shape[-1]} != {t.shape[0]}.")
    first_1d, last_1d = ts[0]._data.ndim == 1, ts[-1]._data.ndim == 1
    mats = [reshape(ts[0], [1, -1]) if first_1d else ts[0]] + ts[1:-1] + \
           [reshape(ts[-1], [-1, 1]) if last_1d else ts[-1]]
    split = _chain_order([mats[0].shape[0]] + [m.shape[1] for m in mats])

    def product(i: int, j: int) -> Tensor:
        if i == j:
            return mats[i]
        return matmul(product(i, split[i][j]), product(split[i][j] + 1, j))

    out = product(0, len(mats) - 1)
    keep = [d for d, squeezed in zip(out.shape, (first_1d, last_1d)) if not squeezed]
    return reshape(out, keep) if first_1d or last_1d else out


# ---- cross -------------------------------------------------------------------------
def cross_meta(x, y, axis=-1) -> MetaTensor:
    same_dtype("cross", x, y)
    if tuple(x.shape) != tuple(y.shape):
        raise invalid_argument("cross", f"x has shape {list(x.shape)} and y has shape {list(y.shape)}; "
                                        "expected the same shape (cross does not broadcast).")
    return MetaTensor(tuple(x.shape), x.dtype)


def cross_grad(node, dout):
    """d(x × y): dx = y × dout, dy = dout × x."""
    return cross(node.y, dout, axis=node.axis), cross(dout, node.x, axis=node.axis)


def cross_kernel(x, y, axis=-1):
    return np.cross(x, y, axis=axis).astype(x.dtype, copy=False)


CROSS = register_op("cross", inputs=("x", "y"), infer_meta=cross_meta, backward=cross_grad,
                    save=("x", "y"), attrs={"axis": (int, -1)})
add_kernel("cross", "cpu", LINALG_FLOATS + INTS, cross_kernel, name="numpy")


def cross(x, y, axis=9, name=None) -> Tensor:
    """The cross product of 3-vectors along `axis`; the default (9) takes the first dim of size 3."""
    x, y = as_tensor("cross", "x", x), as_tensor("cross", "y", y)
    shape = list(x.shape)
    if axis == 9:  # Paddle's marker for "the first axis of size 3"
        if 3 not in shape:
            raise invalid_argument("cross", f"x has shape {shape}; no dim has size 3.",
                                   hint="cross takes the product of 3-vectors: pass axis= for the dim of size 3.")
        axis = shape.index(3)
    axis = normalize_axis("cross", axis, len(shape))
    if shape[axis] != 3:
        raise invalid_argument("cross", f"dim {axis} of x has size {shape[axis]} (shape {shape}); expected 3.")
    return dispatch(CROSS, (x, y), {"axis": axis})


__all__ = ["cholesky", "cholesky_solve", "cross", "det", "inv", "matrix_power", "matrix_transpose",
           "multi_dot", "slogdet", "solve", "triangular_solve"]
