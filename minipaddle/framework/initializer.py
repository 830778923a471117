"""Parameter initializers (Paddle's `paddle.nn.initializer`): callables that fill a Parameter in place.

They live in the core because the core creates parameters (`paddle.create_parameter`, a static
Program's startup ops); `paddle.nn.initializer` re-exports these very classes.

fan_in / fan_out follow Paddle: for a Linear weight [in, out], fan_in=in and fan_out=out; for a conv
weight [out_c, in_c, k...], fan_in = in_c * prod(k) and fan_out = out_c * prod(k). Random draws use
the generator `paddle.seed` sets, on the host, so a GPU parameter gets the numbers a CPU one would.
"""
from __future__ import annotations

import math

import numpy as np

from . import gpu
from .creation import generator
from .errors import invalid_argument
from .registry import DEVICE_ARRAY_TYPES

__all__ = ["Initializer", "Constant", "Normal", "Uniform", "TruncatedNormal", "XavierNormal", "XavierUniform",
           "KaimingNormal", "KaimingUniform", "Assign", "Orthogonal", "Dirac", "calculate_gain"]


def _fans(shape: tuple) -> tuple[int, int]:
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = math.prod(shape[2:])
    return shape[1] * receptive, shape[0] * receptive


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The gain Kaiming/Xavier scale by: 1 for linear/sigmoid, sqrt(2) for relu, ..."""
    gains = {"sigmoid": 1.0, "linear": 1.0, "conv1d": 1.0, "conv2d": 1.0, "conv3d": 1.0,
             "tanh": 5.0 / 3, "relu": math.sqrt(2.0), "selu": 3.0 / 4}
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity not in gains:
        raise invalid_argument("calculate_gain", f"unknown nonlinearity {nonlinearity!r}, expected one of "
                                                 f"{sorted(gains) + ['leaky_relu']}.")
    return gains[nonlinearity]


class Initializer:
    """Base class: `init(param)` overwrites `param`'s values and returns it."""

    def __call__(self, param, block=None):
        data = param._data
        values = self._values(tuple(data.shape)).astype(data.dtype, copy=False)
        if type(data) in DEVICE_ARRAY_TYPES:  # drawn on the host (the same numbers as on the CPU), then copied in
            data.copy_to_device(gpu.to_device(values))
        else:
            data[...] = values
        param._bump_version()
        return param

    def _values(self, shape: tuple) -> np.ndarray:
        raise NotImplementedError

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({fields})"


class Constant(Initializer):
    def __init__(self, value: float = 0.0) -> None:
        self.value = value

    def _values(self, shape):
        return np.full(shape, self.value)


class Normal(Initializer):
    def __init__(self, mean: float = 0.0, std: float = 1.0, name=None) -> None:
        if std < 0:
            raise invalid_argument("Normal", f"std must be >= 0, got {std}.")
        self.mean, self.std = mean, std

    def _values(self, shape):
        return generator().normal(self.mean, self.std, size=shape)


class TruncatedNormal(Initializer):
    """Normal(mean, std) redrawn until every value lies within [a, b] (default mean ± 2 std)."""

    def __init__(self, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0, name=None) -> None:
        if std < 0 or a >= b:
            raise invalid_argument("TruncatedNormal", f"need std >= 0 and a < b, got std={std}, a={a}, b={b}.")
        self.mean, self.std, self.a, self.b = mean, std, a, b

    def _values(self, shape):
        rng = generator()
        lo, hi = self.mean + self.a * self.std, self.mean + self.b * self.std
        out = rng.normal(self.mean, self.std, size=shape)
        bad = (out < lo) | (out > hi)
        while bad.any():
            out[bad] = rng.normal(self.mean, self.std, size=int(bad.sum()))
            bad = (out < lo) | (out > hi)
        return out


class Uniform(Initializer):
    def __init__(self, low: float = -1.0, high: float = 1.0, name=None) -> None:
        if low > high:
            raise invalid_argument("Uniform", f"low ({low}) must be <= high ({high}).")
        self.low, self.high = low, high

    def _values(self, shape):
        return generator().uniform(self.low, self.high, size=shape)


class XavierNormal(Initializer):
    """Glorot normal: std = gain * sqrt(2 / (fan_in + fan_out))."""

    def __init__(self, fan_in=None, fan_out=None, gain: float = 1.0, name=None) -> None:
        self.fan_in, self.fan_out, self.gain = fan_in, fan_out, gain

    def _values(self, shape):
        fi, fo = _fans(shape)
        fi, fo = self.fan_in or fi, self.fan_out or fo
        return generator().normal(0.0, self.gain * math.sqrt(2.0 / (fi + fo)), size=shape)


