"""Normalization layers: BatchNorm1D/2D/3D, BatchNorm, LayerNorm, GroupNorm, InstanceNorm1D/2D/3D.

They hold the learnable per-channel `weight` (init 1) and `bias` (init 0); the batch norms also
hold the running statistics `_mean` (init 0) and `_variance` (init 1) as Paddle does: parameters with
stop_gradient=True (so `len(bn.parameters()) == 4`, and optimizers leave them alone). `layer.train()` makes a
batch norm normalize by batch statistics and update the running ones; `layer.eval()` makes it
use the running ones.
"""
from __future__ import annotations

import math
from numbers import Integral

from ...framework.parameter import ParamAttr
from ...framework.errors import invalid_argument
from ...framework.tensor import Tensor
from .. import functional as F
from ..initializer import Constant
from .layers import Layer

__all__ = ["BatchNorm", "BatchNorm1D", "BatchNorm2D", "BatchNorm3D", "LayerNorm", "GroupNorm",
           "InstanceNorm1D", "InstanceNorm2D", "InstanceNorm3D", "LocalResponseNorm"]


def _affine_parameters(layer: Layer, shape: list, weight_attr, bias_attr, fixed_when_false: bool) -> None:
    """weight (init 1) and bias (init 0). `False` means: none (fixed_when_false=False) or, as Paddle's
    batch norms do, a constant that is never trained (fixed_when_false=True)."""
    for name, attr, value in (("weight", weight_attr, 1.0), ("bias", bias_attr, 0.0)):
        is_bias = name == "bias"
        if attr is False and not fixed_when_false:
            param = None
        elif attr is False:
            param = layer.create_parameter(shape, None, is_bias=is_bias, default_initializer=Constant(value))
            param.stop_gradient = True
        else:
            param = layer.create_parameter(shape, attr, is_bias=is_bias, default_initializer=Constant(value))
        if param is None:
            layer.add_parameter(name, None)
        else:
            setattr(layer, name, param)


def _check_positive(layer: str, arg: str, value) -> int:
    if not isinstance(value, Integral) or isinstance(value, bool) or value <= 0:
        raise invalid_argument(layer, f"{arg} must be a positive int, got {value!r}.")
    return int(value)


class _BatchNormBase(Layer):
    """Shared by the batch norms: parameters, running statistics and the call to F.batch_norm."""

    _formats: tuple = ("NCHW", "NHWC")
    _ndims: tuple = (4,)

    def __init__(self, num_features: int, momentum: float = 0.9, epsilon: float = 1e-05, weight_attr=None,
                 bias_attr=None, data_format: str = "NCHW", use_global_stats: bool | None = None, name=None) -> None:
        super().__init__()
        num_features = _check_positive(type(self).__name__, "num_features", num_features)
        if data_format not in self._formats:
            raise invalid_argument(type(self).__name__, f"data_format {data_format!r} is not supported; expected "
                                                        f"one of {list(self._formats)}.")
        self._num_features = num_features
        self._momentum = momentum
        self._epsilon = epsilon
        self._data_format = data_format
        self._use_global_stats = use_global_stats
        _affine_parameters(self, [num_features], weight_attr, bias_attr, fixed_when_false=True)
        # Paddle keeps the running statistics as parameters that are never trained (stop_gradient=True,
        # trainable=False): they are in parameters() and state_dict(), optimizers skip them, and they
        # get Paddle's names (`batch_norm2d_0.w_1` / `.w_2`, after the weight's `.w_0`).
        for name, value in (("_mean", 0.0), ("_variance", 1.0)):
            stat = self.create_parameter([num_features], ParamAttr(trainable=False),
                                         default_initializer=Constant(value))
            setattr(self, name, stat)

    def _check_input(self, x: Tensor) -> None:
        if not isinstance(x, Tensor):
            raise invalid_argument(type(self).__name__, f"got {type(x).__name__}, expected a Tensor.")
        shape = x.shape
        if len(shape) not in self._ndims:
            dims = " or ".join(f"{n}-D" for n in self._ndims)
            raise invalid_argument(type(self).__name__, f"expected a {dims} input, got shape {shape}.")
        channels = shape[-1] if self._data_format in ("NLC", "NHWC", "NDHWC") and len(shape) > 2 else shape[1]
        if channels != self._num_features:
            raise invalid_argument(type(self).__name__,
                                   f"input has {channels} channels (shape {shape}, data_format "
                                   f"{self._data_format}), expected num_features={self._num_features}.")

    def forward(self, x: Tensor) -> Tensor:
        self._check_input(x)
        return F.batch_norm(x, self._mean, self._variance, self.weight, self.bias, training=self.training,
                            momentum=self._momentum, epsilon=self._epsilon, data_format=self._data_format,
                            use_global_stats=self._use_global_stats)

    def extra_repr(self) -> str:
        return f"num_features={self._num_features}, momentum={self._momentum}, epsilon={self._epsilon}, " \
               f"data_format={self._data_format}"


