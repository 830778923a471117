"""ResNet as Paddle builds it (paddle.vision.models.ResNet): 18/34 with BasicBlock, 50/101/152 with
BottleneckBlock, and the ResNeXt / wide variants Paddle names (grouped or wider 3x3 convolutions).

The layer names are Paddle's, so the state_dict keys are too: `conv1.weight`, `bn1._mean`,
`layer1.0.conv1.weight`, `layer2.0.downsample.0.weight`, ..., `fc.weight`. The stem divides the
input by 32 and AdaptiveAvgPool2D((1, 1)) follows, so any input of at least 32x32 gives logits.
"""
from __future__ import annotations

from ... import nn
from ._utils import refuse_pretrained

__all__ = ["ResNet", "BasicBlock", "BottleneckBlock", "resnet18", "resnet34", "resnet50", "resnet101",
           "resnet152", "resnext50_32x4d", "resnext50_64x4d", "resnext101_32x4d", "resnext101_64x4d",
           "resnext152_32x4d", "resnext152_64x4d", "wide_resnet50_2", "wide_resnet101_2"]

# Blocks per stage for each depth.
LAYER_CFG = {18: [2, 2, 2, 2], 34: [3, 4, 6, 3], 50: [3, 4, 6, 3], 101: [3, 4, 23, 3], 152: [3, 8, 36, 3]}


class BasicBlock(nn.Layer):
    """Two 3x3 convs with batch norm, plus the input (through `downsample` when shapes change)."""
    expansion = 1

    def __init__(self, inplanes: int, planes: int, stride: int = 1, downsample: nn.Layer | None = None,
                 groups: int = 1, base_width: int = 64, dilation: int = 1, norm_layer=None) -> None:
        super().__init__()
        norm_layer = norm_layer or nn.BatchNorm2D
        if dilation > 1:
            raise NotImplementedError("Dilation > 1 not supported in BasicBlock")
        self.conv1 = nn.Conv2D(inplanes, planes, 3, padding=1, stride=stride, bias_attr=False)
        self.bn1 = norm_layer(planes)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2D(planes, planes, 3, padding=1, bias_attr=False)
        self.bn2 = norm_layer(planes)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        return self.relu(out + identity)


class BottleneckBlock(nn.Layer):
    """1x1 conv down to `width`, 3x3 conv (grouped for ResNeXt), 1x1 conv up to 4 x planes."""
    expansion = 4

    def __init__(self, inplanes: int, planes: int, stride: int = 1, downsample: nn.Layer | None = None,
                 groups: int = 1, base_width: int = 64, dilation: int = 1, norm_layer=None) -> None:
        super().__init__()
        norm_layer = norm_layer or nn.BatchNorm2D
        width = int(planes * (base_width / 64.0)) * groups
        self.conv1 = nn.Conv2D(inplanes, width, 1, bias_attr=False)
        self.bn1 = norm_layer(width)
        self.conv2 = nn.Conv2D(width, width, 3, padding=dilation, stride=stride, groups=groups, dilation=dilation,
                               bias_attr=False)
        self.bn2 = norm_layer(width)
        self.conv3 = nn.Conv2D(width, planes * self.expansion, 1, bias_attr=False)
        self.bn3 = norm_layer(planes * self.expansion)
        self.relu = nn.ReLU()
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        return self.relu(out + identity)


class ResNet(nn.Layer):
    """ResNet (He et al. 2015). `width` is the bottleneck's base width, `groups` its 3x3 conv groups.

    >>> resnet18(num_classes=10)(paddle.rand([1, 3, 32, 32])).shape      # doctest: +SKIP
    [1, 10]
    """

    def __init__(self, block, depth: int = 50, width: int = 64, num_classes: int = 1000, with_pool: bool = True,
                 groups: int = 1) -> None:
        super().__init__()
        if depth not in LAYER_CFG:
            raise ValueError(f"ResNet: depth got {depth!r}, expected one of {sorted(LAYER_CFG)}.")
        layers = LAYER_CFG[depth]
        self.groups = groups
        self.base_width = width
        self.num_classes = num_classes
        self.with_pool = with_pool
        self._norm_layer = nn.BatchNorm2D
        self.inplanes = 64
        self.dilation = 1
        self.conv1 = nn.Conv2D(3, self.inplanes, kernel_size=7, stride=2, padding=3, bias_attr=False)
        self.bn1 = self._norm_layer(self.inplanes)
        self.relu = nn.ReLU()
        self.maxpool = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(block, 64, layers[0])
        self.layer2 = self._make_layer(block, 128, layers[1], stride=2)
        self.layer3 = self._make_layer(block, 256, layers[2], stride=2)
        self.layer4 = self._make_layer(block, 512, layers[3], stride=2)
        if with_pool:
            self.avgpool = nn.AdaptiveAvgPool2D((1, 1))
        if num_classes > 0:
            self.fc = nn.Linear(512 * block.expansion, num_classes)

    def _make_layer(self, block, planes: int, blocks: int, stride: int = 1, dilate: bool = False) -> nn.Sequential:
        norm_layer = self._norm_layer
        downsample = None
        previous_dilation = self.dilation
        if dilate:
            self.dilation *= stride
            stride = 1
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(
                nn.Conv2D(self.inplanes, planes * block.expansion, 1, stride=stride, bias_attr=False),
                norm_layer(planes * block.expansion))
        layers = [block(self.inplanes, planes, stride, downsample, self.groups, self.base_width, previous_dilation,
                        norm_layer)]
        self.inplanes = planes * block.expansion
        for _ in range(1, blocks):
            layers.append(block(self.inplanes, planes, groups=self.groups, base_width=self.base_width,
                                norm_layer=norm_layer))
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        if self.with_pool:
            x = self.avgpool(x)
        if self.num_classes > 0:
            x = self.fc(x.flatten(1))
        return x


