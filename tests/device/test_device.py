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


def test_importing_minipaddle_leaves_numba_cuda_unloaded():
    import subprocess
    import sys
    code = "import sys, minipaddle; print('numba.cuda' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


@pytest.mark.skipif(cuda_available(), reason="checks the error on a machine without a GPU")
def test_asking_for_a_missing_gpu_is_a_clear_error():
    with pytest.raises(InvalidArgument, match="set_device: got Place\\(gpu:0\\), but no CUDA GPU is available"):
        paddle.set_device("gpu")
    with pytest.raises(InvalidArgument, match="to_tensor: got Place\\(gpu:0\\), but no CUDA GPU"):
        paddle.to_tensor([1.0], place=paddle.CUDAPlace(0))
    with pytest.raises(InvalidArgument, match="Tensor.to: got Place\\(gpu:0\\)"):
        paddle.ones([2]).cuda()
    assert paddle.device.get_device() == "cpu"
