"""Linear algebra: matmul, bmm, dot, mv, t, outer.

matmul follows Paddle (and numpy.matmul): the last two dims multiply, the dims before
them broadcast as a batch, a 1-D operand is a row (x) or column (y) vector that is
squeezed away again, and `transpose_x`/`transpose_y` swap a matrix's last two dims
first. It has two CPU kernels: numpy's BLAS call (the default) and a readable blocked
numba loop nest (kernels/cpu/matmul.py) to compare, study and autotune against.
"""
from __future__ import annotations

import numpy as np

from ..dispatch import dispatch
from ..errors import InvalidArgument, invalid_argument, invalid_type
from ..registry import LazyKernel, MetaTensor, add_kernel, new_meta, register_op
from ..tensor import Tensor
from ..kernels.cpu.elementwise import upcast_bfloat16
from .common import BFLOAT16, COMPLEX, FLOATS, INTS, as_tensor, broadcast_shape, promote_types, same_dtype
from .complex import conj_if_complex

def _mismatch(op: str, x_shape, y_shape, x_dim: str, k_x: int, y_dim: str, k_y: int) -> InvalidArgument:
    return invalid_argument(
        op, f"x's {x_dim} ({k_x}) must equal y's {y_dim} ({k_y}); got x of shape {list(x_shape)} "
            f"and y of shape {list(y_shape)}.",
        hint="matmul contracts x's last dim with y's second-to-last; transpose_x / transpose_y swap "
             "a matrix's last two dims first.")


# ---- matmul ------------------------------------------------------------------------
def matmul_meta(x, y, transpose_x=False, transpose_y=False) -> MetaTensor:
    xs = x.shape
    ys = y.shape
    # The common case first, in as few steps as possible: it runs on every eager matmul.
    if len(xs) == 2 and len(ys) == 2 and not (transpose_x or transpose_y) and xs[1] == ys[0] \
            and x.dtype == y.dtype and xs[1] != -1:
        return new_meta((xs[0], ys[1]), x.dtype)
    same_dtype("matmul", x, y)
    return new_meta(_matmul_shape(tuple(xs), tuple(ys), transpose_x, transpose_y), x.dtype)  # (any shape type)


def _matmul_shape(xs: tuple, ys: tuple, transpose_x: bool, transpose_y: bool) -> tuple:
    """Output shape for any ranks >= 1: batch dims broadcast, 1-D operands squeezed."""
    if len(xs) == 0 or len(ys) == 0:
        raise invalid_argument("matmul", f"x has shape {list(xs)} and y has shape {list(ys)}; "
                                         "0-D tensors cannot be multiplied as matrices.",
                               hint="use paddle.multiply for a scalar product.")
    tx = transpose_x and len(xs) >= 2  # Paddle: a transpose flag on a 1-D operand does nothing
    ty = transpose_y and len(ys) >= 2
    k_x = xs[-2] if tx else xs[-1]
    k_y = ys[-1] if ty else ys[0] if len(ys) == 1 else ys[-2]
    if k_x != k_y and k_x != -1 and k_y != -1:
        x_dim = ("first dim" if len(xs) == 2 else "second-to-last dim") if tx else "last dim"
        y_dim = "last dim" if ty else "first dim" if len(ys) <= 2 else "second-to-last dim"
        raise _mismatch("matmul", xs, ys, x_dim, k_x, y_dim, k_y)
    try:
        batch = broadcast_shape("matmul", tuple(xs[:-2]), tuple(ys[:-2]))
    except InvalidArgument:
        raise invalid_argument("matmul", f"the batch dims of x {list(xs[:-2])} and y {list(ys[:-2])} "
                                         f"cannot be broadcast (x shape {list(xs)}, y shape {list(ys)}).",
                               hint="batch dims broadcast when they are equal or one of them is 1.") from None
    rows = () if len(xs) == 1 else (xs[-1] if tx else xs[-2],)
    cols = () if len(ys) == 1 else (ys[-2] if ty else ys[-1],)
    return batch + rows + cols