class BatchNorm1D(_BatchNormBase):
    """Batch norm over a 2-D [N, C] or 3-D [N, C, L] input (data_format "NC", "NCL" or "NLC")."""

    _formats = ("NC", "NCL", "NLC")
    _ndims = (2, 3)

    def __init__(self, num_features: int, momentum: float = 0.9, epsilon: float = 1e-05, weight_attr=None,
                 bias_attr=None, data_format: str = "NCL", use_global_stats: bool | None = None, name=None) -> None:
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format, use_global_stats)


class BatchNorm2D(_BatchNormBase):
    """Batch norm over a 4-D [N, C, H, W] input (or [N, H, W, C] with data_format "NHWC").

    >>> bn = paddle.nn.BatchNorm2D(16)                  # doctest: +SKIP
    >>> y = bn(x)          # training: batch stats, and bn._mean / bn._variance move towards them
    """

    _formats = ("NCHW", "NHWC")
    _ndims = (4,)


class BatchNorm3D(_BatchNormBase):
    """Batch norm over a 5-D [N, C, D, H, W] input (or [N, D, H, W, C] with data_format "NDHWC")."""

    _formats = ("NCDHW", "NDHWC")
    _ndims = (5,)

    def __init__(self, num_features: int, momentum: float = 0.9, epsilon: float = 1e-05, weight_attr=None,
                 bias_attr=None, data_format: str = "NCDHW", use_global_stats: bool | None = None, name=None) -> None:
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format, use_global_stats)


class BatchNorm(_BatchNormBase):
    """Paddle's older batch norm layer, for 2-D to 5-D channel-first (or channel-last) input, with an
    optional activation `act` applied after it. `is_test=True` always uses the running statistics."""

    _ndims = (2, 3, 4, 5)

    def __init__(self, num_channels: int, act: str | None = None, is_test: bool = False, momentum: float = 0.9,
                 epsilon: float = 1e-05, param_attr=None, bias_attr=None, dtype="float32", data_layout: str = "NCHW",
                 in_place: bool = False, moving_mean_name=None, moving_variance_name=None,
                 do_model_average_for_mean_and_var: bool = True, use_global_stats: bool = False,
                 trainable_statistics: bool = False) -> None:
        super().__init__(num_channels, momentum, epsilon, param_attr, bias_attr, data_layout,
                         use_global_stats or None)
        self.to(dtype=dtype)
        self._act = act
        self._is_test = is_test
        if act is not None:
            from ...framework.ops import activation
            if not hasattr(activation, act):
                raise invalid_argument("BatchNorm", f"act {act!r} is not an activation; expected e.g. 'relu'.")

    def forward(self, x: Tensor) -> Tensor:
        self._check_input(x)
        training = self.training and not self._is_test
        out = F.batch_norm(x, self._mean, self._variance, self.weight, self.bias, training=training,
                           momentum=self._momentum, epsilon=self._epsilon, data_format=self._data_format,
                           use_global_stats=self._use_global_stats)
        if self._act is None:
            return out
        from ...framework.ops import activation
        return getattr(activation, self._act)(out)


class LayerNorm(Layer):
    """Normalize each sample over its trailing dims `normalized_shape`; weight and bias have
    prod(normalized_shape) elements (stored flattened, as in Paddle)."""

    def __init__(self, normalized_shape, epsilon: float = 1e-05, weight_attr=None, bias_attr=None, name=None) -> None:
        super().__init__()
        if isinstance(normalized_shape, Integral):
            normalized_shape = [normalized_shape]
        self._normalized_shape = [_check_positive("LayerNorm", "normalized_shape", n) for n in normalized_shape]
        self._epsilon = epsilon
        _affine_parameters(self, [math.prod(self._normalized_shape)], weight_attr, bias_attr, fixed_when_false=False)

    def forward(self, x: Tensor) -> Tensor:
        return F.layer_norm(x, self._normalized_shape, self.weight, self.bias, self._epsilon)

    def extra_repr(self) -> str:
        return f"normalized_shape={self._normalized_shape}, epsilon={self._epsilon}"


