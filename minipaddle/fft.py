"""paddle.fft: discrete Fourier transforms of tensors, with gradients.

Every transform is one of three ops (framework/ops/fft.py), as in Paddle:

    fft_c2c   fft, ifft, fft2, ifft2, fftn, ifftn of a complex x
    fft_r2c   rfft*, ihfft* (onesided: n // 2 + 1 entries); fft, ifft, ... of a real x (two-sided)
    fft_c2r   irfft*, hfft*: a half spectrum in, a real signal out

The functions here check arguments as Paddle does, cast (an int x becomes float32 or complex64, a real
x given to irfft / hfft becomes complex), cut or zero-pad x to the sizes `n` / `s` ask for, and call
the op. `norm` names the direction that is divided by n: "backward" (ifft, the default), "forward"
(fft) or "ortho" (both, by sqrt(n)).

    >>> x = paddle.to_tensor([1.0, 2.0, 3.0, 4.0])
    >>> paddle.fft.rfft(x)            # complex64 [10, -2+2j, -2]
    >>> paddle.fft.irfft(paddle.fft.rfft(x), n=4)   # x again
"""
from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral

import numpy as np

from .framework.creation import to_tensor
from .framework.dtype import complex_of, convert_dtype, default_float
from .framework.errors import invalid_argument, invalid_type, unimplemented
from .framework.ops.elementwise import assign, cast
from .framework.ops.fft import NORMS, fft_c2c, fft_c2r, fft_r2c
from .framework.ops.joining import pad, slice
from .framework.ops.manipulation import roll
from .framework.tensor import Tensor

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2",
           "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]


# ---- argument checks (Paddle's _check_* functions) ------------------------------------------
def _tensor(op: str, x) -> Tensor:
    if not isinstance(x, Tensor):
        raise invalid_type(op, f"x got {type(x).__name__}, expected a Tensor.",
                           hint="wrap data with paddle.to_tensor(...).")
    return x


def _check_norm(op: str, norm) -> None:
    if norm not in NORMS:
        raise invalid_argument(op, f"norm got {norm!r}, expected one of {list(NORMS)}.",
                               hint="'backward' divides the inverse transform by n, 'forward' the forward one, "
                                    "'ortho' both by sqrt(n).")


def _is_int(v) -> bool:
    return isinstance(v, Integral) and not isinstance(v, bool)


def _one_axis(op: str, x: Tensor, n, axis) -> tuple[list | None, list]:
    """(sizes, axes) of a 1-D transform: `axis` normalized, `n` checked."""
    ndim = len(x.shape)
    if not _is_int(axis):
        raise invalid_argument(op, f"axis got {axis!r}, expected an int.")
    if not -ndim <= axis < ndim:
        raise invalid_argument(op, f"axis {axis} is out of range [-{ndim}, {ndim}) for x of shape {list(x.shape)}.")
    if n is not None and (not _is_int(n) or n <= 0):
        raise invalid_argument(op, f"n got {n!r}, expected a positive int (the length of the transform).")
    return (None if n is None else [int(n)]), [int(axis) % ndim]


def _many_axes(op: str, x: Tensor, s, axes, keep_last: bool) -> tuple[list | None, list]:
    """(sizes, axes) of an n-D transform, ordered as Paddle orders them: ascending, except that a
    real transform keeps the axis named last (the onesided one) last."""
    ndim = len(x.shape)
    if s is not None:
        if not isinstance(s, Sequence) or not all(_is_int(v) and v > 0 for v in s):
            raise invalid_argument(op, f"s got {s!r}, expected a sequence of positive ints.")
        if len(s) > ndim:
            raise invalid_argument(op, f"s {list(s)} has more sizes than x has dims ({ndim}).")
        s = [int(v) for v in s]
    if axes is None:
        axes = list(range(ndim - len(s), ndim)) if s is not None else list(range(ndim))
    else:
        if not isinstance(axes, Sequence) or not all(_is_int(a) and -ndim <= a < ndim for a in axes):
            raise invalid_argument(op, f"axes got {axes!r}, expected a sequence of ints in [-{ndim}, {ndim}).")
        axes = [int(a) % ndim for a in axes]
        if len(set(axes)) != len(axes):
            raise invalid_argument(op, f"axes {axes} names an axis twice; expected distinct axes.")
        if s is not None and len(s) != len(axes):
            raise invalid_argument(op, f"s {s} and axes {axes} differ in length; expected one size per axis.")
        order = sorted(range(len(axes) - keep_last), key=axes.__getitem__) + ([len(axes) - 1] if keep_last else [])
        axes = [axes[i] for i in order]
        s = None if s is None else [s[i] for i in order]
    if not axes:
        raise invalid_argument(op, f"there is no axis to transform (x has shape {list(x.shape)}).",
                               hint="a 0-D x has none; reshape it to [1] first.")
    return s, axes


