"""ShuffleNetV2 as Paddle builds it (paddle.vision.models.ShuffleNetV2), scales 0.25 to 2.0.

Each unit splits the channels in two, transforms one half (1x1 conv, 3x3 depthwise conv, 1x1 conv) and
concatenates it with the other, then shuffles the channels (F.channel_shuffle with 2 groups) so the
halves mix in the next unit; a downsampling unit transforms both halves with stride 2. The units are
registered under Paddle's names "2_1" ... "4_4" and kept in a plain list `_block_list` that forward
walks, so the state_dict keys are Paddle's (`2_1._conv_dw_1.0.weight`, ...).
"""
from __future__ import annotations

from ... import concat, nn, split
from ...nn import functional as F
from ..ops import ConvNormActivation
from ._utils import refuse_pretrained

__all__ = ["ShuffleNetV2", "shufflenet_v2_x0_25", "shufflenet_v2_x0_33", "shufflenet_v2_x0_5", "shufflenet_v2_x1_0",
           "shufflenet_v2_x1_5", "shufflenet_v2_x2_0", "shufflenet_v2_swish"]

STAGE_OUT_CHANNELS = {0.25: [-1, 24, 24, 48, 96, 512], 0.33: [-1, 24, 32, 64, 128, 512],
                      0.5: [-1, 24, 48, 96, 192, 1024], 1.0: [-1, 24, 116, 232, 464, 1024],
                      1.5: [-1, 24, 176, 352, 704, 1024], 2.0: [-1, 24, 224, 488, 976, 2048]}


def create_activation_layer(act: str | None):
    layers = {"swish": nn.Swish, "relu": nn.ReLU, None: None}
    if act not in layers:
        raise ValueError(f"ShuffleNetV2: act got {act!r}, expected 'relu', 'swish' or None.")
    return layers[act]


