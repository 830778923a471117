"""Distributions built from others: Independent (batch dims become event dims) and
TransformedDistribution (the distribution of y = f(x) for a chain of transforms f).
"""
from __future__ import annotations

from collections.abc import Sequence

from ..framework.errors import invalid_argument, invalid_type
from ..framework.tensor import Tensor
from .distribution import Distribution, sum_rightmost
from .transform import ChainTransform, Transform


class Independent(Distribution):
    """Reinterprets the rightmost `reinterpreted_batch_rank` batch dims of `base` as event dims:
    log_prob sums over them.

    >>> d = Independent(Normal(paddle.zeros([3]), paddle.ones([3])), 1)   # doctest: +SKIP
    >>> d.batch_shape, d.event_shape                                       # doctest: +SKIP
    ((), (3,))
    """

    def __init__(self, base: Distribution, reinterpreted_batch_rank: int) -> None:
        if not isinstance(base, Distribution):
            raise invalid_type("Independent", f"base must be a Distribution, got {type(base).__name__}.")
        if not isinstance(reinterpreted_batch_rank, int) or not 0 < reinterpreted_batch_rank <= len(base.batch_shape):
            raise invalid_argument("Independent", f"expected 0 < reinterpreted_batch_rank <= {len(base.batch_shape)} "
                                                  f"(the base's batch rank), got {reinterpreted_batch_rank!r}.")
        self._base = base
        self._reinterpreted_batch_rank = reinterpreted_batch_rank
        shape = tuple(base.batch_shape) + tuple(base.event_shape)
        cut = len(base.batch_shape) - reinterpreted_batch_rank
        super().__init__(shape[:cut], shape[cut:])

    @property
    def mean(self) -> Tensor:
        return self._base.mean

    @property
    def variance(self) -> Tensor:
        return self._base.variance

    def sample(self, shape: Sequence[int] = ()) -> Tensor:
        return self._base.sample(shape)

    def rsample(self, shape: Sequence[int] = ()) -> Tensor:
        return self._base.rsample(shape)

    def log_prob(self, value: Tensor) -> Tensor:
        return sum_rightmost(self._base.log_prob(value), self._reinterpreted_batch_rank)

    def entropy(self) -> Tensor:
        return sum_rightmost(self._base.entropy(), self._reinterpreted_batch_rank)


class TransformedDistribution(Distribution):
    """The distribution of y = t_n(...t_1(x)) for x ~ base.

    log p(y) = log p_base(x) - sum_i log|det J_{t_i}| along the chain back from y to x.
    """

    def __init__(self, base: Distribution, transforms: Sequence[Transform]) -> None:
        if not isinstance(base, Distribution):
            raise invalid_type("TransformedDistribution", f"base must be a Distribution, got {type(base).__name__}.")
        if not isinstance(transforms, Sequence) or not all(isinstance(t, Transform) for t in transforms):
            raise invalid_type("TransformedDistribution", "transforms must be a sequence of Transform objects.")
        self._base = base
        self._transforms = list(transforms)
        if not transforms:
            super().__init__(base.batch_shape, base.event_shape)
            return
        chain = ChainTransform(transforms)
        base_shape = tuple(base.batch_shape) + tuple(base.event_shape)
        if len(base_shape) < chain._domain_rank:
            raise invalid_argument("TransformedDistribution", f"base needs at least {chain._domain_rank} dims "
                                                              f"(batch + event), got {len(base_shape)}.")
        if chain._domain_rank > len(base.event_shape):
            base = Independent(base, chain._domain_rank - len(base.event_shape))
            self._base = base
        shape = chain.forward_shape(base_shape)
        event_rank = max(chain._codomain_rank, len(base.event_shape) + chain._codomain_rank - chain._domain_rank)
        super().__init__(shape[:len(shape) - event_rank], shape[len(shape) - event_rank:])

    def sample(self, shape: Sequence[int] = ()) -> Tensor:
        x = self._base.sample(shape)
        for t in self._transforms:
            x = t.forward(x)
        return x

    def rsample(self, shape: Sequence[int] = ()) -> Tensor:
        x = self._base.rsample(shape)
        for t in self._transforms:
            x = t.forward(x)
        return x

    def log_prob(self, value: Tensor) -> Tensor:
        log_prob = 0.0
        y = value
        event_rank = len(self.event_shape)
        for t in reversed(self._transforms):
            x = t.inverse(y)
            event_rank += t._domain_rank - t._codomain_rank
            log_prob = log_prob - sum_rightmost(t.forward_log_det_jacobian(x), event_rank - t._domain_rank)
            y = x
        return log_prob + sum_rightmost(self._base.log_prob(y), event_rank - len(self._base.event_shape))
