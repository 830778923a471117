"""paddle.fft: every transform against numpy / scipy.fft in each norm mode, gradients against central
differences (a complex input's real and imaginary parts perturbed as two real variables, so z.grad is
dL/da + i dL/db, Paddle's convention), shapes and dtypes as Paddle gives them, and clear errors."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.fft as sfft
from hypothesis import given, settings
from hypothesis import strategies as st

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument, InvalidType, Unimplemented

from .opcheck import arrays, check_double_grad, shapes

RNG = np.random.default_rng(11)
NORMS = ("backward", "ortho", "forward")


def _real(shape, dtype=np.float64):
    return RNG.uniform(-1, 1, shape).astype(dtype)


def _complex(shape, dtype=np.complex128):
    return (RNG.uniform(-1, 1, shape) + 1j * RNG.uniform(-1, 1, shape)).astype(dtype)


# name: (paddle function, reference, input maker, keyword arguments)
TRANSFORMS = {
    "fft real": (paddle.fft.fft, sfft.fft, _real, {}),
    "fft complex n=7": (paddle.fft.fft, sfft.fft, _complex, {"n": 7}),
    "ifft complex n=3 axis=0": (paddle.fft.ifft, sfft.ifft, _complex, {"n": 3, "axis": 0}),
    "ifft real": (paddle.fft.ifft, sfft.ifft, _real, {}),
    "rfft": (paddle.fft.rfft, sfft.rfft, _real, {}),
    "rfft n=9 axis=0": (paddle.fft.rfft, sfft.rfft, _real, {"n": 9, "axis": 0}),
    "irfft": (paddle.fft.irfft, sfft.irfft, _complex, {}),
    "irfft n=7": (paddle.fft.irfft, sfft.irfft, _complex, {"n": 7}),
    "irfft n=4 axis=0": (paddle.fft.irfft, sfft.irfft, _complex, {"n": 4, "axis": 0}),
    "hfft": (paddle.fft.hfft, sfft.hfft, _complex, {}),
    "hfft n=5": (paddle.fft.hfft, sfft.hfft, _complex, {"n": 5}),
    "ihfft": (paddle.fft.ihfft, sfft.ihfft, _real, {}),
    "ihfft n=6": (paddle.fft.ihfft, sfft.ihfft, _real, {"n": 6}),
    "fft2 complex": (paddle.fft.fft2, sfft.fft2, _complex, {}),
    "fft2 real s": (paddle.fft.fft2, sfft.fft2, _real, {"s": [2, 6]}),
    "ifft2 complex axes": (paddle.fft.ifft2, sfft.ifft2, _complex, {"axes": (1, 0)}),
    "rfft2": (paddle.fft.rfft2, sfft.rfft2, _real, {}),
    "rfft2 axes (1, 0)": (paddle.fft.rfft2, sfft.rfft2, _real, {"axes": (1, 0)}),
    "irfft2 s": (paddle.fft.irfft2, sfft.irfft2, _complex, {"s": [4, 5]}),
    "hfft2": (paddle.fft.hfft2, sfft.hfft2, _complex, {}),
    "ihfft2": (paddle.fft.ihfft2, sfft.ihfft2, _real, {}),
    "fftn complex": (paddle.fft.fftn, sfft.fftn, _complex, {}),
    "fftn real s only": (paddle.fft.fftn, sfft.fftn, _real, {"s": [3, 3]}),
    "ifftn complex axes": (paddle.fft.ifftn, sfft.ifftn, _complex, {"axes": [0]}),
    "rfftn": (paddle.fft.rfftn, sfft.rfftn, _real, {}),
    "rfftn s axes": (paddle.fft.rfftn, sfft.rfftn, _real, {"s": [5, 2], "axes": [1, 0]}),
    "irfftn": (paddle.fft.irfftn, sfft.irfftn, _complex, {}),
    "irfftn s": (paddle.fft.irfftn, sfft.irfftn, _complex, {"s": [2, 7]}),
    "hfftn": (paddle.fft.hfftn, sfft.hfftn, _complex, {}),
    "hfftn s axes": (paddle.fft.hfftn, sfft.hfftn, _complex, {"s": [3, 4], "axes": [1, 0]}),
    "ihfftn": (paddle.fft.ihfftn, sfft.ihfftn, _real, {}),
}
SHAPE = (3, 4)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_values_match_scipy(name, norm):
    fn, ref, make, kwargs = TRANSFORMS[name]
    x = make(SHAPE)
    got = fn(paddle.to_tensor(x), norm=norm, **kwargs)
    want = ref(x, norm=norm, **kwargs)
    assert got.shape == list(want.shape)
    assert got.numpy().dtype == want.dtype
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10, atol=1e-12)


@st.composite
def signals_and_axes(draw):
    """An array (sometimes a transposed or strided view) and a non-empty list of distinct axes of it."""
    shape = draw(shapes(min_dims=1, max_dims=3, min_side=1, max_side=5))
    x = draw(arrays(shape, "float64"))
    axes = draw(st.lists(st.integers(0, len(shape) - 1), min_size=1, max_size=len(shape), unique=True))
    return x, axes


@settings(max_examples=40, deadline=None)
@given(signals_and_axes(), st.sampled_from(NORMS))
def test_nd_transforms_match_scipy_on_any_axes_and_layout(case, norm):
    x, axes = case
    t = paddle.to_tensor(x)
    np.testing.assert_allclose(paddle.fft.fftn(t, axes=axes, norm=norm).numpy(),
                               sfft.fftn(x, axes=axes, norm=norm), atol=1e-12)
    half = paddle.fft.rfftn(t, axes=axes, norm=norm)
    np.testing.assert_allclose(half.numpy(), sfft.rfftn(x, axes=axes, norm=norm), atol=1e-12)
    sizes = [x.shape[a] for a in axes]
    np.testing.assert_allclose(paddle.fft.irfftn(half, s=sizes, axes=axes, norm=norm).numpy(), x, atol=1e-12)


@pytest.mark.parametrize("name", ["fft real", "fft complex n=7", "rfft", "irfft n=7", "hfft", "rfftn s axes",
                                  "irfftn s", "hfftn s axes"])
def test_single_precision_in_single_precision_out(name):
    fn, ref, make, kwargs = TRANSFORMS[name]
    x = make(SHAPE, np.float32 if make is _real else np.complex64)
    got = fn(paddle.to_tensor(x), **kwargs)
    want = ref(x.astype(np.complex128 if make is _complex else np.float64), **kwargs)
    expected = {np.dtype("float64"): paddle.float32, np.dtype("complex128"): paddle.complex64}[want.dtype]
    assert got.dtype == expected
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-4, atol=1e-5)


# ---- gradients ---------------------------------------------------------------------------------
def _linear_loss(y, w):
    """A real loss that weighs each real and imaginary part of y by its own number."""
    if np.iscomplexobj(w):
        return np.sum(y.real * w.real + y.imag * w.imag)
    return np.sum(y * w)


def numeric_grad(loss_of_array, z: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """dL/da + i dL/db (just dL/dx for a real x) by central differences."""
    grad = np.zeros_like(z)
    steps = ((eps, 1.0), (eps * 1j, 1j)) if np.iscomplexobj(z) else ((eps, 1.0),)
    for i in np.ndindex(z.shape):
        for step, unit in steps:
            up, down = z.copy(), z.copy()
            up[i] += step
            down[i] -= step
            grad[i] += unit * (loss_of_array(up) - loss_of_array(down)) / (2 * eps)
    return grad


def _paddle_grad(fn, x, w, kwargs):
    xt = paddle.to_tensor(x, stop_gradient=False)
    y = fn(xt, **kwargs)
    if np.iscomplexobj(w):
        loss = (paddle.real(y) * paddle.to_tensor(w.real) + paddle.imag(y) * paddle.to_tensor(w.imag)).sum()
    else:
        loss = (y * paddle.to_tensor(w)).sum()
    loss.backward()
    return xt.grad


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_gradient_matches_central_differences(name, norm):
    fn, _, make, kwargs = TRANSFORMS[name]
    kwargs = {**kwargs, "norm": norm}
    x = make(SHAPE)
    y = fn(paddle.to_tensor(x), **kwargs).numpy()
    w = _complex(y.shape) if np.iscomplexobj(y) else _real(y.shape)
    grad = _paddle_grad(fn, x, w, kwargs)
    assert grad.numpy().dtype == x.dtype   # a real x gets a real gradient, a complex one a complex gradient
    want = numeric_grad(lambda a: _linear_loss(fn(paddle.to_tensor(a), **kwargs).numpy(), w), x)
    np.testing.assert_allclose(grad.numpy(), want, rtol=1e-6, atol=1e-8)


def test_gradient_of_a_real_signal_given_to_irfft_is_real():
    x = _real((6,))
    w = _real((10,))
    grad = _paddle_grad(paddle.fft.irfft, x, w, {})
    want = numeric_grad(lambda a: _linear_loss(sfft.irfft(a), w), x)
    assert grad.dtype == paddle.float64
    np.testing.assert_allclose(grad.numpy(), want, rtol=1e-6, atol=1e-8)


def test_gradients_match_what_paddle_gives():
    # recorded with Paddle 3.3.1 (/work/paddle-venv): the same two lines there print these gradients
    x = paddle.to_tensor([1.0, 2.0, -1.0, 0.5], dtype="float64", stop_gradient=False)
    paddle.abs(paddle.fft.fft(x)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [1.6, 3.2, -1.6, 0.8], rtol=1e-12)
    z = paddle.to_tensor(np.array([1 + 2j, -0.5 + 1j, 0.25 - 1j]), stop_gradient=False)
    paddle.abs(paddle.fft.irfft(z, n=4)).sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), [0.5, 1j, 0.5], atol=1e-12)


def test_second_derivative_of_a_power_spectrum():
    def power(x):
        y = paddle.fft.rfft(x, norm="ortho")
        return paddle.real(y) ** 2 + paddle.imag(y) ** 2
    check_double_grad(power, [_real((6,))])

    def round_trip(x):
        return paddle.fft.irfft(paddle.fft.fft(x), n=5) ** 2
    check_double_grad(round_trip, [_real((5,))])


def test_complex_gradient_through_a_nonlinear_loss():
    z = _complex((5,))

    def loss(a):
        return float(np.sum(np.abs(np.fft.hfft(np.fft.ifft(a), n=6)) ** 1.5))
    zt = paddle.to_tensor(z, stop_gradient=False)
    (paddle.abs(paddle.fft.hfft(paddle.fft.ifft(zt), n=6)) ** 1.5).sum().backward()
    np.testing.assert_allclose(zt.grad.numpy(), numeric_grad(loss, z), rtol=1e-6, atol=1e-8)


# ---- shapes and dtypes ------------------------------------------------------------------------
def test_dtypes_as_paddle_gives_them():
    f32 = paddle.to_tensor([1.0, 2.0, 3.0, 4.0])
    assert paddle.fft.fft(f32).dtype == paddle.complex64
    assert paddle.fft.fft(f32.astype("float64")).dtype == paddle.complex128
    assert paddle.fft.rfft(paddle.to_tensor([1, 2, 3, 4])).dtype == paddle.complex64   # ints: default float
    assert paddle.fft.irfft(f32).dtype == paddle.float32                              # real x: made complex
    assert paddle.fft.hfft(paddle.fft.rfft(f32.astype("float64"))).dtype == paddle.float64
    assert paddle.fft.ihfft(f32).dtype == paddle.complex64


def test_shapes_follow_n_and_s():
    x = paddle.to_tensor(_real((2, 3, 4)))
    assert paddle.fft.rfft(x).shape == [2, 3, 3]
    assert paddle.fft.irfft(x).shape == [2, 3, 6]
    assert paddle.fft.irfft(x, n=1).shape == [2, 3, 1]
    assert paddle.fft.fftn(x, s=[5, 6]).shape == [2, 5, 6]
    assert paddle.fft.fft2(x, s=[3, 4], axes=(0, 1)).shape == [3, 4, 4]
    assert paddle.fft.rfftn(x, s=[4, 6]).shape == [2, 4, 4]
    assert paddle.fft.irfftn(x, s=[4, 7]).shape == [2, 4, 7]
    assert paddle.fft.hfft2(x).shape == [2, 3, 6]
    assert paddle.fft.fft(paddle.zeros([0])).shape == [0]


def test_out_receives_the_result():
    x = paddle.to_tensor(_real((4,)))
    out = paddle.zeros([3], dtype="complex128")
    result = paddle.fft.rfft(x, out=out)
    np.testing.assert_allclose(out.numpy(), np.fft.rfft(x.numpy()))
    np.testing.assert_allclose(result.numpy(), out.numpy())


def test_round_trips_give_the_signal_back():
    x = _real((3, 8))
    for norm in NORMS:
        t = paddle.to_tensor(x)
        np.testing.assert_allclose(paddle.fft.irfft(paddle.fft.rfft(t, norm=norm), norm=norm).numpy(), x,
                                   atol=1e-12)
        np.testing.assert_allclose(paddle.fft.ifftn(paddle.fft.fftn(t, norm=norm), norm=norm).numpy(), x,
                                   atol=1e-12)
        np.testing.assert_allclose(paddle.fft.hfft(paddle.fft.ihfft(t, norm=norm), n=8, norm=norm).numpy(), x,
                                   atol=1e-12)


# ---- frequencies and shifts --------------------------------------------------------------------
def test_fftfreq_and_rfftfreq_match_numpy():
    for n in (1, 4, 5):
        np.testing.assert_allclose(paddle.fft.fftfreq(n, 0.1).numpy(), np.fft.fftfreq(n, 0.1), rtol=1e-6)
        np.testing.assert_allclose(paddle.fft.rfftfreq(n, 0.1).numpy(), np.fft.rfftfreq(n, 0.1), rtol=1e-6)
    assert paddle.fft.fftfreq(5).dtype == paddle.float32
    assert paddle.fft.rfftfreq(5, dtype="float64").dtype == paddle.float64
    assert paddle.fft.fftfreq(5, dtype="int64").dtype == paddle.float32   # as Paddle: the scale makes it float
    assert paddle.fft.fftfreq(4, requires_grad=True).stop_gradient is False


def test_fftshift_and_ifftshift_match_numpy():
    x = np.arange(30.0).reshape(5, 6)
    t = paddle.to_tensor(x)
    for axes in (None, 0, [1], (0, 1), [-1]):
        np.testing.assert_array_equal(paddle.fft.fftshift(t, axes).numpy(), np.fft.fftshift(x, axes))
        np.testing.assert_array_equal(paddle.fft.ifftshift(t, axes).numpy(), np.fft.ifftshift(x, axes))
    np.testing.assert_array_equal(paddle.fft.ifftshift(paddle.fft.fftshift(t)).numpy(), x)


# ---- errors ------------------------------------------------------------------------------------
X = paddle.to_tensor(_real((2, 3)))
Z = paddle.to_tensor(_complex((2, 3)))
ERRORS = {
    "norm": (InvalidArgument, lambda: paddle.fft.fft(X, norm="bad"), "norm got 'bad'"),
    "norm None": (InvalidArgument, lambda: paddle.fft.rfft(X, norm=None), "norm got None"),
    "n zero": (InvalidArgument, lambda: paddle.fft.fft(X, n=0), "n got 0"),
    "n negative": (InvalidArgument, lambda: paddle.fft.irfft(Z, n=-2), "n got -2"),
    "n float": (InvalidArgument, lambda: paddle.fft.fft(X, n=2.5), "n got 2.5"),
    "axis": (InvalidArgument, lambda: paddle.fft.fft(X, axis=2), "axis 2 is out of range"),
    "axis float": (InvalidArgument, lambda: paddle.fft.ifft(X, axis=1.0), "expected an int"),
    "0-D": (InvalidArgument, lambda: paddle.fft.fft(paddle.to_tensor(1.0)), "out of range [-0, 0)"),
    "0-D fftn": (InvalidArgument, lambda: paddle.fft.fftn(paddle.to_tensor(1.0)), "no axis to transform"),
    "axes twice": (InvalidArgument, lambda: paddle.fft.fftn(X, axes=[1, -1]), "names an axis twice"),
    "axes int": (InvalidArgument, lambda: paddle.fft.fftn(X, axes=1), "axes got 1"),
    "axes range": (InvalidArgument, lambda: paddle.fft.rfftn(X, axes=[0, 2]), "axes got [0, 2]"),
    "s zero": (InvalidArgument, lambda: paddle.fft.fftn(X, s=[0, 3]), "positive ints"),
    "s too long": (InvalidArgument, lambda: paddle.fft.fftn(X, s=[2, 2, 2]), "more sizes than x has dims"),
    "s and axes": (InvalidArgument, lambda: paddle.fft.irfftn(Z, s=[2, 2], axes=[0]), "differ in length"),
    "fft2 of 1-D": (InvalidArgument, lambda: paddle.fft.fft2(paddle.to_tensor([1.0])), "at least 2"),
    "fft2 three axes": (InvalidArgument, lambda: paddle.fft.rfft2(X, axes=(0, 1, 1)), "sequence of 2"),
    "rfft complex": (Unimplemented, lambda: paddle.fft.rfft(Z), "rfft: x has dtype complex128"),
    "ihfftn complex": (Unimplemented, lambda: paddle.fft.ihfftn(Z), "ihfftn: x has dtype complex128"),
    "float16": (Unimplemented, lambda: paddle.fft.fft(X.astype("float16")), "float16"),
    "not a tensor": (InvalidType, lambda: paddle.fft.fft(np.ones(3)), "expected a Tensor"),
    "fftfreq n=0": (InvalidArgument, lambda: paddle.fft.fftfreq(0), "expected both non-zero"),
    "fftshift axes": (InvalidArgument, lambda: paddle.fft.fftshift(X, axes=[3]), "axes got [3]"),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_bad_arguments_raise_clear_errors(name):
    kind, call, message = ERRORS[name]
    with pytest.raises(kind, match=message.replace("[", r"\[").replace("(", r"\(").replace(")", r"\)")):
        call()


def test_ops_refuse_what_they_cannot_transform():
    from minipaddle.framework.ops.fft import fft_c2c, fft_c2r, fft_r2c
    with pytest.raises(Unimplemented, match="fft_r2c"):
        fft_r2c(Z, [1])
    with pytest.raises(Unimplemented, match="fft_c2c"):
        fft_c2c(X, [1])
    with pytest.raises(InvalidArgument, match="last_dim_size // 2 \\+ 1 = 4"):
        fft_c2r(Z, [1], last_dim_size=7)
    with pytest.raises(InvalidArgument, match="normalization"):
        fft_c2c(Z, [1], "sideways")
