"""bfloat16 kernels of the nn ops (framework/ops/bfloat16.py): the float32 kernel on widened inputs,
rounded once; and a bfloat16 network trains with every optimizer (float32 accumulators, as Paddle)."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework.ops.bfloat16 import VIA_FLOAT32

F = paddle.nn.functional
BF16 = np.dtype(ml_dtypes.bfloat16)


def test_every_listed_op_has_a_bfloat16_kernel():
    for name in VIA_FLOAT32:
        kernels = paddle.framework.ops.describe(name)["kernels"]
        assert any(k["dtype"] == "bfloat16" for k in kernels), name


@pytest.mark.parametrize("fn", [F.relu, F.gelu, F.silu, F.softmax, F.log_softmax, F.sigmoid,
                                lambda x: F.linear(x, x.T)], ids=["relu", "gelu", "silu", "softmax",
                                                                  "log_softmax", "sigmoid", "linear"])
def test_forward_and_gradient_are_the_float32_ones_rounded(fn):
    values = np.random.default_rng(0).uniform(-2, 2, (3, 3)).astype(np.float32).astype(BF16)
    x = paddle.to_tensor(values, stop_gradient=False)
    x32 = paddle.to_tensor(values.astype(np.float32), stop_gradient=False)
    y, y32 = fn(x), fn(x32)
    assert y.dtype == paddle.bfloat16
    np.testing.assert_array_equal(y.numpy(), y32.numpy().astype(BF16))
    (y * y).sum().backward()
    (y32 * y32).sum().backward()
    assert x.grad.dtype == paddle.bfloat16
    np.testing.assert_allclose(x.grad.numpy().astype(np.float32), x32.grad.numpy(), rtol=0.05, atol=0.05)


def test_layer_to_bfloat16_and_back():
    layer = paddle.nn.Linear(3, 2)
    layer.to(dtype="bfloat16")
    assert layer.weight.dtype == paddle.bfloat16 and layer.bias.dtype == paddle.bfloat16
    layer.to(dtype="float32")
    assert layer.weight.dtype == paddle.float32


@pytest.mark.parametrize("make", [lambda p: paddle.optimizer.SGD(0.1, parameters=p),
                                  lambda p: paddle.optimizer.Momentum(0.05, parameters=p),
                                  lambda p: paddle.optimizer.Adam(0.05, parameters=p),
                                  lambda p: paddle.optimizer.AdamW(0.05, parameters=p),
                                  lambda p: paddle.optimizer.RMSProp(0.05, parameters=p)],
                         ids=["SGD", "Momentum", "Adam", "AdamW", "RMSProp"])
def test_a_bfloat16_network_trains(make):
    paddle.seed(0)
    x = paddle.randn([8, 3]).astype("bfloat16")
    label = paddle.to_tensor([0, 1, 2, 1, 0, 2, 1, 0])
    net = paddle.nn.Sequential(paddle.nn.Linear(3, 16), paddle.nn.ReLU(), paddle.nn.Linear(16, 3))
    net.to(dtype="bfloat16")
    opt = make(net.parameters())
    losses = []
    for _ in range(30):
        loss = F.cross_entropy(net(x), label)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss.astype("float32")))
    assert net[0].weight.dtype == paddle.bfloat16
    assert losses[-1] < 0.8 * losses[0]
    for acc in opt._accumulators.get(id(net[0].weight), {}).values():
        assert acc.dtype == np.float32   # in bfloat16, Adam's beta2_pow (0.999) would round to 1.0
