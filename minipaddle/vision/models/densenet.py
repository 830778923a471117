"""DenseNet 121/161/169/201/264 as Paddle builds it (paddle.vision.models.DenseNet).

In a dense block every layer (BN-ReLU-1x1 conv, BN-ReLU-3x3 conv) sees the concatenation of all the
feature maps before it and adds `growth_rate` new ones; transition layers between blocks halve the
channels (1x1 conv) and the size (2x2 average pool). The layers are registered under Paddle's names
(`db_conv_2`, `conv2_1`, `tr_conv2_blk`, ...) and also kept in plain lists that forward walks, so the
state_dict keys are Paddle's (`db_conv_2.conv2_1.bn_ac_func1._batch_norm.weight`, ...).
"""
from __future__ import annotations

import math

from ... import concat, nn
from ...framework.parameter import ParamAttr
from ...nn.initializer import Uniform
from ._utils import refuse_pretrained

__all__ = ["DenseNet", "densenet121", "densenet161", "densenet169", "densenet201", "densenet264"]

# layers -> (initial features, growth rate, layers per dense block)
DENSENET_SPEC = {121: (64, 32, [6, 12, 24, 16]), 161: (96, 48, [6, 12, 36, 24]), 169: (64, 32, [6, 12, 32, 32]),
                 201: (64, 32, [6, 12, 48, 32]), 264: (64, 32, [6, 12, 64, 48])}


class BNACConvLayer(nn.Layer):
    """BatchNorm + activation, then a bias-free conv (pre-activation order)."""

    def __init__(self, num_channels: int, num_filters: int, filter_size: int, stride: int = 1, pad: int = 0,
                 groups: int = 1, act: str = "relu") -> None:
        super().__init__()
        self._batch_norm = nn.BatchNorm(num_channels, act=act)
        self._conv = nn.Conv2D(num_channels, num_filters, filter_size, stride=stride, padding=pad, groups=groups,
                               bias_attr=False)

    def forward(self, input):
        return self._conv(self._batch_norm(input))


class DenseLayer(nn.Layer):
    """A bottleneck (1x1 to bn_size * growth_rate) then growth_rate new maps, appended to the input."""

    def __init__(self, num_channels: int, growth_rate: int, bn_size: int, dropout: float) -> None:
        super().__init__()
        self.dropout = dropout
        self.bn_ac_func1 = BNACConvLayer(num_channels, bn_size * growth_rate, 1, pad=0, stride=1)
        self.bn_ac_func2 = BNACConvLayer(bn_size * growth_rate, growth_rate, 3, pad=1, stride=1)
        if dropout:
            self.dropout_func = nn.Dropout(p=dropout, mode="downscale_in_infer")

    def forward(self, input):
        conv = self.bn_ac_func2(self.bn_ac_func1(input))
        if self.dropout:
            conv = self.dropout_func(conv)
        return concat([input, conv], axis=1)


class DenseBlock(nn.Layer):
    """`num_layers` DenseLayers, registered as `<name>_1`, `<name>_2`, ..."""

    def __init__(self, num_channels: int, num_layers: int, bn_size: int, growth_rate: int, dropout: float,
                 name: str | None = None) -> None:
        super().__init__()
        self.dropout = dropout
        self.dense_layer_func = []
        channels = num_channels
        for i in range(num_layers):
            layer = DenseLayer(channels, growth_rate, bn_size, dropout)
            self.dense_layer_func.append(self.add_sublayer(f"{name}_{i + 1}", layer))
            channels += growth_rate

    def forward(self, input):
        conv = input
        for layer in self.dense_layer_func:
            conv = layer(conv)
        return conv


class TransitionLayer(nn.Layer):
    """BN-ReLU-1x1 conv to fewer channels, then a 2x2 average pool."""

    def __init__(self, num_channels: int, num_output_features: int) -> None:
        super().__init__()
        self.conv_ac_func = BNACConvLayer(num_channels, num_output_features, 1, pad=0, stride=1)
        self.pool2d_avg = nn.AvgPool2D(kernel_size=2, stride=2, padding=0)

    def forward(self, input):
        return self.pool2d_avg(self.conv_ac_func(input))


