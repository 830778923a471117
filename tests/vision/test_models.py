"""vision.models.LeNet: Paddle's layout, shapes and parameter count, and it trains."""
from __future__ import annotations

import numpy as np

import minipaddle as paddle
from minipaddle.vision.models import LeNet


def test_lenet_shapes_and_parameter_count_match_paddles():
    net = LeNet()
    assert net(paddle.rand([2, 1, 28, 28])).shape == [2, 10]
    # conv1 6*1*3*3+6, conv2 16*6*5*5+16, fc 400*120+120, 120*84+84, 84*10+10
    assert sum(p.size for p in net.parameters()) == 60 + 2416 + 48120 + 10164 + 850
    assert LeNet(num_classes=0)(paddle.rand([1, 1, 28, 28])).shape == [1, 16, 5, 5]
    assert list(net.state_dict())[:2] == ["features.0.weight", "features.0.bias"]


def test_lenet_learns_a_fixed_batch():
    paddle.seed(0)
    net = LeNet()
    opt = paddle.optimizer.Adam(learning_rate=0.01, parameters=net.parameters())
    x = paddle.randn([16, 1, 28, 28])
    y = paddle.to_tensor(np.arange(16) % 10)
    losses = []
    for _ in range(15):
        loss = paddle.nn.functional.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    assert losses[-1] < 0.5 * losses[0]