def _two_axes(op: str, x, s, axes) -> None:
    """fft2 and its family: x has at least 2 dims, and s and axes name 2 of them."""
    if len(_tensor(op, x).shape) < 2:
        raise invalid_argument(op, f"x has {len(x.shape)} dims, expected at least 2.")
    for arg, value in (("s", s), ("axes", axes)):
        if value is not None and (not isinstance(value, Sequence) or len(value) != 2):
            raise invalid_argument(op, f"{arg} got {value!r}, expected a sequence of 2 ints.")


# ---- dtypes, resizing, the three transforms ---------------------------------------------------
def _as_real(op: str, x: Tensor) -> Tensor:
    """r2c's input: float32/float64; an int x becomes the default float dtype, as in Paddle."""
    dtype = convert_dtype(x.dtype)
    if dtype.kind in "iu":
        return cast(x, default_float())
    if str(dtype) not in ("float32", "float64"):
        raise unimplemented(op, f"x has dtype {dtype}, expected float32 or float64 (a real signal).",
                            hint="use paddle.fft.fft for a complex x; cast float16 with x.astype('float32').")
    return x


def _as_complex(op: str, x: Tensor) -> Tensor:
    """c2c's and c2r's input: complex64/complex128; a float or int x becomes complex (its gradient is real)."""
    dtype = convert_dtype(x.dtype)
    if dtype.kind == "c":
        return x
    if dtype.kind in "iu":
        return cast(x, complex_of(default_float()))
    if str(dtype) not in ("float32", "float64"):
        raise unimplemented(op, f"x has dtype {dtype}, expected float32, float64, complex64 or complex128.",
                            hint="cast it with x.astype('float32').")
    return cast(x, complex_of(dtype))


def _resize(x: Tensor, sizes: list, axes: list) -> Tensor:
    """Cut x, or pad it with zeros at the end, to sizes[i] along axes[i]: what `n` and `s` ask for."""
    shape = x.shape
    cut = [(a, n) for a, n in zip(axes, sizes) if shape[a] > n]
    if cut:
        x = slice(x, [a for a, _ in cut], [0] * len(cut), [n for _, n in cut])
    widths = [0] * (2 * len(shape))
    for a, n in zip(axes, sizes):
        widths[2 * a + 1] = max(n - shape[a], 0)
    if any(widths):
        x = pad(x, widths)
    return x


def _done(result: Tensor, out) -> Tensor:
    if out is not None:
        assign(result, out)
    return result


def _c2c(x: Tensor, sizes, axes: list, norm: str, forward: bool, out) -> Tensor:
    if sizes is not None:
        x = _resize(x, sizes, axes)
    return _done(fft_c2c(x, axes, norm, forward), out)


def _r2c(x: Tensor, sizes, axes: list, norm: str, forward: bool, onesided: bool, out) -> Tensor:
    if sizes is not None:
        x = _resize(x, sizes, axes)
    return _done(fft_r2c(x, axes, norm, forward, onesided), out)


