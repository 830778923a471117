"""Golden cases: fft (issue: scientific computing) -- paddle.fft's transforms in each norm mode, n / s / axes,
dtypes, gradients of a real loss, frequencies and shifts, and the errors Paddle raises.

Complex values are returned as dtype, real part and imaginary part (the golden files hold plain JSON).
Paddle reports a missing kernel (rfft of a complex x, fft of float16) as RuntimeError, minipaddle as
Unimplemented (a NotImplementedError, which is a RuntimeError): `_refused` names the error by the builtin
classes a user would catch.
"""
import numpy as np

from .harness import case, dtype_name, outcome


def _c(t):
    """A complex (or real) tensor as dtype, shape, real part and imaginary part."""
    arr = np.asarray(t.numpy())
    return {"dtype": dtype_name(t.dtype), "shape": list(arr.shape), "real": np.real(arr).copy(),
            "imag": np.imag(arr).copy()}


def _refused(fn):
    """What fn() gives; an error as the first of TypeError, ValueError, RuntimeError it is."""
    try:
        return fn()
    except (TypeError, ValueError, RuntimeError) as e:
        kind = next(k for k in (TypeError, ValueError, RuntimeError) if isinstance(e, k))
        return {"raises": kind.__name__}


def _signal(paddle):
    return paddle.to_tensor([1.0, 2.0, -1.0, 0.5, 3.0, -2.0])


def _grid(paddle):
    return paddle.to_tensor([[1.0, 2.0, 0.0, -1.0], [0.5, -2.0, 3.0, 1.0], [2.0, 1.0, -1.0, 0.0]])


# ---- values -------------------------------------------------------------------------------------
@case
def fft_1d_transforms_in_each_norm(paddle):
    x = _signal(paddle)
    z = paddle.fft.fft(x)
    result = {}
    for norm in ("backward", "ortho", "forward"):
        result[norm] = {"fft": _c(paddle.fft.fft(x, norm=norm)), "ifft": _c(paddle.fft.ifft(z, norm=norm)),
                        "rfft": _c(paddle.fft.rfft(x, norm=norm)), "irfft": _c(paddle.fft.irfft(z, norm=norm)),
                        "hfft": _c(paddle.fft.hfft(z, norm=norm)), "ihfft": _c(paddle.fft.ihfft(x, norm=norm))}
    return result


@case
def fft_n_cuts_or_pads(paddle):
    x = _signal(paddle)
    z = paddle.fft.rfft(x)
    return {"fft n=4": _c(paddle.fft.fft(x, n=4)), "fft n=8": _c(paddle.fft.fft(x, n=8)),
            "rfft n=9": _c(paddle.fft.rfft(x, n=9)), "irfft n=5": _c(paddle.fft.irfft(z, n=5)),
            "irfft n=9": _c(paddle.fft.irfft(z, n=9)), "hfft n=3": _c(paddle.fft.hfft(z, n=3)),
            "ihfft n=7": _c(paddle.fft.ihfft(x, n=7))}


@case
def fft_2d_and_nd_transforms(paddle):
    x = _grid(paddle)
    z = paddle.fft.fft2(x)
    return {"fft2": _c(z), "ifft2": _c(paddle.fft.ifft2(z, norm="ortho")),
            "rfft2": _c(paddle.fft.rfft2(x)), "rfft2 axes (1, 0)": _c(paddle.fft.rfft2(x, axes=(1, 0))),
            "irfft2 s": _c(paddle.fft.irfft2(z, s=[2, 5])), "hfft2": _c(paddle.fft.hfft2(z, norm="forward")),
            "ihfft2": _c(paddle.fft.ihfft2(x)), "fftn s only": _c(paddle.fft.fftn(x, s=[3])),
            "ifftn axes": _c(paddle.fft.ifftn(z, axes=[0])),
            "rfftn s axes": _c(paddle.fft.rfftn(x, s=[5, 2], axes=[1, 0])),
            "irfftn": _c(paddle.fft.irfftn(z)), "hfftn s": _c(paddle.fft.hfftn(z, s=[3, 3])),
            "ihfftn": _c(paddle.fft.ihfftn(x, norm="ortho"))}


@case
def fft_dtypes(paddle):
    f32 = _signal(paddle)
    f64 = f32.astype("float64")
    ints = paddle.to_tensor([1, 2, 3, 4])
    return {"fft float32": dtype_name(paddle.fft.fft(f32).dtype),
            "fft float64": dtype_name(paddle.fft.fft(f64).dtype),
            "fft int64": dtype_name(paddle.fft.fft(ints).dtype),
            "rfft int64": _c(paddle.fft.rfft(ints)),
            "irfft float32": dtype_name(paddle.fft.irfft(f32).dtype),
            "irfft complex128": dtype_name(paddle.fft.irfft(paddle.fft.rfft(f64)).dtype),
            "ihfft float64": dtype_name(paddle.fft.ihfft(f64).dtype),
            "fftn complex64": dtype_name(paddle.fft.fftn(paddle.fft.fft(f32)).dtype),
            "stop_gradient": paddle.fft.fft(f32).stop_gradient}


@case(differs="Paddle 3.3.1 casts an int x given to irfft / hfft to float32 instead of complex64 (its "
              "_real_to_complex_dtype gets the default dtype's name, a str) and then finds no fft_c2r kernel; "
              "minipaddle transforms it as complex64")
def fft_irfft_of_ints(paddle):
    return _refused(lambda: _c(paddle.fft.irfft(paddle.to_tensor([1, 2, 3]))))


