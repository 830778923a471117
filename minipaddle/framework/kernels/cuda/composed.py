"""GPU kernels written as calls of other GPU kernels: no CUDA code of their own.

PHI builds some kernels this way (logsumexp from max, exp, sum and log; einsum from transpose,
reshape and matmul), and so do these: each reads as the formula it computes, and is as fast as the
kernels it calls allow. tril/triu have one small kernel of their own; the rest are compositions.
Ops whose output size depends on the values (masked_select, nonzero) copy the mask to the host to
count -- Paddle's GPU kernels synchronize there too.

Every function has the signature of the op's CPU kernel and takes and returns C-contiguous device
arrays.
"""
from __future__ import annotations

import numpy as np
from numba import cuda

from ... import registry
from ...errors import invalid_argument
from . import elementwise as E
from . import reduction as R
from .indexing import gather, scatter
from .launch import THREADS, blocks_for, flat, launch
from .manipulation import broadcast_to, transpose
from .strided import concat, full, reshaped as reshape, scalar_of, slice as slice_of

INT64 = np.dtype("int64")


def _const(value, dtype):
    """A 0-D device array holding `value` (a broadcasting partner of an elementwise kernel)."""
    return full((), scalar_of(dtype, value), dtype)


def _keep_shape(out, x, axis, keepdim: bool):
    """A keepdim reduction's result reshaped as the op asked (axis None: every axis)."""
    if keepdim:
        return out
    axes = tuple(range(len(x.shape))) if axis is None else tuple(axis)
    return reshape(out, R.reduced_shape(tuple(x.shape), axes, False))


# ---- logic reductions and isclose ------------------------------------------------------------------
def any(x, axis=None, keepdim=False):  # noqa: A001 - the op's name
    """Whether some element is non-zero: the count of non-zeros, > 0."""
    count = R.sum(E.cast(E.not_equal(x, _const(0, x.dtype)), np.dtype("int32")), axis, keepdim, INT64)
    return E.greater_than(count, _const(0, INT64))


def all(x, axis=None, keepdim=False):  # noqa: A001 - the op's name
    """Whether every element is non-zero: not any zero."""
    return E.logical_not(any(E.equal(x, _const(0, x.dtype)), axis, keepdim))


def isclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|x - y| <= atol + rtol * |y| (numpy's rule), equal infinities close, NaNs close if equal_nan."""
    within = E.less_equal(E.abs(E.subtract(x, y)), E.scale(E.abs(y), rtol, atol))
    within = E.logical_and(within, E.logical_and(E.isfinite(x), E.isfinite(y)))  # tol is inf at y = inf
    close = E.logical_or(within, E.equal(x, y))  # infinities: close only when equal
    if equal_nan:
        close = E.logical_or(close, E.logical_and(E.isnan(x), E.isnan(y)))
    return close


# ---- reductions made of reductions -----------------------------------------------------------------
def logsumexp(x, axis=None, keepdim=False):
    """m + log(sum(exp(x - m))) with m the max: no overflow; an all -inf slice shifts by 0."""
    m = R.max(x, axis, True)
    m = E.where(E.isfinite(m), m, _const(0, x.dtype))
    out = E.add(E.log(R.sum(E.exp(E.subtract(x, m)), axis, True)), m)
    return _keep_shape(out, x, axis, keepdim)


def p_norm(x, porder=2.0, axis=None, keepdim=False):
    """(sum |x|^p)^(1/p); p = inf / -inf: the largest / smallest |x|; p = 0: the count of non-zeros."""
    if porder == 2.0:
        return E.sqrt(R.sum(E.square(x), axis, keepdim))
    a = E.abs(x)
    if porder == np.inf:
        return R.max(a, axis, keepdim)
    if porder == -np.inf:
        return R.min(a, axis, keepdim)
    if porder == 0.0:
        return R.sum(E.cast(E.not_equal(x, _const(0, x.dtype)), x.dtype), axis, keepdim)
    if porder == 1.0:
        return R.sum(a, axis, keepdim)
    powered = R.sum(E.elementwise_pow(a, _const(porder, x.dtype)), axis, keepdim)
    return E.elementwise_pow(powered, _const(1.0 / porder, x.dtype))


# ---- linear algebra through matmul -----------------------------------------------------------------
def chosen_matmul(x, y, transpose_x: bool = False, transpose_y: bool = False):
    """x @ y by the GPU matmul kernel the registry (or the autotuner) chose for this dtype: what every
    kernel written with a matrix product calls (conv, linear, interpolate, ...). The flags go as keywords,
    as the op's attributes do (an autotuned kernel takes its positional arguments for arrays)."""
    fn = registry.kernel_fn(registry.OPS["matmul"], registry.KernelKey("gpu", np.dtype(x.dtype)))
    return fn(x, y, transpose_x=transpose_x, transpose_y=transpose_y)


def bmm(x, y):
    return chosen_matmul(x, y)


def mv(x, vec):
    return chosen_matmul(x, vec)


def dot(x, y):
    """Inner products along the last axis (one per row of a [batch, n] pair)."""
    return R.sum(E.multiply(x, y), (len(x.shape) - 1,), False)


def t(x):
    return transpose(x, (1, 0)) if len(tuple(x.shape)) == 2 else E.assign(x)


# ---- roll, tril, triu --------------------------------------------------------------------------------
def roll(x, shifts=(), axis=None):
    """Each axis rotated by its shift: the last `shift` entries, then the rest (two slices, joined)."""
    if axis is None:
        return reshape(roll(reshape(x, (x.size,)), shifts[:1], (0,)), tuple(x.shape))
    shape, out = tuple(x.shape), None
    for shift, a in zip(shifts, axis):
        a = a % len(shape)
        n = shape[a]
        s = int(shift) % n if n else 0
        if s:
            src = x if out is None else out
            out = concat(slice_of(src, (a,), (n - s,), (n,)), slice_of(src, (a,), (0,), (n - s,)), axis=a)
    return E.assign(x) if out is None else out  # never x itself: the output is a new tensor


@cuda.jit(cache=True)
def _triangle(x, out, rows, cols, diagonal, lower, zero):
    # the last two dims are the matrix: element (r, c) stays when c - r is on the kept side
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        c = i % cols
        r = (i // cols) % rows
        keep = c - r <= diagonal if lower else c - r >= diagonal
        out[i] = x[i] if keep else zero


def _triangle_of(x, diagonal: int, lower: bool):
    out = cuda.device_array(x.shape, x.dtype)
    if out.size:
        rows, cols = tuple(x.shape)[-2:]  # (a tuple: the simulator's shape takes no negative index)
        launch(_triangle, blocks_for(out.size), THREADS, flat(x, x.size), flat(out, out.size), rows, cols,
               int(diagonal), lower, scalar_of(x.dtype, 0))
    return out


def tril(x, diagonal=0):
    return _triangle_of(x, diagonal, True)


def triu(x, diagonal=0):
    return _triangle_of(x, diagonal, False)


# ---- value-dependent sizes: the mask goes to the host to be counted ---------------------------------------
def _positions(mask) -> object:
    """The flat positions of the True entries of a device mask, as a device int64 array."""
    return cuda.to_device(np.flatnonzero(mask.copy_to_host()).astype(np.int64))


def masked_select(x, mask):
    shape = np.broadcast_shapes(tuple(x.shape), tuple(mask.shape))
    flat_x = reshape(broadcast_to(x, shape), (int(np.prod(shape, dtype=np.int64)),))
    return gather(flat_x, _positions(broadcast_to(mask, shape)), 0)


def masked_select_grad(dout, mask, shape=()):
    shape = tuple(shape)
    size = int(np.prod(shape, dtype=np.int64))
    zeros = full((size,), scalar_of(dout.dtype, 0), dout.dtype)
    return reshape(scatter(zeros, _positions(broadcast_to(mask, shape)), dout, True), shape)


def nonzero(x):
    """The coordinates [z, ndim] of x's non-zero entries, in row-major order."""
    host = x.copy_to_host()
    return cuda.to_device(np.ascontiguousarray(np.argwhere(host).astype(np.int64)))


# ---- integer floor_divide and remainder: Python's rules, and a zero divisor refused -------------------
def _no_zero_divisor(op: str, y) -> None:
    if bool(any(E.equal(y, _const(0, y.dtype))).copy_to_host()):
        raise invalid_argument(op, "integer division by zero.",
                               hint="mask the zeros first, e.g. paddle.where(y == 0, 1, y).")


def floor_divide_int(x, y):
    _no_zero_divisor("floor_divide", y)
    return _FLOOR_DIVIDE_INT(x, y)


def remainder_int(x, y):
    _no_zero_divisor("remainder", y)
    return _REMAINDER_INT(x, y)


def _floor_divide_int_scalar(x, y):
    return x // y  # numba's integer // rounds down, as Python's


def _remainder_int_scalar(x, y):
    return x % y   # the divisor's sign, as Python's


_FLOOR_DIVIDE_INT = E.CudaElementwiseKernel(_floor_divide_int_scalar, ("int32", "int64"))
_REMAINDER_INT = E.CudaElementwiseKernel(_remainder_int_scalar, ("int32", "int64"))