def _c2r(x: Tensor, sizes, axes: list, norm: str, forward: bool, out) -> Tensor:
    """sizes name the real signal; the half spectrum read from x has sizes[-1] // 2 + 1 entries."""
    last_dim_size = 0
    if sizes is not None:
        last_dim_size = sizes[-1]
        x = _resize(x, sizes[:-1] + [last_dim_size // 2 + 1], axes)
    return _done(fft_c2r(x, axes, norm, forward, last_dim_size), out)


def _fft_1d(op: str, x, n, axis, norm, forward: bool, out) -> Tensor:
    """fft and ifft: a real x takes the two-sided r2c, a complex x c2c."""
    x = _tensor(op, x)
    _check_norm(op, norm)
    sizes, axes = _one_axis(op, x, n, axis)
    if convert_dtype(x.dtype).kind in "iuf":
        return _r2c(_as_real(op, x), sizes, axes, norm, forward, False, out)
    return _c2c(_as_complex(op, x), sizes, axes, norm, forward, out)


def _fft_nd(op: str, x, s, axes, norm, forward: bool, out) -> Tensor:
    x = _tensor(op, x)
    _check_norm(op, norm)
    if convert_dtype(x.dtype).kind in "iuf":
        sizes, axes = _many_axes(op, x, s, axes, keep_last=True)
        return _r2c(_as_real(op, x), sizes, axes, norm, forward, False, out)
    sizes, axes = _many_axes(op, x, s, axes, keep_last=False)
    return _c2c(_as_complex(op, x), sizes, axes, norm, forward, out)


def _real_only(op: str, x) -> Tensor:
    """rfft and ihfft (and their 2-D, n-D forms) transform a real signal only, as in Paddle."""
    x = _tensor(op, x)
    if convert_dtype(x.dtype).kind == "c":
        raise unimplemented(op, f"x has dtype {convert_dtype(x.dtype)}, expected a real tensor.",
                            hint="use paddle.fft.fft (or fftn) for a complex x.")
    return _as_real(op, x)


def _onesided_1d(op: str, x, n, axis, norm, forward: bool, out) -> Tensor:
    """rfft (forward) and ihfft: a real x, n // 2 + 1 entries out."""
    x = _real_only(op, x)
    _check_norm(op, norm)
    sizes, axes = _one_axis(op, x, n, axis)
    return _r2c(x, sizes, axes, norm, forward, True, out)


def _to_real_1d(op: str, x, n, axis, norm, forward: bool, out) -> Tensor:
    """irfft and hfft (forward): a half spectrum in, a real signal of length n out."""
    x = _as_complex(op, _tensor(op, x))
    _check_norm(op, norm)
    sizes, axes = _one_axis(op, x, n, axis)
    return _c2r(x, sizes, axes, norm, forward, out)


def _onesided_nd(op: str, x, s, axes, norm, forward: bool, out) -> Tensor:
    x = _real_only(op, x)
    _check_norm(op, norm)
    sizes, axes = _many_axes(op, x, s, axes, keep_last=True)
    return _r2c(x, sizes, axes, norm, forward, True, out)


def _to_real_nd(op: str, x, s, axes, norm, forward: bool, out) -> Tensor:
    x = _as_complex(op, _tensor(op, x))
    _check_norm(op, norm)
    sizes, axes = _many_axes(op, x, s, axes, keep_last=True)
    return _c2r(x, sizes, axes, norm, forward, out)


# ---- 1-D ------------------------------------------------------------------------------------------
def fft(x: Tensor, n: int | None = None, axis: int = -1, norm: str = "backward", name: str | None = None, *,
        out: Tensor | None = None) -> Tensor:
    """The 1-D DFT along `axis`, x cut or zero-padded to length n: float32 in, complex64 out.

    >>> paddle.fft.fft(paddle.to_tensor([1.0, 0.0, 0.0, 0.0]))    # [1, 1, 1, 1] (complex64)
    """
    return _fft_1d("fft", x, n, axis, norm, True, out)


def ifft(x: Tensor, n: int | None = None, axis: int = -1, norm: str = "backward", name: str | None = None, *,
         out: Tensor | None = None) -> Tensor:
    """The inverse 1-D DFT along `axis` (divided by n under the default norm)."""
    return _fft_1d("ifft", x, n, axis, norm, False, out)


def rfft(x: Tensor, n: int | None = None, axis: int = -1, norm: str = "backward", name: str | None = None, *,
         out: Tensor | None = None) -> Tensor:
    """The 1-D DFT of a real x: n // 2 + 1 entries along `axis` (the others mirror them)."""
    return _onesided_1d("rfft", x, n, axis, norm, True, out)


def irfft(x: Tensor, n: int | None = None, axis: int = -1, norm: str = "backward", name: str | None = None, *,
          out: Tensor | None = None) -> Tensor:
    """The real signal of length n (default 2 * (m - 1)) whose rfft is x's first n // 2 + 1 entries."""
    return _to_real_1d("irfft", x, n, axis, norm, False, out)


def hfft(x: Tensor, n: int | None = None, axis: int = -1, norm: str = "backward", name: str | None = None, *,
         out: Tensor | None = None) -> Tensor:
    """The (real) DFT of a signal with Hermitian symmetry, given by its first half x."""
    return _to_real_1d("hfft", x, n, axis, norm, True, out)


def ihfft(x: Tensor, n: int | None = None, axis: int = -1, norm: str = "backward", name: str | None = None, *,
          out: Tensor | None = None) -> Tensor:
    """The inverse of hfft: the first n // 2 + 1 entries of the inverse DFT of a real x."""
    return _onesided_1d("ihfft", x, n, axis, norm, False, out)


# ---- n-D ------------------------------------------------------------------------------------------
def fftn(x: Tensor, s: Sequence[int] | None = None, axes: Sequence[int] | None = None, norm: str = "backward",
         name: str | None = None, *, out: Tensor | None = None) -> Tensor:
    """The DFT over `axes` (all by default; the last len(s) when only s is given)."""
    return _fft_nd("fftn", x, s, axes, norm, True, out)


def ifftn(x: Tensor, s: Sequence[int] | None = None, axes: Sequence[int] | None = None, norm: str = "backward",
          name: str | None = None, *, out: Tensor | None = None) -> Tensor:
    """The inverse DFT over `axes`."""
    return _fft_nd("ifftn", x, s, axes, norm, False, out)


def rfftn(x: Tensor, s: Sequence[int] | None = None, axes: Sequence[int] | None = None, norm: str = "backward",
          name: str | None = None, *, out: Tensor | None = None) -> Tensor:
    """The DFT of a real x over `axes`, onesided along the last of them."""
    return _onesided_nd("rfftn", x, s, axes, norm, True, out)


def irfftn(x: Tensor, s: Sequence[int] | None = None, axes: Sequence[int] | None = None, norm: str = "backward",
           name: str | None = None, *, out: Tensor | None = None) -> Tensor:
    """The inverse of rfftn: s gives the real signal's sizes (the last one 2 * (m - 1) by default)."""
    return _to_real_nd("irfftn", x, s, axes, norm, False, out)


def hfftn(x: Tensor, s: Sequence[int] | None = None, axes: Sequence[int] | None = None, norm: str = "backward",
          name: str | None = None, *, out: Tensor | None = None) -> Tensor:
    """The (real) n-D DFT of a Hermitian-symmetric signal given by its first half along the last axis."""
    return _to_real_nd("hfftn", x, s, axes, norm, True, out)


def ihfftn(x: Tensor, s: Sequence[int] | None = None, axes: Sequence[int] | None = None, norm: str = "backward",
           name: str | None = None, *, out: Tensor | None = None) -> Tensor:
    """The inverse of hfftn: the onesided inverse DFT of a real x."""
    return _onesided_nd("ihfftn", x, s, axes, norm, False, out)


# ---- 2-D: the n-D transforms over two axes (the last two by default) -------------------------------
def fft2(x: Tensor, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1), norm: str = "backward",
         name: str | None = None, *, out: Tensor | None = None) -> Tensor:
    """fftn over two axes."""
    _two_axes("fft2", x, s, axes)
    return _fft_nd("fft2", x, s, axes, norm, True, out)


def ifft2(x: Tensor, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1), norm: str = "backward",
          name: str | None = None, *, out: Tensor | None = None) -> Tensor:
    """ifftn over two axes."""
    _two_axes("ifft2", x, s, axes)
    return _fft_nd("ifft2", x, s, axes, norm, False, out)


