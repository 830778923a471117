"""Elementwise ops: forward vs numpy on drawn shapes, gradients, double grads, PyTorch, errors."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument

from .opcheck import (arrays, assert_forward, broadcast_pair, check_double_grad, check_grad, shapes,
                      torch_or_skip)

# name -> (numpy reference, input range, twice differentiable?)
BINARY = {
    "add": (np.add, (-3, 3), False),
    "subtract": (np.subtract, (-3, 3), False),
    "multiply": (np.multiply, (-3, 3), True),
    "divide": (np.divide, (0.5, 3), True),
    "maximum": (np.maximum, (-3, 3), False),
    "minimum": (np.minimum, (-3, 3), False),
    "remainder": (np.remainder, (0.5, 3), False),
    "elementwise_pow": (np.power, (0.5, 2), True),
}

UNARY = {
    "neg": (np.negative, (-3, 3), False),
    "abs": (np.abs, (-3, 3), False),
    "exp": (np.exp, (-3, 3), True),
    "log": (np.log, (0.2, 3), True),
    "log1p": (np.log1p, (-0.5, 3), True),
    "sqrt": (np.sqrt, (0.2, 3), True),
    "rsqrt": (lambda x: 1 / np.sqrt(x), (0.2, 3), True),
    "square": (np.square, (-3, 3), True),
    "sin": (np.sin, (-3, 3), True),
    "cos": (np.cos, (-3, 3), True),
    "tanh": (np.tanh, (-3, 3), True),
    "sign": (np.sign, (-3, 3), False),
    "floor": (np.floor, (-3, 3), False),
    "ceil": (np.ceil, (-3, 3), False),
    "round": (lambda x: np.copysign(np.floor(np.abs(x) + 0.5), x), (-3, 3), False),
}


@pytest.mark.parametrize("name", sorted(BINARY))
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_binary_forward_matches_numpy(name, data):
    ref, (lo, hi), _ = BINARY[name]
    sx, sy = data.draw(broadcast_pair())
    dtype = data.draw(st.sampled_from(["float32", "float64"]))
    x = data.draw(arrays(sx, dtype, lo, hi))
    y = data.draw(arrays(sy, dtype, lo, hi))
    out = getattr(paddle, name)(paddle.to_tensor(x), paddle.to_tensor(y))
    assert_forward(out, ref(x, y), rtol=1e-5)


@pytest.mark.parametrize("name", sorted(UNARY))
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_unary_forward_matches_numpy(name, data):
    ref, (lo, hi), _ = UNARY[name]
    shape = data.draw(st.sampled_from([(), (0,), (3,), (2, 3), (2, 1, 4)]))
    dtype = data.draw(st.sampled_from(["float32", "float64"]))
    x = data.draw(arrays(shape, dtype, lo, hi))
    assert_forward(getattr(paddle, name)(paddle.to_tensor(x)), ref(x).astype(dtype), rtol=1e-5)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_grad_reduces_over_broadcast_axes(name):
    ref, (lo, hi), twice = BINARY[name]
    rng = np.random.default_rng(0)
    x = rng.uniform(lo, hi, (2, 3, 4))
    y = rng.uniform(lo, hi, (3, 1))
    if name in ("maximum", "minimum", "remainder"):
        y = y + 0.05  # keep away from ties and jumps
    check_grad(getattr(paddle, name), [x, y])
    if twice:
        check_double_grad(getattr(paddle, name), [x, y])


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_grad(name):
    ref, (lo, hi), twice = UNARY[name]
    x = np.random.default_rng(1).uniform(lo, hi, (2, 3)) + 0.013
    check_grad(getattr(paddle, name), [x])
    if twice:
        check_double_grad(getattr(paddle, name), [x])


@pytest.mark.parametrize("name", ["exp", "tanh", "sqrt", "log"])
def test_unary_matches_torch(name):
    torch = torch_or_skip()
    x = np.random.default_rng(2).uniform(0.2, 3, (5, 4)).astype(np.float32)
    got = getattr(paddle, name)(paddle.to_tensor(x)).numpy()
    np.testing.assert_allclose(got, getattr(torch, name)(torch.tensor(x)).numpy(), rtol=1e-6)


def test_numba_kernel_matches_numpy_kernel():
    from minipaddle.framework.registry import KernelKey, get_op
    x = np.random.default_rng(3).uniform(-3, 3, (64,)).astype(np.float32)
    for name in ("exp", "tanh", "sin", "add"):
        op = get_op(name)
        kernels = {k.name: k.fn for k in op.kernels[KernelKey("cpu", np.dtype("float32"))]}
        args = (x,) * (2 if name == "add" else 1)
        np.testing.assert_allclose(kernels["numba"](*args), kernels["numpy"](*args), rtol=1e-6)


def test_float16_runs_through_upcast():
    x = paddle.to_tensor([0.5, 1.0], dtype="float16")
    out = paddle.erf(x)
    assert out.dtype == paddle.float16
    np.testing.assert_allclose(out.numpy(), [0.5205, 0.8427], rtol=1e-3)


def test_scalar_operands_take_the_tensor_dtype():
    x = paddle.to_tensor([1.0, 2.0])
    assert (x + 1).dtype == paddle.float32
    assert (2 * x).numpy().tolist() == [2.0, 4.0]
    assert (1 - x).numpy().tolist() == [0.0, -1.0]
    i = paddle.to_tensor([1, 2])
    assert (i + 1).dtype == paddle.int64
    assert (i * 0.5).dtype == paddle.float32


def test_mixed_dtypes_promote():
    a = paddle.to_tensor([1.0], dtype="float32")
    b = paddle.to_tensor([2.0], dtype="float64")
    assert (a + b).dtype == paddle.float64


def test_integer_division_gives_float_and_floor_divide_keeps_int():
    a = paddle.to_tensor([7, -7])
    b = paddle.to_tensor([2, 2])
    assert (a / b).numpy().tolist() == [3.5, -3.5]
    assert (a // b).numpy().tolist() == [3, -4]
    with pytest.raises(InvalidArgument, match="floor_divide: integer division by zero"):
        a // paddle.to_tensor([0, 1])


def test_broadcast_error_names_the_op_and_shapes():
    with pytest.raises(InvalidArgument) as e:
        paddle.add(paddle.ones([2, 3]), paddle.ones([4]))
    msg = str(e.value)
    assert "add" in msg and "[2, 3]" in msg and "[4]" in msg


def test_non_tensor_argument_is_rejected_clearly():
    with pytest.raises(InvalidArgument, match="exp: argument 'x' got list, expected a Tensor"):
        paddle.exp([1.0, 2.0])


def test_float_only_op_rejects_int_tensor():
    with pytest.raises(InvalidArgument, match="exp: argument 'x' has dtype int64"):
        paddle.exp(paddle.to_tensor([1, 2]))


def test_pow_scalar_and_tensor_exponent():
    x = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    y = x ** 2
    y.sum().backward()
    assert x.grad.numpy().tolist() == [2.0, 4.0, 6.0]
    assert (2 ** paddle.to_tensor([1.0, 3.0])).numpy().tolist() == [2.0, 8.0]


def test_the_gradient_of_pow_zero_is_zero_also_at_zero():
    for make in (lambda x: paddle.pow(x, 0.0), lambda x: x ** 0, lambda x: paddle.pow(x, paddle.zeros([3]))):
        x = paddle.to_tensor([0.0, 2.0, -1.0], stop_gradient=False)
        with np.errstate(all="ignore"):
            make(x).sum().backward()
        assert x.grad.numpy().tolist() == [0.0, 0.0, 0.0]   # PyTorch and Paddle: 0, not NaN at x = 0
    x = paddle.to_tensor([0.0, 2.0], stop_gradient=False)
    (x ** 3).sum().backward()
    assert x.grad.numpy().tolist() == [0.0, 12.0]


def test_where_selects_and_routes_gradients():
    c = paddle.to_tensor([True, False, True])
    x = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    y = paddle.to_tensor([10.0, 20.0, 30.0], stop_gradient=False)
    out = paddle.where(c, x, y)
    assert out.numpy().tolist() == [1.0, 20.0, 3.0]
    out.sum().backward()
    assert x.grad.numpy().tolist() == [1.0, 0.0, 1.0]
    assert y.grad.numpy().tolist() == [0.0, 1.0, 0.0]
    with pytest.raises(InvalidArgument, match="where: condition has dtype float32, expected bool"):
        paddle.where(x, x, y)


def test_cast_gradient_returns_to_input_dtype():
    x = paddle.to_tensor([1.5, 2.5], dtype="float32", stop_gradient=False)
    y = paddle.cast(x, "float64") * 3
    y.sum().backward()
    assert x.grad.dtype == paddle.float32
    assert x.grad.numpy().tolist() == [3.0, 3.0]


def test_scale_op():
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    out = paddle.scale(x, scale=2.0, bias=1.0)
    assert out.numpy().tolist() == [3.0, 5.0]
    assert paddle.scale(x, 2.0, 1.0, bias_after_scale=False).numpy().tolist() == [4.0, 6.0]
    out.sum().backward()
    assert x.grad.numpy().tolist() == [2.0, 2.0]
    with pytest.raises(InvalidArgument, match="scale: 'scale' got str"):
        paddle.scale(x, scale="2")


def test_integer_numba_kernels_keep_the_integer_dtype():
    from minipaddle.framework.registry import KernelKey, get_op
    a = np.array([3, -4], np.int64)
    for name in ("add", "multiply", "abs"):
        kernels = {k.name: k.fn for k in get_op(name).kernels[KernelKey("cpu", np.dtype("int64"))]}
        args = (a, a) if name != "abs" else (a,)
        out = kernels["numba"](*args)
        assert out.dtype == np.int64, name
        np.testing.assert_array_equal(out, kernels["numpy"](*args))


def test_where_numba_and_numpy_kernels_agree_on_same_shape_and_broadcast_inputs():
    rng = np.random.default_rng(0)
    for dtype in ("float32", "float64", "int64"):
        c = rng.standard_normal((16, 9)) > 0
        x, y = (rng.standard_normal((16, 9)) * 10).astype(dtype), (rng.standard_normal((16, 9)) * 10).astype(dtype)
        out = paddle.where(paddle.to_tensor(c), paddle.to_tensor(x), paddle.to_tensor(y))
        np.testing.assert_array_equal(out.numpy(), np.where(c, x, y))
        row = paddle.where(paddle.to_tensor(c[:1]), paddle.to_tensor(x), paddle.to_tensor(y))
        np.testing.assert_array_equal(row.numpy(), np.where(c[:1], x, y))


# ---- reciprocal and add_n ------------------------------------------------------------------------
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_reciprocal_matches_numpy_and_its_gradient_is_numeric(data):
    shape = data.draw(shapes(max_dims=3))
    x = data.draw(arrays(shape, "float64", low=0.5, high=3.0))
    x = x * np.where(np.arange(x.size).reshape(x.shape) % 2, -1.0, 1.0) if x.size else x
    assert_forward(paddle.to_tensor(x).reciprocal(), 1.0 / x)
    assert_forward(paddle.reciprocal(paddle.to_tensor(x)), 1.0 / x)
    if x.size:
        check_grad(paddle.reciprocal, [x])
        check_double_grad(paddle.reciprocal, [x])


def test_reciprocal_of_zero_is_inf_and_of_ints_is_an_error():
    assert paddle.reciprocal(paddle.to_tensor([0.0, -0.0])).numpy().tolist() == [np.inf, -np.inf]
    with pytest.raises(InvalidArgument, match="reciprocal: argument 'x' has dtype int64, expected a floating"):
        paddle.reciprocal(paddle.to_tensor([1, 2]))


def test_add_n_sums_a_list_and_sends_the_gradient_to_each():
    a, b = np.array([1.0, 2.0]), np.array([3.0, -1.0])
    assert_forward(paddle.add_n([paddle.to_tensor(a), paddle.to_tensor(b), paddle.to_tensor(a)]), a + b + a)
    assert_forward(paddle.add_n(paddle.to_tensor(a)), a)
    check_grad(lambda x, y: paddle.add_n([x, y, x]), [a, b])
    with pytest.raises(InvalidArgument, match=r"add_n: inputs\[1\] has shape \[3\] and dtype float32, expected"):
        paddle.add_n([paddle.ones([2]), paddle.ones([3])])
    with pytest.raises(InvalidArgument, match="add_n: inputs got an empty list"):
        paddle.add_n([])
