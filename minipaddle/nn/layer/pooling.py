"""Pooling layers: MaxPool1D/2D/3D, AvgPool1D/2D/3D, AdaptiveAvgPool1D/2D, AdaptiveMaxPool1D/2D.

They hold no parameters: each keeps its arguments and calls the functional API
(nn/functional/pooling.py), and prints them as Paddle does:

    >>> paddle.nn.MaxPool2D(2)                  # doctest: +SKIP
    MaxPool2D(kernel_size=2, stride=None, padding=0)
"""
from __future__ import annotations

from ...framework.tensor import Tensor
from .. import functional as F
from .layers import Layer

__all__ = ["MaxPool1D", "MaxPool2D", "AvgPool1D", "AvgPool2D", "AdaptiveAvgPool1D", "AdaptiveAvgPool2D",
           "AdaptiveMaxPool1D", "AdaptiveMaxPool2D", "MaxPool3D", "AvgPool3D"]


class _Pool(Layer):
    """Pooling layers print their window the same way."""

    def extra_repr(self) -> str:
        return f"kernel_size={self.ksize}, stride={self.stride}, padding={self.padding}"


class MaxPool1D(_Pool):
    """Max over windows along L of x (N, C, L); with return_mask, also the argmax indices."""

    def __init__(self, kernel_size, stride=None, padding=0, return_mask: bool = False, ceil_mode: bool = False,
                 name=None) -> None:
        super().__init__()
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.return_mask, self.ceil_mode, self.name = return_mask, ceil_mode, name

    def forward(self, x: Tensor):
        return F.max_pool1d(x, self.ksize, self.stride, self.padding, self.return_mask, self.ceil_mode)


class MaxPool2D(_Pool):
    """Max over kernel_size windows of x (N, C, H, W) (or NHWC); with return_mask, also the argmax."""

    def __init__(self, kernel_size, stride=None, padding=0, return_mask: bool = False, ceil_mode: bool = False,
                 data_format: str = "NCHW", name=None) -> None:
        super().__init__()
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.return_mask, self.ceil_mode, self.data_format, self.name = return_mask, ceil_mode, data_format, name

    def forward(self, x: Tensor):
        return F.max_pool2d(x, self.ksize, self.stride, self.padding, return_mask=self.return_mask,
                            ceil_mode=self.ceil_mode, data_format=self.data_format)


class AvgPool1D(_Pool):
    """Mean over windows along L of x (N, C, L); `exclusive` leaves padding out of the count."""

    def __init__(self, kernel_size, stride=None, padding=0, exclusive: bool = True, ceil_mode: bool = False,
                 name=None) -> None:
        super().__init__()
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.exclusive, self.ceil_mode, self.name = exclusive, ceil_mode, name

    def forward(self, x: Tensor) -> Tensor:
        return F.avg_pool1d(x, self.ksize, self.stride, self.padding, self.exclusive, self.ceil_mode)


class AvgPool2D(_Pool):
    """Mean over kernel_size windows of x (N, C, H, W) (or NHWC)."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False, exclusive: bool = True,
                 divisor_override=None, data_format: str = "NCHW", name=None) -> None:
        super().__init__()
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.ceil_mode, self.exclusive, self.divisor = ceil_mode, exclusive, divisor_override
        self.data_format, self.name = data_format, name

    def forward(self, x: Tensor) -> Tensor:
        return F.avg_pool2d(x, self.ksize, self.stride, self.padding, ceil_mode=self.ceil_mode,
                            exclusive=self.exclusive, divisor_override=self.divisor, data_format=self.data_format)


class AdaptiveAvgPool1D(Layer):
    """Mean over output_size adaptive bins along L."""

    def __init__(self, output_size: int, name=None) -> None:
        super().__init__()
        self.output_size, self.name = output_size, name

    def forward(self, x: Tensor) -> Tensor:
        return F.adaptive_avg_pool1d(x, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool2D(Layer):
    """Mean over an output_size grid of adaptive bins (None in output_size keeps that input size)."""

    def __init__(self, output_size, data_format: str = "NCHW", name=None) -> None:
        super().__init__()
        self._output_size, self._data_format, self._name = output_size, data_format, name

    def forward(self, x: Tensor) -> Tensor:
        return F.adaptive_avg_pool2d(x, self._output_size, data_format=self._data_format)

    def extra_repr(self) -> str:
        return f"output_size={self._output_size}"


class AdaptiveMaxPool1D(Layer):
    """Max over output_size adaptive bins along L; with return_mask, also the argmax indices."""

    def __init__(self, output_size: int, return_mask: bool = False, name=None) -> None:
        super().__init__()
        self.output_size, self.return_mask, self.name = output_size, return_mask, name

    def forward(self, x: Tensor):
        return F.adaptive_max_pool1d(x, self.output_size, self.return_mask)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}, return_mask={self.return_mask}"


class AdaptiveMaxPool2D(Layer):
    """Max over an output_size grid of adaptive bins; with return_mask, also the argmax indices."""

    def __init__(self, output_size, return_mask: bool = False, name=None) -> None:
        super().__init__()
        self._output_size, self._return_mask, self._name = output_size, return_mask, name

    def forward(self, x: Tensor):
        return F.adaptive_max_pool2d(x, self._output_size, return_mask=self._return_mask)

    def extra_repr(self) -> str:
        return f"output_size={self._output_size}, return_mask={self._return_mask}"


class MaxPool3D(_Pool):
    """Max over kernel_size windows of x (N, C, D, H, W) (or NDHWC); with return_mask, also the argmax."""

    def __init__(self, kernel_size, stride=None, padding=0, return_mask: bool = False, ceil_mode: bool = False,
                 data_format: str = "NCDHW", name=None) -> None:
        super().__init__()
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.return_mask, self.ceil_mode, self.data_format, self.name = return_mask, ceil_mode, data_format, name

    def forward(self, x: Tensor):
        return F.max_pool3d(x, self.ksize, self.stride, self.padding, ceil_mode=self.ceil_mode,
                            return_mask=self.return_mask, data_format=self.data_format)


class AvgPool3D(_Pool):
    """Mean over kernel_size windows of x (N, C, D, H, W) (or NDHWC)."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False, exclusive: bool = True,
                 divisor_override=None, data_format: str = "NCDHW", name=None) -> None:
        super().__init__()
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.ceil_mode, self.exclusive, self.divisor = ceil_mode, exclusive, divisor_override
        self.data_format, self.name = data_format, name

    def forward(self, x: Tensor) -> Tensor:
        return F.avg_pool3d(x, self.ksize, self.stride, self.padding, ceil_mode=self.ceil_mode,
                            exclusive=self.exclusive, divisor_override=self.divisor, data_format=self.data_format)
