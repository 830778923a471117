"""GPU tensors: places, moving between devices, mixed-device errors, autograd on the device.

Runs on a real GPU where there is one, else under numba's simulator (conftest.py).
"""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument, Unimplemented


@pytest.fixture(autouse=True)
def _back_on_the_cpu():
    yield
    paddle.set_device("cpu")


def test_a_gpu_is_there_and_counted():
    assert paddle.is_compiled_with_cuda() and paddle.device.is_compiled_with_cuda()
    assert paddle.device.cuda.device_count() >= 1
    assert paddle.device.cuda.current_device() == 0


def test_set_device_puts_new_tensors_on_the_gpu():
    assert paddle.set_device("gpu") == paddle.CUDAPlace(0)
    assert paddle.device.get_device() == "gpu:0"
    for t in (paddle.ones([2, 3]), paddle.zeros([4]), paddle.full([2], 7.0), paddle.arange(5),
              paddle.rand([3]), paddle.randn([3]), paddle.to_tensor([1.0, 2.0])):
        assert t.place == paddle.CUDAPlace(0) and t.place.is_gpu_place()
        assert "Place(gpu:0)" in repr(t)
    np.testing.assert_array_equal(paddle.full([2], 7.0).numpy(), [7.0, 7.0])
    assert paddle.to_tensor([1.0], place="cpu").place == paddle.CPUPlace()


def test_to_tensor_with_a_place_and_numpy_copies_back():
    x = paddle.to_tensor([[1, 2], [3, 4]], place=paddle.CUDAPlace(0))
    assert x.place == paddle.CUDAPlace(0) and x.dtype == paddle.int64
    host = x.numpy()
    assert type(host) is np.ndarray
    np.testing.assert_array_equal(host, [[1, 2], [3, 4]])
    assert x.tolist() == [[1, 2], [3, 4]] and x.item(3) == 4
    assert float(paddle.to_tensor(2.5, place="gpu")) == 2.5


def test_cuda_cpu_and_to_move_values_and_keep_dtype():
    a = paddle.to_tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    g = a.cuda()
    assert g.place == paddle.CUDAPlace(0) and g.dtype == paddle.float32
    back = g.cpu()
    assert back.place == paddle.CPUPlace()
    np.testing.assert_array_equal(back.numpy(), a.numpy())
    assert g.cuda() is g and a.cpu() is a                      # already there: the tensor itself
    assert a.to("gpu").place == paddle.CUDAPlace(0)
    h = a.to(paddle.CUDAPlace(0), "float64")
    assert h.place == paddle.CUDAPlace(0) and h.dtype == paddle.float64


def test_seed_gives_the_same_numbers_on_either_device():
    paddle.seed(7)
    on_cpu = paddle.rand([5]).numpy()
    paddle.set_device("gpu")
    paddle.seed(7)
    on_gpu = paddle.rand([5])
    assert on_gpu.place == paddle.CUDAPlace(0)
    np.testing.assert_array_equal(on_gpu.numpy(), on_cpu)


def test_mixed_places_are_refused_naming_both():
    x = paddle.ones([3]).cuda()
    y = paddle.ones([3])
    with pytest.raises(InvalidArgument, match=r"add: the inputs live on different places \(Place\(gpu:0\), "
                                              r"Place\(cpu\)\)"):
        paddle.add(x, y)
    with pytest.raises(InvalidArgument, match="different places"):
        paddle.concat([y, x, y])


def test_python_scalars_follow_their_tensor():
    x = paddle.to_tensor([1.0, 2.0], place="gpu")
    for y in (x + 1, 2 * x, x - 0.5, x / 2):
        assert y.place == paddle.CUDAPlace(0)
    np.testing.assert_allclose((2 * x + 1).numpy(), [3.0, 5.0])


def test_a_device_that_is_not_there_is_a_clear_error():
    with pytest.raises(InvalidArgument, match="CUDAPlace: got device id 64, but 1 GPU"):
        paddle.to_tensor([1.0], place=paddle.CUDAPlace(64))


