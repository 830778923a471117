"""LBFGS: the limited-memory BFGS optimizer for a model's parameters, driven by a closure.

    opt = paddle.optimizer.LBFGS(line_search_fn="strong_wolfe", parameters=model.parameters())
    def closure():
        opt.clear_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        return loss
    opt.step(closure)           # up to max_iter L-BFGS iterations, each calling closure

Unlike Adam or SGD, one `step` re-evaluates the loss several times (the line search tries steps),
so it needs a closure that recomputes loss and gradients. The parameters are treated as one flat
vector: the direction comes from the two-loop recursion over the last `history_size` steps
(incubate/optimizer/functional/lbfgs.py), the step length from the strong-Wolfe line search
(line_search.py) or, without one, `learning_rate` as is. The algorithm and its stopping rules are
Paddle's (and PyTorch's).
"""
from __future__ import annotations

import time
from typing import Callable

from ..framework import instrument
from ..framework.autograd import enable_grad, no_grad
from ..framework.creation import zeros_like
from ..framework.errors import invalid_argument, unimplemented
from ..framework.ops.joining import concat
from ..framework.tensor import Tensor
from ..incubate.optimizer.functional.lbfgs import two_loop_recursion
from ..incubate.optimizer.functional.line_search import strong_wolfe
from .optimizer import Optimizer

__all__ = ["LBFGS"]