def _resnet(arch: str, block, depth: int, pretrained: bool, **kwargs) -> ResNet:
    if pretrained:
        refuse_pretrained(arch)
    return ResNet(block, depth, **kwargs)


def resnet18(pretrained: bool = False, **kwargs) -> ResNet:
    """ResNet-18: BasicBlock x [2, 2, 2, 2]."""
    return _resnet("resnet18", BasicBlock, 18, pretrained, **kwargs)


def resnet34(pretrained: bool = False, **kwargs) -> ResNet:
    """ResNet-34: BasicBlock x [3, 4, 6, 3]."""
    return _resnet("resnet34", BasicBlock, 34, pretrained, **kwargs)


def resnet50(pretrained: bool = False, **kwargs) -> ResNet:
    """ResNet-50: BottleneckBlock x [3, 4, 6, 3]."""
    return _resnet("resnet50", BottleneckBlock, 50, pretrained, **kwargs)


def resnet101(pretrained: bool = False, **kwargs) -> ResNet:
    """ResNet-101: BottleneckBlock x [3, 4, 23, 3]."""
    return _resnet("resnet101", BottleneckBlock, 101, pretrained, **kwargs)


def resnet152(pretrained: bool = False, **kwargs) -> ResNet:
    """ResNet-152: BottleneckBlock x [3, 8, 36, 3]."""
    return _resnet("resnet152", BottleneckBlock, 152, pretrained, **kwargs)


def resnext50_32x4d(pretrained: bool = False, **kwargs) -> ResNet:
    """ResNeXt-50 with 32 groups of width 4."""
    return _resnet("resnext50_32x4d", BottleneckBlock, 50, pretrained, **{**kwargs, "groups": 32, "width": 4})


def resnext50_64x4d(pretrained: bool = False, **kwargs) -> ResNet:
    """ResNeXt-50 with 64 groups of width 4."""
    return _resnet("resnext50_64x4d", BottleneckBlock, 50, pretrained, **{**kwargs, "groups": 64, "width": 4})


def resnext101_32x4d(pretrained: bool = False, **kwargs) -> ResNet:
    """ResNeXt-101 with 32 groups of width 4."""
    return _resnet("resnext101_32x4d", BottleneckBlock, 101, pretrained, **{**kwargs, "groups": 32, "width": 4})


def resnext101_64x4d(pretrained: bool = False, **kwargs) -> ResNet:
    """ResNeXt-101 with 64 groups of width 4."""
    return _resnet("resnext101_64x4d", BottleneckBlock, 101, pretrained, **{**kwargs, "groups": 64, "width": 4})


def resnext152_32x4d(pretrained: bool = False, **kwargs) -> ResNet:
    """ResNeXt-152 with 32 groups of width 4."""
    return _resnet("resnext152_32x4d", BottleneckBlock, 152, pretrained, **{**kwargs, "groups": 32, "width": 4})


def resnext152_64x4d(pretrained: bool = False, **kwargs) -> ResNet:
    """ResNeXt-152 with 64 groups of width 4."""
    return _resnet("resnext152_64x4d", BottleneckBlock, 152, pretrained, **{**kwargs, "groups": 64, "width": 4})


def wide_resnet50_2(pretrained: bool = False, **kwargs) -> ResNet:
    """Wide ResNet-50-2: bottlenecks twice as wide."""
    return _resnet("wide_resnet50_2", BottleneckBlock, 50, pretrained, **{**kwargs, "width": 128})


def wide_resnet101_2(pretrained: bool = False, **kwargs) -> ResNet:
    """Wide ResNet-101-2: bottlenecks twice as wide."""
    return _resnet("wide_resnet101_2", BottleneckBlock, 101, pretrained, **{**kwargs, "width": 128})
