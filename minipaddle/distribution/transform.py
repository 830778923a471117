"""Transforms y = f(x) with their inverse and log|det J|: the pieces of TransformedDistribution.

If x has density p(x) and y = f(x) is a bijection, y has density
    log p_y(y) = log p_x(f^-1(y)) - log|det df/dx|  at x = f^-1(y).
Each transform knows how many trailing dims form one event in its domain and codomain
(`_domain_rank`, `_codomain_rank`): SoftmaxTransform maps whole vectors, so its rank is 1; an
elementwise transform's is 0 and its log-det is elementwise.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

import minipaddle as paddle
import minipaddle.nn.functional as F
from ..framework.errors import invalid_argument, invalid_type, unimplemented
from ..framework.tensor import Tensor
from .distribution import Distribution, sum_rightmost

__all__ = ["Transform", "AbsTransform", "AffineTransform", "ChainTransform", "ExpTransform",
           "IndependentTransform", "PowerTransform", "ReshapeTransform", "SigmoidTransform",
           "SoftmaxTransform", "StackTransform", "StickBreakingTransform", "TanhTransform"]


class Transform:
    """Base class: subclasses define `_forward`, `_inverse` and `_forward_log_det_jacobian`."""

    _domain_rank = 0
    _codomain_rank = 0
    _injective = True

    def __call__(self, input):  # noqa: A002 - Paddle's name
        """A Tensor: forward(input); a Distribution: the transformed distribution; a Transform: the chain."""
        if isinstance(input, Distribution):
            from .transformed import TransformedDistribution
            return TransformedDistribution(input, [self])
        if isinstance(input, Transform):
            return ChainTransform([self, input])
        return self.forward(input)

    def _check(self, what: str, x, rank: int) -> None:
        if not isinstance(x, Tensor):
            raise invalid_type(f"{type(self).__name__}.{what}", f"expected a Tensor, got {type(x).__name__}.")
        if x.ndim < rank:
            raise invalid_argument(f"{type(self).__name__}.{what}",
                                   f"the input has {x.ndim} dims, expected at least {rank} (one event).")

    def forward(self, x: Tensor) -> Tensor:
        """y = f(x)."""
        self._check("forward", x, self._domain_rank)
        return self._forward(x)

    def inverse(self, y: Tensor) -> Tensor:
        """x = f^-1(y)."""
        self._check("inverse", y, self._codomain_rank)
        return self._inverse(y)

    def forward_log_det_jacobian(self, x: Tensor) -> Tensor:
        """log|det df/dx| at x, one value per event."""
        self._check("forward_log_det_jacobian", x, self._domain_rank)
        if not self._is_injective():
            raise unimplemented(f"{type(self).__name__}.forward_log_det_jacobian",
                                "the transform is not injective: its Jacobian has no single log-det.")
        return self._forward_log_det_jacobian(x)

    def inverse_log_det_jacobian(self, y: Tensor) -> Tensor:
        """log|det df^-1/dy| at y = -forward_log_det_jacobian(f^-1(y))."""
        self._check("inverse_log_det_jacobian", y, self._codomain_rank)
        return self._inverse_log_det_jacobian(y)

    def forward_shape(self, shape: Sequence[int]) -> tuple:
        """The shape of forward(x) for x of `shape`."""
        return tuple(self._forward_shape(tuple(shape)))

    def inverse_shape(self, shape: Sequence[int]) -> tuple:
        """The shape of inverse(y) for y of `shape`."""
        return tuple(self._inverse_shape(tuple(shape)))

    def _is_injective(self) -> bool:
        return self._injective

    def _forward(self, x):
        raise unimplemented(f"{type(self).__name__}.forward", "forward is not implemented.")

    def _inverse(self, y):
        raise unimplemented(f"{type(self).__name__}.inverse", "inverse is not implemented.")

    def _forward_log_det_jacobian(self, x):
        raise unimplemented(f"{type(self).__name__}.forward_log_det_jacobian", "not implemented.")

    def _inverse_log_det_jacobian(self, y):
        return -self._forward_log_det_jacobian(self._inverse(y))

    def _forward_shape(self, shape):
        return shape

    def _inverse_shape(self, shape):
        return shape


class AbsTransform(Transform):
    """y = |x|. Not injective: inverse(y) is the pair (-y, y)."""

    _injective = False

    def _forward(self, x):
        return x.abs()

    def _inverse(self, y):
        return -y, y

    def _inverse_log_det_jacobian(self, y):
        zero = paddle.zeros([], dtype=y.dtype)
        return zero, zero


class AffineTransform(Transform):
    """y = loc + scale * x."""

    def __init__(self, loc: Tensor, scale: Tensor) -> None:
        for name, value in (("loc", loc), ("scale", scale)):
            if not isinstance(value, Tensor):
                raise invalid_type("AffineTransform", f"{name} must be a Tensor, got {type(value).__name__}.")
        self._loc, self._scale = loc, scale

    @property
    def loc(self) -> Tensor:
        return self._loc

    @property
    def scale(self) -> Tensor:
        return self._scale

    def _forward(self, x):
        return self._loc + self._scale * x

    def _inverse(self, y):
        return (y - self._loc) / self._scale

    def _forward_log_det_jacobian(self, x):
        return self._scale.abs().log()   # Paddle's shape: the scale's (it broadcasts where it is used)

    def _forward_shape(self, shape):
        return np.broadcast_shapes(shape, tuple(self._loc.shape), tuple(self._scale.shape))

    _inverse_shape = _forward_shape


class ChainTransform(Transform):
    """The composition: transforms[0] is applied first."""

    def __init__(self, transforms: Sequence[Transform]) -> None:
        if not isinstance(transforms, Sequence) or not all(isinstance(t, Transform) for t in transforms):
            raise invalid_type("ChainTransform", "transforms must be a sequence of Transform objects.")
        self.transforms = list(transforms)

    def _is_injective(self) -> bool:
        return all(t._is_injective() for t in self.transforms)

    @property
    def _domain_rank(self) -> int:
        rank = self.transforms[-1]._codomain_rank if self.transforms else 0
        for t in reversed(self.transforms):
            rank = max(rank - (t._codomain_rank - t._domain_rank), t._domain_rank)
        return rank

    @property
    def _codomain_rank(self) -> int:
        rank = self.transforms[0]._domain_rank if self.transforms else 0
        for t in self.transforms:
            rank = max(rank + t._codomain_rank - t._domain_rank, t._codomain_rank)
        return rank

    def _forward(self, x):
        for t in self.transforms:
            x = t.forward(x)
        return x

    def _inverse(self, y):
        for t in reversed(self.transforms):
            y = t.inverse(y)
        return y

    def _forward_log_det_jacobian(self, x):
        value = 0.0
        rank = self._domain_rank
        for t in self.transforms:
            value = value + sum_rightmost(t.forward_log_det_jacobian(x), rank - t._domain_rank)
            x = t.forward(x)
            rank += t._codomain_rank - t._domain_rank
        return value

    def _forward_shape(self, shape):
        for t in self.transforms:
            shape = t.forward_shape(shape)
        return shape

    def _inverse_shape(self, shape):
        for t in reversed(self.transforms):
            shape = t.inverse_shape(shape)
        return shape


class ExpTransform(Transform):
    """y = exp(x); log|dy/dx| = x."""

    def _forward(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def _forward_log_det_jacobian(self, x):
        return x


class IndependentTransform(Transform):
    """Treats the rightmost `reinterpreted_batch_rank` batch dims of `base` as event dims."""

    def __init__(self, base: Transform, reinterpreted_batch_rank: int) -> None:
        if not isinstance(base, Transform):
            raise invalid_type("IndependentTransform", f"base must be a Transform, got {type(base).__name__}.")
        if not isinstance(reinterpreted_batch_rank, int) or reinterpreted_batch_rank <= 0:
            raise invalid_argument("IndependentTransform",
                                   "reinterpreted_batch_rank must be a positive int, "
                                   f"got {reinterpreted_batch_rank!r}.")
        self._base, self._rank = base, reinterpreted_batch_rank
        self._domain_rank = base._domain_rank + reinterpreted_batch_rank
        self._codomain_rank = base._codomain_rank + reinterpreted_batch_rank

    def _is_injective(self) -> bool:
        return self._base._is_injective()

    def _forward(self, x):
        return self._base.forward(x)

    def _inverse(self, y):
        return self._base.inverse(y)

    def _forward_log_det_jacobian(self, x):
        return sum_rightmost(self._base.forward_log_det_jacobian(x), self._rank)

    def _forward_shape(self, shape):
        return self._base.forward_shape(shape)

    def _inverse_shape(self, shape):
        return self._base.inverse_shape(shape)


class PowerTransform(Transform):
    """y = x ** power (on x > 0)."""

    def __init__(self, power: Tensor) -> None:
        if not isinstance(power, Tensor):
            raise invalid_type("PowerTransform", f"power must be a Tensor, got {type(power).__name__}.")
        self._power = power

    @property
    def power(self) -> Tensor:
        return self._power

    def _forward(self, x):
        return x.pow(self._power)

    def _inverse(self, y):
        return y.pow(1.0 / self._power)

    def _forward_log_det_jacobian(self, x):
        return (self._power * x.pow(self._power - 1.0)).abs().log()

    def _forward_shape(self, shape):
        return np.broadcast_shapes(shape, tuple(self._power.shape))

    _inverse_shape = _forward_shape


class ReshapeTransform(Transform):
    """Reshapes each event from `in_event_shape` to `out_event_shape` (same size); log-det 0."""

    def __init__(self, in_event_shape: Sequence[int], out_event_shape: Sequence[int]) -> None:
        if not isinstance(in_event_shape, Sequence) or not isinstance(out_event_shape, Sequence):
            raise invalid_type("ReshapeTransform", "in_event_shape and out_event_shape must be sequences of ints.")
        if math.prod(in_event_shape) != math.prod(out_event_shape):
            raise invalid_argument("ReshapeTransform", f"in_event_shape {list(in_event_shape)} and out_event_shape "
                                                       f"{list(out_event_shape)} hold different numbers of elements.")
        self._in_event_shape, self._out_event_shape = tuple(in_event_shape), tuple(out_event_shape)
        self._domain_rank, self._codomain_rank = len(self._in_event_shape), len(self._out_event_shape)

    @property
    def in_event_shape(self) -> tuple:
        return self._in_event_shape

    @property
    def out_event_shape(self) -> tuple:
        return self._out_event_shape

    def _forward(self, x):
        return x.reshape(list(x.shape[:x.ndim - self._domain_rank]) + list(self._out_event_shape))

    def _inverse(self, y):
        return y.reshape(list(y.shape[:y.ndim - self._codomain_rank]) + list(self._in_event_shape))

    def _forward_log_det_jacobian(self, x):
        return paddle.zeros(list(x.shape[:x.ndim - self._domain_rank]), dtype=x.dtype)

    def _swap_event(self, shape, old: tuple, new: tuple) -> tuple:
        if len(shape) < len(old) or tuple(shape[len(shape) - len(old):]) != old:
            raise invalid_argument("ReshapeTransform",
                                   f"shape {list(shape)} does not end with the event shape {list(old)}.")
        return tuple(shape[:len(shape) - len(old)]) + new

    def _forward_shape(self, shape):
        return self._swap_event(shape, self._in_event_shape, self._out_event_shape)

    def _inverse_shape(self, shape):
        return self._swap_event(shape, self._out_event_shape, self._in_event_shape)


class SigmoidTransform(Transform):
    """y = 1 / (1 + exp(-x)); log|dy/dx| = -softplus(-x) - softplus(x)."""

    def _forward(self, x):
        return F.sigmoid(x)

    def _inverse(self, y):
        return y.log() - (-y).log1p()

    def _forward_log_det_jacobian(self, x):
        return -F.softplus(-x) - F.softplus(x)


class SoftmaxTransform(Transform):
    """y = softmax(x) over the last axis. Not a bijection (adding a constant to x changes nothing)."""

    _domain_rank = 1
    _codomain_rank = 1
    _injective = False

    def _forward(self, x):
        return F.softmax(x, axis=-1)

    def _inverse(self, y):
        return y.log()

    def _forward_shape(self, shape):
        if len(shape) < 1:
            raise invalid_argument("SoftmaxTransform", f"shape {list(shape)} needs at least one dim.")
        return shape

    _inverse_shape = _forward_shape


class StackTransform(Transform):
    """Applies transforms[i] to slice i of `axis`."""

    def __init__(self, transforms: Sequence[Transform], axis: int = 0) -> None:
        if not isinstance(transforms, Sequence) or not all(isinstance(t, Transform) for t in transforms):
            raise invalid_type("StackTransform", "transforms must be a sequence of Transform objects.")
        if not isinstance(axis, int):
            raise invalid_type("StackTransform", f"axis must be an int, got {type(axis).__name__}.")
        self._transforms, self._axis = list(transforms), axis

    @property
    def transforms(self) -> list:
        return self._transforms

    @property
    def axis(self) -> int:
        return self._axis

    def _is_injective(self) -> bool:
        return all(t._is_injective() for t in self._transforms)

    def _map(self, v: Tensor, method: str) -> Tensor:
        if not -v.ndim <= self._axis < v.ndim or v.shape[self._axis] != len(self._transforms):
            raise invalid_argument("StackTransform", f"the input of shape {list(v.shape)} needs "
                                                     f"{len(self._transforms)} slices along axis {self._axis}.")
        parts = [part.squeeze(self._axis) for part in paddle.split(v, len(self._transforms), axis=self._axis)]
        return paddle.stack([getattr(t, method)(p) for p, t in zip(parts, self._transforms)], self._axis)

    def _forward(self, x):
        return self._map(x, "forward")

    def _inverse(self, y):
        return self._map(y, "inverse")

    def _forward_log_det_jacobian(self, x):
        return self._map(x, "forward_log_det_jacobian")


class StickBreakingTransform(Transform):
    """Maps R^k onto the (k+1)-simplex by breaking a stick: piece i takes sigmoid(x_i - log(k - i))."""

    _domain_rank = 1
    _codomain_rank = 1

    def _offset(self, k: int, dtype) -> Tensor:
        return paddle.to_tensor(np.log(np.arange(k, 0, -1, dtype=np.float64)).astype(dtype))

    def _forward(self, x):
        k = x.shape[-1]
        z = F.sigmoid(x - self._offset(k, x._data.dtype))
        one = paddle.ones(list(x.shape[:-1]) + [1], dtype=x.dtype)
        remaining = paddle.concat([one, (1.0 - z).cumprod(-1)], axis=-1)   # stick left before piece i
        return paddle.concat([z, one], axis=-1) * remaining

    def _inverse(self, y):
        y_crop = y[..., :-1]
        k = y_crop.shape[-1]
        left = 1.0 - y_crop.cumsum(-1)
        return y_crop.log() - left.log() + self._offset(k, y._data.dtype)

    def _forward_log_det_jacobian(self, x):
        y = self._forward(x)
        x = x - self._offset(x.shape[-1], x._data.dtype)
        return (-x + F.log_sigmoid(x) + y[..., :-1].log()).sum(-1)

    def _forward_shape(self, shape):
        if not shape:
            raise invalid_argument("StickBreakingTransform", "the shape needs at least one dim.")
        return tuple(shape[:-1]) + (shape[-1] + 1,)

    def _inverse_shape(self, shape):
        if not shape:
            raise invalid_argument("StickBreakingTransform", "the shape needs at least one dim.")
        return tuple(shape[:-1]) + (shape[-1] - 1,)


class TanhTransform(Transform):
    """y = tanh(x); log|dy/dx| = 2 (log 2 - x - softplus(-2x)), stable for large |x|."""

    def _forward(self, x):
        return x.tanh()

    def _inverse(self, y):
        return 0.5 * ((1.0 + y).log() - (1.0 - y).log())   # atanh

    def _forward_log_det_jacobian(self, x):
        return 2.0 * (math.log(2.0) - x - F.softplus(-2.0 * x))
