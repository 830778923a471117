"""Convolution layers: Conv1D, Conv2D, Conv2DTranspose, Conv3D, Conv3DTranspose (Paddle 2.x signatures,
layouts and init).

Each layer owns `weight` and `bias` Parameters and calls the functional API:

    Conv2D           weight [out_channels, in_channels / groups, kh, kw]
    Conv2DTranspose  weight [in_channels, out_channels / groups, kh, kw]
    bias             [out_channels] (zeros), or none with bias_attr=False

As in Paddle, a convolution's weight starts as Normal(0, std) with std = sqrt(2 / (kh * kw *
in_channels)) (He initialization for ReLU networks), while Conv2DTranspose's default is the one
every parameter gets without a hint, XavierUniform. `padding_mode` other than "zeros" pads x with
paddle.nn.functional.pad first ("reflect", "replicate", "circular"; padding must then be an int).

    >>> conv = paddle.nn.Conv2D(1, 6, 5)          # doctest: +SKIP
    >>> conv
    Conv2D(1, 6, kernel_size=[5, 5], data_format=NCHW)
"""
from __future__ import annotations

import math
from numbers import Integral

from ...framework.errors import invalid_argument
from ...framework.ops.manipulation import pad
from ...framework.tensor import Tensor
from .. import functional as F
from ..functional.conv import int_list
from ..initializer import Normal
from .layers import Layer