class GroupNorm(Layer):
    """Split `num_channels` into `num_groups` groups and normalize each group of each sample."""

    def __init__(self, num_groups: int, num_channels: int, epsilon: float = 1e-05, weight_attr=None,
                 bias_attr=None, data_format: str = "NCHW", name=None) -> None:
        super().__init__()
        self._num_groups = _check_positive("GroupNorm", "num_groups", num_groups)
        self._num_channels = _check_positive("GroupNorm", "num_channels", num_channels)
        if num_channels % num_groups:
            raise invalid_argument("GroupNorm", f"num_channels ({num_channels}) must be divisible by num_groups "
                                                f"({num_groups}).")
        self._epsilon = epsilon
        self._data_format = data_format
        _affine_parameters(self, [num_channels], weight_attr, bias_attr, fixed_when_false=False)

    def forward(self, x: Tensor) -> Tensor:
        shape = x.shape if isinstance(x, Tensor) else []
        channels = shape[-1] if self._data_format in ("NLC", "NHWC", "NDHWC") and len(shape) > 2 else \
            shape[1] if len(shape) > 1 else None
        if channels != self._num_channels:
            raise invalid_argument("GroupNorm", f"input of shape {shape} has {channels} channels, expected "
                                                f"num_channels={self._num_channels}.")
        return F.group_norm(x, self._num_groups, self._epsilon, self.weight, self.bias, self._data_format)

    def extra_repr(self) -> str:
        return f"num_groups={self._num_groups}, num_channels={self._num_channels}, epsilon={self._epsilon}"


class _InstanceNormBase(Layer):
    """Normalize each channel of each sample over its spatial dims; per-channel `scale` and `bias`
    (Paddle's names for an instance norm's parameters)."""

    _ndims: tuple = (4,)

    def __init__(self, num_features: int, epsilon: float = 1e-05, momentum: float = 0.9, weight_attr=None,
                 bias_attr=None, data_format: str = "NCHW", name=None) -> None:
        super().__init__()
        self._num_features = _check_positive(type(self).__name__, "num_features", num_features)
        if (weight_attr is False) != (bias_attr is False):
            raise invalid_argument(type(self).__name__, "weight_attr and bias_attr must be False together.")
        self._epsilon = epsilon
        self._data_format = data_format
        if weight_attr is False:
            self.add_parameter("scale", None)
            self.add_parameter("bias", None)
        else:
            self.scale = self.create_parameter([num_features], weight_attr, default_initializer=Constant(1.0))
            self.bias = self.create_parameter([num_features], bias_attr, is_bias=True,
                                              default_initializer=Constant(0.0))

    def forward(self, x: Tensor) -> Tensor:
        shape = x.shape if isinstance(x, Tensor) else []
        if len(shape) not in self._ndims:
            dims = " or ".join(f"{n}-D" for n in self._ndims)
            raise invalid_argument(type(self).__name__, f"expected a {dims} input, got shape {shape}.")
        channels = shape[-1] if self._data_format in ("NLC", "NHWC", "NDHWC") else shape[1]
        if channels != self._num_features:
            raise invalid_argument(type(self).__name__, f"input of shape {shape} has {channels} channels, expected "
                                                        f"num_features={self._num_features}.")
        return F.instance_norm(x, weight=self.scale, bias=self.bias, eps=self._epsilon, data_format=self._data_format)

    def extra_repr(self) -> str:
        return f"num_features={self._num_features}, epsilon={self._epsilon}"


class InstanceNorm1D(_InstanceNormBase):
    """Instance norm over a 3-D [N, C, L] input."""

    _ndims = (3,)

    def __init__(self, num_features: int, epsilon: float = 1e-05, momentum: float = 0.9, weight_attr=None,
                 bias_attr=None, data_format: str = "NCL", name=None) -> None:
        super().__init__(num_features, epsilon, momentum, weight_attr, bias_attr, data_format)


class InstanceNorm2D(_InstanceNormBase):
    """Instance norm over a 4-D [N, C, H, W] input."""

    _ndims = (4,)


class InstanceNorm3D(_InstanceNormBase):
    """Instance norm over a 5-D [N, C, D, H, W] input."""

    _ndims = (5,)

    def __init__(self, num_features: int, epsilon: float = 1e-05, momentum: float = 0.9, weight_attr=None,
                 bias_attr=None, data_format: str = "NCDHW", name=None) -> None:
        super().__init__(num_features, epsilon, momentum, weight_attr, bias_attr, data_format)


class LocalResponseNorm(Layer):
    """F.local_response_norm as a layer: each value divided by (k + alpha/size * its channel neighbours'
    squares summed) ** beta."""

    def __init__(self, size: int, alpha: float = 0.0001, beta: float = 0.75, k: float = 1.0,
                 data_format: str = "NCHW", name: str | None = None) -> None:
        super().__init__()
        self.size, self.alpha, self.beta, self.k, self.data_format = size, alpha, beta, k, data_format

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k, self.data_format)

    def extra_repr(self) -> str:
        return f"size={self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
