"""Common layers: Linear, Dropout (2D, 3D, Alpha), Embedding, Flatten, Identity, Pad1D/2D/3D, ZeroPad2D,
Upsample (and its nearest / bilinear 2-D shorthands), CosineSimilarity, PairwiseDistance.

Each holds its settings (and parameters) and calls the functional form in `forward`: nn.Linear is
F.linear with a weight and bias it owns. Dropout layers read `self.training`, so `model.eval()`
turns them off.

    >>> fc = paddle.nn.Linear(4, 2)          # weight [4, 2] XavierUniform, bias [2] zeros
    >>> fc
    Linear(in_features=4, out_features=2, dtype=float32)
"""
from __future__ import annotations

import numpy as np

from ...framework.dtype import get_default_dtype
from ...framework.errors import invalid_argument
from ...framework.ops.manipulation import flatten, reshape
from ...framework.tensor import Tensor
from .. import functional as F
from .layers import Layer

__all__ = ["Linear", "Bilinear", "Unflatten", "ZeroPad1D", "ZeroPad3D", "Dropout", "Dropout2D", "Dropout3D",
           "AlphaDropout", "Embedding", "Flatten", "Identity", "Pad1D", "Pad2D", "Pad3D", "ZeroPad2D", "Upsample",
           "UpsamplingNearest2D", "UpsamplingBilinear2D", "CosineSimilarity", "PairwiseDistance"]


def _named(text: str, name: str | None) -> str:
    return f"{text}, name={name}" if name else text


class Linear(Layer):
    """y = x @ weight + bias, with weight [in_features, out_features] (Paddle's layout, the transpose of
    PyTorch's). Default init: weight XavierUniform, bias zeros; bias_attr=False drops the bias."""

    def __init__(self, in_features: int, out_features: int, weight_attr=None, bias_attr=None,
                 name: str | None = None) -> None:
        super().__init__(dtype=get_default_dtype())
        for arg, value in (("in_features", in_features), ("out_features", out_features)):
            if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 0:
                raise invalid_argument("Linear", f"{arg} got {value!r}, expected an int >= 0.")
        self.in_features, self.out_features = in_features, out_features
        self.weight = self.create_parameter([in_features, out_features], attr=weight_attr, is_bias=False)
        self.bias = self.create_parameter([out_features], attr=bias_attr, is_bias=True)
        self._layer_name = name

    def forward(self, input: Tensor) -> Tensor:
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return _named(f"in_features={self.in_features}, out_features={self.out_features}, "
                      f"dtype={self._dtype}", self._layer_name)


