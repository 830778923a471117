"""VGG 11/13/16/19 as Paddle builds them (paddle.vision.models.VGG), with or without batch norm.

`features` is one Sequential of Conv2D(3x3) [+ BatchNorm2D] + ReLU stages separated by MaxPool2D(2, 2),
so the state_dict keys are Paddle's (`features.0.weight`, `features.1._mean` with batch norm, ...,
`classifier.6.bias`). An AdaptiveAvgPool2D((7, 7)) makes the classifier work for any input of at
least 32x32.
"""
from __future__ import annotations

from ... import nn
from ._utils import refuse_pretrained

__all__ = ["VGG", "vgg11", "vgg13", "vgg16", "vgg19", "make_layers"]

# Output channels of each 3x3 conv, "M" for a 2x2 max pool (the configurations of the VGG paper).
CFGS = {
    "A": [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "B": [64, 64, "M", 128, 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "D": [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512, "M"],
    "E": [64, 64, "M", 128, 128, "M", 256, 256, 256, 256, "M", 512, 512, 512, 512, "M", 512, 512, 512, 512, "M"],
}


class VGG(nn.Layer):
    """VGG (Simonyan & Zisserman 2014) around a `features` Sequential (see `make_layers`).

    >>> vgg11(num_classes=10)(paddle.rand([1, 3, 32, 32])).shape      # doctest: +SKIP
    [1, 10]
    """

    def __init__(self, features: nn.Layer, num_classes: int = 1000, with_pool: bool = True) -> None:
        super().__init__()
        self.features = features
        self.num_classes = num_classes
        self.with_pool = with_pool
        if with_pool:
            self.avgpool = nn.AdaptiveAvgPool2D((7, 7))
        if num_classes > 0:
            self.classifier = nn.Sequential(
                nn.Linear(512 * 7 * 7, 4096), nn.ReLU(), nn.Dropout(),
                nn.Linear(4096, 4096), nn.ReLU(), nn.Dropout(),
                nn.Linear(4096, num_classes))

    def forward(self, x):
        x = self.features(x)
        if self.with_pool:
            x = self.avgpool(x)
        if self.num_classes > 0:
            x = self.classifier(x.flatten(1))
        return x


def make_layers(cfg: list, batch_norm: bool = False) -> nn.Sequential:
    """The `features` Sequential for one configuration of CFGS."""
    layers: list[nn.Layer] = []
    in_channels = 3
    for v in cfg:
        if v == "M":
            layers.append(nn.MaxPool2D(kernel_size=2, stride=2))
            continue
        layers.append(nn.Conv2D(in_channels, v, kernel_size=3, padding=1))
        if batch_norm:
            layers.append(nn.BatchNorm2D(v))
        layers.append(nn.ReLU())
        in_channels = v
    return nn.Sequential(*layers)


def _vgg(arch: str, cfg: str, batch_norm: bool, pretrained: bool, **kwargs) -> VGG:
    if pretrained:
        refuse_pretrained(arch + ("_bn" if batch_norm else ""))
    return VGG(make_layers(CFGS[cfg], batch_norm=batch_norm), **kwargs)


def vgg11(pretrained: bool = False, batch_norm: bool = False, **kwargs) -> VGG:
    """VGG-11 (configuration A); `batch_norm=True` adds a BatchNorm2D after every conv."""
    return _vgg("vgg11", "A", batch_norm, pretrained, **kwargs)


def vgg13(pretrained: bool = False, batch_norm: bool = False, **kwargs) -> VGG:
    """VGG-13 (configuration B)."""
    return _vgg("vgg13", "B", batch_norm, pretrained, **kwargs)


def vgg16(pretrained: bool = False, batch_norm: bool = False, **kwargs) -> VGG:
    """VGG-16 (configuration D)."""
    return _vgg("vgg16", "D", batch_norm, pretrained, **kwargs)


def vgg19(pretrained: bool = False, batch_norm: bool = False, **kwargs) -> VGG:
    """VGG-19 (configuration E)."""
    return _vgg("vgg19", "E", batch_norm, pretrained, **kwargs)
