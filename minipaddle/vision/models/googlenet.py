"""GoogLeNet (Inception v1) as Paddle builds it (paddle.vision.models.GoogLeNet).

An Inception module runs a 1x1, a 3x3 (after a 1x1 reduction), a 5x5 (after a 1x1 reduction) and a
pooled 1x1 projection side by side and concatenates them. forward returns three outputs, as Paddle's:
the main logits and the two auxiliary classifiers' (on inception 4a and 4d), which need 224x224 input
(their Linear layers expect 128 x 3 x 3 features). The convolutions have no bias and no batch norm.
"""
from __future__ import annotations

from ... import concat, nn
from ...framework.parameter import ParamAttr
from ...nn import functional as F
from ...nn.initializer import Uniform
from ._utils import refuse_pretrained

__all__ = ["GoogLeNet", "googlenet"]


def xavier(channels: int, filter_size: int) -> ParamAttr:
    stdv = (3.0 / (filter_size ** 2 * channels)) ** 0.5
    return ParamAttr(initializer=Uniform(-stdv, stdv))


class ConvLayer(nn.Layer):
    """A bias-free conv that keeps the size at stride 1 (padding (k - 1) // 2)."""

    def __init__(self, num_channels: int, num_filters: int, filter_size: int, stride: int = 1, groups: int = 1):
        super().__init__()
        self._conv = nn.Conv2D(num_channels, num_filters, filter_size, stride=stride, padding=(filter_size - 1) // 2,
                               groups=groups, bias_attr=False)

    def forward(self, inputs):
        return self._conv(inputs)


class Inception(nn.Layer):
    """Four branches -- 1x1; 1x1 then 3x3; 1x1 then 5x5; 3x3 max pool then 1x1 -- concatenated, then ReLU."""

    def __init__(self, input_channels: int, output_channels: int, filter1: int, filter3R: int, filter3: int,
                 filter5R: int, filter5: int, proj: int):
        super().__init__()
        self._conv1 = ConvLayer(input_channels, filter1, 1)
        self._conv3r = ConvLayer(input_channels, filter3R, 1)
        self._conv3 = ConvLayer(filter3R, filter3, 3)
        self._conv5r = ConvLayer(input_channels, filter5R, 1)
        self._conv5 = ConvLayer(filter5R, filter5, 5)
        self._pool = nn.MaxPool2D(kernel_size=3, stride=1, padding=1)
        self._convprj = ConvLayer(input_channels, proj, 1)

    def forward(self, inputs):
        branches = [self._conv1(inputs), self._conv3(self._conv3r(inputs)), self._conv5(self._conv5r(inputs)),
                    self._convprj(self._pool(inputs))]
        return F.relu(concat(branches, axis=1))


# (input channels, output channels, 1x1, 3x3 reduce, 3x3, 5x5 reduce, 5x5, pool projection)
_INCEPTIONS = {"_ince3a": (192, 192, 64, 96, 128, 16, 32, 32), "_ince3b": (256, 256, 128, 128, 192, 32, 96, 64),
               "_ince4a": (480, 480, 192, 96, 208, 16, 48, 64), "_ince4b": (512, 512, 160, 112, 224, 24, 64, 64),
               "_ince4c": (512, 512, 128, 128, 256, 24, 64, 64), "_ince4d": (512, 512, 112, 144, 288, 32, 64, 64),
               "_ince4e": (528, 528, 256, 160, 320, 32, 128, 128), "_ince5a": (832, 832, 256, 160, 320, 32, 128, 128),
               "_ince5b": (832, 832, 384, 192, 384, 48, 128, 128)}


class GoogLeNet(nn.Layer):
    """GoogLeNet (Szegedy et al. 2014); forward returns (out, aux1, aux2)."""

    def __init__(self, num_classes: int = 1000, with_pool: bool = True) -> None:
        super().__init__()
        self.num_classes, self.with_pool = num_classes, with_pool
        self._conv = ConvLayer(3, 64, 7, 2)
        self._pool = nn.MaxPool2D(kernel_size=3, stride=2)
        self._conv_1 = ConvLayer(64, 64, 1)
        self._conv_2 = ConvLayer(64, 192, 3)
        for name, spec in _INCEPTIONS.items():
            setattr(self, name, Inception(*spec))
        if with_pool:
            self._pool_5 = nn.AdaptiveAvgPool2D(1)
            self._pool_o1 = nn.AvgPool2D(kernel_size=5, stride=3)
            self._pool_o2 = nn.AvgPool2D(kernel_size=5, stride=3)
        if num_classes > 0:
            self._drop = nn.Dropout(p=0.4, mode="downscale_in_infer")
            self._fc_out = nn.Linear(1024, num_classes, weight_attr=xavier(1024, 1))
            self._conv_o1 = ConvLayer(512, 128, 1)
            self._fc_o1 = nn.Linear(1152, 1024, weight_attr=xavier(2048, 1))
            self._drop_o1 = nn.Dropout(p=0.7, mode="downscale_in_infer")
            self._out1 = nn.Linear(1024, num_classes, weight_attr=xavier(1024, 1))
            self._conv_o2 = ConvLayer(528, 128, 1)
            self._fc_o2 = nn.Linear(1152, 1024, weight_attr=xavier(2048, 1))
            self._drop_o2 = nn.Dropout(p=0.7, mode="downscale_in_infer")
            self._out2 = nn.Linear(1024, num_classes, weight_attr=xavier(1024, 1))

    def forward(self, inputs):
        x = self._pool(self._conv_2(self._conv_1(self._pool(self._conv(inputs)))))
        x = self._pool(self._ince3b(self._ince3a(x)))
        ince4a = self._ince4a(x)
        ince4d = self._ince4d(self._ince4c(self._ince4b(ince4a)))
        x = self._pool(self._ince4e(ince4d))
        out, out1, out2 = self._ince5b(self._ince5a(x)), ince4a, ince4d
        if self.with_pool:
            out, out1, out2 = self._pool_5(out), self._pool_o1(out1), self._pool_o2(out2)
        if self.num_classes > 0:
            out = self._fc_out(self._drop(out).squeeze(axis=[2, 3]))
            out1 = F.relu(self._fc_o1(self._conv_o1(out1).flatten(1)))
            out1 = self._out1(self._drop_o1(out1))
            out2 = self._fc_o2(self._conv_o2(out2).flatten(1))     # (no ReLU on this branch, as in Paddle)
            out2 = self._out2(self._drop_o2(out2))
        return out, out1, out2


def googlenet(pretrained: bool = False, **kwargs) -> GoogLeNet:
    """GoogLeNet(**kwargs); `pretrained=True` raises (minipaddle downloads no weights)."""
    if pretrained:
        refuse_pretrained("googlenet")
    return GoogLeNet(**kwargs)