def matmul_grad(node, dout):
    """d(x @ y): dx = dout @ y^T, dy = x^T @ dout -- with the transposes folded into flags."""
    from .manipulation import reshape
    # complex: dx = dout @ conj(y)^T, dy = conj(x)^T @ dout (Paddle's convention, framework/ops/complex.py)
    x, y, tx, ty = conj_if_complex(node.x), conj_if_complex(node.y), node.transpose_x, node.transpose_y
    x_shape, y_shape = node.input_metas[0][0], node.input_metas[1][0]
    if len(x_shape) == 1 or len(y_shape) == 1:  # undo the 1-D promotion: work on matrices
        dout_shape = list(node.out_metas[0][0])
        if len(y_shape) == 1:
            y, ty = reshape(y, [-1, 1]), False
            dout_shape.append(1)
        if len(x_shape) == 1:
            x, tx = reshape(x, [1, -1]), False
            dout_shape.insert(len(dout_shape) - 1, 1)
        dout = reshape(dout, dout_shape)
    dx = dy = None
    if node.needs_grad(0):
        if tx:
            dx = matmul(y, dout, transpose_x=ty, transpose_y=True)
        else:
            dx = matmul(dout, y, transpose_y=not ty)
        if len(x_shape) == 1:
            dx = reshape(dx, list(dx.shape[:-2]) + [x_shape[0]])
    if node.needs_grad(1):
        if ty:
            dy = matmul(dout, x, transpose_x=True, transpose_y=tx)
        else:
            dy = matmul(x, dout, transpose_x=not tx)
        if len(y_shape) == 1:
            dy = reshape(dy, dy.shape[:-1])
    return dx, dy  # batch dims that were broadcast are summed away by the engine


def matmul_blas(x, y, transpose_x=False, transpose_y=False):
    """numpy hands the product to the BLAS gemm it was built with (OpenBLAS); transposes are views."""
    if transpose_x or transpose_y:
        if transpose_x and x.ndim >= 2:
            x = np.swapaxes(x, -1, -2)
        if transpose_y and y.ndim >= 2:
            y = np.swapaxes(y, -1, -2)
    return np.matmul(x, y)


MATMUL = register_op("matmul", inputs=("x", "y"), infer_meta=matmul_meta, backward=matmul_grad,
                     save=("x", "y"), attrs={"transpose_x": (bool, False), "transpose_y": (bool, False)})
add_kernel("matmul", "cpu", FLOATS + INTS + COMPLEX, matmul_blas, name="blas", priority=1)
# bfloat16: multiplied and summed in float32 (numpy's float32 BLAS), the result rounded to bfloat16 once
add_kernel("matmul", "cpu", BFLOAT16, upcast_bfloat16(matmul_blas), name="blas_float32")
add_kernel("matmul", "cpu", ("float32", "float64"),
           LazyKernel("minipaddle.framework.kernels.cpu.matmul:matmul_numba"), name="numba")


def matmul(x, y, transpose_x=False, transpose_y=False, name=None) -> Tensor:
    """Matrix product with Paddle's broadcasting rules.

    >>> paddle.matmul(paddle.ones([2, 3]), paddle.ones([3, 4])).shape    # doctest: +SKIP
    [2, 4]
    """
    if type(x) is not Tensor:
        x = as_tensor("matmul", "x", x)
    if type(y) is not Tensor:
        y = as_tensor("matmul", "y", y)
    if x._data.dtype != y._data.dtype and "c" in (x._data.dtype.kind, y._data.dtype.kind):
        x, y = _promote_to_complex(x, y)   # Paddle: float32 @ complex64 is complex64
    if transpose_x is False and transpose_y is False:
        return dispatch(MATMUL, (x, y))  # attrs left out take their defaults: no keyword passing
    for flag_name, flag in (("transpose_x", transpose_x), ("transpose_y", transpose_y)):
        if not isinstance(flag, (bool, np.bool_)):  # 'yes' would be truthy: refuse it, as Paddle does
            raise invalid_type("matmul", f"{flag_name} must be a bool, got {type(flag).__name__} {flag!r}.")
    return dispatch(MATMUL, (x, y), {"transpose_x": bool(transpose_x), "transpose_y": bool(transpose_y)})


