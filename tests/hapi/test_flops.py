"""paddle.flops counts multiply-adds per leaf layer with Paddle's formulas."""
from __future__ import annotations

import pytest

import minipaddle as paddle
from minipaddle import nn
from minipaddle.framework.errors import InvalidArgument


def test_lenet_counts_what_paddles_docs_say(capsys):
    net = paddle.vision.models.LeNet()
    assert paddle.flops(net, [1, 1, 28, 28], print_detail=True) == 347560
    out = capsys.readouterr().out
    assert "Total Flops: 347560     Total Params: 61610" in out
    assert "Cannot find suitable count function for MaxPool2D" in out and "241600" in out   # conv 2's row
    assert net.training   # back in train mode


def test_formulas_by_hand():
    # conv: out.numel() * (in/groups * k*k + bias) = (2*4*4*4) * (2/2*9 + 1); bn (eval): 2 * numel;
    # linear: in_features * out.numel()
    net = nn.Sequential(nn.Conv2D(2, 4, 3, padding=1, groups=2), nn.BatchNorm2D(4), nn.LeakyReLU(), nn.Flatten(),
                        nn.Linear(64, 3), nn.Dropout(), nn.ReLU())
    conv, bn, leaky, linear = 128 * 10, 2 * 128, 128, 64 * 6
    assert paddle.flops(net, [2, 2, 4, 4]) == conv + bn + leaky + linear
    assert paddle.flops(net, [2, 2, 4, 4], custom_ops={nn.ReLU: lambda layer, x, y: 1000}) == \
        conv + bn + leaky + linear + 1000
    assert paddle.flops(nn.Linear(4, 3), [2, 4]) == 24   # a single leaf layer counts too


def test_flops_errors():
    with pytest.raises(InvalidArgument, match="flops: input_size got 5"):
        paddle.flops(nn.Linear(4, 3), 5)
    with pytest.raises(InvalidArgument, match="flops: net must be a paddle.nn.Layer, got function"):
        paddle.flops(lambda x: x, [1])
