"""MobileNetV2 as Paddle builds it (paddle.vision.models.MobileNetV2): inverted residual blocks.

An InvertedResidual expands the channels t-fold with a 1x1 conv, filters them with a 3x3 depthwise
conv, projects back down with a 1x1 conv without activation, and adds the input when the shapes
agree. Everything sits in one Sequential `features`, so the keys are `features.1.conv.0.0.weight`, ...
"""
from __future__ import annotations

from ... import nn
from ..ops import ConvNormActivation
from ._utils import make_divisible, refuse_pretrained

__all__ = ["MobileNetV2", "mobilenet_v2"]

# t (expansion), c (output channels), n (blocks), s (stride of the first block)
INVERTED_RESIDUAL_SETTING = [[1, 16, 1, 1], [6, 24, 2, 2], [6, 32, 3, 2], [6, 64, 4, 2], [6, 96, 3, 1],
                             [6, 160, 3, 2], [6, 320, 1, 1]]


class InvertedResidual(nn.Layer):
    """Expand (1x1) -> depthwise 3x3 -> project (1x1, linear), plus the input when stride 1 and inp == oup."""

    def __init__(self, inp: int, oup: int, stride: int, expand_ratio: float, norm_layer=nn.BatchNorm2D) -> None:
        super().__init__()
        if stride not in (1, 2):
            raise ValueError(f"InvertedResidual: stride got {stride!r}, expected 1 or 2.")
        self.stride = stride
        hidden_dim = int(round(inp * expand_ratio))
        self.use_res_connect = stride == 1 and inp == oup
        layers: list[nn.Layer] = []
        if expand_ratio != 1:
            layers.append(ConvNormActivation(inp, hidden_dim, kernel_size=1, norm_layer=norm_layer,
                                             activation_layer=nn.ReLU6))
        layers += [ConvNormActivation(hidden_dim, hidden_dim, stride=stride, groups=hidden_dim, norm_layer=norm_layer,
                                      activation_layer=nn.ReLU6),
                   nn.Conv2D(hidden_dim, oup, 1, 1, 0, bias_attr=False),
                   norm_layer(oup)]
        self.conv = nn.Sequential(*layers)

    def forward(self, x):
        if self.use_res_connect:
            return x + self.conv(x)
        return self.conv(x)


class MobileNetV2(nn.Layer):
    """MobileNetV2 (Sandler et al. 2018); `scale` widens or narrows every stage (rounded to multiples of 8).

    >>> MobileNetV2(scale=0.5, num_classes=10)(paddle.rand([1, 3, 32, 32])).shape      # doctest: +SKIP
    [1, 10]
    """

    def __init__(self, scale: float = 1.0, num_classes: int = 1000, with_pool: bool = True) -> None:
        super().__init__()
        self.num_classes = num_classes
        self.with_pool = with_pool
        round_nearest = 8
        norm_layer = nn.BatchNorm2D
        input_channel = make_divisible(32 * scale, round_nearest)
        self.last_channel = make_divisible(1280 * max(1.0, scale), round_nearest)
        features: list[nn.Layer] = [ConvNormActivation(3, input_channel, stride=2, norm_layer=norm_layer,
                                                       activation_layer=nn.ReLU6)]
        for t, c, n, s in INVERTED_RESIDUAL_SETTING:
            output_channel = make_divisible(c * scale, round_nearest)
            for i in range(n):
                features.append(InvertedResidual(input_channel, output_channel, s if i == 0 else 1, expand_ratio=t,
                                                 norm_layer=norm_layer))
                input_channel = output_channel
        features.append(ConvNormActivation(input_channel, self.last_channel, kernel_size=1, norm_layer=norm_layer,
                                           activation_layer=nn.ReLU6))
        self.features = nn.Sequential(*features)
        if with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(self.last_channel, num_classes))

    def forward(self, x):
        x = self.features(x)
        if self.with_pool:
            x = self.pool2d_avg(x)
        if self.num_classes > 0:
            x = self.classifier(x.flatten(1))
        return x


def mobilenet_v2(pretrained: bool = False, scale: float = 1.0, **kwargs) -> MobileNetV2:
    """MobileNetV2(scale=scale, **kwargs); `pretrained=True` raises (minipaddle downloads no weights)."""
    if pretrained:
        refuse_pretrained("mobilenetv2_" + str(scale))
    return MobileNetV2(scale=scale, **kwargs)