class InvertedResidual(nn.Layer):
    """Keep one half of the channels, transform the other, concatenate, shuffle."""

    def __init__(self, in_channels: int, out_channels: int, stride: int, activation_layer=nn.ReLU) -> None:
        super().__init__()
        half = out_channels // 2
        self._conv_pw = ConvNormActivation(in_channels // 2, half, kernel_size=1, stride=1, padding=0, groups=1,
                                           activation_layer=activation_layer)
        self._conv_dw = ConvNormActivation(half, half, kernel_size=3, stride=stride, padding=1, groups=half,
                                           activation_layer=None)
        self._conv_linear = ConvNormActivation(half, half, kernel_size=1, stride=1, padding=0, groups=1,
                                               activation_layer=activation_layer)

    def forward(self, inputs):
        x1, x2 = split(inputs, num_or_sections=[inputs.shape[1] // 2, inputs.shape[1] // 2], axis=1)
        x2 = self._conv_linear(self._conv_dw(self._conv_pw(x2)))
        return F.channel_shuffle(concat([x1, x2], axis=1), 2)


class InvertedResidualDS(nn.Layer):
    """The downsampling unit: both halves go through stride-2 depthwise convs."""

    def __init__(self, in_channels: int, out_channels: int, stride: int, activation_layer=nn.ReLU) -> None:
        super().__init__()
        half = out_channels // 2
        self._conv_dw_1 = ConvNormActivation(in_channels, in_channels, kernel_size=3, stride=stride, padding=1,
                                             groups=in_channels, activation_layer=None)
        self._conv_linear_1 = ConvNormActivation(in_channels, half, kernel_size=1, stride=1, padding=0, groups=1,
                                                 activation_layer=activation_layer)
        self._conv_pw_2 = ConvNormActivation(in_channels, half, kernel_size=1, stride=1, padding=0, groups=1,
                                             activation_layer=activation_layer)
        self._conv_dw_2 = ConvNormActivation(half, half, kernel_size=3, stride=stride, padding=1, groups=half,
                                             activation_layer=None)
        self._conv_linear_2 = ConvNormActivation(half, half, kernel_size=1, stride=1, padding=0, groups=1,
                                                 activation_layer=activation_layer)

    def forward(self, inputs):
        x1 = self._conv_linear_1(self._conv_dw_1(inputs))
        x2 = self._conv_linear_2(self._conv_dw_2(self._conv_pw_2(inputs)))
        return F.channel_shuffle(concat([x1, x2], axis=1), 2)


class ShuffleNetV2(nn.Layer):
    """ShuffleNetV2 (Ma et al. 2018); `scale` is one of 0.25, 0.33, 0.5, 1.0, 1.5, 2.0."""

    def __init__(self, scale: float = 1.0, act: str | None = "relu", num_classes: int = 1000,
                 with_pool: bool = True) -> None:
        super().__init__()
        self.scale, self.num_classes, self.with_pool = scale, num_classes, with_pool
        if scale not in STAGE_OUT_CHANNELS:
            raise NotImplementedError(f"This scale size:[{scale}] is not implemented!")
        channels = STAGE_OUT_CHANNELS[scale]
        activation_layer = create_activation_layer(act)
        self._conv1 = ConvNormActivation(3, channels[1], kernel_size=3, stride=2, padding=1,
                                         activation_layer=activation_layer)
        self._max_pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self._block_list = []
        for stage_id, repeats in enumerate([4, 8, 4]):
            for i in range(repeats):
                if i == 0:
                    block = InvertedResidualDS(channels[stage_id + 1], channels[stage_id + 2], 2, activation_layer)
                else:
                    block = InvertedResidual(channels[stage_id + 2], channels[stage_id + 2], 1, activation_layer)
                self._block_list.append(self.add_sublayer(f"{stage_id + 2}_{i + 1}", block))
        self._last_conv = ConvNormActivation(channels[-2], channels[-1], kernel_size=1, stride=1, padding=0,
                                             activation_layer=activation_layer)
        if with_pool:
            self._pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self._out_c = channels[-1]
            self._fc = nn.Linear(channels[-1], num_classes)

    def forward(self, inputs):
        x = self._max_pool(self._conv1(inputs))
        for block in self._block_list:
            x = block(x)
        x = self._last_conv(x)
        if self.with_pool:
            x = self._pool2d_avg(x)
        if self.num_classes > 0:
            x = self._fc(x.flatten(1))
        return x


def _shufflenet_v2(arch: str, pretrained: bool, scale: float, **kwargs) -> ShuffleNetV2:
    if pretrained:
        refuse_pretrained(arch)
    return ShuffleNetV2(scale=scale, **kwargs)


def shufflenet_v2_x0_25(pretrained: bool = False, **kwargs) -> ShuffleNetV2:
    """ShuffleNetV2 at scale 0.25."""
    return _shufflenet_v2("shufflenet_v2_x0_25", pretrained, 0.25, **kwargs)


def shufflenet_v2_x0_33(pretrained: bool = False, **kwargs) -> ShuffleNetV2:
    """ShuffleNetV2 at scale 0.33."""
    return _shufflenet_v2("shufflenet_v2_x0_33", pretrained, 0.33, **kwargs)


def shufflenet_v2_x0_5(pretrained: bool = False, **kwargs) -> ShuffleNetV2:
    """ShuffleNetV2 at scale 0.5."""
    return _shufflenet_v2("shufflenet_v2_x0_5", pretrained, 0.5, **kwargs)


def shufflenet_v2_x1_0(pretrained: bool = False, **kwargs) -> ShuffleNetV2:
    """ShuffleNetV2 at scale 1.0."""
    return _shufflenet_v2("shufflenet_v2_x1_0", pretrained, 1.0, **kwargs)


def shufflenet_v2_x1_5(pretrained: bool = False, **kwargs) -> ShuffleNetV2:
    """ShuffleNetV2 at scale 1.5."""
    return _shufflenet_v2("shufflenet_v2_x1_5", pretrained, 1.5, **kwargs)


def shufflenet_v2_x2_0(pretrained: bool = False, **kwargs) -> ShuffleNetV2:
    """ShuffleNetV2 at scale 2.0."""
    return _shufflenet_v2("shufflenet_v2_x2_0", pretrained, 2.0, **kwargs)


def shufflenet_v2_swish(pretrained: bool = False, **kwargs) -> ShuffleNetV2:
    """ShuffleNetV2 at scale 1.0 with swish activations."""
    return _shufflenet_v2("shufflenet_v2_swish", pretrained, 1.0, act="swish", **kwargs)
