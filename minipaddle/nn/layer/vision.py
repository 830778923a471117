"""Layers over nn/functional/vision.py: Unfold, Fold, PixelShuffle, PixelUnshuffle, ChannelShuffle (Paddle's
names and attributes)."""
from __future__ import annotations

from ...framework.errors import invalid_argument
from .. import functional as F
from .layers import Layer

__all__ = ["Unfold", "Fold", "PixelShuffle", "PixelUnshuffle", "ChannelShuffle"]


class Unfold(Layer):
    """F.unfold as a layer: [N, C, H, W] -> [N, C*kh*kw, L]."""

    def __init__(self, kernel_sizes, dilations=1, paddings=0, strides=1, name: str | None = None) -> None:
        super().__init__()
        self.kernel_sizes, self.dilations, self.paddings, self.strides = kernel_sizes, dilations, paddings, strides

    def forward(self, input):
        return F.unfold(input, kernel_sizes=self.kernel_sizes, strides=self.strides, paddings=self.paddings,
                        dilations=self.dilations)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_sizes}, dilation={self.dilations}, padding={self.paddings}, "
                f"stride={self.strides}")


class Fold(Layer):
    """F.fold as a layer: [N, C*kh*kw, L] -> [N, C, *output_sizes]."""

    def __init__(self, output_sizes, kernel_sizes, dilations=1, paddings=0, strides=1, name: str | None = None) -> None:
        super().__init__()
        self.output_sizes, self.kernel_sizes = output_sizes, kernel_sizes
        self.dilations, self.paddings, self.strides = dilations, paddings, strides

    def forward(self, input):
        return F.fold(input, output_sizes=self.output_sizes, kernel_sizes=self.kernel_sizes, strides=self.strides,
                      paddings=self.paddings, dilations=self.dilations)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_sizes}, dilation={self.dilations}, padding={self.paddings}, "
                f"stride={self.strides}")


def _data_format(layer: str, data_format: str) -> str:
    if data_format not in ("NCHW", "NHWC"):
        raise invalid_argument(layer, f"data_format got {data_format!r}, expected 'NCHW' or 'NHWC'.")
    return data_format


class PixelShuffle(Layer):
    """F.pixel_shuffle as a layer: [N, C*r*r, H, W] -> [N, C, H*r, W*r]."""

    def __init__(self, upscale_factor: int, data_format: str = "NCHW", name: str | None = None) -> None:
        super().__init__()
        self._upscale_factor = F.vision._factor("PixelShuffle", "upscale_factor", upscale_factor)
        self._data_format = _data_format("PixelShuffle", data_format)

    def forward(self, x):
        return F.pixel_shuffle(x, self._upscale_factor, self._data_format)

    def extra_repr(self) -> str:
        text = f"upscale_factor={self._upscale_factor}"
        return text + (f", data_format={self._data_format}" if self._data_format != "NCHW" else "")


class PixelUnshuffle(Layer):
    """F.pixel_unshuffle as a layer: [N, C, H*r, W*r] -> [N, C*r*r, H, W]."""

    def __init__(self, downscale_factor: int, data_format: str = "NCHW", name: str | None = None) -> None:
        super().__init__()
        self._downscale_factor = F.vision._factor("PixelUnshuffle", "downscale_factor", downscale_factor)
        self._data_format = _data_format("PixelUnshuffle", data_format)

    def forward(self, x):
        return F.pixel_unshuffle(x, self._downscale_factor, self._data_format)

    def extra_repr(self) -> str:
        text = f"downscale_factor={self._downscale_factor}"
        return text + (f", data_format={self._data_format}" if self._data_format != "NCHW" else "")


class ChannelShuffle(Layer):
    """F.channel_shuffle as a layer."""

    def __init__(self, groups: int, data_format: str = "NCHW", name: str | None = None) -> None:
        super().__init__()
        self._groups = F.vision._factor("ChannelShuffle", "groups", groups)
        self._data_format = _data_format("ChannelShuffle", data_format)

    def forward(self, x):
        return F.channel_shuffle(x, self._groups, self._data_format)

    def extra_repr(self) -> str:
        return f"groups={self._groups}" + (f", data_format={self._data_format}" if self._data_format != "NCHW" else "")
