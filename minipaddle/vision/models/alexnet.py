"""AlexNet as Paddle builds it (paddle.vision.models.AlexNet): five convolutions, three Linear layers.

Its classifier expects 256x6x6 features, which a 224x224 image gives; with `num_classes=0` the
classifier is left out and any input of at least 63x63 works.
"""
from __future__ import annotations

import math

from ... import nn
from ...framework.parameter import ParamAttr
from ...nn import functional as F
from ...nn.initializer import Uniform
from ._utils import refuse_pretrained

__all__ = ["AlexNet", "alexnet"]


def _uniform_attr(stdv: float) -> ParamAttr:
    return ParamAttr(initializer=Uniform(-stdv, stdv))


class ConvPoolLayer(nn.Layer):
    """Conv2D (+ ReLU) + MaxPool2D(3, 2): the names `_conv` and `_pool` are Paddle's state_dict keys."""

    def __init__(self, input_channels: int, output_channels: int, filter_size: int, stride: int, padding: int,
                 stdv: float, groups: int = 1, act: str | None = None) -> None:
        super().__init__()
        self.relu = nn.ReLU() if act == "relu" else None
        self._conv = nn.Conv2D(input_channels, output_channels, filter_size, stride=stride, padding=padding,
                               groups=groups, weight_attr=_uniform_attr(stdv), bias_attr=_uniform_attr(stdv))
        self._pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)

    def forward(self, inputs):
        x = self._conv(inputs)
        if self.relu is not None:
            x = self.relu(x)
        return self._pool(x)


class AlexNet(nn.Layer):
    """AlexNet (Krizhevsky et al. 2012); `num_classes <= 0` leaves out the three Linear layers.

    >>> AlexNet(num_classes=10)(paddle.rand([1, 3, 224, 224])).shape      # doctest: +SKIP
    [1, 10]
    """

    def __init__(self, num_classes: int = 1000) -> None:
        super().__init__()
        self.num_classes = num_classes
        self._conv1 = ConvPoolLayer(3, 64, 11, 4, 2, 1.0 / math.sqrt(3 * 11 * 11), act="relu")
        self._conv2 = ConvPoolLayer(64, 192, 5, 1, 2, 1.0 / math.sqrt(64 * 5 * 5), act="relu")
        stdv = 1.0 / math.sqrt(192 * 3 * 3)
        self._conv3 = nn.Conv2D(192, 384, 3, stride=1, padding=1, weight_attr=_uniform_attr(stdv),
                                bias_attr=_uniform_attr(stdv))
        stdv = 1.0 / math.sqrt(384 * 3 * 3)
        self._conv4 = nn.Conv2D(384, 256, 3, stride=1, padding=1, weight_attr=_uniform_attr(stdv),
                                bias_attr=_uniform_attr(stdv))
        self._conv5 = ConvPoolLayer(256, 256, 3, 1, 1, 1.0 / math.sqrt(256 * 3 * 3), act="relu")
        if num_classes > 0:
            stdv = 1.0 / math.sqrt(256 * 6 * 6)
            self._drop1 = nn.Dropout(p=0.5, mode="downscale_in_infer")
            self._fc6 = nn.Linear(256 * 6 * 6, 4096, weight_attr=_uniform_attr(stdv), bias_attr=_uniform_attr(stdv))
            self._drop2 = nn.Dropout(p=0.5, mode="downscale_in_infer")
            self._fc7 = nn.Linear(4096, 4096, weight_attr=_uniform_attr(stdv), bias_attr=_uniform_attr(stdv))
            self._fc8 = nn.Linear(4096, num_classes, weight_attr=_uniform_attr(stdv), bias_attr=_uniform_attr(stdv))

    def forward(self, inputs):
        x = self._conv1(inputs)
        x = self._conv2(x)
        x = F.relu(self._conv3(x))
        x = F.relu(self._conv4(x))
        x = self._conv5(x)
        if self.num_classes > 0:
            x = x.flatten(1)
            x = F.relu(self._fc6(self._drop1(x)))
            x = F.relu(self._fc7(self._drop2(x)))
            x = self._fc8(x)
        return x


def alexnet(pretrained: bool = False, **kwargs) -> AlexNet:
    """AlexNet(**kwargs); `pretrained=True` raises (minipaddle downloads no weights)."""
    if pretrained:
        refuse_pretrained("alexnet")
    return AlexNet(**kwargs)
