"""paddle.vision.ops: building blocks of the vision models (ConvNormActivation)."""
from __future__ import annotations

from .. import nn

__all__ = ["ConvNormActivation"]


class ConvNormActivation(nn.Sequential):
    """Conv2D, then a norm layer (BatchNorm2D by default), then an activation (ReLU by default).

    `padding=None` keeps the size at stride 1: (kernel_size - 1) // 2 * dilation. The conv has a bias
    only when there is no norm layer (unless `bias` says otherwise). State dict keys: `0.weight`,
    `1.weight`, `1._mean`, ... as in Paddle.
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int = 3, stride: int = 1,
                 padding=None, groups: int = 1, norm_layer=nn.BatchNorm2D, activation_layer=nn.ReLU,
                 dilation: int = 1, bias: bool | None = None) -> None:
        if padding is None:
            padding = (kernel_size - 1) // 2 * dilation
        if bias is None:
            bias = norm_layer is None
        layers = [nn.Conv2D(in_channels, out_channels, kernel_size, stride, padding, dilation=dilation,
                            groups=groups, bias_attr=None if bias else False)]
        if norm_layer is not None:
            layers.append(norm_layer(out_channels))
        if activation_layer is not None:
            layers.append(activation_layer())
        super().__init__(*layers)
