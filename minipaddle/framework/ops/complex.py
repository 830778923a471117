"""Complex numbers: complex(real, imag), real, imag, conj, angle; and the dtype predicates is_complex,
is_floating_point (bfloat16 included), is_integer.

complex64 holds two float32s (real, imaginary), complex128 two float64s; numpy stores and computes
them, so the arithmetic ops (add, multiply, exp, matmul, ...) serve complex tensors with numpy's
kernels, registered beside their real ones.

Gradients follow Paddle's convention, which is PyTorch's: for a real loss L of z = a + ib, z.grad is
dL/da + i dL/db -- the steepest-ascent direction, so `z - lr * z.grad` descends as for a real
parameter. With it, the chain rule through a holomorphic f(z) multiplies by the *conjugate* of f'(z):
the backward rules of multiply, exp, log, matmul, ... conjugate their derivative (`conj_if_complex`).

    >>> z = paddle.to_tensor([3 + 4j], stop_gradient=False)
    >>> paddle.abs(z).sum().backward()
    >>> z.grad            # z / |z| = 0.6 + 0.8j: d|z|/da = a/|z|, d|z|/db = b/|z|
"""
from __future__ import annotations

import numpy as np

from ..creation import zeros_like
from ..dispatch import dispatch
from ..dtype import complex_of, real_of, to_paddle_dtype
from ..errors import invalid_argument, unimplemented
from ..registry import MetaTensor, add_kernel, register_op
from ..tensor import Tensor
from .common import ALL, COMPLEX, FLOATS, as_tensor, broadcast_shape


def conj_if_complex(t: Tensor) -> Tensor:
    """conj(t) for a complex t, t itself otherwise: the backward rules' one concession to complex inputs."""
    if t._data.dtype.kind == "c":
        return dispatch(CONJ, (t,))
    return t


def is_complex(x) -> bool:
    """Whether x is a complex64 or complex128 tensor (`paddle.is_complex(x)`, `x.is_complex()`)."""
    return as_tensor("is_complex", "x", x)._data.dtype.kind == "c"


def is_floating_point(x) -> bool:
    """Whether x is a float16, bfloat16, float32 or float64 tensor (complex ones are not)."""
    return to_paddle_dtype(as_tensor("is_floating_point", "x", x)._data.dtype).is_floating_point


def is_integer(x) -> bool:
    """Whether x is a tensor of an integer dtype (bool is not one)."""
    return as_tensor("is_integer", "x", x)._data.dtype.kind in "iu"


# ---- complex(real, imag) ---------------------------------------------------------------
def complex_meta(real, imag) -> MetaTensor:
    for arg, t in (("real", real), ("imag", imag)):
        if str(t.dtype) not in ("float32", "float64"):  # as Paddle: there is no complex kernel for them
            raise unimplemented("complex", f"argument '{arg}' has dtype {t.dtype}, expected float32 or float64.",
                                   hint=f"cast it first: {arg}.astype('float32').")
    if real.dtype != imag.dtype:
        raise invalid_argument("complex", f"real has dtype {real.dtype} but imag has dtype {imag.dtype}; expected "
                                          "the same dtype.", hint="cast one of them with .astype(...).")
    return MetaTensor(broadcast_shape("complex", real.shape, imag.shape), complex_of(real.dtype))


def complex_kernel(real, imag):
    real, imag = np.broadcast_arrays(real, imag)
    out = np.empty(real.shape, complex_of(real.dtype))
    out.real = real
    out.imag = imag
    return out


def complex_grad(node, dout):
    return real(dout), imag(dout)


COMPLEX_OP = register_op("complex", inputs=("real", "imag"), infer_meta=complex_meta, backward=complex_grad)
add_kernel("complex", "cpu", ("float32", "float64"), complex_kernel, name="numpy")


def complex(real: Tensor, imag: Tensor, name=None) -> Tensor:  # noqa: A001 - Paddle's name
    """real + i * imag, elementwise (broadcast): `paddle.complex(x, y)` of two float32 tensors is complex64."""
    return dispatch(COMPLEX_OP, (as_tensor("complex", "real", real), as_tensor("complex", "imag", imag)))