__all__ = ["Conv1D", "Conv2D", "Conv2DTranspose", "Conv3D", "Conv3DTranspose"]

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")
_FORMATS = {1: ("NCL", "NLC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


def _positive_int(layer: str, name: str, value) -> int:
    if not isinstance(value, Integral) or isinstance(value, bool) or value < 1:
        raise invalid_argument(layer, f"{name} must be an int >= 1, got {value!r}.")
    return int(value)


class _ConvNd(Layer):
    """What Conv1D, Conv2D and Conv2DTranspose share: arguments, parameters and their repr."""

    def __init__(self, in_channels, out_channels, kernel_size, transposed: bool, dims: int, stride=1, padding=0,
                 padding_mode="zeros", output_padding=0, dilation=1, groups=1, weight_attr=None, bias_attr=None,
                 data_format="NCHW") -> None:
        super().__init__()
        layer = type(self).__name__
        if weight_attr is False:
            raise invalid_argument(layer, "weight_attr cannot be False: a convolution needs its weight.")
        self._in_channels = _positive_int(layer, "in_channels", in_channels)
        self._out_channels = _positive_int(layer, "out_channels", out_channels)
        self._groups = _positive_int(layer, "groups", groups)
        for name, count in (("in_channels", in_channels), ("out_channels", out_channels)):
            if count % groups:
                raise invalid_argument(layer, f"{name} ({count}) must be divisible by groups ({groups}).")
        if padding_mode not in _PADDING_MODES:
            raise invalid_argument(layer, f"padding_mode {padding_mode!r} is not one of {list(_PADDING_MODES)}.")
        if padding_mode != "zeros" and (not isinstance(padding, Integral) or isinstance(padding, bool)):
            raise invalid_argument(layer, f"padding_mode {padding_mode!r} takes an int padding, got {padding!r}.")
        if data_format not in _FORMATS[dims]:
            raise invalid_argument(layer, f"data_format {data_format!r} is not one of {list(_FORMATS[dims])}.")
        self._data_format = data_format
        self._padding = padding
        self._padding_mode = padding_mode
        self.output_padding = output_padding
        self._kernel_size = int_list(layer, "kernel_size", kernel_size, dims)
        self._stride = int_list(layer, "stride", stride, dims)
        self._dilation = int_list(layer, "dilation", dilation, dims)
        # the explicit pads for F.pad when padding_mode is not zeros: (before, after) per spatial dim
        self._reversed_padding_repeated_twice = [padding] * (2 * dims) if padding_mode != "zeros" else None
        if transposed:
            shape = [in_channels, out_channels // groups] + self._kernel_size
            init = None  # Paddle: the transposed conv takes create_parameter's default (XavierUniform)
        else:
            shape = [out_channels, in_channels // groups] + self._kernel_size
            init = Normal(0.0, math.sqrt(2.0 / (math.prod(self._kernel_size) * in_channels)))
        self.weight = self.create_parameter(shape=shape, attr=weight_attr, default_initializer=init)
        self.bias = self.create_parameter(shape=[out_channels], attr=bias_attr, is_bias=True)

    def _padded(self, x: Tensor) -> tuple[Tensor, object]:
        """x padded by F.pad for a non-zero padding_mode (then the conv itself pads 0)."""
        if self._padding_mode == "zeros":
            return x, self._padding
        return pad(x, self._reversed_padding_repeated_twice, mode=self._padding_mode,
                   data_format=self._data_format), 0

    def extra_repr(self) -> str:
        text = f"{self._in_channels}, {self._out_channels}, kernel_size={self._kernel_size}"
        if self._stride != [1] * len(self._stride):
            text += f", stride={self._stride}"
        if self._padding != 0:
            text += f", padding={self._padding}"
        if self._padding_mode != "zeros":
            text += f", padding_mode={self._padding_mode}"
        if self.output_padding != 0:
            text += f", output_padding={self.output_padding}"
        if self._dilation != [1] * len(self._dilation):
            text += f", dilation={self._dilation}"
        if self._groups != 1:
            text += f", groups={self._groups}"
        return text + f", data_format={self._data_format}"


class Conv1D(_ConvNd):
    """1-D convolution over x (N, C, L) (or NLC): weight [out_channels, in_channels / groups, k]."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, padding_mode: str = "zeros", weight_attr=None, bias_attr=None,
                 data_format: str = "NCL") -> None:
        super().__init__(in_channels, out_channels, kernel_size, False, 1, stride=stride, padding=padding,
                         padding_mode=padding_mode, dilation=dilation, groups=groups, weight_attr=weight_attr,
                         bias_attr=bias_attr, data_format=data_format)

    def forward(self, x: Tensor) -> Tensor:
        x, padding = self._padded(x)
        return F.conv1d(x, self.weight, bias=self.bias, stride=self._stride, padding=padding,
                        dilation=self._dilation, groups=self._groups, data_format=self._data_format)


class Conv2D(_ConvNd):
    """2-D convolution over x (N, C, H, W) (or NHWC): weight [out_channels, in_channels / groups, kh, kw]."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, padding_mode: str = "zeros", weight_attr=None, bias_attr=None,
                 data_format: str = "NCHW") -> None:
        super().__init__(in_channels, out_channels, kernel_size, False, 2, stride=stride, padding=padding,
                         padding_mode=padding_mode, dilation=dilation, groups=groups, weight_attr=weight_attr,
                         bias_attr=bias_attr, data_format=data_format)

    def forward(self, x: Tensor) -> Tensor:
        x, padding = self._padded(x)
        return F.conv2d(x, self.weight, bias=self.bias, stride=self._stride, padding=padding,
                        dilation=self._dilation, groups=self._groups, data_format=self._data_format)


class Conv2DTranspose(_ConvNd):
    """Transposed 2-D convolution (upsampling): weight [in_channels, out_channels / groups, kh, kw].

    `forward(x, output_size=None)`: among the sizes that all map back to x's size, output_size
    (or output_padding) picks one."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0,
                 groups: int = 1, dilation=1, weight_attr=None, bias_attr=None, data_format: str = "NCHW") -> None:
        super().__init__(in_channels, out_channels, kernel_size, True, 2, stride=stride, padding=padding,
                         output_padding=output_padding, dilation=dilation, groups=groups, weight_attr=weight_attr,
                         bias_attr=bias_attr, data_format=data_format)

    def forward(self, x: Tensor, output_size=None) -> Tensor:
        return F.conv2d_transpose(x, self.weight, bias=self.bias, stride=self._stride, padding=self._padding,
                                  output_padding=self.output_padding, dilation=self._dilation, groups=self._groups,
                                  output_size=output_size, data_format=self._data_format)


class Conv3D(_ConvNd):
    """3-D convolution over x (N, C, D, H, W) (or NDHWC): weight [out_channels, in_channels / groups, kd, kh, kw]."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, padding_mode: str = "zeros", weight_attr=None, bias_attr=None,
                 data_format: str = "NCDHW") -> None:
        super().__init__(in_channels, out_channels, kernel_size, False, 3, stride=stride, padding=padding,
                         padding_mode=padding_mode, dilation=dilation, groups=groups, weight_attr=weight_attr,
                         bias_attr=bias_attr, data_format=data_format)

    def forward(self, x: Tensor) -> Tensor:
        x, padding = self._padded(x)
        return F.conv3d(x, self.weight, bias=self.bias, stride=self._stride, padding=padding,
                        dilation=self._dilation, groups=self._groups, data_format=self._data_format)


class Conv3DTranspose(_ConvNd):
    """Transposed 3-D convolution: weight [in_channels, out_channels / groups, kd, kh, kw]."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0,
                 groups: int = 1, dilation=1, weight_attr=None, bias_attr=None, data_format: str = "NCDHW") -> None:
        super().__init__(in_channels, out_channels, kernel_size, True, 3, stride=stride, padding=padding,
                         output_padding=output_padding, dilation=dilation, groups=groups, weight_attr=weight_attr,
                         bias_attr=bias_attr, data_format=data_format)

    def forward(self, x: Tensor, output_size=None) -> Tensor:
        return F.conv3d_transpose(x, self.weight, bias=self.bias, stride=self._stride, padding=self._padding,
                                  output_padding=self.output_padding, dilation=self._dilation, groups=self._groups,
                                  output_size=output_size, data_format=self._data_format)
