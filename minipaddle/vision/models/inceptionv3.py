"""InceptionV3 as Paddle builds it (paddle.vision.models.InceptionV3).

A stem of plain convolutions, then Inception blocks A (x3), B, C (x4), D, E (x2) in one LayerList:
each block runs several branches of Conv-BN-ReLU (ConvNormActivation) -- some factorized into 1x7 and
7x1 convolutions -- and concatenates them. The attribute names are Paddle's, so are the state_dict keys
(`inception_stem.conv_1a_3x3.0.weight`, `inception_block_list.0.branch1x1.0.weight`, ...). The stem
shrinks the input about 8x before the first block; inputs from 75x75 up give logits.
"""
from __future__ import annotations

import math

from ... import concat, nn
from ...framework.parameter import ParamAttr
from ...nn.initializer import Uniform
from ..ops import ConvNormActivation
from ._utils import refuse_pretrained

__all__ = ["InceptionV3", "inception_v3"]


def _cbr(in_channels: int, out_channels: int, kernel_size, stride: int = 1, padding=0) -> ConvNormActivation:
    """Conv2D + BatchNorm2D + ReLU."""
    return ConvNormActivation(in_channels, out_channels, kernel_size=kernel_size, stride=stride, padding=padding,
                              activation_layer=nn.ReLU)


class InceptionStem(nn.Layer):
    """Five convolutions and two max pools: 299x299 -> 35x35x192."""

    def __init__(self) -> None:
        super().__init__()
        self.conv_1a_3x3 = _cbr(3, 32, 3, stride=2)
        self.conv_2a_3x3 = _cbr(32, 32, 3)
        self.conv_2b_3x3 = _cbr(32, 64, 3, padding=1)
        self.max_pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)
        self.conv_3b_1x1 = _cbr(64, 80, 1)
        self.conv_4a_3x3 = _cbr(80, 192, 3)

    def forward(self, x):
        x = self.max_pool(self.conv_2b_3x3(self.conv_2a_3x3(self.conv_1a_3x3(x))))
        return self.max_pool(self.conv_4a_3x3(self.conv_3b_1x1(x)))


class InceptionA(nn.Layer):
    """1x1 | 1x1-5x5 | 1x1-3x3-3x3 | avg pool-1x1."""

    def __init__(self, num_channels: int, pool_features: int) -> None:
        super().__init__()
        self.branch1x1 = _cbr(num_channels, 64, 1)
        self.branch5x5_1 = _cbr(num_channels, 48, 1)
        self.branch5x5_2 = _cbr(48, 64, 5, padding=2)
        self.branch3x3dbl_1 = _cbr(num_channels, 64, 1)
        self.branch3x3dbl_2 = _cbr(64, 96, 3, padding=1)
        self.branch3x3dbl_3 = _cbr(96, 96, 3, padding=1)
        self.branch_pool = nn.AvgPool2D(kernel_size=3, stride=1, padding=1, exclusive=False)
        self.branch_pool_conv = _cbr(num_channels, pool_features, 1)

    def forward(self, x):
        return concat([self.branch1x1(x), self.branch5x5_2(self.branch5x5_1(x)),
                       self.branch3x3dbl_3(self.branch3x3dbl_2(self.branch3x3dbl_1(x))),
                       self.branch_pool_conv(self.branch_pool(x))], axis=1)


class InceptionB(nn.Layer):
    """Grid reduction: 3x3 stride 2 | 1x1-3x3-3x3 stride 2 | max pool stride 2."""

    def __init__(self, num_channels: int) -> None:
        super().__init__()
        self.branch3x3 = _cbr(num_channels, 384, 3, stride=2)
        self.branch3x3dbl_1 = _cbr(num_channels, 64, 1)
        self.branch3x3dbl_2 = _cbr(64, 96, 3, padding=1)
        self.branch3x3dbl_3 = _cbr(96, 96, 3, stride=2)
        self.branch_pool = nn.MaxPool2D(kernel_size=3, stride=2)

    def forward(self, x):
        return concat([self.branch3x3(x), self.branch3x3dbl_3(self.branch3x3dbl_2(self.branch3x3dbl_1(x))),
                       self.branch_pool(x)], axis=1)


class InceptionC(nn.Layer):
    """7x7 convolutions factorized into 1x7 and 7x1: 1x1 | 1x1-1x7-7x1 | 1x1-7x1-1x7-7x1-1x7 | pool-1x1."""

    def __init__(self, num_channels: int, channels_7x7: int) -> None:
        super().__init__()
        c = channels_7x7
        self.branch1x1 = _cbr(num_channels, 192, 1)
        self.branch7x7_1 = _cbr(num_channels, c, 1)
        self.branch7x7_2 = _cbr(c, c, (1, 7), padding=(0, 3))
        self.branch7x7_3 = _cbr(c, 192, (7, 1), padding=(3, 0))
        self.branch7x7dbl_1 = _cbr(num_channels, c, 1)
        self.branch7x7dbl_2 = _cbr(c, c, (7, 1), padding=(3, 0))
        self.branch7x7dbl_3 = _cbr(c, c, (1, 7), padding=(0, 3))
        self.branch7x7dbl_4 = _cbr(c, c, (7, 1), padding=(3, 0))
        self.branch7x7dbl_5 = _cbr(c, 192, (1, 7), padding=(0, 3))
        self.branch_pool = nn.AvgPool2D(kernel_size=3, stride=1, padding=1, exclusive=False)
        self.branch_pool_conv = _cbr(num_channels, 192, 1)

    def forward(self, x):
        b7 = self.branch7x7_3(self.branch7x7_2(self.branch7x7_1(x)))
        d7 = self.branch7x7dbl_1(x)
        for layer in (self.branch7x7dbl_2, self.branch7x7dbl_3, self.branch7x7dbl_4, self.branch7x7dbl_5):
            d7 = layer(d7)
        return concat([self.branch1x1(x), b7, d7, self.branch_pool_conv(self.branch_pool(x))], axis=1)


