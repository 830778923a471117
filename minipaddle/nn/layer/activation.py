"""Activations as layers: ReLU, GELU, Sigmoid, Tanh, Softmax, LeakyReLU, PReLU, ... (Paddle's `paddle.nn`).

A layer here only remembers its settings and calls the functional form, so `nn.LeakyReLU(0.2)(x)` is
`F.leaky_relu(x, 0.2)`. Most share the small `_Activation` base: a subclass names its function and
passes its settings as keyword arguments, which also make up its repr (`LeakyReLU(negative_slope=0.2)`).
PReLU owns a parameter (the slopes); RReLU reads `self.training`.
"""
from __future__ import annotations

from ...framework.dtype import get_default_dtype
from ...framework.errors import invalid_argument
from ...framework.tensor import Tensor
from .. import functional as F
from ..initializer import Constant
from .layers import Layer

__all__ = ["CELU", "ELU", "GELU", "GLU", "Hardshrink", "Hardsigmoid", "Hardswish", "Hardtanh", "LeakyReLU",
           "LogSigmoid", "LogSoftmax", "Maxout", "Mish", "PReLU", "ReLU", "ReLU6", "RReLU", "SELU", "Sigmoid",
           "SiLU", "Silu", "Softmax", "Softmax2D", "Softplus", "Softshrink", "Softsign", "Swish", "Tanh",
           "Tanhshrink", "ThresholdedReLU"]


class _Activation(Layer):
    """A layer that applies `_fn(x, **settings)`; the settings are its repr."""

    _fn = None

    def __init__(self, name: str | None = None, **settings) -> None:
        super().__init__()
        self._settings = settings
        self._layer_name = name

    def forward(self, x: Tensor) -> Tensor:
        return type(self)._fn(x, **self._settings)

    def extra_repr(self) -> str:
        parts = [f"{k}={v}" for k, v in self._settings.items()]
        if self._layer_name:
            parts.append(f"name={self._layer_name}")
        return ", ".join(parts)


# ---- no settings -----------------------------------------------------------------------------
class ReLU(_Activation):
    """max(x, 0)."""
    _fn = staticmethod(F.relu)


class ReLU6(_Activation):
    """min(max(x, 0), 6)."""
    _fn = staticmethod(F.relu6)


class Sigmoid(_Activation):
    """1 / (1 + exp(-x))."""
    _fn = staticmethod(F.sigmoid)


class Tanh(_Activation):
    """tanh(x)."""
    _fn = staticmethod(F.tanh)


class SiLU(_Activation):
    """x * sigmoid(x)."""
    _fn = staticmethod(F.silu)


Silu = SiLU  # Paddle spells the class both ways


class Swish(_Activation):
    """x * sigmoid(x) (the same as SiLU)."""
    _fn = staticmethod(F.swish)


class Softsign(_Activation):
    """x / (1 + |x|)."""
    _fn = staticmethod(F.softsign)


class Hardswish(_Activation):
    """x * relu6(x + 3) / 6."""
    _fn = staticmethod(F.hardswish)


class Hardsigmoid(_Activation):
    """clip(x / 6 + 0.5, 0, 1) (slope 0.1666667, offset 0.5, as Paddle's layer)."""
    _fn = staticmethod(F.hardsigmoid)


class Mish(_Activation):
    """x * tanh(softplus(x))."""
    _fn = staticmethod(F.mish)


class LogSigmoid(_Activation):
    """log(sigmoid(x))."""
    _fn = staticmethod(F.log_sigmoid)


class Tanhshrink(_Activation):
    """x - tanh(x)."""
    _fn = staticmethod(F.tanhshrink)


# ---- with settings ---------------------------------------------------------------------------
class GELU(_Activation):
    """x * Phi(x); approximate=True uses the tanh formula."""
    _fn = staticmethod(F.gelu)

    def __init__(self, approximate: bool = False, name: str | None = None) -> None:
        super().__init__(name, approximate=approximate)


class LeakyReLU(_Activation):
    """x where x > 0, else negative_slope * x."""
    _fn = staticmethod(F.leaky_relu)

    def __init__(self, negative_slope: float = 0.01, name: str | None = None) -> None:
        super().__init__(name, negative_slope=negative_slope)


class ELU(_Activation):
    """x where x > 0, else alpha * (exp(x) - 1)."""
    _fn = staticmethod(F.elu)

    def __init__(self, alpha: float = 1.0, name: str | None = None) -> None:
        super().__init__(name, alpha=alpha)


class CELU(_Activation):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    _fn = staticmethod(F.celu)

    def __init__(self, alpha: float = 1.0, name: str | None = None) -> None:
        super().__init__(name, alpha=alpha)


class SELU(_Activation):
    """scale * (x where x > 0, else alpha * (exp(x) - 1))."""
    _fn = staticmethod(F.selu)

    def __init__(self, scale: float = 1.0507009873554804934193349852946,
                 alpha: float = 1.6732632423543772848170429916717, name: str | None = None) -> None:
        super().__init__(name, scale=scale, alpha=alpha)