class XavierUniform(Initializer):
    """Glorot uniform: U(-limit, limit), limit = gain * sqrt(6 / (fan_in + fan_out))."""

    def __init__(self, fan_in=None, fan_out=None, gain: float = 1.0, name=None) -> None:
        self.fan_in, self.fan_out, self.gain = fan_in, fan_out, gain

    def _values(self, shape):
        fi, fo = _fans(shape)
        fi, fo = self.fan_in or fi, self.fan_out or fo
        limit = self.gain * math.sqrt(6.0 / (fi + fo))
        return generator().uniform(-limit, limit, size=shape)


class KaimingNormal(Initializer):
    """He normal: std = gain / sqrt(fan_in), gain from `nonlinearity` (relu: sqrt(2))."""

    def __init__(self, fan_in=None, negative_slope: float = 0.0, nonlinearity: str = "relu") -> None:
        self.fan_in, self.negative_slope, self.nonlinearity = fan_in, negative_slope, nonlinearity

    def _values(self, shape):
        fi = self.fan_in or _fans(shape)[0]
        gain = calculate_gain(self.nonlinearity, self.negative_slope)
        return generator().normal(0.0, gain / math.sqrt(fi), size=shape)


class KaimingUniform(Initializer):
    """He uniform: U(-limit, limit), limit = gain * sqrt(3 / fan_in)."""

    def __init__(self, fan_in=None, negative_slope: float = 0.0, nonlinearity: str = "relu") -> None:
        self.fan_in, self.negative_slope, self.nonlinearity = fan_in, negative_slope, nonlinearity

    def _values(self, shape):
        fi = self.fan_in or _fans(shape)[0]
        limit = calculate_gain(self.nonlinearity, self.negative_slope) * math.sqrt(3.0 / fi)
        return generator().uniform(-limit, limit, size=shape)


class Assign(Initializer):
    """Copy given values (a list, numpy array or Tensor) into the parameter; shapes must match."""

    def __init__(self, value, name=None) -> None:
        data = value._data if hasattr(value, "_data") else value
        self.value = gpu.to_host(data) if type(data) in DEVICE_ARRAY_TYPES else np.asarray(data)

    def _values(self, shape):
        if self.value.shape != shape:
            raise invalid_argument("Assign", f"the value has shape {list(self.value.shape)}, "
                                             f"the parameter {list(shape)}.")
        return self.value


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix times `gain`: the parameter seen as [shape[0], prod(rest)] has orthonormal
    rows (or columns, whichever are fewer). As Paddle: the Q of a QR of a Gaussian matrix, signs fixed by R's
    diagonal so the result is uniformly distributed.
    """

    def __init__(self, gain: float = 1.0, name=None) -> None:
        if gain is None or isinstance(gain, bool) or not isinstance(gain, (int, float, np.number)):
            raise invalid_argument("Orthogonal", f"gain must be a number, got {gain!r}.")
        self.gain = float(gain)

    def _values(self, shape):
        if len(shape) < 2:
            raise invalid_argument("Orthogonal", f"the parameter has shape {list(shape)}; only tensors with 2 or "
                                                 "more dimensions can be orthogonal.")
        rows, cols = shape[0], math.prod(shape[1:])
        gaussian = generator().normal(0.0, 1.0, size=(max(rows, cols), min(rows, cols)))
        q, r = np.linalg.qr(gaussian)
        q = q * np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        return q.reshape(shape) * self.gain


class Dirac(Initializer):
    """The identity convolution: a 3/4/5-D conv weight [out, in, k...] that is zero except a 1 at the kernel's
    centre for out channel g * out_per_group + j and in channel j, j < min(out_per_group, in) -- so the
    convolution copies its first input channels (per group) to its output.
    """

    def __init__(self, groups: int = 1, name=None) -> None:
        if isinstance(groups, bool) or not isinstance(groups, int) or groups <= 0:
            raise invalid_argument("Dirac", f"groups must be a positive int, got {groups!r}.")
        self.groups = groups

    def _values(self, shape):
        if len(shape) not in (3, 4, 5):
            raise invalid_argument("Dirac", f"the parameter has shape {list(shape)}; only 3-, 4- or 5-D "
                                            "convolution weights can be initialized by Dirac.")
        if shape[0] % self.groups:
            raise invalid_argument("Dirac", f"the parameter's dim 0 ({shape[0]}) must be divisible by groups "
                                            f"({self.groups}).")
        out = np.zeros(shape)
        per_group = shape[0] // self.groups
        centre = tuple(k // 2 for k in shape[2:])
        for g in range(self.groups):
            for j in range(min(per_group, shape[1])):
                out[(g * per_group + j, j) + centre] = 1.0
        return out
