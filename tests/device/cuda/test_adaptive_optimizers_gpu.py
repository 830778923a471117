"""RMSProp, Adagrad, Adadelta, Adamax and Lamb update GPU parameters with their fused kernels
(kernels/cuda/optimizer_adaptive.py) exactly as their numpy updates do on the CPU.

A tiny two-layer model is built from one seed on each device and trained three steps; the losses, the
parameters and every accumulator in state_dict() must agree, and the accumulators must live on the GPU.
"""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
import minipaddle.nn as nn
from minipaddle.framework.errors import Unimplemented

from .kernel_check import on_device

X = np.random.default_rng(0).standard_normal((4, 3))
Y = np.random.default_rng(1).standard_normal((4, 2))


def _train(device: str, make_optimizer, dtype: str) -> dict:
    def train():
        paddle.seed(3)
        net = nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 2))
        net.to(dtype=dtype)
        opt = make_optimizer(net.parameters())
        losses = []
        for _ in range(3):
            loss = ((net(paddle.to_tensor(X.astype(dtype))) - paddle.to_tensor(Y.astype(dtype))) ** 2).mean()
            loss.backward()
            opt.step()
            opt.clear_grad()
            losses.append(float(loss))
        names = {p.name: key for key, p in net.named_parameters()}
        state = {}
        for name, value in opt.state_dict().items():
            owner = max((n for n in names if name.startswith(n + "_")), key=len)
            state[names[owner] + name[len(owner):]] = (value.numpy(), str(value.place))
        return {"losses": np.array(losses), "params": {k: v.numpy() for k, v in net.state_dict().items()},
                "places": {str(p.place) for p in net.parameters()}, "state": state}
    return on_device(device, train)


OPTIMIZERS = {
    "rmsprop": lambda ps: paddle.optimizer.RMSProp(0.01, parameters=ps),
    "rmsprop_centered_momentum": lambda ps: paddle.optimizer.RMSProp(0.01, rho=0.9, momentum=0.5, centered=True,
                                                                     parameters=ps),
    "adagrad": lambda ps: paddle.optimizer.Adagrad(0.1, parameters=ps, initial_accumulator_value=0.2),
    "adadelta": lambda ps: paddle.optimizer.Adadelta(1.0, rho=0.9, parameters=ps,
                                                     weight_decay=paddle.regularizer.L2Decay(0.01)),
    "adamax": lambda ps: paddle.optimizer.Adamax(0.05, parameters=ps, grad_clip=nn.ClipGradByGlobalNorm(0.5)),
    "lamb": lambda ps: paddle.optimizer.Lamb(0.05, lamb_weight_decay=0.1, parameters=ps),
    "lamb_excluding_biases": lambda ps: paddle.optimizer.Lamb(
        0.05, lamb_weight_decay=0.1, parameters=ps, exclude_from_weight_decay_fn=lambda p: p.name.endswith("b_0")),
}


@pytest.mark.parametrize("name", list(OPTIMIZERS))
def test_adaptive_optimizers_train_on_the_gpu_as_on_the_cpu(name):
    gpu, cpu = _train("gpu", OPTIMIZERS[name], "float64"), _train("cpu", OPTIMIZERS[name], "float64")
    assert gpu["places"] == {"Place(gpu:0)"} and cpu["places"] == {"Place(cpu)"}
    np.testing.assert_allclose(gpu["losses"], cpu["losses"], rtol=1e-10)
    assert not np.allclose(cpu["params"]["0.weight"], _train("cpu", lambda ps: paddle.optimizer.SGD(
        0.0, parameters=ps), "float64")["params"]["0.weight"])  # the optimizer moved the weights
    for key, value in cpu["params"].items():
        np.testing.assert_allclose(gpu["params"][key], value, rtol=1e-10, atol=1e-12, err_msg=key)
    assert gpu["state"].keys() == cpu["state"].keys() and gpu["state"]
    for key, (value, _) in cpu["state"].items():
        got, place = gpu["state"][key]
        np.testing.assert_allclose(got, value, rtol=1e-10, atol=1e-12, err_msg=key)
        if value.size > 1:  # moments live beside the parameter; the beta powers are host numbers
            assert place == "Place(gpu:0)", key


@pytest.mark.parametrize("name", ["rmsprop", "adamax", "lamb"])
def test_adaptive_optimizers_in_float32_match_the_cpu(name):
    gpu, cpu = _train("gpu", OPTIMIZERS[name], "float32"), _train("cpu", OPTIMIZERS[name], "float32")
    for key, value in cpu["params"].items():
        np.testing.assert_allclose(gpu["params"][key], value, rtol=1e-5, atol=1e-6, err_msg=key)


def test_lbfgs_steps_gpu_parameters_as_on_the_cpu():
    def run(device):
        def fit():
            start = nn.initializer.Assign(np.array([1.5, -2.0]))
            w = paddle.create_parameter([2], "float64", default_initializer=start)
            opt = paddle.optimizer.LBFGS(parameters=[w], learning_rate=0.5)

            def closure():
                opt.clear_grad()
                loss = ((w - 1.0) ** 2 * paddle.to_tensor([1.0, 3.0], dtype="float64")).sum()
                loss.backward()
                return loss
            for _ in range(2):
                opt.step(closure)
            return w.numpy(), str(w.place)
        return on_device(device, fit)
    (gpu, place), (cpu, _) = run("gpu"), run("cpu")
    assert place == "Place(gpu:0)"
    np.testing.assert_allclose(gpu, cpu, rtol=1e-12)
    np.testing.assert_allclose(cpu, [1.0, 1.0], atol=1e-4)


class NumpyOnlySGD(paddle.optimizer.Optimizer):
    """A user's optimizer whose update is numpy: it cannot touch device arrays."""

    def _init_state(self, param, group):
        return {}

    def _update(self, param, grad, lr, state, group):
        param._data -= lr * grad


def test_an_optimizer_without_a_gpu_update_says_so():
    def run():
        w = paddle.create_parameter([2], "float32")
        (w * 2.0).sum().backward()
        NumpyOnlySGD(0.1, parameters=[w]).step()
    with pytest.raises(Unimplemented, match=r"NumpyOnlySGD: parameter '.*' lives on the GPU, and NumpyOnlySGD has "
                                            r"no GPU update yet"):
        on_device("gpu", run)