def rfft2(x: Tensor, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1), norm: str = "backward",
          name: str | None = None, *, out: Tensor | None = None) -> Tensor:
    """rfftn over two axes."""
    _two_axes("rfft2", x, s, axes)
    return _onesided_nd("rfft2", x, s, axes, norm, True, out)


def irfft2(x: Tensor, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1), norm: str = "backward",
           name: str | None = None, *, out: Tensor | None = None) -> Tensor:
    """irfftn over two axes."""
    _two_axes("irfft2", x, s, axes)
    return _to_real_nd("irfft2", x, s, axes, norm, False, out)


def hfft2(x: Tensor, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1), norm: str = "backward",
          name: str | None = None, *, out: Tensor | None = None) -> Tensor:
    """hfftn over two axes."""
    _two_axes("hfft2", x, s, axes)
    return _to_real_nd("hfft2", x, s, axes, norm, True, out)


def ihfft2(x: Tensor, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1), norm: str = "backward",
           name: str | None = None, *, out: Tensor | None = None) -> Tensor:
    """ihfftn over two axes."""
    _two_axes("ihfft2", x, s, axes)
    return _onesided_nd("ihfft2", x, s, axes, norm, False, out)


# ---- frequencies and shifts -----------------------------------------------------------------------
def _frequencies(op: str, indices: np.ndarray, n, d, dtype, out, device, requires_grad) -> Tensor:
    """indices / (n * d) in `dtype` (the default float dtype; an int dtype gives it too, as in Paddle)."""
    if d * n == 0:
        raise invalid_argument(op, f"n = {n} and d = {d}; expected both non-zero.")
    dtype = default_float() if dtype is None else convert_dtype(dtype)
    if dtype.kind != "f":
        dtype = default_float()
    values = indices.astype(dtype) * dtype.type(1.0 / (n * d))
    result = to_tensor(values, place=device, stop_gradient=not requires_grad)
    return _done(result, out)


