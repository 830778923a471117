"""paddle.regularizer: weight decay added to a parameter's gradient before the optimizer's update.

    opt = paddle.optimizer.SGD(0.1, parameters=params, weight_decay=paddle.regularizer.L2Decay(1e-4))

`L2Decay(coeff)` adds `coeff * param` to the gradient (the gradient of `coeff/2 * ||param||^2`),
`L1Decay(coeff)` adds `coeff * sign(param)`. A float `weight_decay` means `L2Decay(weight_decay)`.
A parameter's own regularizer (`ParamAttr(regularizer=...)`) wins over the optimizer's, as in Paddle.
"""
from __future__ import annotations

import numpy as np

from .framework.errors import invalid_argument
from .framework.tensor import Tensor

__all__ = ["L1Decay", "L2Decay", "WeightDecayRegularizer"]


class WeightDecayRegularizer:
    """Base class: a regularizer turns (param, grad) into the term added to the gradient."""

    def __init__(self, coeff: float = 0.0) -> None:
        if isinstance(coeff, bool) or not isinstance(coeff, (int, float)):
            raise invalid_argument(type(self).__name__, f"coeff must be a number, got {type(coeff).__name__}.")
        self._coeff = float(coeff)

    @property
    def coeff(self) -> float:
        return self._coeff

    def _term(self, param: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _apply(self, param: np.ndarray, grad: np.ndarray) -> np.ndarray:
        """The regularized gradient as a new array (the `.grad` a user sees stays untouched)."""
        return grad + self._term(param)

    def __call__(self, param: Tensor, grad: Tensor | None = None, block=None) -> Tensor:
        """The decay term for `param` (what Paddle appends to the gradient), as a Tensor."""
        if not isinstance(param, Tensor):
            raise invalid_argument(type(self).__name__, f"param must be a Tensor, got {type(param).__name__}.")
        return Tensor._wrap(self._term(param._data))

    def __str__(self) -> str:
        return f"{type(self).__name__}, coeff={self._coeff:f}"

    __repr__ = __str__


class L2Decay(WeightDecayRegularizer):
    """gradient += coeff * param."""

    def _term(self, param: np.ndarray) -> np.ndarray:
        return self._coeff * param


class L1Decay(WeightDecayRegularizer):
    """gradient += coeff * sign(param): pushes small weights to exactly zero."""

    def _term(self, param: np.ndarray) -> np.ndarray:
        return self._coeff * np.sign(param)
