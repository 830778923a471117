"""Discrete Fourier transforms (paddle.fft): the three ops Paddle's fft kernels are.

    fft_c2c   complex -> complex    fft, ifft, fftn, ifftn of a complex x
    fft_r2c   real -> complex       rfft, ihfft (onesided=True); fft, ifft of a real x (onesided=False)
    fft_c2r   complex -> real       irfft, hfft: the input is half of a Hermitian spectrum, and
                                    last_dim_size the length of the real signal (0: 2 * (m - 1))

Their attributes are Paddle's: `axes` (the onesided / last_dim_size axis is the last one), `normalization`
and `forward`. `forward` is the sign of the exponent: e^(-2 pi i k t / n) forward, e^(+...) backward.
`normalization` names the direction that is scaled by 1/n, as numpy's `norm` does: "backward" (the
default: ifft divides by n), "forward" (fft divides by n) or "ortho" (both by sqrt(n)); n is the product
of the transformed sizes of the full, two-sided signal. Cutting or zero-padding to the sizes a user asks
for (`n`, `s`) is the public functions' job (minipaddle/fft.py, with slice and pad), so each op sees the
sizes it transforms. The kernels are numpy.fft (pocketfft), in the input's precision.

Gradients follow Paddle's convention (complex.py): for a real loss L, z.grad = dL/da + i dL/db. A
transform y = A x has the gradient A^H y.grad (the conjugate transpose), and A^H of a DFT is the DFT
the other way round with the same scale: the three rules below are one transform each, written in
minipaddle ops so that grads of grads work.
"""
from __future__ import annotations

import numpy as np

from ..creation import to_tensor
from ..dispatch import dispatch
from ..dtype import complex_of, real_of
from ..errors import invalid_argument, unimplemented
from ..registry import MetaTensor, add_kernel, register_op
from ..tensor import Tensor
from .common import COMPLEX, follow_place
from .complex import real
from .joining import PAD

NORMS = ("backward", "ortho", "forward")
REAL_DTYPES = ("float32", "float64")   # as Paddle's CPU kernels: no float16, no bfloat16
# Turning the direction round while keeping the scale renames it: an unscaled forward transform
# ("backward") has an unscaled inverse only under "forward".
_SAME_SCALE_OTHER_WAY = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


# ---- checks shared by the three ops --------------------------------------------------------
def _check_attrs(op: str, shape: tuple, axes: tuple, normalization: str) -> None:
    if normalization not in NORMS:
        raise invalid_argument(op, f"normalization got {normalization!r}, expected one of {list(NORMS)}.")
    ndim = len(shape)
    if not axes:
        raise invalid_argument(op, "axes is empty; expected at least one axis to transform.")
    if any(not -ndim <= a < ndim for a in axes):
        raise invalid_argument(op, f"axes {list(axes)} has an axis outside [-{ndim}, {ndim}) for x of shape "
                                   f"{list(shape)}.")
    if len({a % ndim for a in axes}) != len(axes):
        raise invalid_argument(op, f"axes {list(axes)} names an axis twice; expected distinct axes.")


def _check_dtype(op: str, dtype: np.dtype, allowed: tuple, what: str) -> None:
    if str(dtype) not in allowed:
        raise unimplemented(op, f"x has dtype {dtype}, expected {' or '.join(allowed)} ({what}).",
                            hint="cast it first, e.g. x.astype('float32'), or use paddle.fft.fft for complex x.")


def _empty_along(shape: tuple, axes: tuple) -> bool:
    return any(shape[a] == 0 for a in axes)   # pocketfft refuses a transform of length 0


# ---- fft_c2c --------------------------------------------------------------------------------
def fft_c2c_meta(x, axes=(), normalization="backward", forward=True) -> MetaTensor:
    _check_dtype("fft_c2c", x.dtype, COMPLEX, "a complex signal")
    _check_attrs("fft_c2c", x.shape, axes, normalization)
    return MetaTensor(tuple(x.shape), x.dtype)


