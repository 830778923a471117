"""Data types: every spelling converts, and bfloat16 (through ml_dtypes) computes in float32, rounded back."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework.dtype import convert_dtype
from minipaddle.framework.errors import InvalidType, Unimplemented

BF16 = np.dtype(ml_dtypes.bfloat16)


def _round_to_bfloat16(values) -> np.ndarray:
    return np.asarray(values, np.float32).astype(BF16)


@pytest.mark.parametrize("spelling", ["bfloat16", "paddle.bfloat16", paddle.bfloat16, ml_dtypes.bfloat16])
def test_bfloat16_spellings(spelling):
    assert convert_dtype(spelling) == BF16


@pytest.mark.parametrize("spelling, name", [("complex64", "complex64"), (np.complex128, "complex128"),
                                            (complex, "complex64")])
def test_complex_spellings(spelling, name):
    assert convert_dtype(spelling) == np.dtype(name)


def test_dtype_properties():
    assert paddle.bfloat16.is_floating_point and not paddle.bfloat16.is_complex
    assert paddle.complex128.is_complex and not paddle.complex128.is_floating_point
    assert repr(paddle.bfloat16) == "paddle.bfloat16"


def test_numpy_gives_an_ml_dtypes_array():
    x = paddle.to_tensor([1.5, 2.3], dtype="bfloat16")
    assert x.dtype == paddle.bfloat16
    assert x.numpy().dtype == BF16
    assert x.numpy().astype(np.float32).tolist() == [1.5, 2.296875]   # 2.3 rounded to 8 bits of mantissa
    assert paddle.to_tensor(np.array([1.0], BF16)).dtype == paddle.bfloat16


def test_astype_round_trip():
    f = paddle.to_tensor([1.0, 3.3, -1e-3])
    back = f.astype("bfloat16").astype("float32")
    np.testing.assert_array_equal(back.numpy(), _round_to_bfloat16([1.0, 3.3, -1e-3]).astype(np.float32))


@pytest.mark.parametrize("name, fn, reference", [
    ("add", lambda x, y: x + y, np.add), ("multiply", lambda x, y: x * y, np.multiply),
    ("divide", lambda x, y: x / y, np.divide), ("exp", lambda x, y: paddle.exp(x), lambda a, b: np.exp(a)),
    ("sqrt", lambda x, y: paddle.sqrt(x), lambda a, b: np.sqrt(a)),
    ("pow", lambda x, y: x ** 2, lambda a, b: a ** 2),
    ("matmul", lambda x, y: paddle.matmul(x.reshape([2, 2]), y.reshape([2, 2])),
     lambda a, b: a.reshape(2, 2) @ b.reshape(2, 2)),
    ("sum", lambda x, y: x.sum(), lambda a, b: a.sum()), ("mean", lambda x, y: x.mean(), lambda a, b: a.mean()),
])
def test_math_is_float32_math_rounded_once(name, fn, reference):
    a = _round_to_bfloat16([1.1, 2.7, 0.3, 4.9])
    b = _round_to_bfloat16([0.7, 1.3, 2.2, 0.9])
    got = fn(paddle.to_tensor(a), paddle.to_tensor(b))
    assert got.dtype == paddle.bfloat16
    want = np.asarray(reference(a.astype(np.float32), b.astype(np.float32)), np.float32).astype(BF16)
    np.testing.assert_array_equal(got.numpy(), want)


def test_sum_accumulates_in_float32():
    x = paddle.ones([4096], dtype="bfloat16")
    assert float(x.sum().astype("float32")) == 4096.0     # in bfloat16 the running sum would stop at 256


def test_gradients_are_bfloat16():
    x = paddle.to_tensor([1.5, 2.25, 3.0], dtype="bfloat16", stop_gradient=False)
    (x * x).sum().backward()
    assert x.grad.dtype == paddle.bfloat16
    assert x.grad.numpy().astype(np.float32).tolist() == [3.0, 4.5, 6.0]
    w = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]], dtype="bfloat16", stop_gradient=False)
    paddle.matmul(paddle.ones([1, 2], dtype="bfloat16"), w).mean().backward()
    assert w.grad.dtype == paddle.bfloat16 and w.grad.numpy().astype(np.float32).tolist() == [[0.5, 0.5]] * 2


def test_promotion():
    x = paddle.to_tensor([1.0], dtype="bfloat16")
    assert (x + paddle.ones([1])).dtype == paddle.float32
    assert (x + paddle.ones([1], dtype="float16")).dtype == paddle.float32
    assert (x + paddle.ones([1], dtype="float64")).dtype == paddle.float64
    assert (x + 1.5).dtype == paddle.bfloat16
    with pytest.raises(InvalidType, match="int64"):
        paddle.to_tensor([1]) + x


@pytest.mark.parametrize("op", [paddle.prod, paddle.cumsum, paddle.max, paddle.var])
def test_ops_without_bfloat16_kernels_say_so(op):
    with pytest.raises(Unimplemented, match="no kernel registered for backend 'cpu' and dtype bfloat16"):
        op(paddle.to_tensor([1.0], dtype="bfloat16"))


def test_repr_prints_values():
    text = repr(paddle.to_tensor([1.5, 2.3], dtype="bfloat16"))
    assert "dtype=paddle.bfloat16" in text and "2.296875" in text