class Bilinear(Layer):
    """out = x1 @ weight[k] @ x2 + bias[k] for each output k: weight [out, in1, in2], bias [1, out]."""

    def __init__(self, in1_features: int, in2_features: int, out_features: int, weight_attr=None, bias_attr=None,
                 name: str | None = None) -> None:
        super().__init__(dtype=get_default_dtype())
        self._in1_features, self._in2_features, self._out_features = in1_features, in2_features, out_features
        self.weight = self.create_parameter([out_features, in1_features, in2_features], attr=weight_attr)
        self.bias = self.create_parameter([1, out_features], attr=bias_attr, is_bias=True)
        self._layer_name = name

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.bilinear(x1, x2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return _named(f"in1_features={self._in1_features}, in2_features={self._in2_features}, "
                      f"out_features={self._out_features}, dtype={self._dtype}", self._layer_name)


class Dropout(Layer):
    """F.dropout while training (`layer.train()`), the identity (or a scale) after `layer.eval()`."""

    def __init__(self, p: float = 0.5, axis=None, mode: str = "upscale_in_train", name: str | None = None) -> None:
        super().__init__()
        self.p, self.axis, self.mode, self._layer_name = p, axis, mode, name

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout(input, p=self.p, axis=self.axis, training=self.training, mode=self.mode)

    def extra_repr(self) -> str:
        return _named(f"p={self.p}, axis={self.axis}, mode={self.mode}", self._layer_name)


class Dropout2D(Layer):
    """Drop whole channels of [N, C, H, W] inputs while training."""

    _fn = staticmethod(F.dropout2d)

    def __init__(self, p: float = 0.5, data_format: str = "NCHW", name: str | None = None) -> None:
        super().__init__()
        self.p, self.data_format, self._layer_name = p, data_format, name

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._fn(input, p=self.p, training=self.training, data_format=self.data_format)

    def extra_repr(self) -> str:
        return _named(f"p={self.p}, data_format={self.data_format}", self._layer_name)


class Dropout3D(Dropout2D):
    """Drop whole channels of [N, C, D, H, W] inputs while training."""

    _fn = staticmethod(F.dropout3d)

    def __init__(self, p: float = 0.5, data_format: str = "NCDHW", name: str | None = None) -> None:
        super().__init__(p, data_format, name)


class AlphaDropout(Layer):
    """Dropout that keeps SELU activations' mean and variance (F.alpha_dropout) while training."""

    def __init__(self, p: float = 0.5, name: str | None = None) -> None:
        super().__init__()
        self.p, self._layer_name = p, name

    def forward(self, input: Tensor) -> Tensor:
        return F.alpha_dropout(input, p=self.p, training=self.training)

    def extra_repr(self) -> str:
        return _named(f"p={self.p}", self._layer_name)


class Embedding(Layer):
    """A lookup table of num_embeddings rows of embedding_dim: ids [...] -> vectors [..., embedding_dim].

    The weight starts XavierUniform; the `padding_idx` row starts at zero, reads as zeros and gets
    no gradient.
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None,
                 sparse: bool = False, weight_attr=None, name: str | None = None) -> None:
        super().__init__(dtype=get_default_dtype())
        for arg, value in (("num_embeddings", num_embeddings), ("embedding_dim", embedding_dim)):
            if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value <= 0:
                raise invalid_argument("Embedding", f"{arg} got {value!r}, expected an int > 0.")
        if padding_idx is not None and not -num_embeddings <= padding_idx < num_embeddings:
            raise invalid_argument("Embedding", f"padding_idx is {padding_idx}, expected it in "
                                                f"[-{num_embeddings}, {num_embeddings}).")
        self._num_embeddings, self._embedding_dim = num_embeddings, embedding_dim
        self._padding_idx = None if padding_idx is None else padding_idx % num_embeddings
        self._sparse, self._layer_name = sparse, name
        self.weight = self.create_parameter([num_embeddings, embedding_dim], attr=weight_attr, is_bias=False)
        if self._padding_idx is not None:
            self.weight._data[self._padding_idx] = 0  # as Paddle: the padding row starts at zero
            self.weight._bump_version()

    def forward(self, x: Tensor) -> Tensor:
        return F.embedding(x, self.weight, padding_idx=self._padding_idx, sparse=self._sparse)

    def extra_repr(self) -> str:
        text = f"{self._num_embeddings}, {self._embedding_dim}"
        if self._padding_idx is not None:
            text += f", padding_idx={self._padding_idx}"
        return _named(text + f", sparse={self._sparse}", self._layer_name)


class Flatten(Layer):
    """paddle.flatten(x, start_axis, stop_axis): by default every dim but the batch dim into one."""

    def __init__(self, start_axis: int = 1, stop_axis: int = -1) -> None:
        super().__init__()
        self.start_axis, self.stop_axis = start_axis, stop_axis

    def forward(self, input: Tensor) -> Tensor:
        return flatten(input, self.start_axis, self.stop_axis)

    def extra_repr(self) -> str:
        return f"start_axis={self.start_axis}, stop_axis={self.stop_axis}"


class Unflatten(Layer):
    """Split dim `axis` into `shape`: Unflatten(1, [2, 3]) maps [N, 6, ...] to [N, 2, 3, ...]."""

    def __init__(self, axis: int, shape, name: str | None = None) -> None:
        super().__init__()
        self.axis, self.shape, self._layer_name = axis, list(shape), name

    def forward(self, input: Tensor) -> Tensor:
        axis = self.axis % max(input.ndim, 1)
        return reshape(input, input.shape[:axis] + self.shape + input.shape[axis + 1:])

    def extra_repr(self) -> str:
        return _named(f"axis={self.axis}, shape={self.shape}", self._layer_name)


class Identity(Layer):
    """Returns its input unchanged; takes (and ignores) any arguments, as Paddle's."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:
        return input


class _PadND(Layer):
    """Pad the spatial dims: padding is an int (every side) or [left, right, (top, bottom, (front, back))]."""

    _sides = 2

    def __init__(self, padding, mode: str = "constant", value: float = 0.0, data_format: str = "NCHW",
                 name: str | None = None) -> None:
        super().__init__()
        if isinstance(padding, int) and not isinstance(padding, bool):
            padding = [padding] * self._sides
        elif isinstance(padding, Tensor):
            padding = padding._data.tolist()
        if not isinstance(padding, (list, tuple)) or len(padding) != self._sides:
            raise invalid_argument(type(self).__name__, f"padding got {padding!r}, expected an int or "
                                                        f"{self._sides} ints.")
        self.padding, self.mode, self.value, self.data_format = list(padding), mode, value, data_format
        self._layer_name = name

    def forward(self, x: Tensor) -> Tensor:
        return F.pad(x, self.padding, mode=self.mode, value=self.value, data_format=self.data_format)

    def extra_repr(self) -> str:
        return _named(f"padding={self.padding}, mode={self.mode}, value={self.value}, "
                      f"data_format={self.data_format}", self._layer_name)


class Pad1D(_PadND):
    """Pad [N, C, L] inputs: padding [left, right]."""

    def __init__(self, padding, mode: str = "constant", value: float = 0.0, data_format: str = "NCL",
                 name: str | None = None) -> None:
        super().__init__(padding, mode, value, data_format, name)


class Pad2D(_PadND):
    """Pad [N, C, H, W] inputs: padding [left, right, top, bottom]."""

    _sides = 4


class Pad3D(_PadND):
    """Pad [N, C, D, H, W] inputs: padding [left, right, top, bottom, front, back]."""

    _sides = 6

    def __init__(self, padding, mode: str = "constant", value: float = 0.0, data_format: str = "NCDHW",
                 name: str | None = None) -> None:
        super().__init__(padding, mode, value, data_format, name)


class ZeroPad2D(Pad2D):
    """Pad2D with zeros."""

    def __init__(self, padding, data_format: str = "NCHW", name: str | None = None) -> None:
        super().__init__(padding, "constant", 0.0, data_format, name)


class ZeroPad1D(Pad1D):
    """Pad1D with zeros."""

    def __init__(self, padding, data_format: str = "NCL", name: str | None = None) -> None:
        super().__init__(padding, "constant", 0.0, data_format, name)


class ZeroPad3D(Pad3D):
    """Pad3D with zeros."""

    def __init__(self, padding, data_format: str = "NCDHW", name: str | None = None) -> None:
        super().__init__(padding, "constant", 0.0, data_format, name)


class Upsample(Layer):
    """F.interpolate with fixed settings: resize to `size`, or by `scale_factor`."""

    def __init__(self, size=None, scale_factor=None, mode: str = "nearest", align_corners: bool = False,
                 align_mode: int = 0, data_format: str | None = None, name: str | None = None) -> None:
        super().__init__()
        self.size, self.scale_factor, self.mode = size, scale_factor, mode.lower()
        self.align_corners, self.align_mode, self.data_format = align_corners, align_mode, data_format
        self._layer_name = name

    def forward(self, x: Tensor) -> Tensor:
        return F.interpolate(x, size=self.size, scale_factor=self.scale_factor, mode=self.mode,
                             align_corners=self.align_corners, align_mode=self.align_mode,
                             data_format=self.data_format)

    def extra_repr(self) -> str:
        what = f"scale_factor={self.scale_factor}" if self.scale_factor is not None else f"size={self.size}"
        return _named(f"{what}, mode={self.mode}, align_corners={self.align_corners}, "
                      f"align_mode={self.align_mode}, data_format={self.data_format}", self._layer_name)


class UpsamplingNearest2D(Upsample):
    """Nearest-neighbour upsampling of [N, C, H, W] inputs."""

    def __init__(self, size=None, scale_factor=None, data_format: str = "NCHW", name: str | None = None) -> None:
        super().__init__(size, scale_factor, "nearest", False, 0, data_format, name)


class UpsamplingBilinear2D(Upsample):
    """Bilinear upsampling of [N, C, H, W] inputs with corners aligned (align_corners=True)."""

    def __init__(self, size=None, scale_factor=None, data_format: str = "NCHW", name: str | None = None) -> None:
        super().__init__(size, scale_factor, "bilinear", True, 0, data_format, name)


class CosineSimilarity(Layer):
    """F.cosine_similarity(x1, x2, axis, eps)."""

    def __init__(self, axis: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self._axis, self._eps = axis, eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.cosine_similarity(x1, x2, axis=self._axis, eps=self._eps)

    def extra_repr(self) -> str:
        return f"axis={self._axis}, eps={self._eps}"


class PairwiseDistance(Layer):
    """F.pairwise_distance(x, y, p, epsilon, keepdim): the p-norm of x - y along the last axis."""

    def __init__(self, p: float = 2.0, epsilon: float = 1e-6, keepdim: bool = False, name: str | None = None) -> None:
        super().__init__()
        self.p, self.epsilon, self.keepdim, self._layer_name = p, epsilon, keepdim, name

    def forward(self, x: Tensor, y: Tensor) -> Tensor:
        return F.pairwise_distance(x, y, p=self.p, epsilon=self.epsilon, keepdim=self.keepdim)

    def extra_repr(self) -> str:
        return _named(f"p={self.p}, epsilon={self.epsilon}, keepdim={self.keepdim}", self._layer_name)