class Softplus(_Activation):
    """log(1 + exp(beta * x)) / beta; x itself where beta * x > threshold."""
    _fn = staticmethod(F.softplus)

    def __init__(self, beta: float = 1, threshold: float = 20, name: str | None = None) -> None:
        super().__init__(name, beta=beta, threshold=threshold)


class Hardtanh(_Activation):
    """clip(x, min, max)."""
    _fn = staticmethod(F.hardtanh)

    def __init__(self, min: float = -1.0, max: float = 1.0, name: str | None = None) -> None:  # noqa: A002
        super().__init__(name, min=min, max=max)


class Hardshrink(_Activation):
    """x where |x| > threshold, else 0."""
    _fn = staticmethod(F.hardshrink)

    def __init__(self, threshold: float = 0.5, name: str | None = None) -> None:
        super().__init__(name, threshold=threshold)


class Softshrink(_Activation):
    """x - threshold above threshold, x + threshold below -threshold, else 0."""
    _fn = staticmethod(F.softshrink)

    def __init__(self, threshold: float = 0.5, name: str | None = None) -> None:
        super().__init__(name, threshold=threshold)


class ThresholdedReLU(_Activation):
    """x where x > threshold, else value."""
    _fn = staticmethod(F.thresholded_relu)

    def __init__(self, threshold: float = 1.0, value: float = 0.0, name: str | None = None) -> None:
        super().__init__(name, threshold=threshold, value=value)


class Softmax(_Activation):
    """exp(x) / sum(exp(x)) along `axis`."""
    _fn = staticmethod(F.softmax)

    def __init__(self, axis: int = -1, name: str | None = None) -> None:
        super().__init__(name, axis=axis)


class LogSoftmax(_Activation):
    """log(softmax(x)) along `axis`."""
    _fn = staticmethod(F.log_softmax)

    def __init__(self, axis: int = -1, name: str | None = None) -> None:
        super().__init__(name, axis=axis)


class GLU(_Activation):
    """a * sigmoid(b) for the two halves a, b of x along `axis`."""
    _fn = staticmethod(F.glu)

    def __init__(self, axis: int = -1, name: str | None = None) -> None:
        super().__init__(name, axis=axis)


class Maxout(_Activation):
    """The max over each run of `groups` channels."""
    _fn = staticmethod(F.maxout)

    def __init__(self, groups: int, axis: int = 1, name: str | None = None) -> None:
        super().__init__(name, groups=groups, axis=axis)


class Softmax2D(Layer):
    """Softmax over the channels of [C, H, W] or [N, C, H, W] inputs."""

    def forward(self, x: Tensor) -> Tensor:
        if x.ndim not in (3, 4):
            raise invalid_argument("Softmax2D", f"x has shape {x.shape}, expected a 3-D or 4-D tensor.")
        return F.softmax(x, axis=-3)


class RReLU(Layer):
    """x where x >= 0, else x times a slope ~ U(lower, upper) while training, (lower + upper) / 2 in eval."""

    def __init__(self, lower: float = 1.0 / 8.0, upper: float = 1.0 / 3.0, name: str | None = None) -> None:
        super().__init__()
        self.lower, self.upper, self._layer_name = lower, upper, name

    def forward(self, x: Tensor) -> Tensor:
        return F.rrelu(x, self.lower, self.upper, training=self.training)

    def extra_repr(self) -> str:
        text = f"lower={self.lower}, upper={self.upper}"
        return f"{text}, name={self._layer_name}" if self._layer_name else text


class PReLU(Layer):
    """x where x > 0, else weight * x, with a learned weight: one slope shared (num_parameters=1) or one
    per channel (num_parameters=C). The slopes start at `init` (0.25)."""

    def __init__(self, num_parameters: int = 1, init: float = 0.25, weight_attr=None, data_format: str = "NCHW",
                 name: str | None = None) -> None:
        super().__init__(dtype=get_default_dtype())
        if not isinstance(num_parameters, int) or isinstance(num_parameters, bool) or num_parameters < 1:
            raise invalid_argument("PReLU", f"num_parameters got {num_parameters!r}, expected an int >= 1.")
        self._num_parameters, self._init, self._data_format = num_parameters, init, data_format
        self._layer_name = name
        self.weight = self.create_parameter([num_parameters], attr=weight_attr, is_bias=False,
                                            default_initializer=Constant(init))

    def forward(self, x: Tensor) -> Tensor:
        return F.prelu(x, self.weight, data_format=self._data_format)

    def extra_repr(self) -> str:
        text = (f"num_parameters={self._num_parameters}, data_format={self._data_format}, init={self._init}, "
                f"dtype={self._dtype}")
        return f"{text}, name={self._layer_name}" if self._layer_name else text
