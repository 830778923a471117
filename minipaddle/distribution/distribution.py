"""The Distribution base class and the helpers every distribution shares.

A distribution holds its parameters as tensors. Its shape has two parts, as in Paddle:
`batch_shape` (independent distributions side by side) and `event_shape` (the shape of one draw:
[] for a scalar distribution, [k] for a k-dimensional one). `sample(shape)` returns
shape + batch_shape + event_shape.

Random draws come from minipaddle's generator (`paddle.seed` makes them reproducible). `rsample`
draws the noise with numpy and builds the sample from the parameters with minipaddle ops, so
gradients flow back to the parameters (the reparameterization trick); `sample` is the same draw
with the gradient cut.
"""
from __future__ import annotations

from collections.abc import Sequence
from numbers import Number

import numpy as np

import minipaddle as paddle
from ..framework import creation
from ..framework.dtype import default_float
from ..framework.errors import invalid_argument, invalid_type, unimplemented
from ..framework.tensor import Tensor


class Distribution:
    """The abstract base class of probability distributions.

    Args:
        batch_shape: the shape of a batch of independent, not identically distributed draws.
        event_shape: the shape of one draw ([] for a scalar distribution).
    """

    def __init__(self, batch_shape: Sequence[int] = (), event_shape: Sequence[int] = ()) -> None:
        self._batch_shape = tuple(batch_shape)
        self._event_shape = tuple(event_shape)

    @property
    def batch_shape(self) -> tuple:
        """The batch shape of the distribution."""
        return self._batch_shape

    @property
    def event_shape(self) -> tuple:
        """The shape of one draw."""
        return self._event_shape

    @property
    def mean(self) -> Tensor:
        raise unimplemented(f"{type(self).__name__}.mean", "this distribution has no mean defined.")

    @property
    def variance(self) -> Tensor:
        raise unimplemented(f"{type(self).__name__}.variance", "this distribution has no variance defined.")

    def sample(self, shape: Sequence[int] = ()) -> Tensor:
        """Draws of shape `shape + batch_shape + event_shape`, without gradient."""
        raise unimplemented(f"{type(self).__name__}.sample", "not defined for this distribution.")

    def rsample(self, shape: Sequence[int] = ()) -> Tensor:
        """Reparameterized draws: gradients flow back to the parameters."""
        raise unimplemented(f"{type(self).__name__}.rsample", "this distribution has no reparameterized sampler.",
                            hint="use sample() for draws without gradient.")

    def entropy(self) -> Tensor:
        raise unimplemented(f"{type(self).__name__}.entropy", "not defined for this distribution.")

    def kl_divergence(self, other: Distribution) -> Tensor:
        """KL(self || other), batchwise."""
        from .kl import kl_divergence
        return kl_divergence(self, other)

    def log_prob(self, value: Tensor) -> Tensor:
        raise unimplemented(f"{type(self).__name__}.log_prob", "not defined for this distribution.")

    def prob(self, value: Tensor) -> Tensor:
        """The density (or mass) at `value`: exp(log_prob(value))."""
        return self.log_prob(value).exp()

    def probs(self, value: Tensor) -> Tensor:
        """Deprecated in Paddle: the same as `prob`."""
        return self.prob(value)

    def _extend_shape(self, sample_shape: Sequence[int]) -> tuple:
        return tuple(sample_shape) + self._batch_shape + self._event_shape

    def __repr__(self) -> str:
        return f"{type(self).__name__}(batch_shape={list(self.batch_shape)}, event_shape={list(self.event_shape)})"


# ---- parameters and values -------------------------------------------------------------------
def param_dtype(values) -> np.dtype:
    """The dtype parameters share: the first floating Tensor's, else the default float (float32)."""
    for value in values:
        if isinstance(value, Tensor) and np.dtype(value._data.dtype).kind == "f":
            return np.dtype(value._data.dtype)
    return default_float()


def as_param(op: str, name: str, value, dtype) -> Tensor:
    """One parameter as a Tensor of `dtype`: numbers, lists and arrays are converted, Tensors cast."""
    if isinstance(value, Tensor):
        return value if value._data.dtype == dtype else value.astype(str(np.dtype(dtype)))
    if isinstance(value, bool) or not isinstance(value, (Number, list, tuple, np.ndarray, np.generic)):
        raise invalid_type(op, f"{name} must be a float, list, numpy.ndarray or Tensor, got {type(value).__name__}.")
    return paddle.to_tensor(np.asarray(value, dtype=dtype))


def broadcast_params(op: str, **params) -> list[Tensor]:
    """The parameters as Tensors of one float dtype, broadcast to one shape (the batch shape)."""
    dtype = param_dtype(params.values())
    tensors = [as_param(op, name, value, dtype) for name, value in params.items()]
    shapes = [tuple(t.shape) for t in tensors]
    try:
        shape = np.broadcast_shapes(*shapes)
    except ValueError:
        detail = ", ".join(f"{n} {list(s)}" for n, s in zip(params, shapes))
        raise invalid_argument(op, f"the parameters' shapes do not broadcast: {detail}.") from None
    return [t if tuple(t.shape) == shape else paddle.broadcast_to(t, list(shape)) for t in tensors]


def as_value(op: str, value, like: Tensor) -> Tensor:
    """A value to evaluate at, as a Tensor of the parameters' dtype (Paddle casts with a warning)."""
    if not isinstance(value, Tensor):
        if isinstance(value, bool) or not isinstance(value, (Number, list, tuple, np.ndarray, np.generic)):
            raise invalid_type(op, f"value must be a Tensor or a number, got {type(value).__name__}.")
        return paddle.to_tensor(np.asarray(value, dtype=like._data.dtype))
    if value._data.dtype != like._data.dtype:
        return value.astype(str(like._data.dtype))
    return value


def sample_shape(op: str, shape) -> tuple:
    """`shape` as a tuple of ints, or a clear error."""
    if isinstance(shape, Tensor):
        shape = shape.numpy().tolist()
    if not isinstance(shape, (Sequence, np.ndarray)) or isinstance(shape, str):
        raise invalid_type(op, f"shape must be a sequence of ints, got {type(shape).__name__}.")
    shape = tuple(shape)
    if not all(isinstance(d, (int, np.integer)) and not isinstance(d, bool) and d >= 0 for d in shape):
        raise invalid_argument(op, f"shape must hold non-negative ints, got {list(shape)}.")
    return tuple(int(d) for d in shape)


def require_positive(op: str, name: str, value: Tensor, allow_zero: bool = False) -> None:
    """Paddle checks a few parameters' signs eagerly (StudentT's df and scale, ...)."""
    data = value.numpy()
    bad = data < 0 if allow_zero else data <= 0
    if np.any(bad):
        expected = "non-negative" if allow_zero else "positive"
        raise invalid_argument(op, f"every element of {name} must be {expected}; got {data.ravel()[:6].tolist()}.")


def generator() -> np.random.Generator:
    """minipaddle's random generator (paddle.seed resets it)."""
    return creation.generator()


def noise(draw, dtype) -> Tensor:
    """A tensor of numpy draws (`draw` is an array) in `dtype`; it needs no gradient."""
    return paddle.to_tensor(np.asarray(draw).astype(dtype, copy=False))


def sum_rightmost(value: Tensor, n: int) -> Tensor:
    """Sum the last `n` dims (an event's log-densities add up)."""
    return value.sum(list(range(-n, 0))) if n > 0 else value


def float_eps(dtype) -> float:
    return float(np.finfo(np.dtype(dtype)).eps)


def float_tiny(dtype) -> float:
    return float(np.finfo(np.dtype(dtype)).tiny)
