"""Tensor and creation API: Paddle's dtype defaults, metadata, conversions, repr, places, errors."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument


def test_to_tensor_dtype_defaults_follow_paddle():
    assert paddle.to_tensor(1.0).dtype == paddle.float32
    assert paddle.to_tensor([1.0, 2.0]).dtype == paddle.float32
    assert paddle.to_tensor(3).dtype == paddle.int64
    assert paddle.to_tensor([1, 2]).dtype == paddle.int64
    assert paddle.to_tensor(True).dtype == paddle.bool
    assert paddle.to_tensor(np.ones(2, np.float64)).dtype == paddle.float64  # numpy keeps its dtype
    assert paddle.to_tensor([1, 2], dtype="float16").dtype == paddle.float16
    assert paddle.to_tensor([1, 2], dtype=paddle.int32).dtype == "int32"


def test_to_tensor_copies_its_input():
    a = np.ones(3, np.float32)
    t = paddle.to_tensor(a)
    a[0] = 7
    assert t.numpy()[0] == 1.0


def test_to_tensor_bad_data_is_a_clear_error():
    with pytest.raises(InvalidArgument, match="to_tensor: data is not rectangular"):
        paddle.to_tensor([[1.0, 2.0], [3.0]])
    with pytest.raises(InvalidArgument, match="to_tensor.*expected numbers"):
        paddle.to_tensor(["a", "b"])
    with pytest.raises(InvalidArgument, match="dtype: got 'float128'"):
        paddle.to_tensor([1.0], dtype="float128")


def test_metadata_is_paddle_shaped():
    x = paddle.to_tensor(np.zeros((2, 3), np.float32))
    assert x.shape == [2, 3] and isinstance(x.shape, list)
    assert x.ndim == 2 and x.dim() == 2 and x.size == 6 and x.numel() == 6 and len(x) == 2
    assert x.place == paddle.CPUPlace()
    assert x.name.startswith("generated_tensor_")
    x.name = "w"
    assert x.name == "w"


def test_repr_matches_paddle_layout():
    x = paddle.to_tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    text = repr(x)
    assert text.startswith("Tensor(shape=[2, 3], dtype=paddle.float32, place=Place(cpu), stop_gradient=True,")
    assert "[[1., 2., 3.]," in text


def test_item_and_python_conversions():
    assert paddle.to_tensor(2.5).item() == 2.5
    assert float(paddle.to_tensor([2.5])) == 2.5
    assert int(paddle.to_tensor(3)) == 3
    assert paddle.to_tensor([[1, 2], [3, 4]]).item(1, 0) == 3
    assert paddle.to_tensor([[1, 2]]).tolist() == [[1, 2]]
    with pytest.raises(InvalidArgument, match="item: the tensor has 3 elements"):
        paddle.to_tensor([1, 2, 3]).item()
    with pytest.raises(InvalidArgument, match="ambiguous"):
        bool(paddle.to_tensor([1, 2]))


def test_astype_and_cast():
    x = paddle.to_tensor([1.7, -1.2])
    assert x.astype("int32").numpy().tolist() == [1, -1]
    assert paddle.cast(x, paddle.float64).dtype == paddle.float64


def test_creation_functions():
    assert paddle.zeros([2, 3]).numpy().tolist() == [[0.0] * 3] * 2
    assert paddle.ones([2], dtype="int64").dtype == paddle.int64
    assert paddle.full([2], 7).dtype == paddle.float32   # as Paddle 3.3.1: an int fill gives the default float
    assert paddle.full([2], 1.5).numpy().tolist() == [1.5, 1.5]
    assert paddle.arange(5).numpy().tolist() == [0, 1, 2, 3, 4]
    assert paddle.arange(5).dtype == paddle.int64
    assert paddle.arange(0, 1, 0.25).dtype == paddle.float32
    np.testing.assert_allclose(paddle.linspace(0, 1, 5).numpy(), [0, 0.25, 0.5, 0.75, 1])
    assert paddle.eye(2, 3).shape == [2, 3]
    assert paddle.empty([0, 2]).shape == [0, 2]
    x = paddle.to_tensor([[1, 2]])
    assert paddle.zeros_like(x).dtype == paddle.int64
    assert paddle.ones_like(x, dtype="float32").dtype == paddle.float32
    assert paddle.full_like(x, 9).numpy().tolist() == [[9, 9]]


def test_creation_errors_name_the_function():
    with pytest.raises(InvalidArgument, match="zeros: shape"):
        paddle.zeros([2, -1])
    with pytest.raises(InvalidArgument, match="arange: step must not be 0"):
        paddle.arange(0, 5, 0)
    with pytest.raises(InvalidArgument, match="randint: high"):
        paddle.randint(5, 5)
    with pytest.raises(InvalidArgument, match="linspace: num"):
        paddle.linspace(0, 1, 0)
    with pytest.raises(InvalidArgument, match="rand: dtype int64 is not a floating dtype"):
        paddle.rand([2], dtype="int64")


def test_seed_makes_random_tensors_reproducible():
    paddle.seed(7)
    a = [paddle.rand([3]).numpy(), paddle.randn([3]).numpy(), paddle.randint(0, 10, [3]).numpy(),
         paddle.uniform([3], min=-2, max=2).numpy(), paddle.normal(0, 1, [3]).numpy()]
    paddle.seed(7)
    b = [paddle.rand([3]).numpy(), paddle.randn([3]).numpy(), paddle.randint(0, 10, [3]).numpy(),
         paddle.uniform([3], min=-2, max=2).numpy(), paddle.normal(0, 1, [3]).numpy()]
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)
    r = paddle.rand([1000])
    assert r.dtype == paddle.float32 and 0 <= r.numpy().min() and r.numpy().max() < 1
    assert paddle.randint(0, 3, [100]).numpy().max() <= 2


def test_places_and_devices():
    assert paddle.get_device() == "cpu"
    assert paddle.set_device("cpu") == paddle.CPUPlace()
    assert repr(paddle.CUDAPlace(1)) == "Place(gpu:1)"
    with pytest.raises(InvalidArgument, match="set_device: got 'tpu'"):
        paddle.set_device("tpu")
    with pytest.raises(InvalidArgument, match="CUDAPlace"):
        paddle.CUDAPlace(-1)


def test_default_dtype_can_be_changed():
    paddle.set_default_dtype("float64")
    try:
        assert paddle.to_tensor([1.5]).dtype == paddle.float64
        assert paddle.zeros([1]).dtype == paddle.float64
    finally:
        paddle.set_default_dtype("float32")
    with pytest.raises(InvalidArgument, match="set_default_dtype"):
        paddle.set_default_dtype("int32")


def test_numpy_interop_prefers_tensor_operators():
    x = paddle.to_tensor([1.0, 2.0])
    out = np.array([1.0, 1.0], np.float32) + x
    assert isinstance(out, paddle.Tensor)
    assert np.asarray(x).tolist() == [1.0, 2.0]


def test_reflected_operators_and_comparisons():
    x = paddle.to_tensor([1.0, 2.0, 3.0])
    assert (3 - x).numpy().tolist() == [2.0, 1.0, 0.0]
    assert (6 / x).numpy().tolist() == [6.0, 3.0, 2.0]
    assert (x % 2).numpy().tolist() == [1.0, 0.0, 1.0]
    assert (-x).numpy().tolist() == [-1.0, -2.0, -3.0]
    assert abs(paddle.to_tensor([-1.0])).numpy().tolist() == [1.0]
    assert (x > 1.5).numpy().tolist() == [False, True, True]
    assert (x == 2).numpy().tolist() == [False, True, False]
    assert ((x > 1) & (x < 3)).numpy().tolist() == [False, True, False]
    assert (~(x > 1)).numpy().tolist() == [True, False, False]
    assert hash(x) == id(x)


def test_to_tensor_keeps_a_numpy_scalars_dtype():
    assert paddle.to_tensor(np.float32(1.0)).dtype == paddle.float32
    assert paddle.to_tensor(np.float64(1.0)).dtype == paddle.float64
    assert paddle.to_tensor(np.int32(3)).dtype == paddle.int32
    assert paddle.to_tensor(1.0).dtype == paddle.float32


def test_clear_grad_zeroes_in_place_and_bumps_the_grads_version():
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    (x * x).sum().backward()
    g = x.grad
    before = g.inplace_version
    x.clear_grad()
    assert x.grad is g and g.numpy().tolist() == [0.0, 0.0] and g.inplace_version == before + 1


def test_value_gradient_and_numel_as_paddle():
    w = paddle.create_parameter([2], "float32")
    assert w.value() is w
    assert w.gradient() is None
    (w * w).sum().backward()
    g = w.gradient()
    assert isinstance(g, np.ndarray) and g is not w.grad.numpy()
    np.testing.assert_allclose(g, 2 * w.numpy())
    n = paddle.ones([2, 3]).numel()
    assert n.shape == [] and n.dtype == paddle.int64 and int(n) == 6 and int(paddle.numel(paddle.ones([4]))) == 4