def fftfreq(n: int, d: float = 1.0, dtype=None, name: str | None = None, *, out: Tensor | None = None,
            device=None, requires_grad: bool = False) -> Tensor:
    """The frequency of each fft entry for n samples spaced d apart: [0, 1, ..., -2, -1] / (n * d).

    >>> paddle.fft.fftfreq(4, d=0.5)     # [0, 0.5, -1, -0.5]
    """
    indices = np.roll(np.arange(-(n // 2), (n + 1) // 2), -(n // 2))
    return _frequencies("fftfreq", indices, n, d, dtype, out, device, requires_grad)


def rfftfreq(n: int, d: float = 1.0, dtype=None, name: str | None = None, *, out: Tensor | None = None,
             device=None, requires_grad: bool = False) -> Tensor:
    """The frequency of each rfft entry: [0, 1, ..., n // 2] / (n * d)."""
    return _frequencies("rfftfreq", np.arange(0, n // 2 + 1), n, d, dtype, out, device, requires_grad)


def _shift(op: str, x, axes, half) -> Tensor:
    x = _tensor(op, x)
    shape, ndim = x.shape, len(x.shape)
    if axes is None:
        axes = list(range(ndim))
    elif _is_int(axes):
        axes = [axes]
    if not isinstance(axes, Sequence) or not all(_is_int(a) and -ndim <= a < ndim for a in axes):
        raise invalid_argument(op, f"axes got {axes!r}, expected an int or ints in [-{ndim}, {ndim}).")
    return roll(x, [half(shape[a]) for a in axes], list(axes))


def fftshift(x: Tensor, axes: Sequence[int] | None = None, name: str | None = None) -> Tensor:
    """Move the zero frequency to the middle: roll each of `axes` (all by default) by size // 2.

    >>> paddle.fft.fftshift(paddle.fft.fftfreq(5))    # [-0.4, -0.2, 0, 0.2, 0.4]
    """
    return _shift("fftshift", x, axes, lambda size: size // 2)


def ifftshift(x: Tensor, axes: Sequence[int] | None = None, name: str | None = None) -> Tensor:
    """The inverse of fftshift: roll by (size + 1) // 2 (the same as fftshift for even sizes)."""
    return _shift("ifftshift", x, axes, lambda size: (size + 1) // 2)
