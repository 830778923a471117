"""paddle.linalg: linear algebra as Paddle's module names it.

Each function is defined once in the op library -- the solvers in framework/ops/matrix.py, the
decompositions and matrix norms in framework/ops/decomposition.py, matmul in framework/ops/linalg.py,
norm and vector_norm in framework/ops/reduction.py -- and gathered here under Paddle's names:

    >>> import minipaddle as paddle
    >>> a = paddle.to_tensor([[3.0, 1.0], [1.0, 2.0]])
    >>> paddle.linalg.solve(a, paddle.to_tensor([9.0, 8.0]))      # [2., 3.]
    >>> paddle.linalg.det(a)                                       # 5.
    >>> paddle.linalg.eigh(a)                                      # (eigenvalues, eigenvectors)

Batched over the leading dims wherever Paddle batches; numpy.linalg's LAPACK does the work.
"""
from __future__ import annotations

from .framework.ops.decomposition import (cond, eig, eigh, eigvals, eigvalsh, lstsq, matrix_norm, matrix_rank,
                                          pinv, qr, svd, svdvals)
from .framework.ops.linalg import matmul
from .framework.ops.matrix import (cholesky, cholesky_solve, cross, det, inv, matrix_power, matrix_transpose,
                                   multi_dot, slogdet, solve, triangular_solve)
from .framework.ops.reduction import norm, vector_norm
from .framework.tensor import Tensor


def cholesky_inverse(x: Tensor, upper: bool = False, name=None) -> Tensor:
    """The inverse of A from its Cholesky factor x (A = x x^T, or x^T x with upper=True)."""
    from .framework.creation import eye
    from .framework.ops.common import as_tensor
    x = as_tensor("cholesky_inverse", "x", x)
    identity = eye(x.shape[-1], dtype=x.dtype)
    return cholesky_solve(identity, x, upper=upper)


def vecdot(x: Tensor, y: Tensor, axis: int = -1, name=None) -> Tensor:
    """The dot product of x and y along `axis` (conjugating x when complex), broadcasting the rest."""
    from .framework.ops.complex import conj_if_complex
    from .framework.ops.reduction import sum
    return sum(conj_if_complex(x) * y, axis=axis)


__all__ = ["cholesky", "cholesky_inverse", "cholesky_solve", "cond", "cross", "det", "eig", "eigh", "eigvals",
           "eigvalsh", "inv", "lstsq", "matmul", "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose",
           "multi_dot", "norm", "pinv", "qr", "slogdet", "solve", "svd", "svdvals", "triangular_solve", "vecdot",
           "vector_norm"]
