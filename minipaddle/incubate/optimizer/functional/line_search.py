"""A line search that satisfies the strong Wolfe conditions (Nocedal & Wright, Algorithms 3.5 and 3.6).

Given a point x, a descent direction d and phi(t) = f(x + t d), find a step t with

    sufficient decrease:  phi(t) <= phi(0) + c1 * t * phi'(0)        (the step pays off)
    curvature:            |phi'(t)| <= c2 * |phi'(0)|                  (the slope has flattened)

in two phases:
  1. bracket: try t, and while phi still falls steeply grow t (by cubic extrapolation, at most 10x)
     until an interval [t_lo, t_hi] is known to hold an acceptable step;
  2. zoom: shrink that interval by cubic interpolation (Nocedal & Wright eq. 3.59), keeping t_lo the
     best point so far, until a step passes both conditions.

phi'(t) is grad f(x + t d) . d, so one evaluation gives both. This is the search Paddle's LBFGS
optimizer runs (and PyTorch's); minimize_bfgs / minimize_lbfgs and paddle.optimizer.LBFGS share it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from ....framework.tensor import Tensor

__all__ = ["strong_wolfe", "cubic_interpolate", "LineSearchResult"]


@dataclass
class LineSearchResult:
    loss: float        # phi(step)
    grad: Tensor       # grad f(x + step * d)
    step: float        # the step found (the best seen when the search ran out of iterations)
    num_evals: int     # how many times f was evaluated


def cubic_interpolate(t1: float, f1: float, g1: float, t2: float, f2: float, g2: float,
                      bounds: tuple[float, float] | None = None) -> float:
    """The minimiser of the cubic through (t1, f1) and (t2, f2) with slopes g1, g2, kept inside
    `bounds` (default: between t1 and t2). Without a real minimiser: the middle of the bounds."""
    lo, hi = bounds if bounds is not None else (min(t1, t2), max(t1, t2))
    d1 = g1 + g2 - 3 * (f1 - f2) / (t1 - t2)
    d2_square = d1 * d1 - g1 * g2
    if not d2_square >= 0:   # no real minimiser (or an inf/nan value): bisect
        return (lo + hi) / 2.0
    d2 = math.sqrt(d2_square)
    if t1 <= t2:
        t = t2 - (t2 - t1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        t = t1 - (t1 - t2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    if not math.isfinite(t):
        return (lo + hi) / 2.0
    return min(max(t, lo), hi)


def _dot(a: Tensor, b: Tensor) -> float:
    return float((a * b).sum())


@dataclass
class _Point:
    """One evaluated step: t, phi(t), grad f there, phi'(t)."""
    t: float
    f: float
    g: Tensor
    slope: float


def strong_wolfe(evaluate: Callable[[float], tuple[float, Tensor]], step: float, loss: float, grad: Tensor,
                 direction: Tensor, c1: float = 1e-4, c2: float = 0.9, tolerance_change: float = 1e-9,
                 max_iters: int = 25) -> LineSearchResult:
    """Search along `direction` from the point where f is `loss` with gradient `grad`.

    `evaluate(t)` returns (f(x + t d) as a float, its gradient); `step` is the first trial step.

        >>> res = strong_wolfe(lambda t: f_and_grad(x + t * d), 1.0, f0, g0, d)   # doctest: +SKIP
        >>> x = x + res.step * d
    """
    start = _Point(0.0, loss, grad, _dot(grad, direction))
    d_norm = float(direction.abs().max())
    state = _Search(evaluate, direction, start, c1, c2, max_iters)
    bracket, done = state.bracket_phase(step)
    if not done:
        bracket = state.zoom_phase(bracket, d_norm, tolerance_change)
    best = bracket[0]
    return LineSearchResult(best.f, best.g, best.t, state.num_evals)


class _Search:
    """The state both phases share: f along the line, the starting point, the constants, the count."""

    def __init__(self, evaluate, direction: Tensor, start: _Point, c1: float, c2: float, max_iters: int):
        self.evaluate, self.direction, self.start = evaluate, direction, start
        self.c1, self.c2, self.max_iters = c1, c2, max_iters
        self.num_evals = 0
        self.iters = 0

    def point(self, t: float) -> _Point:
        f, g = self.evaluate(t)
        self.num_evals += 1
        return _Point(t, f, g, _dot(g, self.direction))

    def decreases_enough(self, p: _Point) -> bool:   # the sufficient-decrease (Armijo) condition
        return p.f <= self.start.f + self.c1 * p.t * self.start.slope

    def flat_enough(self, p: _Point) -> bool:        # the strong curvature condition
        return abs(p.slope) <= -self.c2 * self.start.slope

    def bracket_phase(self, t: float) -> tuple[list[_Point], bool]:
        """Grow the step until [previous, current] brackets a good step. Returns (points, done):
        done with one point when that point already satisfies both conditions."""
        prev, cur = self.start, self.point(t)
        while self.iters < self.max_iters:
            if not self.decreases_enough(cur) or (self.iters > 1 and cur.f >= prev.f):
                return self._ordered(prev, cur), False          # overshot: the good step lies between
            if self.flat_enough(cur):
                return [cur], True
            if cur.slope >= 0:
                return self._ordered(prev, cur), False          # slope turned up: a minimum lies between
            # still falling steeply: extrapolate, at least a little further and at most 10x
            t_next = cubic_interpolate(prev.t, prev.f, prev.slope, cur.t, cur.f, cur.slope,
                                       bounds=(cur.t + 0.01 * (cur.t - prev.t), cur.t * 10))
            prev, cur = cur, self.point(t_next)
            self.iters += 1
        return self._ordered(self.start, cur), False             # ran out: the best of start and last

    @staticmethod
    def _ordered(a: _Point, b: _Point) -> list[_Point]:
        """[low, high]: the point with the lower f first."""
        return [a, b] if a.f <= b.f else [b, a]

    def zoom_phase(self, bracket: list[_Point], d_norm: float, tolerance_change: float) -> list[_Point]:
        """Shrink [low, high] until a step satisfies both conditions; bracket[0] stays the best point."""
        stuck = False   # the last trial landed near an end: the next one is pushed inwards
        while self.iters < self.max_iters:
            low, high = bracket
            if abs(high.t - low.t) * d_norm < tolerance_change:
                break
            t = cubic_interpolate(low.t, low.f, low.slope, high.t, high.f, high.slope)
            t, stuck = _keep_away_from_ends(t, low.t, high.t, stuck)
            p = self.point(t)
            self.iters += 1
            if not self.decreases_enough(p) or p.f >= low.f:
                bracket = self._ordered(low, p)                  # p is the new high end
            elif self.flat_enough(p):
                return [p, high]
            else:
                if p.slope * (high.t - low.t) >= 0:
                    high = low                                   # the minimum is on low's side of p
                bracket = [p, high]
        return bracket


def _keep_away_from_ends(t: float, a: float, b: float, stuck: bool) -> tuple[float, bool]:
    """A trial step within 10% of either end of [a, b] makes little progress: the second time in a
    row (or outside the interval) move it to 10% inside. Returns (step, stuck)."""
    lo, hi = min(a, b), max(a, b)
    eps = 0.1 * (hi - lo)
    if min(hi - t, t - lo) >= eps:
        return t, False
    if stuck or t >= hi or t <= lo:
        return (hi - eps if abs(t - hi) < abs(t - lo) else lo + eps), False
    return t, True