def _promote_to_complex(x: Tensor, y: Tensor) -> tuple[Tensor, Tensor]:
    from .elementwise import cast
    target = promote_types("matmul", x._data.dtype, y._data.dtype)
    return cast(x, target), cast(y, target)


# ---- bmm ---------------------------------------------------------------------------
def bmm_meta(x, y) -> MetaTensor:
    same_dtype("bmm", x, y)
    if len(x.shape) != 3 or len(y.shape) != 3:
        raise invalid_argument("bmm", f"x has shape {list(x.shape)} and y has shape {list(y.shape)}; "
                                      "expected two 3-D tensors [batch, m, k] and [batch, k, n].",
                               hint="use paddle.matmul for other ranks or broadcasting.")
    (b, m, k), (b_y, k_y, n) = x.shape, y.shape
    if b != b_y and -1 not in (b, b_y):
        raise invalid_argument("bmm", f"x's batch size ({b}) must equal y's ({b_y}); got x of shape "
                                      f"{list(x.shape)} and y of shape {list(y.shape)}.")
    if k != k_y and -1 not in (k, k_y):
        raise _mismatch("bmm", x.shape, y.shape, "last dim", k, "second dim", k_y)
    return MetaTensor((b, m, n), x.dtype)


def bmm_grad(node, dout):
    return matmul(dout, node.y, transpose_y=True), matmul(node.x, dout, transpose_x=True)


BMM = register_op("bmm", inputs=("x", "y"), infer_meta=bmm_meta, backward=bmm_grad, save=("x", "y"))
add_kernel("bmm", "cpu", FLOATS + INTS, np.matmul, name="blas")


def bmm(x, y, name=None) -> Tensor:
    """Batched matrix product of [b, m, k] and [b, k, n] (no broadcasting)."""
    return dispatch(BMM, (as_tensor("bmm", "x", x), as_tensor("bmm", "y", y)))


# ---- dot ---------------------------------------------------------------------------
def dot_meta(x, y) -> MetaTensor:
    same_dtype("dot", x, y)
    if len(x.shape) not in (1, 2) or len(x.shape) != len(y.shape):
        raise invalid_argument("dot", f"x has shape {list(x.shape)} and y has shape {list(y.shape)}; "
                                      "expected two 1-D vectors or two 2-D [batch, n] tensors.")
    for i, (a, b) in enumerate(zip(x.shape, y.shape)):
        if a != b and -1 not in (a, b):
            raise invalid_argument("dot", f"x of shape {list(x.shape)} and y of shape {list(y.shape)} "
                                          f"differ in dim {i}; expected the same shape.")
    return MetaTensor(tuple(x.shape[:-1]), x.dtype)


def dot_grad(node, dout):
    from .manipulation import reshape
    dout = reshape(dout, list(node.out_metas[0][0]) + [1])  # one weight per row, broadcast along it
    return dout * node.y, dout * node.x


def dot_kernel(x, y):
    return np.einsum("...i,...i->...", x, y)


DOT = register_op("dot", inputs=("x", "y"), infer_meta=dot_meta, backward=dot_grad, save=("x", "y"))
add_kernel("dot", "cpu", FLOATS + INTS, dot_kernel, name="numpy")


def dot(x, y, name=None) -> Tensor:
    """Inner product of two vectors, or row by row of two [batch, n] tensors."""
    return dispatch(DOT, (as_tensor("dot", "x", x), as_tensor("dot", "y", y)))