# ---- gradients ------------------------------------------------------------------------------------
@case
def fft_gradients_of_a_real_loss(paddle):
    x = paddle.to_tensor([1.0, 2.0, -1.0, 0.5, 3.0], dtype="float64", stop_gradient=False)
    z = paddle.to_tensor(np.array([1 + 2j, -0.5 + 1j, 0.25 - 1j, 2 - 0.5j]), stop_gradient=False)
    paddle.abs(paddle.fft.rfft(x)).sum().backward()
    rfft_grad = x.grad.numpy().copy()
    x.clear_gradient()
    paddle.abs(paddle.fft.fft(x, norm="ortho")).sum().backward()
    fft_grad = x.grad.numpy().copy()
    paddle.abs(paddle.fft.irfft(z, n=7)).sum().backward()
    irfft_grad = _c(z.grad)
    z.clear_gradient()
    (paddle.fft.hfft(z) ** 2).sum().backward()
    hfft_grad = _c(z.grad)
    z.clear_gradient()
    (paddle.abs(paddle.fft.fft(z, n=6)) ** 2).sum().backward()
    return {"rfft": rfft_grad, "fft": fft_grad, "irfft n=7": irfft_grad, "hfft": hfft_grad,
            "fft of complex, n=6": _c(z.grad)}


@case
def fft_gradient_of_a_frequency_filter(paddle):
    x = paddle.to_tensor([0.0, 1.0, 0.5, -1.0, 2.0, 0.0, -0.5, 1.0], stop_gradient=False)
    spectrum = paddle.fft.rfft(x)
    keep = paddle.to_tensor([1.0, 1.0, 1.0, 0.0, 0.0]).astype("complex64")
    smooth = paddle.fft.irfft(spectrum * keep, n=8)
    (smooth ** 2).sum().backward()
    return {"smooth": smooth, "grad": x.grad}


# ---- frequencies and shifts -----------------------------------------------------------------------
@case
def fft_frequencies_and_shifts(paddle):
    x = paddle.to_tensor([[0.0, 1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0, 9.0]])
    return {"fftfreq 5": paddle.fft.fftfreq(5, d=0.5), "fftfreq 4 float64": paddle.fft.fftfreq(4, dtype="float64"),
            "rfftfreq 6": paddle.fft.rfftfreq(6, d=0.1), "rfftfreq 7": paddle.fft.rfftfreq(7),
            "fftfreq int64 dtype": paddle.fft.fftfreq(4, dtype="int64"),
            "fftfreq 0": outcome(lambda: paddle.fft.fftfreq(0)),
            "fftshift": paddle.fft.fftshift(x), "ifftshift": paddle.fft.ifftshift(x),
            "fftshift axes (0, 1)": paddle.fft.fftshift(x, axes=(0, 1)),
            "ifftshift axes [0, 1]": paddle.fft.ifftshift(x, axes=[0, 1])}


@case(differs="Paddle 3.3.1's fftshift / ifftshift fail on one axis (its roll raises SystemError) and on a "
              "negative axis (ValueError: shape[-1:0] is empty); minipaddle shifts them as numpy.fft does")
def fft_shift_of_one_axis(paddle):
    x = paddle.to_tensor([[0.0, 1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0, 9.0]])
    try:
        return {"axes [1]": paddle.fft.fftshift(x, axes=[1]), "axes [-1]": paddle.fft.ifftshift(x, axes=[-1])}
    except (SystemError, ValueError) as e:
        return {"raises": type(e).__name__}


# ---- errors ---------------------------------------------------------------------------------------
@case
def fft_errors(paddle):
    x = _grid(paddle)
    z = paddle.fft.fft(x)
    return {"norm": outcome(lambda: paddle.fft.fft(x, norm="bad")),
            "norm None": outcome(lambda: paddle.fft.fft(x, norm=None)),
            "n zero": outcome(lambda: paddle.fft.fft(x, n=0)),
            "n negative": outcome(lambda: paddle.fft.irfft(z, n=-1)),
            "n float": outcome(lambda: paddle.fft.rfft(x, n=2.5)),
            "axis out of range": outcome(lambda: paddle.fft.fft(x, axis=2)),
            "axis float": outcome(lambda: paddle.fft.fft(x, axis=1.0)),
            "0-D": outcome(lambda: paddle.fft.fft(paddle.to_tensor(1.0))),
            "axes int": outcome(lambda: paddle.fft.fftn(x, axes=1)),
            "axes out of range": outcome(lambda: paddle.fft.fftn(x, axes=[2])),
            "s zero": outcome(lambda: paddle.fft.fftn(x, s=[0, 3])),
            "s and axes differ": outcome(lambda: paddle.fft.fftn(x, s=[2, 2], axes=[0])),
            "s longer than rank": outcome(lambda: paddle.fft.fftn(x, s=[2, 2, 2])),
            "fft2 of 1-D": outcome(lambda: paddle.fft.fft2(paddle.to_tensor([1.0, 2.0]))),
            "fft2 three axes": outcome(lambda: paddle.fft.fft2(x, axes=(0, 1, 1))),
            "rfft2 one size": outcome(lambda: paddle.fft.rfft2(x, s=[3])),
            "numpy x": outcome(lambda: paddle.fft.fft(np.ones(3))),
            "rfft of complex": _refused(lambda: paddle.fft.rfft(z)),
            "ihfft of complex": _refused(lambda: paddle.fft.ihfft(z)),
            "rfftn of complex": _refused(lambda: paddle.fft.rfftn(z)),
            "fft of float16": _refused(lambda: paddle.fft.fft(x.astype("float16")))}
