"""Bad calls a hostile or unlucky user makes raise a clear Paddle-style error, never a silent wrong answer.

The probes of issue 16 item 7: integer values that would wrap around, scalars that overflow a dtype,
integer remainder by zero, wrong argument types, outputs larger than the machine's memory, ragged feeds.
"""
from __future__ import annotations

import re

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework import memory
from minipaddle.framework.errors import InvalidArgument, InvalidType, ResourceExhausted


@pytest.mark.parametrize("data, dtype, bad", [
    ([300], "uint8", "300"), ([-1], "uint8", "-1"), ([2 ** 40], "int32", str(2 ** 40)),
    (2 ** 40, "int32", str(2 ** 40)), (np.array([300]), "uint8", "300"), ([2 ** 63], "int64", str(2 ** 63)),
    ([1e20], "int32", "1e+20"),
])
def test_to_tensor_refuses_integers_that_would_wrap(data, dtype, bad):
    with pytest.raises(InvalidArgument, match=rf"to_tensor: the value {re.escape(bad)} does not fit in {dtype}"):
        paddle.to_tensor(data, dtype=dtype)


def test_to_tensor_keeps_values_that_fit():
    np.testing.assert_array_equal(paddle.to_tensor([0, 255], dtype="uint8").numpy(), [0, 255])
    np.testing.assert_array_equal(paddle.to_tensor([-2 ** 31, 2 ** 31 - 1], dtype="int32").numpy(),
                                  [-2 ** 31, 2 ** 31 - 1])
    np.testing.assert_array_equal(paddle.to_tensor([2.7, -1.5], dtype="int64").numpy(), [2, -1])  # truncates
    assert paddle.to_tensor([], dtype="uint8").shape == [0]


def test_a_python_int_that_overflows_the_tensor_dtype_names_the_op():
    x = paddle.to_tensor([1], dtype="int32")
    with pytest.raises(InvalidArgument, match=r"add: the Python int 1099511627776 does not fit .* int32"):
        x + 2 ** 40
    with pytest.raises(InvalidArgument, match=r"multiply: .* int32"):
        2 ** 40 * x
    np.testing.assert_array_equal((x + (2 ** 31 - 2)).numpy(), [2 ** 31 - 1])


def test_full_refuses_a_fill_value_that_overflows_the_dtype():
    with pytest.raises(InvalidArgument, match=r"full: fill_value 1099511627776 does not fit in int32"):
        paddle.full([2], 2 ** 40, "int32")
    with pytest.raises(InvalidArgument, match=r"full_like: fill_value 256 does not fit in uint8"):
        paddle.full_like(paddle.to_tensor([1], dtype="uint8"), 256)
    np.testing.assert_array_equal(paddle.full([2], 7, "int32").numpy(), [7, 7])


@pytest.mark.parametrize("call", [
    lambda x, z: x % z, lambda x, z: paddle.remainder(x, z), lambda x, z: paddle.mod(x, z), lambda x, z: x % 0,
])
@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_integer_remainder_by_zero_raises_like_floor_divide(call, dtype):
    x, z = paddle.to_tensor([5, 7], dtype=dtype), paddle.to_tensor([2, 0], dtype=dtype)
    with pytest.raises(InvalidArgument, match="remainder: integer division by zero"):
        call(x, z)
    np.testing.assert_array_equal((x % paddle.to_tensor([2, 3], dtype=dtype)).numpy(), [1, 1])


def test_float_remainder_by_zero_is_nan_as_in_paddle():
    with np.errstate(all="ignore"):
        assert np.isnan(paddle.remainder(paddle.to_tensor([5.0]), paddle.to_tensor([0.0])).numpy()).all()


def test_optimizer_refuses_a_layer_and_a_non_finite_learning_rate():
    layer = paddle.nn.Linear(2, 2)
    with pytest.raises(InvalidType, match=r"SGD: parameters must be a list of Tensors, got the layer Linear") as e:
        paddle.optimizer.SGD(parameters=layer)
    assert isinstance(e.value, TypeError) and "parameters=model.parameters()" in str(e.value)
    with pytest.raises(InvalidType, match="got int"):
        paddle.optimizer.Adam(parameters=5)
    for lr in (float("nan"), float("inf")):
        with pytest.raises(InvalidArgument, match="learning_rate must be a finite number"):
            paddle.optimizer.SGD(learning_rate=lr, parameters=layer.parameters())


def test_dataloader_refuses_something_that_is_not_a_dataset():
    with pytest.raises(InvalidType, match=r"DataLoader: dataset must be a paddle.io.Dataset .* got int"):
        paddle.io.DataLoader(5)
    batches = list(paddle.io.DataLoader([np.float32(i) for i in range(4)], batch_size=2))  # a list is a dataset
    assert len(batches) == 2


def test_matmul_transpose_flags_must_be_bools():
    a = paddle.ones([2, 3])
    with pytest.raises(InvalidType, match=r"matmul: transpose_x must be a bool, got str 'yes'"):
        paddle.matmul(a, a, transpose_x="yes")
    with pytest.raises(InvalidType, match="transpose_y"):
        paddle.matmul(a, a, transpose_y=1)
    assert paddle.matmul(a, a, transpose_y=True).shape == [2, 2]
    assert paddle.matmul(a, a, transpose_y=np.bool_(True)).shape == [2, 2]


def test_outputs_larger_than_memory_say_how_many_bytes_they_need():
    with pytest.raises(ResourceExhausted, match=r"zeros: the output needs 3.64 TiB \(4000000000000 bytes\)") as e:
        paddle.zeros([100000, 100000, 100])
    assert isinstance(e.value, MemoryError) and "available" in str(e.value)
    for make in (lambda: paddle.ones([2 ** 40]), lambda: paddle.empty([2 ** 20, 2 ** 20], "float64"),
                 lambda: paddle.full([2 ** 40], 1.0)):
        with pytest.raises(ResourceExhausted, match="bytes"):
            make()
    column, row = paddle.ones([2 ** 18, 1]), paddle.ones([1, 2 ** 18])   # a 256 GiB matmul from 2 MiB inputs
    with pytest.raises(ResourceExhausted, match=r"matmul: the output needs 256.00 GiB \(274877906944 bytes\): "
                                                r"shape \[262144, 262144\], float32"):
        paddle.matmul(column, row)


def test_a_kernel_memory_error_becomes_the_ops_resource_exhausted(monkeypatch):
    def no_memory(*args, **kwargs):
        raise MemoryError("Unable to allocate")

    x = paddle.ones([4, 4])
    from minipaddle.framework.ops.elementwise import ADD
    monkeypatch.setattr(ADD, "_chosen", {("cpu", np.dtype("float32")): no_memory})
    with pytest.raises(ResourceExhausted, match=r"add: the output needs 64 B \(64 bytes\): shape \[4, 4\], float32"):
        paddle.add(x, x)
    assert memory.format_bytes(3 * 2 ** 30) == "3.00 GiB"


def test_a_ragged_feed_names_the_feed():
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [None, 2], "float32")
            y = x * 2
        exe = paddle.static.Executor()
        with pytest.raises(InvalidArgument, match=r"Executor.run: feed 'x' is a ragged nested list"):
            exe.run(main, feed={"x": [[1.0, 2.0], [3.0]]}, fetch_list=[y])
        out, = exe.run(main, feed={"x": np.ones((1, 2), "float32")}, fetch_list=[y])
        np.testing.assert_allclose(out, [[2.0, 2.0]])
    finally:
        paddle.disable_static()