# ---- real, imag, conj, angle -------------------------------------------------------------
def real_part_meta(x) -> MetaTensor:
    """real, imag, angle and abs: complex64 -> float32, complex128 -> float64; a real dtype stays."""
    return MetaTensor(x.shape, real_of(x.dtype))


def real_grad(node, dout):
    if node.input_metas[0][1].kind != "c":
        return dout
    return complex(dout, zeros_like(dout))


def imag_grad(node, dout):
    if node.input_metas[0][1].kind != "c":
        return zeros_like(dout)
    return complex(zeros_like(dout), dout)   # L depends on b only: dL/da + i dL/db = i * dout


def conj_grad(node, dout):
    return conj(dout)


def angle_grad(node, dout):
    """angle = atan2(b, a): d/da = -b/|z|^2, d/db = a/|z|^2, so z.grad = dout * i z / |z|^2 (0 at z = 0,
    and 0 for a real x, whose angle is piecewise constant)."""
    from .compare import greater_than
    from .elementwise import divide, multiply, where
    z = node.x
    if z._data.dtype.kind != "c":
        return zeros_like(dout)
    a, b = real(z), imag(z)
    r2 = a * a + b * b
    nonzero = greater_than(r2, zeros_like(r2))
    scale = where(nonzero, divide(dout, where(nonzero, r2, r2 + 1.0)), zeros_like(r2))
    return multiply(complex(-b, a), complex(scale, zeros_like(scale)))


REAL = register_op("real", inputs=("x",), infer_meta=real_part_meta, backward=real_grad)
IMAG = register_op("imag", inputs=("x",), infer_meta=real_part_meta, backward=imag_grad)
CONJ = register_op("conj", inputs=("x",), infer_meta=lambda x: MetaTensor(x.shape, x.dtype), backward=conj_grad)
ANGLE = register_op("angle", inputs=("x",), infer_meta=real_part_meta, backward=angle_grad, save=("x",))


def real_kernel(x):
    return np.ascontiguousarray(x.real)


def imag_kernel(x):
    return np.ascontiguousarray(x.imag) if x.dtype.kind == "c" else np.zeros_like(x)


def conj_kernel(x):
    return np.conj(x) if x.dtype.kind == "c" else x.copy()


def angle_kernel(x):
    return np.angle(x).astype(real_of(x.dtype), copy=False)


_REAL_AND_COMPLEX = FLOATS + COMPLEX
add_kernel("real", "cpu", _REAL_AND_COMPLEX, real_kernel, name="numpy")
add_kernel("imag", "cpu", _REAL_AND_COMPLEX, imag_kernel, name="numpy")
add_kernel("conj", "cpu", [d for d in ALL if d != "bfloat16"], conj_kernel, name="numpy")
add_kernel("angle", "cpu", _REAL_AND_COMPLEX, angle_kernel, name="numpy")


def real(x, name=None) -> Tensor:
    """The real part: complex64 -> float32, complex128 -> float64."""
    return dispatch(REAL, (as_tensor("real", "x", x),))


def imag(x, name=None) -> Tensor:
    """The imaginary part: complex64 -> float32, complex128 -> float64."""
    return dispatch(IMAG, (as_tensor("imag", "x", x),))


def conj(x, name=None) -> Tensor:
    """The complex conjugate a - ib (a real tensor comes back unchanged)."""
    return dispatch(CONJ, (as_tensor("conj", "x", x),))


def angle(x, name=None) -> Tensor:
    """The argument atan2(imag, real), in (-pi, pi]; real dtype."""
    return dispatch(ANGLE, (as_tensor("angle", "x", x),))


__all__ = ["complex", "real", "imag", "conj", "angle", "is_complex", "is_floating_point", "is_integer"]
TENSOR_METHODS = ["real", "imag", "conj", "angle", "is_complex", "is_floating_point", "is_integer"]