class ConvBNLayer(nn.Layer):
    """A bias-free conv, then BatchNorm + activation."""

    def __init__(self, num_channels: int, num_filters: int, filter_size: int, stride: int = 1, pad: int = 0,
                 groups: int = 1, act: str = "relu") -> None:
        super().__init__()
        self._conv = nn.Conv2D(num_channels, num_filters, filter_size, stride=stride, padding=pad, groups=groups,
                               bias_attr=False)
        self._batch_norm = nn.BatchNorm(num_filters, act=act)

    def forward(self, input):
        return self._batch_norm(self._conv(input))


class DenseNet(nn.Layer):
    """DenseNet (Huang et al. 2017); `layers` is one of 121, 161, 169, 201, 264."""

    def __init__(self, layers: int = 121, bn_size: int = 4, dropout: float = 0.0, num_classes: int = 1000,
                 with_pool: bool = True) -> None:
        super().__init__()
        if layers not in DENSENET_SPEC:
            raise ValueError(f"DenseNet: supported layers are {sorted(DENSENET_SPEC)} but input layer is {layers}.")
        self.num_classes, self.with_pool = num_classes, with_pool
        num_init_features, growth_rate, block_config = DENSENET_SPEC[layers]
        self.conv1_func = ConvBNLayer(3, num_init_features, 7, stride=2, pad=3, act="relu")
        self.pool2d_max = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self.block_config = block_config
        self.dense_block_func_list, self.transition_func_list = [], []
        features = num_init_features
        for i, num_layers in enumerate(block_config):
            block = DenseBlock(features, num_layers, bn_size, growth_rate, dropout, name=f"conv{i + 2}")
            self.dense_block_func_list.append(self.add_sublayer(f"db_conv_{i + 2}", block))
            features += num_layers * growth_rate
            if i != len(block_config) - 1:
                transition = TransitionLayer(features, features // 2)
                self.transition_func_list.append(self.add_sublayer(f"tr_conv{i + 2}_blk", transition))
                features //= 2
        self.batch_norm = nn.BatchNorm(features, act="relu")
        if with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            stdv = 1.0 / math.sqrt(features * 1.0)
            self.out = nn.Linear(features, num_classes, weight_attr=ParamAttr(initializer=Uniform(-stdv, stdv)),
                                 bias_attr=ParamAttr())

    def forward(self, input):
        conv = self.pool2d_max(self.conv1_func(input))
        for i in range(len(self.block_config)):
            conv = self.dense_block_func_list[i](conv)
            if i != len(self.block_config) - 1:
                conv = self.transition_func_list[i](conv)
        y = self.batch_norm(conv)     # (Paddle 3.3.1 leaves y unset with with_pool=False and fails there)
        if self.with_pool:
            y = self.pool2d_avg(y)
        if self.num_classes > 0:
            y = self.out(y.flatten(1))
        return y


def _densenet(arch: str, layers: int, pretrained: bool, **kwargs) -> DenseNet:
    if pretrained:
        refuse_pretrained(arch)
    return DenseNet(layers=layers, **kwargs)


def densenet121(pretrained: bool = False, **kwargs) -> DenseNet:
    """DenseNet-121."""
    return _densenet("densenet121", 121, pretrained, **kwargs)


def densenet161(pretrained: bool = False, **kwargs) -> DenseNet:
    """DenseNet-161 (growth rate 48)."""
    return _densenet("densenet161", 161, pretrained, **kwargs)


def densenet169(pretrained: bool = False, **kwargs) -> DenseNet:
    """DenseNet-169."""
    return _densenet("densenet169", 169, pretrained, **kwargs)


def densenet201(pretrained: bool = False, **kwargs) -> DenseNet:
    """DenseNet-201."""
    return _densenet("densenet201", 201, pretrained, **kwargs)


def densenet264(pretrained: bool = False, **kwargs) -> DenseNet:
    """DenseNet-264."""
    return _densenet("densenet264", 264, pretrained, **kwargs)
