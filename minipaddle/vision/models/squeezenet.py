"""SqueezeNet 1.0 and 1.1 as Paddle builds them (paddle.vision.models.SqueezeNet): fire modules.

A fire module squeezes the channels with a 1x1 conv, then expands them with a 1x1 and a 3x3 conv side by
side and concatenates the two. The classifier is a 1x1 conv to num_classes followed by global average
pooling. State dict keys: `_conv.weight`, `_conv1._conv._conv.weight`, ..., `_conv9.bias`.
"""
from __future__ import annotations

from ... import concat, nn
from ...nn import functional as F
from ._utils import refuse_pretrained

__all__ = ["SqueezeNet", "squeezenet1_0", "squeezenet1_1"]


class MakeFireConv(nn.Layer):
    """Conv2D + ReLU (the attribute `_conv` is Paddle's key)."""

    def __init__(self, input_channels: int, output_channels: int, filter_size: int, padding: int = 0) -> None:
        super().__init__()
        self._conv = nn.Conv2D(input_channels, output_channels, filter_size, padding=padding)

    def forward(self, x):
        return F.relu(self._conv(x))


class MakeFire(nn.Layer):
    """Squeeze (1x1), then expand with 1x1 and 3x3 convs whose outputs are concatenated."""

    def __init__(self, input_channels: int, squeeze_channels: int, expand1x1_channels: int,
                 expand3x3_channels: int) -> None:
        super().__init__()
        self._conv = MakeFireConv(input_channels, squeeze_channels, 1)
        self._conv_path1 = MakeFireConv(squeeze_channels, expand1x1_channels, 1)
        self._conv_path2 = MakeFireConv(squeeze_channels, expand3x3_channels, 3, padding=1)

    def forward(self, inputs):
        x = self._conv(inputs)
        return concat([self._conv_path1(x), self._conv_path2(x)], axis=1)


_FIRES = [(16, 64, 64), (16, 64, 64), (32, 128, 128), (32, 128, 128), (48, 192, 192), (48, 192, 192),
          (64, 256, 256), (64, 256, 256)]


class SqueezeNet(nn.Layer):
    """SqueezeNet (Iandola et al. 2016), version "1.0" or "1.1"."""

    def __init__(self, version: str, num_classes: int = 1000, with_pool: bool = True) -> None:
        super().__init__()
        if version not in ("1.0", "1.1"):
            raise ValueError(f"SqueezeNet: supported versions are ['1.0', '1.1'] but input version is {version!r}.")
        self.version, self.num_classes, self.with_pool = version, num_classes, with_pool
        if version == "1.0":
            self._conv = nn.Conv2D(3, 96, 7, stride=2)
            channels = 96
        else:
            self._conv = nn.Conv2D(3, 64, 3, stride=2, padding=1)
            channels = 64
        self._pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)
        for i, (squeeze, e1, e3) in enumerate(_FIRES, start=1):
            setattr(self, f"_conv{i}", MakeFire(channels, squeeze, e1, e3))
            channels = e1 + e3
        self._drop = nn.Dropout(p=0.5, mode="downscale_in_infer")
        self._conv9 = nn.Conv2D(512, num_classes, 1)
        self._avg_pool = nn.AdaptiveAvgPool2D(1)

    def forward(self, inputs):
        x = self._pool(F.relu(self._conv(inputs)))
        # where the two versions pool between fire modules
        pool_after = (3, 7) if self.version == "1.0" else (2, 4)
        for i in range(1, 9):
            x = getattr(self, f"_conv{i}")(x)
            if i in pool_after:
                x = self._pool(x)
        if self.num_classes > 0:
            x = self._conv9(self._drop(x))
        if self.with_pool:
            x = self._avg_pool(F.relu(x)).squeeze(axis=[2, 3])
        return x


def squeezenet1_0(pretrained: bool = False, **kwargs) -> SqueezeNet:
    """SqueezeNet 1.0; `pretrained=True` raises (minipaddle downloads no weights)."""
    if pretrained:
        refuse_pretrained("squeezenet1_0")
    return SqueezeNet("1.0", **kwargs)


def squeezenet1_1(pretrained: bool = False, **kwargs) -> SqueezeNet:
    """SqueezeNet 1.1 (2.4x less computation than 1.0); `pretrained=True` raises."""
    if pretrained:
        refuse_pretrained("squeezenet1_1")
    return SqueezeNet("1.1", **kwargs)