class InceptionD(nn.Layer):
    """Grid reduction: 1x1-3x3 stride 2 | 1x1-1x7-7x1-3x3 stride 2 | max pool stride 2."""

    def __init__(self, num_channels: int) -> None:
        super().__init__()
        self.branch3x3_1 = _cbr(num_channels, 192, 1)
        self.branch3x3_2 = _cbr(192, 320, 3, stride=2)
        self.branch7x7x3_1 = _cbr(num_channels, 192, 1)
        self.branch7x7x3_2 = _cbr(192, 192, (1, 7), padding=(0, 3))
        self.branch7x7x3_3 = _cbr(192, 192, (7, 1), padding=(3, 0))
        self.branch7x7x3_4 = _cbr(192, 192, 3, stride=2)
        self.branch_pool = nn.MaxPool2D(kernel_size=3, stride=2)

    def forward(self, x):
        b7 = self.branch7x7x3_4(self.branch7x7x3_3(self.branch7x7x3_2(self.branch7x7x3_1(x))))
        return concat([self.branch3x3_2(self.branch3x3_1(x)), b7, self.branch_pool(x)], axis=1)


class InceptionE(nn.Layer):
    """Expanded filter bank: 1x1 | 1x1-(1x3, 3x1) | 1x1-3x3-(1x3, 3x1) | pool-1x1."""

    def __init__(self, num_channels: int) -> None:
        super().__init__()
        self.branch1x1 = _cbr(num_channels, 320, 1)
        self.branch3x3_1 = _cbr(num_channels, 384, 1)
        self.branch3x3_2a = _cbr(384, 384, (1, 3), padding=(0, 1))
        self.branch3x3_2b = _cbr(384, 384, (3, 1), padding=(1, 0))
        self.branch3x3dbl_1 = _cbr(num_channels, 448, 1)
        self.branch3x3dbl_2 = _cbr(448, 384, 3, padding=1)
        self.branch3x3dbl_3a = _cbr(384, 384, (1, 3), padding=(0, 1))
        self.branch3x3dbl_3b = _cbr(384, 384, (3, 1), padding=(1, 0))
        self.branch_pool = nn.AvgPool2D(kernel_size=3, stride=1, padding=1, exclusive=False)
        self.branch_pool_conv = _cbr(num_channels, 192, 1)

    def forward(self, x):
        b3 = self.branch3x3_1(x)
        b3 = concat([self.branch3x3_2a(b3), self.branch3x3_2b(b3)], axis=1)
        d3 = self.branch3x3dbl_2(self.branch3x3dbl_1(x))
        d3 = concat([self.branch3x3dbl_3a(d3), self.branch3x3dbl_3b(d3)], axis=1)
        return concat([self.branch1x1(x), b3, d3, self.branch_pool_conv(self.branch_pool(x))], axis=1)


class InceptionV3(nn.Layer):
    """InceptionV3 (Szegedy et al. 2015)."""

    def __init__(self, num_classes: int = 1000, with_pool: bool = True) -> None:
        super().__init__()
        self.num_classes, self.with_pool = num_classes, with_pool
        self.layers_config = {"inception_a": [[192, 256, 288], [32, 64, 64]], "inception_b": [288],
                              "inception_c": [[768, 768, 768, 768], [128, 160, 160, 192]], "inception_d": [768],
                              "inception_e": [1280, 2048]}
        cfg = self.layers_config
        self.inception_stem = InceptionStem()
        blocks = [InceptionA(c, p) for c, p in zip(*cfg["inception_a"])]
        blocks += [InceptionB(c) for c in cfg["inception_b"]]
        blocks += [InceptionC(c, c7) for c, c7 in zip(*cfg["inception_c"])]
        blocks += [InceptionD(c) for c in cfg["inception_d"]]
        blocks += [InceptionE(c) for c in cfg["inception_e"]]
        self.inception_block_list = nn.LayerList(blocks)
        if with_pool:
            self.avg_pool = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.dropout = nn.Dropout(p=0.2, mode="downscale_in_infer")
            stdv = 1.0 / math.sqrt(2048 * 1.0)
            self.fc = nn.Linear(2048, num_classes, weight_attr=ParamAttr(initializer=Uniform(-stdv, stdv)),
                                bias_attr=ParamAttr())

    def forward(self, x):
        x = self.inception_stem(x)
        for block in self.inception_block_list:
            x = block(x)
        if self.with_pool:
            x = self.avg_pool(x)
        if self.num_classes > 0:
            x = self.fc(self.dropout(x.reshape([-1, 2048])))
        return x


def inception_v3(pretrained: bool = False, **kwargs) -> InceptionV3:
    """InceptionV3(**kwargs); `pretrained=True` raises (minipaddle downloads no weights)."""
    if pretrained:
        refuse_pretrained("inception_v3")
    return InceptionV3(**kwargs)
