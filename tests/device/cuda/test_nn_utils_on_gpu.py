"""paddle.nn.utils on GPU parameters: clip_grad_norm_/value_ and parameters <-> vector, as on the CPU."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle


@pytest.fixture(autouse=True)
def _back_on_the_cpu():
    yield
    paddle.set_device("cpu")


def _model_with_grads(device: str):
    paddle.set_device(device)
    paddle.seed(3)
    net = paddle.nn.Linear(3, 2)
    x = paddle.to_tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    (net(x) ** 2).sum().backward()
    return net


@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf")])
def test_clip_grad_norm_scales_gpu_gradients_in_place_like_the_cpu(norm_type):
    results = {}
    for device in ("cpu", "gpu"):
        net = _model_with_grads(device)
        storage = [p.grad._data for p in net.parameters()]
        total = paddle.nn.utils.clip_grad_norm_(net.parameters(), max_norm=1.0, norm_type=norm_type)
        assert [p.grad._data for p in net.parameters()] == storage   # the same storage, changed in place
        results[device] = (float(total), [p.grad.numpy() for p in net.parameters()])
    assert results["gpu"][0] == pytest.approx(results["cpu"][0], rel=1e-6)
    for cpu, gpu in zip(results["cpu"][1], results["gpu"][1]):
        np.testing.assert_allclose(gpu, cpu, rtol=1e-6)


def test_clip_grad_value_and_parameters_to_vector_and_back_on_the_gpu():
    cpu, gpu = _model_with_grads("cpu"), _model_with_grads("gpu")
    for net in (cpu, gpu):
        paddle.nn.utils.clip_grad_value_(net.parameters(), 5.0)
    for c, g in zip(cpu.parameters(), gpu.parameters()):
        np.testing.assert_allclose(g.grad.numpy(), c.grad.numpy(), rtol=1e-6)
        assert g.grad.numpy().max() <= 5.0
    vec = paddle.nn.utils.parameters_to_vector(gpu.parameters())
    assert str(vec.place) == "Place(gpu:0)" and vec.shape == [8]
    np.testing.assert_allclose(vec.numpy(), paddle.nn.utils.parameters_to_vector(cpu.parameters()).numpy())
    paddle.nn.utils.vector_to_parameters(vec * 2.0, gpu.parameters())
    np.testing.assert_allclose(gpu.weight.numpy(), 2.0 * cpu.weight.numpy(), rtol=1e-6)
    assert str(gpu.weight.place) == "Place(gpu:0)"