def fft_c2c_grad(node, dout):
    """A^H of a DFT is the DFT the other way round, with the same scale."""
    return fft_c2c(dout, node.axes, _SAME_SCALE_OTHER_WAY[node.normalization], not node.forward)


def fft_c2c_kernel(x, axes=(), normalization="backward", forward=True):
    if _empty_along(x.shape, axes):
        return np.zeros(x.shape, x.dtype)
    transform = np.fft.fftn if forward else np.fft.ifftn
    return transform(x, axes=axes, norm=normalization).astype(x.dtype, copy=False)


_ATTRS = {"axes": (tuple, ()), "normalization": (str, "backward"), "forward": (bool, True)}
FFT_C2C = register_op("fft_c2c", inputs=("x",), infer_meta=fft_c2c_meta, backward=fft_c2c_grad, attrs=_ATTRS)
add_kernel("fft_c2c", "cpu", COMPLEX, fft_c2c_kernel, name="pocketfft")


def fft_c2c(x: Tensor, axes, normalization: str = "backward", forward: bool = True) -> Tensor:
    """The DFT of a complex x over `axes` (Paddle's _C_ops.fft_c2c); paddle.fft.fftn is the public face."""
    attrs = {"axes": tuple(axes), "normalization": normalization, "forward": bool(forward)}
    return dispatch(FFT_C2C, (x,), attrs)


# ---- fft_r2c --------------------------------------------------------------------------------
def fft_r2c_meta(x, axes=(), normalization="backward", forward=True, onesided=True) -> MetaTensor:
    _check_dtype("fft_r2c", x.dtype, REAL_DTYPES, "a real signal")
    _check_attrs("fft_r2c", x.shape, axes, normalization)
    shape = list(x.shape)
    last = axes[-1]
    if onesided and shape[last] != -1:
        shape[last] = shape[last] // 2 + 1   # the rest is the conjugate mirror of these
    return MetaTensor(tuple(shape), complex_of(x.dtype))


def fft_r2c_grad(node, dout):
    """x is real, so x.grad = Re(A^H dout). A onesided y dropped the upper half of the spectrum; the loss
    does not see it, so its gradient is 0: pad dout with zeros back to the full length first."""
    axis = node.axes[-1] % len(node.input_metas[0][0])
    n = node.input_metas[0][0][axis]
    kept = node.out_metas[0][0][axis]
    if node.onesided and n > kept:
        widths = [(0, 0)] * len(node.out_metas[0][0])
        widths[axis] = (0, n - kept)
        dout = dispatch(PAD, (dout,), {"paddings": tuple(widths), "mode": "constant", "value": 0.0})
    back = fft_c2c(dout, node.axes, _SAME_SCALE_OTHER_WAY[node.normalization], not node.forward)
    return real(back)


def fft_r2c_kernel(x, axes=(), normalization="backward", forward=True, onesided=True):
    out_dtype = complex_of(x.dtype)
    if _empty_along(x.shape, axes):
        return np.zeros(fft_r2c_meta(x, axes, normalization, forward, onesided).shape, out_dtype)
    if not onesided:
        transform = np.fft.fftn if forward else np.fft.ifftn
        return transform(x, axes=axes, norm=normalization).astype(out_dtype, copy=False)
    if forward:
        return np.fft.rfftn(x, axes=axes, norm=normalization).astype(out_dtype, copy=False)
    # e^(+i...) summed over a real x is the conjugate of e^(-i...) summed over it
    half = np.fft.rfftn(x, axes=axes, norm=_SAME_SCALE_OTHER_WAY[normalization])
    return np.conj(half).astype(out_dtype, copy=False)


FFT_R2C = register_op("fft_r2c", inputs=("x",), infer_meta=fft_r2c_meta, backward=fft_r2c_grad,
                      attrs={**_ATTRS, "onesided": (bool, True)})
add_kernel("fft_r2c", "cpu", REAL_DTYPES, fft_r2c_kernel, name="pocketfft")


def fft_r2c(x: Tensor, axes, normalization: str = "backward", forward: bool = True,
            onesided: bool = True) -> Tensor:
    """The DFT of a real x over `axes`; onesided keeps n // 2 + 1 entries along the last axis."""
    attrs = {"axes": tuple(axes), "normalization": normalization, "forward": bool(forward),
             "onesided": bool(onesided)}
    return dispatch(FFT_R2C, (x,), attrs)


