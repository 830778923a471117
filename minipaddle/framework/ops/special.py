"""Special functions: lgamma, digamma, polygamma, atan.

The log-densities of the Gamma, Beta, Dirichlet, Poisson, Binomial and StudentT distributions
(minipaddle/distribution) are written with these. Each is a scalar function compiled into a numba
loop (kernels/cpu/elementwise.py); numpy has no ufunc for them. The gradients chain down the
family: d lgamma = digamma, d digamma = polygamma(1), d polygamma(n) = polygamma(n + 1).

digamma and polygamma follow the textbook recipe (Abramowitz & Stegun 6.3, 6.4): step x up
with the recurrence psi(x + 1) = psi(x) + 1/x until the asymptotic series is accurate, then sum
the series (its coefficients are Bernoulli numbers).
"""
from __future__ import annotations

import math

from ..dispatch import dispatch
from ..errors import invalid_argument
from ..kernels.cpu.elementwise import FLOAT_BINARY, FLOAT_UNARY, ElementwiseKernel
from ..registry import MetaTensor, add_kernel, register_op
from ..tensor import Tensor
from .common import as_tensor, require_dtype


# ---- scalar math ---------------------------------------------------------------------
def lgamma_scalar(x):
    return math.lgamma(x)


def digamma_scalar(x):
    """psi(x) = d/dx log Gamma(x); poles (nan) at 0, -1, -2, ..."""
    if x <= 0.0 and x == math.floor(x):
        return math.nan
    result = 0.0
    if x < 0.0:  # reflection: psi(1 - x) - psi(x) = pi / tan(pi x)
        result = -math.pi / math.tan(math.pi * x)
        x = 1.0 - x
    while x < 10.0:
        result -= 1.0 / x
        x += 1.0
    f = 1.0 / (x * x)
    series = f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f * (1.0 / 132)))))
    return result + math.log(x) - 0.5 / x - series


def polygamma_scalar(x, n):
    """psi^(n)(x) for n >= 1: (-1)^(n+1) n! sum_k 1/(x+k)^(n+1), by recurrence + asymptotic series."""
    if x <= 0.0 and x == math.floor(x):
        return math.nan
    order = int(n)
    sign = 1.0 if order % 2 == 1 else -1.0
    n_fact = math.gamma(order + 1.0)
    result = 0.0
    while x < 20.0:
        result += n_fact / x ** (order + 1)
        x += 1.0
    # (n-1)!/x^n + n!/(2 x^(n+1)) + sum_k B_2k (2k+n-1)! / ((2k)! x^(2k+n))
    tail = math.gamma(float(order)) / x ** order + n_fact / (2.0 * x ** (order + 1))
    bernoulli = (1.0 / 6, -1.0 / 30, 1.0 / 42, -1.0 / 30, 5.0 / 66, -691.0 / 2730, 7.0 / 6)
    for k in range(1, 8):
        term = bernoulli[k - 1] * math.gamma(2.0 * k + order) / math.gamma(2.0 * k + 1.0)
        tail += term / x ** (2 * k + order)
    return sign * (result + tail)


def atan_scalar(x):
    return math.atan(x)


_LGAMMA = ElementwiseKernel(lgamma_scalar, FLOAT_UNARY)
_DIGAMMA = ElementwiseKernel(digamma_scalar, FLOAT_UNARY)
_POLYGAMMA = ElementwiseKernel(polygamma_scalar, FLOAT_BINARY)
_ATAN = ElementwiseKernel(atan_scalar, FLOAT_UNARY)


def lgamma_kernel(x):
    return _LGAMMA(x)


def digamma_kernel(x):
    return _DIGAMMA(x)


def polygamma_kernel(x, n=1):
    return _POLYGAMMA(x, x.dtype.type(n))


def atan_kernel(x):
    return _ATAN(x)


# ---- infer_meta and gradients ----------------------------------------------------------------
def lgamma_meta(x) -> MetaTensor:
    require_dtype("lgamma", "x", x, "f", "a floating dtype")
    return MetaTensor(x.shape, x.dtype)


def digamma_meta(x) -> MetaTensor:
    require_dtype("digamma", "x", x, "f", "a floating dtype")
    return MetaTensor(x.shape, x.dtype)


def polygamma_meta(x, n=1) -> MetaTensor:
    require_dtype("polygamma", "x", x, "f", "a floating dtype")
    return MetaTensor(x.shape, x.dtype)


def atan_meta(x) -> MetaTensor:
    require_dtype("atan", "x", x, "f", "a floating dtype")
    return MetaTensor(x.shape, x.dtype)


def lgamma_grad(node, dout):
    return dout * digamma(node.x)


def digamma_grad(node, dout):
    return dout * polygamma(node.x, 1)


def polygamma_grad(node, dout):
    return dout * polygamma(node.x, node.n + 1)


def atan_grad(node, dout):
    x = node.x
    return dout / (x * x + 1.0)


LGAMMA = register_op("lgamma", inputs=("x",), infer_meta=lgamma_meta, backward=lgamma_grad, save=("x",))
DIGAMMA = register_op("digamma", inputs=("x",), infer_meta=digamma_meta, backward=digamma_grad, save=("x",))
POLYGAMMA = register_op("polygamma", inputs=("x",), infer_meta=polygamma_meta, backward=polygamma_grad,
                        save=("x",), attrs={"n": (int, 1)})
ATAN = register_op("atan", inputs=("x",), infer_meta=atan_meta, backward=atan_grad, save=("x",))
add_kernel("lgamma", "cpu", ("float32", "float64"), lgamma_kernel, name="numba")
add_kernel("digamma", "cpu", ("float32", "float64"), digamma_kernel, name="numba")
add_kernel("polygamma", "cpu", ("float32", "float64"), polygamma_kernel, name="numba")
add_kernel("atan", "cpu", ("float32", "float64"), atan_kernel, name="numba")


# ---- public functions ------------------------------------------------------------------------
def lgamma(x, name=None) -> Tensor:
    """log |Gamma(x)|, elementwise.

    >>> paddle.lgamma(paddle.to_tensor([1.0, 5.0]))    # doctest: +SKIP
    [0., 3.17805386]            # log(4!) = log 24
    """
    return dispatch(LGAMMA, (as_tensor("lgamma", "x", x),))


def digamma(x, name=None) -> Tensor:
    """psi(x) = d/dx log Gamma(x), elementwise (nan at 0, -1, -2, ...)."""
    return dispatch(DIGAMMA, (as_tensor("digamma", "x", x),))


def polygamma(x, n, name=None) -> Tensor:
    """The n-th derivative of digamma, elementwise; polygamma(x, 0) is digamma(x)."""
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        raise invalid_argument("polygamma", f"n must be a non-negative int, got {n!r}.")
    x = as_tensor("polygamma", "x", x)
    if n == 0:
        return digamma(x)
    return dispatch(POLYGAMMA, (x,), {"n": n})


def atan(x, name=None) -> Tensor:
    """The arc tangent, elementwise (radians, in (-pi/2, pi/2))."""
    return dispatch(ATAN, (as_tensor("atan", "x", x),))


__all__ = ["atan", "digamma", "lgamma", "polygamma"]
TENSOR_METHODS = list(__all__)
