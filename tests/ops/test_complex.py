"""complex64 / complex128: creation, math against numpy, real/imag/conj/angle, promotion, comparisons,
refusals, and gradients checked numerically with the real and imaginary parts as separate real variables
(z.grad = dL/da + i dL/db, Paddle's convention and PyTorch's)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument, Unimplemented

from .opcheck import broadcast_pair, torch_or_skip

RNG = np.random.default_rng(7)


def _random_complex(shape, dtype=np.complex128):
    return (RNG.uniform(-2, 2, shape) + 1j * RNG.uniform(-2, 2, shape)).astype(dtype)


def numeric_complex_grad(loss_of_array, z: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """dL/da + i dL/db by central differences, a and b each a real variable."""
    grad = np.zeros_like(z)
    for i in np.ndindex(z.shape):
        for step, unit in ((eps, 1.0), (eps * 1j, 1j)):
            up, down = z.copy(), z.copy()
            up[i] += step
            down[i] -= step
            slope = (loss_of_array(up) - loss_of_array(down)) / (2 * eps)
            grad[i] += unit * slope
    return grad


def check_complex_grad(f, z: np.ndarray, rtol: float = 1e-5) -> None:
    """The gradient of the real loss |f(z)|.sum() against central differences (complex128)."""
    def loss(array):
        return float(paddle.abs(f(paddle.to_tensor(array))).sum().item())
    zt = paddle.to_tensor(z, stop_gradient=False)
    paddle.abs(f(zt)).sum().backward()
    np.testing.assert_allclose(zt.grad.numpy(), numeric_complex_grad(loss, z), rtol=rtol, atol=1e-7)


W = _random_complex((3,))
UNARY_AND_BINARY = {
    "add": lambda z: z + paddle.to_tensor(W), "subtract": lambda z: paddle.to_tensor(W) - z,
    "multiply": lambda z: z * paddle.to_tensor(W), "divide": lambda z: paddle.to_tensor(W) / z,
    "divide by": lambda z: z / paddle.to_tensor(W), "neg": lambda z: -z, "exp": paddle.exp, "log": paddle.log,
    "sqrt": paddle.sqrt, "square": paddle.square, "reciprocal": paddle.reciprocal, "sin": paddle.sin,
    "cos": paddle.cos, "tanh": paddle.tanh, "log1p": paddle.log1p, "pow 3": lambda z: z ** 3,
    "pow 2.5": lambda z: paddle.pow(z, 2.5), "conj": lambda z: z.conj() * paddle.to_tensor(W),
    "sum": lambda z: z.sum() * paddle.to_tensor(W), "mean": lambda z: z.mean() * paddle.to_tensor(W),
    "real": lambda z: z.real() * 3.0 + z.imag(), "angle": lambda z: paddle.angle(z) + 4.0,
    "abs of product": lambda z: paddle.abs(z * z) + 0.5, "cumsum": paddle.cumsum,
}


@pytest.mark.parametrize("name", sorted(UNARY_AND_BINARY))
def test_gradient_matches_differences_of_real_and_imaginary_parts(name):
    check_complex_grad(UNARY_AND_BINARY[name], _random_complex((3,)))


def test_matmul_gradient_matches_differences():
    y = paddle.to_tensor(_random_complex((3, 2)))
    check_complex_grad(lambda x: paddle.matmul(x, y), _random_complex((2, 3)))
    x = paddle.to_tensor(_random_complex((2, 3)))
    check_complex_grad(lambda y: paddle.matmul(x, y, transpose_y=True), _random_complex((2, 3)))


def test_real_inputs_get_the_real_part_of_the_gradient():
    a, b = RNG.uniform(-2, 2, (3,)), RNG.uniform(-2, 2, (3,))
    at = paddle.to_tensor(a, stop_gradient=False)
    bt = paddle.to_tensor(b, stop_gradient=False)
    paddle.abs(paddle.exp(paddle.complex(at, bt))).sum().backward()   # |exp(a + ib)| = exp(a)
    np.testing.assert_allclose(at.grad.numpy(), np.exp(a), rtol=1e-6)
    np.testing.assert_allclose(bt.grad.numpy(), 0.0, atol=1e-12)
    assert at.grad.dtype == paddle.float64


def test_gradients_agree_with_pytorch():
    torch = torch_or_skip()
    z = _random_complex((4,))
    w = _random_complex((4,))
    zt = paddle.to_tensor(z, stop_gradient=False)
    (paddle.abs(paddle.exp(zt) * paddle.to_tensor(w) / zt)).sum().backward()
    tz = torch.tensor(z, requires_grad=True)
    (torch.abs(torch.exp(tz) * torch.tensor(w) / tz)).sum().backward()
    np.testing.assert_allclose(zt.grad.numpy(), tz.grad.numpy(), rtol=1e-10)


def test_forward_matches_numpy():
    z = _random_complex((2, 3), np.complex64)
    w = _random_complex((2, 3), np.complex64)
    zt, wt = paddle.to_tensor(z), paddle.to_tensor(w)
    for got, want in ((zt + wt, z + w), (zt * wt, z * w), (zt / wt, z / w), (paddle.exp(zt), np.exp(z)),
                      (paddle.log(zt), np.log(z)), (paddle.sqrt(zt), np.sqrt(z)), (zt.sum(), z.sum()),
                      (zt.mean(), z.mean()), (paddle.matmul(zt, wt.T), z @ w.T)):
        assert got.dtype == paddle.complex64
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-5)
    assert paddle.abs(zt).dtype == paddle.float32
    np.testing.assert_allclose(paddle.abs(zt).numpy(), np.abs(z), rtol=1e-6)
    np.testing.assert_allclose(paddle.angle(zt).numpy(), np.angle(z), rtol=1e-6)


def test_creation():
    assert paddle.to_tensor([1 + 2j]).dtype == paddle.complex64
    assert paddle.to_tensor(np.array([1j])).dtype == paddle.complex128
    assert paddle.zeros([2], dtype="complex64").dtype == paddle.complex64
    assert paddle.full([2], 1 + 2j).dtype == paddle.complex128    # Paddle's choice for a complex fill
    z = paddle.complex(paddle.to_tensor([1.0, 2.0]), paddle.to_tensor([3.0]))   # broadcast
    np.testing.assert_array_equal(z.numpy(), [1 + 3j, 2 + 3j])
    assert paddle.complex64.is_complex and not paddle.float32.is_complex


def test_real_imag_conj_methods():
    z = paddle.to_tensor([1 + 2j, 3 - 4j])
    assert z.real().tolist() == [1.0, 3.0] and z.imag().tolist() == [2.0, -4.0]
    assert z.conj().tolist() == [1 - 2j, 3 + 4j]
    assert z.is_complex() and paddle.is_complex(z) and not paddle.ones([1]).is_complex()
    assert z.astype("float32").tolist() == [1.0, 3.0]     # the real part, without numpy's ComplexWarning


def test_promotion_with_real_tensors():
    z = paddle.to_tensor([1 + 2j])
    assert (paddle.ones([1]) + z).dtype == paddle.complex64
    assert (paddle.ones([1], dtype="float64") + z).dtype == paddle.complex128
    assert (paddle.to_tensor([1]) * z).dtype == paddle.complex64      # int + complex: allowed, unlike int + float
    assert (paddle.ones([1]) + 1j).dtype == paddle.complex64
    assert (paddle.ones([1], dtype="float64") + 1j).dtype == paddle.complex128
    assert (paddle.ones([1]) + np.complex64(2j)).tolist() == [1 + 2j]   # a numpy complex scalar too


def test_comparisons():
    a = paddle.to_tensor([1 + 2j, 2 - 5j])
    b = paddle.to_tensor([1 + 3j, 1 + 0j])
    assert (a == a).tolist() == [True, True] and paddle.not_equal(a, b).tolist() == [True, True]
    assert (a < b).tolist() == [True, False]       # real parts first, then imaginary (Paddle, numpy)


@pytest.mark.parametrize("op", [lambda z: paddle.maximum(z, z), paddle.max, paddle.floor, paddle.rsqrt,
                                paddle.sort, paddle.argmax, lambda z: z // z])
def test_ops_without_complex_kernels_say_so(op):
    with pytest.raises(Unimplemented, match="dtype complex64. Like Paddle, minipaddle has no complex kernel"):
        op(paddle.to_tensor([1 + 2j]))


def test_broadcast_gradients_are_summed_back_to_each_shape():
    z, w = _random_complex((2, 3)), _random_complex((3,))
    zt = paddle.to_tensor(z, stop_gradient=False)
    wt = paddle.to_tensor(w, stop_gradient=False)
    paddle.abs(zt * wt).sum().backward()
    want_w = numeric_complex_grad(lambda a: float(np.abs(z * a).sum()), w)
    np.testing.assert_allclose(wt.grad.numpy(), want_w, rtol=1e-5)
    assert zt.grad.shape == [2, 3] and wt.grad.shape == [3]


def test_double_grad():
    z = paddle.to_tensor(np.array([1 + 2j]), stop_gradient=False)
    g, = paddle.grad([paddle.abs(z * z).sum()], [z], create_graph=True)   # |z^2| = a^2 + b^2: 2z
    np.testing.assert_allclose(g.numpy(), [2 + 4j])
    gg, = paddle.grad([paddle.abs(g).sum()], [z])                          # |2z|: 2 z / |z|
    np.testing.assert_allclose(gg.numpy(), [2 * (1 + 2j) / np.sqrt(5)], rtol=1e-12)


def test_complex_needs_two_floats_of_one_dtype():
    with pytest.raises(InvalidArgument, match="complex: real has dtype float32 but imag has dtype float64"):
        paddle.complex(paddle.ones([1]), paddle.ones([1], dtype="float64"))
    with pytest.raises(Unimplemented, match="complex: argument 'real' has dtype int64, expected float32 or float64"):
        paddle.complex(paddle.to_tensor([1]), paddle.to_tensor([1]))


def test_repr_prints_both_parts():
    text = repr(paddle.to_tensor([1 + 2j, -8 + 6j]))
    assert "dtype=paddle.complex64" in text
    assert "[ (1.00000000+2.00000000j), (-8.00000000+6.00000000j)]" in text


def test_static_program_gradients():
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [2], "complex64")
            x.stop_gradient = False
            loss = paddle.abs(x * x).sum()
            grads = paddle.static.gradients([loss], [x])
        out = paddle.static.Executor().run(main, feed={"x": np.array([1 + 2j, 3j], np.complex64)},
                                           fetch_list=[loss] + grads)
    finally:
        paddle.disable_static()
    np.testing.assert_allclose(out[0], 14.0)
    np.testing.assert_allclose(out[1], [2 + 4j, 6j], rtol=1e-6)     # |z^2| = a^2 + b^2: 2z


@settings(max_examples=25, deadline=None)
@given(shapes=broadcast_pair(max_dims=3, max_side=3), seed=st.integers(0, 2**31))
def test_binary_ops_broadcast_like_numpy_and_sum_gradients_back(shapes, seed):
    rng = np.random.default_rng(seed)
    a = np.asarray(rng.uniform(-2, 2, shapes[0]) + 1j * rng.uniform(-2, 2, shapes[0]))
    b = np.asarray(rng.uniform(0.5, 2, shapes[1]) + 1j * rng.uniform(0.5, 2, shapes[1]))   # no zeros: b divides
    for op, ref in ((paddle.add, np.add), (paddle.multiply, np.multiply), (paddle.divide, np.divide)):
        at = paddle.to_tensor(a, stop_gradient=False)
        bt = paddle.to_tensor(b, stop_gradient=False)
        out = op(at, bt)
        np.testing.assert_allclose(out.numpy(), ref(a, b), rtol=1e-12)
        paddle.abs(out).sum().backward()
        assert at.grad.shape == list(a.shape) and bt.grad.shape == list(b.shape)
        if a.size and b.size and a.size <= 9:
            want = numeric_complex_grad(lambda x, ref=ref: float(np.abs(ref(x, b)).sum()), a)
            np.testing.assert_allclose(at.grad.numpy(), want, rtol=1e-5, atol=1e-7)
