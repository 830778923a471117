"""paddle.device: set/get the device; what this machine can use."""
from __future__ import annotations

import pytest

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument
from minipaddle.framework.place import cuda_available


def test_set_and_get_device_on_the_cpu():
    assert str(paddle.device.set_device("cpu")) == "Place(cpu)"
    assert paddle.device.get_device() == "cpu" == paddle.get_device()
    with pytest.raises(InvalidArgument, match="set_device: got 'tpu'"):
        paddle.device.set_device("tpu")


def test_cuda_queries_agree_with_numba():
    assert paddle.device.is_compiled_with_cuda() is cuda_available() is paddle.is_compiled_with_cuda()
    count = paddle.device.cuda.device_count()
    assert isinstance(count, int) and (count > 0) == cuda_available()
    assert paddle.device.is_compiled_with_rocm() is False and paddle.device.is_compiled_with_xpu() is False
    assert paddle.device.cuda.synchronize() is None and paddle.device.cuda.empty_cache() is None