# ---- mv ----------------------------------------------------------------------------
def mv_meta(x, vec) -> MetaTensor:
    same_dtype("mv", x, vec)
    if len(x.shape) != 2 or len(vec.shape) != 1:
        raise invalid_argument("mv", f"x has shape {list(x.shape)} and vec has shape {list(vec.shape)}; "
                                     "expected a 2-D matrix and a 1-D vector.")
    if x.shape[1] != vec.shape[0] and -1 not in (x.shape[1], vec.shape[0]):
        raise invalid_argument("mv", f"x's last dim ({x.shape[1]}) must equal vec's length ({vec.shape[0]}); "
                                     f"got x of shape {list(x.shape)} and vec of shape {list(vec.shape)}.")
    return MetaTensor((x.shape[0],), x.dtype)


def mv_grad(node, dout):
    from .manipulation import reshape
    dx = matmul(reshape(dout, [-1, 1]), reshape(node.vec, [1, -1]))  # the outer product
    return dx, matmul(dout, node.x)


MV = register_op("mv", inputs=("x", "vec"), infer_meta=mv_meta, backward=mv_grad, save=("x", "vec"))
add_kernel("mv", "cpu", FLOATS + INTS, np.matmul, name="blas")


def mv(x, vec, name=None) -> Tensor:
    """Matrix-vector product: [m, n] @ [n] -> [m]."""
    return dispatch(MV, (as_tensor("mv", "x", x), as_tensor("mv", "vec", vec)))


# ---- t, outer ----------------------------------------------------------------------
def t_meta(x) -> MetaTensor:
    if len(x.shape) > 2:
        raise invalid_argument("t", f"x has shape {list(x.shape)}; expected a tensor with at most 2 dims.",
                               hint="use paddle.transpose(x, perm) for more dims.")
    return MetaTensor(tuple(reversed(x.shape)), x.dtype)


def t_grad(node, dout):
    return t(dout)


def t_kernel(x):
    return x.T  # a view: no data moves


T = register_op("t", inputs=("x",), infer_meta=t_meta, backward=t_grad)
add_kernel("t", "cpu", FLOATS + INTS + ("bool", "int8", "int16", "uint8"), t_kernel, name="numpy")


def t(input, name=None) -> Tensor:
    """Transpose of a matrix; a 0-D or 1-D tensor comes back as it is (as in Paddle)."""
    from .manipulation import view_of
    x = as_tensor("t", "input", input)
    if x._data.ndim < 2:
        return x
    return view_of(dispatch(T, (x,)), x)


def outer(x, y, name=None) -> Tensor:
    """Outer product out[i, j] = x[i] * y[j]; inputs of more dims are flattened first."""
    from .manipulation import reshape
    x = as_tensor("outer", "x", x)
    y = as_tensor("outer", "y", y)
    return reshape(x, [-1, 1]) * reshape(y, [1, -1])


def mm(input, mat2, name=None) -> Tensor:  # noqa: A002 - Paddle's argument name
    """Matrix product of input and mat2: matmul without the transpose flags (`paddle.mm(a, b)`)."""
    input = as_tensor("mm", "input", input)
    mat2 = as_tensor("mm", "mat2", mat2)
    return matmul(input, mat2)


def dist(x, y, p: float = 2, name=None) -> Tensor:
    """The p-norm of x - y (broadcast), as a 0-D tensor: p=0 counts the nonzeros, inf/-inf take the
    largest/smallest |x - y|, any other p is (sum |x - y|^p)^(1/p)."""
    from .reduction import norm
    x = as_tensor("dist", "x", x)
    y = as_tensor("dist", "y", y)
    if not isinstance(p, (int, float, np.number)) or isinstance(p, bool):
        raise invalid_argument("dist", f"p got {type(p).__name__}, expected a number (0, 1, 2, inf, ...).")
    return norm(x - y, p=float(p))


__all__ = ["bmm", "dist", "dot", "matmul", "mm", "mv", "outer", "t"]
TENSOR_METHODS = list(__all__)