def test_an_op_without_a_gpu_kernel_says_so_and_how_to_go_on():
    x = paddle.to_tensor([3.0, 1.0, 2.0], place="gpu")
    with pytest.raises(Unimplemented, match="no GPU kernel for dtype float32 yet.*x.cpu()"):
        paddle.kron(x, x)


def test_autograd_runs_on_the_device_and_grads_live_there():
    data = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], np.float32)
    x = paddle.to_tensor(data, place="gpu", stop_gradient=False)
    w = paddle.to_tensor(np.array([1.0, 2.0, 3.0], np.float32), place="gpu", stop_gradient=False)
    loss = (paddle.tanh(x * w) + x).sum()
    loss.backward()
    assert x.grad.place == paddle.CUDAPlace(0) and w.grad.place == paddle.CUDAPlace(0)
    t = np.tanh(data * [1.0, 2.0, 3.0])
    np.testing.assert_allclose(x.grad.numpy(), (1 - t ** 2) * [1.0, 2.0, 3.0] + 1, rtol=1e-5)
    np.testing.assert_allclose(w.grad.numpy(), ((1 - t ** 2) * data).sum(0), rtol=1e-5)
    loss2 = (x * w).sum()        # a second backward accumulates into the same .grad storage
    loss2.backward()
    np.testing.assert_allclose(w.grad.numpy(), ((1 - t ** 2) * data).sum(0) + data.sum(0), rtol=1e-5)


def test_setitem_on_the_device_writes_in_place_and_sends_gradients_to_x_and_value():
    data = np.arange(12, dtype=np.float32).reshape(3, 4)
    results = {}
    for place in ("cpu", "gpu"):
        x = paddle.to_tensor(data, place=place, stop_gradient=False)
        v = paddle.to_tensor([10.0, 20.0], place=place, stop_gradient=False)
        y = x * 2.0
        y[paddle.to_tensor([2, 0]), 1] = v      # advanced rows, an int column
        y[:, 3] = 0.5                            # basic, a Python number made where y lives
        (y * y).sum().backward()
        assert str(y.place) == str(x.grad.place) == str(v.grad.place)
        results[place] = (y.numpy(), x.grad.numpy(), v.grad.numpy(), str(x.grad.place))
    for cpu, gpu in zip(results["cpu"][:3], results["gpu"][:3]):
        np.testing.assert_allclose(gpu, cpu, rtol=1e-6)
    assert results["gpu"][3] == "Place(gpu:0)"
    np.testing.assert_array_equal(results["cpu"][2], [20.0, 40.0])   # d(v^2)/dv = 2v, read where v went


def test_moving_between_devices_is_differentiable():
    x = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    y = (x.cuda() * 3.0).cpu()
    assert y.place == paddle.CPUPlace()
    y.sum().backward()
    assert x.grad.place == paddle.CPUPlace()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0, 3.0])


def test_bfloat16_stays_on_the_cpu_with_a_clear_error():
    x = paddle.to_tensor([1.0], dtype="bfloat16")
    with pytest.raises(Unimplemented, match="bfloat16 tensors have no GPU kernels"):
        x.cuda()


def test_the_readme_example_trains_on_the_device_like_on_the_cpu():
    paddle.seed(3)
    data = paddle.randn([16, 16]).numpy()
    results = {}
    for device in ("cpu", "gpu"):
        paddle.set_device(device)
        x = paddle.to_tensor(data, stop_gradient=False)
        loss = (x ** 2).mean() + paddle.nn.functional.gelu(x @ x.T).sum()
        loss.backward()
        where = paddle.CUDAPlace(0) if device == "gpu" else paddle.CPUPlace()
        assert loss.place == where and x.grad.place == where
        results[device] = (float(loss), x.grad.numpy())
    np.testing.assert_allclose(results["gpu"][0], results["cpu"][0], rtol=1e-5)
    np.testing.assert_allclose(results["gpu"][1], results["cpu"][1], rtol=2e-4, atol=1e-4)


def test_a_0_d_tensor_stays_0_d_on_the_gpu():
    for t in (paddle.to_tensor(1.5, place="gpu"), paddle.to_tensor(1.5).cuda()):
        assert t.shape == [] and t._data.shape == () and float(t) == 1.5