class LBFGS(Optimizer):
    """L-BFGS over all `parameters` at once (Nocedal & Wright, Algorithm 7.5).

    Args (Paddle's): learning_rate (the step, or the line search's first trial step); max_iter
    (iterations per `step`); max_eval (loss evaluations per `step`, default max_iter * 5 // 4);
    tolerance_grad (stop when the largest gradient entry is at most this); tolerance_change (stop
    when the step or the loss change is below this); history_size (pairs kept); line_search_fn
    (None or "strong_wolfe"). As in Paddle, weight_decay and grad_clip are accepted but not
    applied: put a penalty into the closure's loss instead.
    """

    def __init__(self, learning_rate: float = 1.0, max_iter: int = 20, max_eval: int | None = None,
                 tolerance_grad: float = 1e-7, tolerance_change: float = 1e-9, history_size: int = 100,
                 line_search_fn: str | None = None, parameters=None, weight_decay=None, grad_clip=None,
                 name: str | None = None) -> None:
        api = "LBFGS"
        if line_search_fn not in (None, "strong_wolfe"):
            raise invalid_argument(api, f"line_search_fn must be None or 'strong_wolfe', got {line_search_fn!r}.")
        if isinstance(learning_rate, bool) or not isinstance(learning_rate, (int, float)) or not learning_rate > 0:
            raise invalid_argument(api, f"learning_rate must be a number > 0, got {learning_rate!r}.")
        for arg, value in (("max_iter", max_iter), ("history_size", history_size)):
            if not isinstance(value, int) or value < 1:
                raise invalid_argument(api, f"{arg} must be a positive int, got {value!r}.")
        super().__init__(1.0, parameters, weight_decay, grad_clip, name)
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.max_eval = max_iter * 5 // 4 if max_eval is None else max_eval
        self.tolerance_grad = tolerance_grad
        self.tolerance_change = tolerance_change
        self.history_size = history_size
        self.line_search_fn = line_search_fn
        self._params = self._all_params
        self.state: dict = {}   # what one step leaves for the next: direction, step, history, counters

    # ---- the parameters as one flat vector --------------------------------------------------
    def _gather_flat_grad(self) -> Tensor:
        return concat([(zeros_like(p) if p.grad is None else p.grad).reshape([-1]) for p in self._params])

    def _add_grad(self, step: float, direction: Tensor) -> None:
        """parameters += step * direction (the flat direction cut back into each parameter's shape)."""
        offset = 0
        for p in self._params:
            n = p.size
            p.set_value(p + step * direction[offset:offset + n].reshape(p.shape))
            offset += n

    def _directional_evaluate(self, closure: Callable, x0: list, step: float, direction: Tensor):
        """Loss and flat gradient at x0 + step * direction; the parameters are put back to x0 after."""
        self._add_grad(step, direction)
        with enable_grad():
            loss = float(closure())
        flat_grad = self._gather_flat_grad()
        for p, value in zip(self._params, x0):
            p.set_value(value)
        return loss, flat_grad

    # ---- one step ----------------------------------------------------------------------------
    def step(self, closure: Callable) -> Tensor:
        """Run up to `max_iter` L-BFGS iterations; `closure()` clears the grads, computes the loss,
        calls backward and returns the loss. Returns the loss of the first closure call."""
        if not callable(closure):
            raise invalid_argument("LBFGS.step", f"closure must be a callable that recomputes the loss and its "
                                                 f"gradients, got {type(closure).__name__}.")
        listeners = instrument.listeners
        if not (listeners["optimizer_step_begin"] or listeners["optimizer_step_end"]):
            with no_grad():
                return self._step(closure)
        start = time.perf_counter_ns()
        instrument.emit(instrument.OptimizerStepBegin(self, start))
        try:
            with no_grad():
                return self._step(closure)
        finally:
            instrument.emit(instrument.OptimizerStepEnd(self, start, time.perf_counter_ns()))

    def _step(self, closure: Callable):
        state = self.state
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        with enable_grad():
            orig_loss = closure()
        loss = float(orig_loss)
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        if float(flat_grad.abs().max()) <= self.tolerance_grad:
            return orig_loss                    # already optimal
        current_evals, n_iter = 1, 0
        while n_iter < self.max_iter:
            n_iter += 1
            state["n_iter"] += 1
            d = self._direction(flat_grad)
            state["prev_flat_grad"], state["prev_loss"] = flat_grad.clone(), loss
            # the first step ever is scaled down to at most 1 in L1 norm: no curvature is known yet
            t = self.learning_rate
            if state["n_iter"] == 1:
                t = min(1.0, 1.0 / float(flat_grad.abs().sum())) * self.learning_rate
            state["d"], state["alpha"] = d, t
            gtd = float((flat_grad * d).sum())
            if gtd > -self.tolerance_change:    # d is not a descent direction (any more)
                break
            loss, flat_grad, t, evals = self._take_step(closure, d, t, loss, flat_grad, n_iter)
            state["alpha"] = t
            current_evals += evals
            state["func_evals"] += evals
            if self._should_stop(flat_grad, d, t, loss, state["prev_loss"], current_evals, n_iter):
                break
        return orig_loss

    def _direction(self, flat_grad: Tensor) -> Tensor:
        """-H g: steepest descent on the first iteration, then from the updated history."""
        state = self.state
        if state["n_iter"] == 1:
            state["history"], state["H_diag"] = [], 1.0
            return -flat_grad
        y = flat_grad - state["prev_flat_grad"]
        s = state["d"] * state["alpha"]
        ys = float((y * s).sum())
        if ys > 1e-10:                          # keep only pairs with positive curvature
            history = state["history"]
            if len(history) == self.history_size:
                history.pop(0)
            history.append((s, y, 1.0 / ys))
            state["H_diag"] = ys / float((y * y).sum())   # gamma: H0 = gamma * I (N&W eq. 7.20)
        return -two_loop_recursion(flat_grad, state["history"], state["H_diag"])

    def _take_step(self, closure: Callable, d: Tensor, t: float, loss: float, flat_grad: Tensor, n_iter: int):
        """Move the parameters along d; returns (loss, flat_grad, step taken, closure calls)."""
        if self.line_search_fn is not None:
            x0 = [p.clone() for p in self._params]
            found = strong_wolfe(lambda step: self._directional_evaluate(closure, x0, step, d), t, loss, flat_grad, d)
            self._add_grad(found.step, d)
            return found.loss, found.grad, found.step, found.num_evals
        self._add_grad(t, d)
        if n_iter == self.max_iter:             # the last iteration: the next step() evaluates anyway
            return loss, flat_grad, t, 0
        with enable_grad():
            loss = float(closure())
        return loss, self._gather_flat_grad(), t, 1

    def _should_stop(self, flat_grad: Tensor, d: Tensor, t: float, loss: float, prev_loss: float,
                     current_evals: int, n_iter: int) -> bool:
        return (float(flat_grad.abs().max()) <= self.tolerance_grad          # optimal
                or float((d * t).abs().max()) <= self.tolerance_change       # the step is negligible
                or abs(loss - prev_loss) < self.tolerance_change              # the loss stopped changing
                or current_evals >= self.max_eval or n_iter == self.max_iter)

    # ---- what is not like the other optimizers ------------------------------------------------
    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        raise unimplemented("LBFGS.minimize", "LBFGS re-evaluates the loss several times per step, so it "
                                              "cannot update from one loss.",
                            hint="call opt.step(closure) with a closure that recomputes the loss.")

    def state_dict(self) -> dict:
        """{"state": {...}}: the counters (func_evals, n_iter), the last direction and step, the history."""
        return {"state": dict(self.state)}

    def set_state_dict(self, state_dict: dict) -> None:
        if not isinstance(state_dict, dict) or "state" not in state_dict:
            raise invalid_argument("LBFGS.set_state_dict", "expected the dict LBFGS.state_dict() returns, "
                                                           "{'state': {...}}.")
        self.state = dict(state_dict["state"])
