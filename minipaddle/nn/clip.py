"""Gradient clipping: ClipGradByValue, ClipGradByNorm, ClipGradByGlobalNorm.

Give one to an optimizer (`paddle.optimizer.SGD(..., grad_clip=paddle.nn.ClipGradByGlobalNorm(1.0))`)
and it clips the gradients before every update. Called directly, a clip maps a list of
`(param, grad)` pairs to a new list, leaving each parameter's `.grad` untouched, as Paddle's does.
Parameters with `need_clip=False` (`ParamAttr(need_clip=False)`) keep their gradient unclipped.
"""
from __future__ import annotations

import math

import numpy as np

from ..framework.errors import invalid_argument
from ..framework.tensor import Tensor

__all__ = ["ClipGradByGlobalNorm", "ClipGradByNorm", "ClipGradByValue"]


def _sum_squares(g: np.ndarray) -> float:
    """sum(g * g) by a BLAS dot (one pass, no temporary); float16 is summed in float32, as Paddle does."""
    flat = g.reshape(-1)
    if flat.dtype == np.float16:
        flat = flat.astype(np.float32)
    return float(np.dot(flat, flat))


def _number(api: str, name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
        raise invalid_argument(api, f"{name} must be a number, got {type(value).__name__}.")
    return float(value)


class ClipGradBase:
    """Base class of the gradient clips (Paddle's GradientClipBase)."""

    def __call__(self, params_grads: list) -> list:
        """`[(param, grad Tensor or None), ...]` -> the same list with clipped gradients."""
        params, grads, positions = [], [], []
        for i, (p, g) in enumerate(params_grads):
            if g is not None:
                params.append(p)
                grads.append(g._data if isinstance(g, Tensor) else np.asarray(g))
                positions.append(i)
        out = list(params_grads)
        for i, p, old, new in zip(positions, params, grads, self._clip_arrays(params, grads)):
            out[i] = (p, params_grads[i][1] if new is old else Tensor._wrap(new))
        return out

    def _clip_arrays(self, params: list, grads: list) -> list:
        """The optimizer's fast path: numpy gradients in, numpy gradients out (new arrays where clipped)."""
        raise NotImplementedError


class ClipGradByValue(ClipGradBase):
    """Clip every gradient element into [min, max]; `min` defaults to `-max`.

    >>> clip = paddle.nn.ClipGradByValue(max=1.0)   # grads limited to [-1, 1]   # doctest: +SKIP
    """

    def __init__(self, max: float, min: float | None = None) -> None:  # noqa: A002 - Paddle's names
        max_ = _number("ClipGradByValue", "max", max)
        if min is None:
            if max_ <= 0:
                raise invalid_argument("ClipGradByValue", f"max must be > 0 when min is not given, got {max_}.",
                                       hint="min defaults to -max.")
            min_ = -max_
        else:
            min_ = _number("ClipGradByValue", "min", min)
        if min_ > max_:
            raise invalid_argument("ClipGradByValue", f"min ({min_}) must not be greater than max ({max_}).")
        self.max = max_
        self.min = min_

    def _clip_arrays(self, params: list, grads: list) -> list:
        return [np.clip(g, self.min, self.max) if getattr(p, "need_clip", True) else g
                for p, g in zip(params, grads)]

    def __str__(self) -> str:
        return f"Clip Gradient By Value, min = {self.min:f}, max={self.max:f}"


class ClipGradByNorm(ClipGradBase):
    """Rescale each gradient on its own so that its L2 norm is at most `clip_norm`:
    `g * clip_norm / max(norm(g), clip_norm)`."""

    def __init__(self, clip_norm: float) -> None:
        self.clip_norm = _number("ClipGradByNorm", "clip_norm", clip_norm)
        if self.clip_norm <= 0:
            raise invalid_argument("ClipGradByNorm", f"clip_norm must be > 0, got {self.clip_norm}.")

    def _clip_arrays(self, params: list, grads: list) -> list:
        out = []
        for p, g in zip(params, grads):
            if getattr(p, "need_clip", True):
                norm = math.sqrt(_sum_squares(g))
                if norm > self.clip_norm:
                    g = g * (self.clip_norm / norm)
            out.append(g)
        return out

    def __str__(self) -> str:
        return f"Gradient Clip By Norm, clip_norm={self.clip_norm:f}"


class ClipGradByGlobalNorm(ClipGradBase):
    """Rescale all gradients together so that the L2 norm of their concatenation is at most
    `clip_norm`: every gradient is multiplied by `clip_norm / max(global_norm, clip_norm)`.

    With `auto_skip_clip=True` gradients are only touched when the global norm exceeds clip_norm
    (the scale is then exactly the same; the flag only skips the multiply when it would be by 1).
    """

    def __init__(self, clip_norm: float, group_name: str = "default_group", auto_skip_clip: bool = False) -> None:
        self.clip_norm = _number("ClipGradByGlobalNorm", "clip_norm", clip_norm)
        if self.clip_norm <= 0:
            raise invalid_argument("ClipGradByGlobalNorm", f"clip_norm must be > 0, got {self.clip_norm}.")
        if not isinstance(group_name, str):
            raise invalid_argument("ClipGradByGlobalNorm", f"group_name must be a str, got {group_name!r}.")
        self.group_name = group_name
        self.auto_skip_clip = bool(auto_skip_clip)

    def global_norm(self, params: list, grads: list) -> float:
        """sqrt(sum of squares of every gradient that may be clipped)."""
        total = 0.0
        for p, g in zip(params, grads):
            if getattr(p, "need_clip", True):
                total += _sum_squares(g)
        return math.sqrt(total)

    def _clip_arrays(self, params: list, grads: list) -> list:
        norm = self.global_norm(params, grads)
        if self.auto_skip_clip and norm <= self.clip_norm:
            return grads
        scale = self.clip_norm / max(norm, self.clip_norm)
        return [g * scale if getattr(p, "need_clip", True) else g
                for p, g in zip(params, grads)]

    def __str__(self) -> str:
        return f"Gradient Clip By GlobalNorm, global_norm={self.clip_norm:f}"