# ---- fft_c2r --------------------------------------------------------------------------------
def _signal_length(op: str, m: int, last_dim_size: int) -> int:
    """The real signal's length along the last axis, from m half-spectrum entries."""
    if last_dim_size > 0:
        if m != -1 and m != last_dim_size // 2 + 1:
            raise invalid_argument(op, f"x has {m} entries along the last axis, expected last_dim_size // 2 + 1 = "
                                       f"{last_dim_size // 2 + 1} for last_dim_size {last_dim_size}.")
        return last_dim_size
    if m == -1:
        return -1
    if m < 1:
        raise invalid_argument(op, "x has 0 entries along the last axis; a half spectrum needs at least one.")
    return 2 * (m - 1)


def fft_c2r_meta(x, axes=(), normalization="backward", forward=False, last_dim_size=0) -> MetaTensor:
    _check_dtype("fft_c2r", x.dtype, COMPLEX, "a half spectrum")
    _check_attrs("fft_c2r", x.shape, axes, normalization)
    shape = list(x.shape)
    shape[axes[-1]] = _signal_length("fft_c2r", shape[axes[-1]], last_dim_size)
    return MetaTensor(tuple(shape), real_of(x.dtype))


def fft_c2r_grad(node, dout):
    """y = c2r(X) reads the spectrum X[k] and, for 0 < k < n - k, its conjugate mirror X[n - k] = conj(X[k]),
    which adds the same again: X[k].grad = w[k] * r2c(y.grad), w = 2 except 1 at k = 0 and (n even) at the
    Nyquist entry k = n / 2, which have no mirror. c2r reads only the real part of those two, and r2c of a
    real y.grad is real there, so their imaginary gradient is 0, as it should be."""
    ndim = len(node.out_metas[0][0])
    axis = node.axes[-1] % ndim
    n = node.out_metas[0][0][axis]
    half = fft_r2c(dout, node.axes, _SAME_SCALE_OTHER_WAY[node.normalization], not node.forward, onesided=True)
    weights = np.full(n // 2 + 1, 2.0)
    weights[0] = 1.0
    if n % 2 == 0:
        weights[-1] = 1.0
    shape = [1] * ndim
    shape[axis] = n // 2 + 1
    w = to_tensor(weights.reshape(shape).astype(node.input_metas[0][1]))
    return half * follow_place(w, half)


def fft_c2r_kernel(x, axes=(), normalization="backward", forward=False, last_dim_size=0):
    out_shape = fft_c2r_meta(x, axes, normalization, forward, last_dim_size).shape
    if 0 in out_shape:
        return np.zeros(out_shape, real_of(x.dtype))
    if forward:   # e^(-i...) over a Hermitian spectrum: c2r of its conjugate, scaled alike
        x, normalization = np.conj(x), _SAME_SCALE_OTHER_WAY[normalization]
    sizes = [out_shape[a] for a in axes]
    return np.fft.irfftn(x, s=sizes, axes=axes, norm=normalization).astype(real_of(x.dtype), copy=False)


FFT_C2R = register_op("fft_c2r", inputs=("x",), infer_meta=fft_c2r_meta, backward=fft_c2r_grad,
                      attrs={**_ATTRS, "forward": (bool, False), "last_dim_size": (int, 0)})
add_kernel("fft_c2r", "cpu", COMPLEX, fft_c2r_kernel, name="pocketfft")


def fft_c2r(x: Tensor, axes, normalization: str = "backward", forward: bool = False,
            last_dim_size: int = 0) -> Tensor:
    """The real signal whose spectrum's first half is x, over `axes` (the half is along the last one)."""
    attrs = {"axes": tuple(axes), "normalization": normalization, "forward": bool(forward),
             "last_dim_size": int(last_dim_size)}
    return dispatch(FFT_C2R, (x,), attrs)


__all__ = ["fft_c2c", "fft_r2c", "fft_c2r"]
