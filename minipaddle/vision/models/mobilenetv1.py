"""MobileNetV1 as Paddle builds it (paddle.vision.models.MobileNetV1): depthwise separable convolutions.

Each DepthwiseSeparable is a 3x3 depthwise ConvNormActivation (groups = channels) and a 1x1 pointwise
one. Paddle registers them with `add_sublayer` under the names conv2_1 ... conv6 and also keeps them
in a plain list `dwsl` that forward walks; the state_dict keys follow the names
(`conv2_1._depthwise_conv.0.weight`, ...). `scale` multiplies every channel count.
"""
from __future__ import annotations

from ... import nn
from ..ops import ConvNormActivation
from ._utils import refuse_pretrained

__all__ = ["MobileNetV1", "mobilenet_v1"]

# (name, in channels, out_channels1 (depthwise), out_channels2 (pointwise), groups, stride), before scaling
_BLOCKS = [("conv2_1", 32, 32, 64, 32, 1), ("conv2_2", 64, 64, 128, 64, 2),
           ("conv3_1", 128, 128, 128, 128, 1), ("conv3_2", 128, 128, 256, 128, 2),
           ("conv4_1", 256, 256, 256, 256, 1), ("conv4_2", 256, 256, 512, 256, 2)]
_BLOCKS += [(f"conv5_{i + 1}", 512, 512, 512, 512, 1) for i in range(5)]
_BLOCKS += [("conv5_6", 512, 512, 1024, 512, 2), ("conv6", 1024, 1024, 1024, 1024, 1)]


class DepthwiseSeparable(nn.Layer):
    """A depthwise 3x3 conv (one filter per channel group) then a pointwise 1x1 conv, each with BN + ReLU."""

    def __init__(self, in_channels: int, out_channels1: int, out_channels2: int, num_groups: int, stride: int,
                 scale: float) -> None:
        super().__init__()
        self._depthwise_conv = ConvNormActivation(in_channels, int(out_channels1 * scale), kernel_size=3,
                                                  stride=stride, padding=1, groups=int(num_groups * scale))
        self._pointwise_conv = ConvNormActivation(int(out_channels1 * scale), int(out_channels2 * scale),
                                                  kernel_size=1, stride=1, padding=0)

    def forward(self, x):
        return self._pointwise_conv(self._depthwise_conv(x))


class MobileNetV1(nn.Layer):
    """MobileNetV1 (Howard et al. 2017); input sizes of 32x32 and up give logits.

    >>> MobileNetV1(scale=0.25, num_classes=10)(paddle.rand([1, 3, 32, 32])).shape      # doctest: +SKIP
    [1, 10]
    """

    def __init__(self, scale: float = 1.0, num_classes: int = 1000, with_pool: bool = True) -> None:
        super().__init__()
        self.scale = scale
        self.dwsl = []
        self.num_classes = num_classes
        self.with_pool = with_pool
        self.conv1 = ConvNormActivation(3, int(32 * scale), kernel_size=3, stride=2, padding=1)
        for name, in_channels, out1, out2, groups, stride in _BLOCKS:
            block = DepthwiseSeparable(int(in_channels * scale), out1, out2, groups, stride, scale)
            self.dwsl.append(self.add_sublayer(name, block))
        if with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.fc = nn.Linear(int(1024 * scale), num_classes)

    def forward(self, x):
        x = self.conv1(x)
        for block in self.dwsl:
            x = block(x)
        if self.with_pool:
            x = self.pool2d_avg(x)
        if self.num_classes > 0:
            x = self.fc(x.flatten(1))
        return x


def mobilenet_v1(pretrained: bool = False, scale: float = 1.0, **kwargs) -> MobileNetV1:
    """MobileNetV1(scale=scale, **kwargs); `pretrained=True` raises (minipaddle downloads no weights)."""
    if pretrained:
        refuse_pretrained("mobilenetv1_" + str(scale))
    return MobileNetV1(scale=scale, **kwargs)
