"""paddle.optimizer.lr: learning-rate schedulers.

A scheduler holds `last_epoch` (how many times `step()` was called) and `last_lr` (the rate for
that epoch). Give it to an optimizer as `learning_rate` and call `scheduler.step()` once per epoch
(or per batch); the optimizer reads `scheduler()` at every update:

    sched = paddle.optimizer.lr.StepDecay(learning_rate=0.5, step_size=2, gamma=0.1)
    opt = paddle.optimizer.SGD(learning_rate=sched, parameters=model.parameters())
    for epoch in range(6):
        train_one_epoch(opt)
        sched.step()        # 0.5, 0.5, 0.05, 0.05, 0.005, ...

A subclass writes `get_lr()`: the rate as a function of `self.last_epoch` (and `self.base_lr`).
"""
from __future__ import annotations

import math
import warnings
from typing import Callable

import numpy as np

from ..framework.errors import invalid_argument, invalid_type, precondition_not_met

__all__ = ["LRScheduler", "NoamDecay", "PiecewiseDecay", "NaturalExpDecay", "InverseTimeDecay", "PolynomialDecay",
           "LinearWarmup", "ExponentialDecay", "MultiStepDecay", "StepDecay", "LambdaDecay", "ReduceOnPlateau",
           "CosineAnnealingDecay", "MultiplicativeDecay", "OneCycleLR", "CosineAnnealingWarmRestarts", "LinearLR",
           "CyclicLR"]


def _number(api: str, name: str, value, *, low: float | None = None, low_open: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise invalid_argument(api, f"{name} must be a number, got {type(value).__name__}.")
    value = float(value)
    if low is not None and (value <= low if low_open else value < low):
        raise invalid_argument(api, f"{name} must be {'>' if low_open else '>='} {low}, got {value}.")
    return value


def _positive_int(api: str, name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
        raise invalid_argument(api, f"{name} must be a positive int, got {value!r}.")
    return int(value)


def _decay_gamma(api: str, gamma) -> float:
    gamma = _number(api, "gamma", gamma)
    if gamma >= 1.0:
        raise invalid_argument(api, f"gamma must be < 1.0 so that the rate decays, got {gamma}.")
    return gamma


class LRScheduler:
    """Base class: `step()` moves to the next epoch and sets `last_lr = get_lr()`.

    Args: learning_rate (the initial rate, `base_lr`), last_epoch (-1: not started; the constructor
    takes the first step, to epoch 0), verbose (print the rate at every step).
    """

    def __init__(self, learning_rate: float = 0.1, last_epoch: int = -1, verbose: bool = False) -> None:
        api = type(self).__name__
        self.base_lr = _number(api, "learning_rate", learning_rate, low=0.0)
        self.last_lr = self.base_lr
        if isinstance(last_epoch, bool) or not isinstance(last_epoch, (int, np.integer)):
            raise invalid_argument(api, f"last_epoch must be an int, got {type(last_epoch).__name__}.")
        self.last_epoch = int(last_epoch)
        self.verbose = verbose
        self.step()

    def __call__(self) -> float:
        """The current learning rate (what optimizers read)."""
        return self.last_lr

    def step(self, epoch: int | None = None) -> None:
        """Advance one epoch, or jump to `epoch`, and recompute the rate."""
        if epoch is None:
            self.last_epoch += 1
            self.last_lr = self.get_lr()
        else:
            self.last_epoch = epoch
            closed_form = getattr(self, "_get_closed_form_lr", None)
            self.last_lr = closed_form() if closed_form is not None else self.get_lr()
        if self.verbose:
            print(f"Epoch {self.last_epoch}: {type(self).__name__} set learning rate to {self.last_lr}.")

    def get_lr(self) -> float:
        raise NotImplementedError(f"{type(self).__name__} must implement get_lr()")

    def state_keys(self) -> None:
        """Names of the attributes `state_dict()` saves."""
        self.keys = ["last_epoch", "last_lr"]

    def state_dict(self) -> dict:
        self.state_keys()
        out = {}
        for key in self.keys:
            if key in self.__dict__:
                value = self.__dict__[key]
                out[key] = value.item() if hasattr(value, "item") and np.size(value) == 1 else value
        return out

    def set_state_dict(self, state_dict: dict) -> None:
        self.state_keys()
        for key in self.keys:
            if key not in state_dict:
                raise precondition_not_met("set_state_dict", f"the state dict has no '{key}' for "
                                                             f"{type(self).__name__} (keys: {sorted(state_dict)}).",
                                           hint="was it saved from a different scheduler?")
            self.__dict__[key] = state_dict[key]
        if len(state_dict) > len(self.keys):
            warnings.warn(f"{type(self).__name__}.set_state_dict: some entries of the state dict are unused; was it "
                          "saved from a different scheduler?", stacklevel=2)

    set_dict = set_state_dict

    def __repr__(self) -> str:
        return f"{type(self).__name__}(last_epoch={self.last_epoch}, last_lr={self.last_lr})"


class NoamDecay(LRScheduler):
    """Transformer's schedule: `lr * d_model^-0.5 * min(epoch^-0.5, epoch * warmup_steps^-1.5)`."""

    def __init__(self, d_model: float, warmup_steps: int, learning_rate: float = 1.0, last_epoch: int = -1,
                 verbose: bool = False) -> None:
        self.d_model = _number("NoamDecay", "d_model", d_model, low=0.0, low_open=True)
        self.warmup_steps = _positive_int("NoamDecay", "warmup_steps", warmup_steps)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        a = 1.0 if self.last_epoch == 0 else self.last_epoch ** -0.5
        b = self.warmup_steps ** -1.5 * self.last_epoch
        return self.base_lr * self.d_model ** -0.5 * min(a, b)


class PiecewiseDecay(LRScheduler):
    """`values[i]` while `epoch < boundaries[i]`; `values[-1]` after the last boundary."""

    def __init__(self, boundaries: list, values: list, last_epoch: int = -1, verbose: bool = False) -> None:
        if not isinstance(boundaries, (list, tuple)) or not isinstance(values, (list, tuple)):
            raise invalid_argument("PiecewiseDecay", "boundaries and values must be lists.")
        if len(values) != len(boundaries) + 1:
            raise invalid_argument("PiecewiseDecay", f"values must have one more entry than boundaries, got "
                                                     f"{len(values)} values for {len(boundaries)} boundaries.")
        if any(b >= c for b, c in zip(boundaries, boundaries[1:])):
            raise invalid_argument("PiecewiseDecay", f"boundaries must increase, got {list(boundaries)}.")
        self.boundaries = list(boundaries)
        self.values = [_number("PiecewiseDecay", "values[i]", v) for v in values]
        super().__init__(last_epoch=last_epoch, verbose=verbose)

    def get_lr(self) -> float:
        for boundary, value in zip(self.boundaries, self.values):
            if self.last_epoch < boundary:
                return value
        return self.values[-1]


class NaturalExpDecay(LRScheduler):
    """`lr * exp(-gamma * epoch)`."""

    def __init__(self, learning_rate: float, gamma: float, last_epoch: int = -1, verbose: bool = False) -> None:
        self.gamma = _number("NaturalExpDecay", "gamma", gamma, low=0.0, low_open=True)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        return self.base_lr * math.exp(-self.gamma * self.last_epoch)


class InverseTimeDecay(LRScheduler):
    """`lr / (1 + gamma * epoch)`."""

    def __init__(self, learning_rate: float, gamma: float, last_epoch: int = -1, verbose: bool = False) -> None:
        self.gamma = _number("InverseTimeDecay", "gamma", gamma)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        return self.base_lr / (1 + self.gamma * self.last_epoch)


class PolynomialDecay(LRScheduler):
    """`(lr - end_lr) * (1 - epoch / decay_steps) ** power + end_lr`, held at end_lr after decay_steps
    (or, with cycle=True, restarted with decay_steps grown to the next multiple)."""

    def __init__(self, learning_rate: float, decay_steps: int, end_lr: float = 0.0001, power: float = 1.0,
                 cycle: bool = False, last_epoch: int = -1, verbose: bool = False) -> None:
        self.decay_steps = _positive_int("PolynomialDecay", "decay_steps", decay_steps)
        self.end_lr = _number("PolynomialDecay", "end_lr", end_lr)
        self.power = _number("PolynomialDecay", "power", power, low=0.0, low_open=True)
        self.cycle = bool(cycle)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        epoch, decay_steps = self.last_epoch, self.decay_steps
        if self.cycle:
            decay_steps *= max(1, math.ceil(epoch / self.decay_steps))
        else:
            epoch = min(epoch, decay_steps)
        return (self.base_lr - self.end_lr) * (1 - epoch / decay_steps) ** self.power + self.end_lr


class LinearWarmup(LRScheduler):
    """Rise linearly from start_lr to end_lr over warmup_steps, then follow `learning_rate`
    (a float, or another scheduler that starts counting from 0 when the warm-up ends)."""

    def __init__(self, learning_rate, warmup_steps: int, start_lr: float, end_lr: float, last_epoch: int = -1,
                 verbose: bool = False) -> None:
        if not isinstance(learning_rate, LRScheduler):
            learning_rate = _number("LinearWarmup", "learning_rate", learning_rate, low=0.0)
        self.learning_rate = learning_rate
        self.warmup_steps = _positive_int("LinearWarmup", "warmup_steps", warmup_steps)
        self.start_lr = _number("LinearWarmup", "start_lr", start_lr)
        self.end_lr = _number("LinearWarmup", "end_lr", end_lr)
        if self.end_lr <= self.start_lr:
            raise invalid_argument("LinearWarmup", f"end_lr ({self.end_lr}) must be greater than start_lr "
                                                   f"({self.start_lr}).")
        super().__init__(start_lr, last_epoch, verbose)

    def get_lr(self) -> float:
        if self.last_epoch < self.warmup_steps:
            return (self.end_lr - self.start_lr) * self.last_epoch / self.warmup_steps + self.start_lr
        if isinstance(self.learning_rate, LRScheduler):
            self.learning_rate.step(self.last_epoch - self.warmup_steps)
            return self.learning_rate()
        return self.learning_rate

    def state_dict(self) -> dict:
        out = super().state_dict()
        if isinstance(self.learning_rate, LRScheduler):
            out["LinearWarmup_LR"] = self.learning_rate.state_dict()
        return out

    def set_state_dict(self, state_dict: dict) -> None:
        inner = dict(state_dict)
        wrapped = inner.pop("LinearWarmup_LR", None)
        super().set_state_dict(inner)
        if isinstance(self.learning_rate, LRScheduler) and wrapped is not None:
            self.learning_rate.set_state_dict(wrapped)

    set_dict = set_state_dict


class ExponentialDecay(LRScheduler):
    """`lr * gamma ** epoch`."""

    def __init__(self, learning_rate: float, gamma: float, last_epoch: int = -1, verbose: bool = False) -> None:
        self.gamma = _number("ExponentialDecay", "gamma", gamma, low=0.0, low_open=True)
        if self.gamma >= 1.0:
            raise invalid_argument("ExponentialDecay", f"gamma must be in (0, 1) so that the rate decays, "
                                                       f"got {self.gamma}.")
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        return self.base_lr * self.gamma ** self.last_epoch


class MultiStepDecay(LRScheduler):
    """`lr * gamma ** (number of milestones <= epoch)`."""

    def __init__(self, learning_rate: float, milestones: list, gamma: float = 0.1, last_epoch: int = -1,
                 verbose: bool = False) -> None:
        if not isinstance(milestones, (list, tuple)):
            raise invalid_argument("MultiStepDecay", f"milestones must be a list, got {type(milestones).__name__}.")
        if any(a >= b for a, b in zip(milestones, milestones[1:])):
            raise invalid_argument("MultiStepDecay", f"milestones must increase, got {list(milestones)}.")
        self.milestones = list(milestones)
        self.gamma = _decay_gamma("MultiStepDecay", gamma)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        passed = sum(1 for m in self.milestones if self.last_epoch >= m)
        return self.base_lr * self.gamma ** passed


class StepDecay(LRScheduler):
    """`lr * gamma ** (epoch // step_size)`."""

    def __init__(self, learning_rate: float, step_size: int, gamma: float = 0.1, last_epoch: int = -1,
                 verbose: bool = False) -> None:
        self.step_size = _positive_int("StepDecay", "step_size", step_size)
        self.gamma = _decay_gamma("StepDecay", gamma)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        return self.base_lr * self.gamma ** (self.last_epoch // self.step_size)


class LambdaDecay(LRScheduler):
    """`lr * lr_lambda(epoch)`."""

    def __init__(self, learning_rate: float, lr_lambda: Callable[[int], float], last_epoch: int = -1,
                 verbose: bool = False) -> None:
        if not callable(lr_lambda):
            raise invalid_argument("LambdaDecay", f"lr_lambda must be a function of the epoch, got "
                                                  f"{type(lr_lambda).__name__}.")
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        return self.base_lr * self.lr_lambda(self.last_epoch)


class MultiplicativeDecay(LRScheduler):
    """`last_lr * lr_lambda(epoch)` at every step after the first."""

    def __init__(self, learning_rate: float, lr_lambda: Callable[[int], float], last_epoch: int = -1,
                 verbose: bool = False) -> None:
        if not callable(lr_lambda):
            raise invalid_argument("MultiplicativeDecay", f"lr_lambda must be a function of the epoch, got "
                                                          f"{type(lr_lambda).__name__}.")
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        if self.last_epoch > 0:
            return self.last_lr * self.lr_lambda(self.last_epoch)
        return self.base_lr


class CosineAnnealingDecay(LRScheduler):
    """Half a cosine from lr down to eta_min over T_max epochs (SGDR without restarts):
    `eta_min + (lr - eta_min) * (1 + cos(pi * epoch / T_max)) / 2`, computed recursively as Paddle does."""

    def __init__(self, learning_rate: float, T_max: int, eta_min: float = 0, last_epoch: int = -1,  # noqa: N803
                 verbose: bool = False) -> None:
        self.T_max = _positive_int("CosineAnnealingDecay", "T_max", T_max)
        self.eta_min = _number("CosineAnnealingDecay", "eta_min", eta_min)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        if self.last_epoch == 0:
            return self.base_lr
        if (self.last_epoch - 1 - self.T_max) % (2 * self.T_max) == 0:
            return self.last_lr + (self.base_lr - self.eta_min) * (1 - math.cos(math.pi / self.T_max)) / 2
        return ((1 + math.cos(math.pi * self.last_epoch / self.T_max))
                / (1 + math.cos(math.pi * (self.last_epoch - 1) / self.T_max))
                * (self.last_lr - self.eta_min) + self.eta_min)

    def _get_closed_form_lr(self) -> float:
        return self.eta_min + (self.base_lr - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing restarted every T_i epochs, with T_0 first and T_i growing by T_mult."""

    def __init__(self, learning_rate: float, T_0: int, T_mult: int = 1, eta_min: float = 0,  # noqa: N803
                 last_epoch: int = -1, verbose: bool = False) -> None:
        self.T_0 = _positive_int("CosineAnnealingWarmRestarts", "T_0", T_0)
        self.T_mult = _positive_int("CosineAnnealingWarmRestarts", "T_mult", T_mult)
        self.eta_min = _number("CosineAnnealingWarmRestarts", "eta_min", eta_min)
        self.T_i = self.T_0
        self.T_cur = last_epoch
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        return self.eta_min + (self.base_lr - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2

    def step(self, epoch: int | None = None) -> None:
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur += 1
            if self.T_cur >= self.T_i:
                self.T_cur -= self.T_i
                self.T_i *= self.T_mult
        elif epoch < 0:
            raise invalid_argument("CosineAnnealingWarmRestarts.step", f"epoch must be >= 0, got {epoch}.")
        elif epoch >= self.T_0:
            if self.T_mult == 1:
                self.T_cur = epoch % self.T_0
            else:
                n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
                self.T_i = self.T_0 * self.T_mult ** n
        else:
            self.T_i = self.T_0
            self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        self.last_lr = self.get_lr()
        if self.verbose:
            print(f"Epoch {self.last_epoch}: {type(self).__name__} set learning rate to {self.last_lr}.")

    def state_keys(self) -> None:
        self.keys = ["last_epoch", "last_lr", "T_i", "T_cur"]


class LinearLR(LRScheduler):
    """Scale lr linearly from start_factor to end_factor over total_steps, then hold."""

    def __init__(self, learning_rate: float, total_steps: int, start_factor: float = 1.0 / 3, end_factor: float = 1.0,
                 last_epoch: int = -1, verbose: bool = False) -> None:
        self.total_steps = _positive_int("LinearLR", "total_steps", total_steps)
        self.start_factor = _number("LinearLR", "start_factor", start_factor, low=0.0, low_open=True)
        self.end_factor = _number("LinearLR", "end_factor", end_factor, low=0.0)
        if self.start_factor > 1.0 or self.end_factor > 1.0:
            raise invalid_argument("LinearLR", f"start_factor and end_factor must be <= 1, got {self.start_factor} "
                                               f"and {self.end_factor}.")
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        progress = min(self.last_epoch, self.total_steps) / self.total_steps
        return self.base_lr * (self.start_factor + (self.end_factor - self.start_factor) * progress)


class OneCycleLR(LRScheduler):
    """The 1cycle policy: warm up from max_learning_rate/divide_factor to max_learning_rate over
    phase_pct of total_steps, then anneal to end_learning_rate (three_phase: back down to the
    initial rate first, then to end_learning_rate). Step it once per batch."""

    def __init__(self, max_learning_rate: float, total_steps: int, divide_factor: float = 25.0,
                 end_learning_rate: float = 0.0001, phase_pct: float = 0.3, anneal_strategy: str = "cos",
                 three_phase: bool = False, last_epoch: int = -1, verbose: bool = False) -> None:
        api = "OneCycleLR"
        max_lr = _number(api, "max_learning_rate", max_learning_rate, low=0.0)
        self.total_steps = _positive_int(api, "total_steps", total_steps)
        divide_factor = _number(api, "divide_factor", divide_factor, low=0.0, low_open=True)
        min_lr = _number(api, "end_learning_rate", end_learning_rate, low=0.0)
        phase_pct = _number(api, "phase_pct", phase_pct, low=0.0)
        if phase_pct > 1.0:
            raise invalid_argument(api, f"phase_pct must be in [0, 1], got {phase_pct}.")
        if anneal_strategy not in ("cos", "linear"):
            raise invalid_argument(api, f"anneal_strategy must be 'cos' or 'linear', got {anneal_strategy!r}.")
        initial_lr = max_lr / divide_factor
        last = self.total_steps - 1.0
        if three_phase:
            ends = [phase_pct * self.total_steps - 1.0, 2 * phase_pct * self.total_steps - 2.0, last]
            self._lr_config = [initial_lr, max_lr, initial_lr, min_lr]
        else:
            ends = [phase_pct * self.total_steps - 1.0, last]
            self._lr_config = [initial_lr, max_lr, min_lr]
        self._step_config = [0.0, *ends]  # where each phase starts/ends
        self._anneal = _cos_anneal if anneal_strategy == "cos" else _linear_anneal
        super().__init__(initial_lr, last_epoch, verbose)

    def get_lr(self) -> float:
        step = self.last_epoch
        if step > self.total_steps:
            raise invalid_argument("OneCycleLR", f"stepped {step} times, but total_steps is {self.total_steps}.")
        phases = len(self._lr_config) - 1
        for i in range(phases):
            start, end = self._step_config[i], self._step_config[i + 1]
            if step <= end or i == phases - 1:
                pct = (step - start) / (end - start) if end != start else 1.0
                return self._anneal(self._lr_config[i], self._lr_config[i + 1], pct)
        raise AssertionError("unreachable")


class CyclicLR(LRScheduler):
    """Cycle the rate between base_learning_rate and max_learning_rate (Smith 2017). Step it once per batch.

    A cycle is step_size_up steps rising linearly, then step_size_down (default: step_size_up) falling.
    The amplitude max - base is scaled by `scale_fn(cycle)` ('triangular': 1; 'triangular2': halved every
    cycle) or `scale_fn(iteration)` ('exp_range': exp_gamma ** iteration); a custom `scale_fn` takes
    `scale_mode` ('cycle' or 'iterations') and overrides `mode`.

    >>> sched = CyclicLR(0.1, 0.5, step_size_up=2)     # 0.1, 0.3, 0.5, 0.3, 0.1, 0.3, ...
    """

    def __init__(self, base_learning_rate: float, max_learning_rate: float, step_size_up: int,
                 step_size_down: int | None = None, mode: str = "triangular", exp_gamma: float = 1.0,
                 scale_fn: Callable[[float], float] | None = None, scale_mode: str = "cycle", last_epoch: int = -1,
                 verbose: bool = False) -> None:
        api = "CyclicLR"
        # Paddle checks types first (TypeError), then values (ValueError); exp_gamma must be a float.
        for name, value, kinds in (("max_learning_rate", max_learning_rate, (int, float)),
                                   ("step_size_up", step_size_up, (int,)), ("step_size_down", step_size_down, (int,)),
                                   ("exp_gamma", exp_gamma, (float,))):
            if value is not None and (isinstance(value, bool) or not isinstance(value, kinds)):
                raise invalid_type(api, f"{name} must be {' or '.join(k.__name__ for k in kinds)}, got "
                                        f"{type(value).__name__} {value!r}.")
        self.max_lr = _number(api, "max_learning_rate", max_learning_rate, low=0.0)
        up = float(_positive_int(api, "step_size_up", step_size_up))
        down = up if step_size_down is None else float(_positive_int(api, "step_size_down", step_size_down))
        self.gamma = float(exp_gamma)
        self.cycle_size = up + down
        self.step_up_pct = up / self.cycle_size
        self.amplitude = self.max_lr - _number(api, "base_learning_rate", base_learning_rate, low=0.0)
        if scale_fn is None and mode not in ("triangular", "triangular2", "exp_range"):
            raise invalid_argument(api, f"mode got {mode!r}, expected 'triangular', 'triangular2' or 'exp_range' "
                                        "(or pass scale_fn).")
        if scale_mode not in ("cycle", "iterations"):
            raise invalid_argument(api, f"scale_mode got {scale_mode!r}, expected 'cycle' or 'iterations'.")
        self.mode = mode
        if scale_fn is not None:
            self.scale_fn, self.scale_mode = scale_fn, scale_mode
        elif mode == "triangular":
            self.scale_fn, self.scale_mode = self._triangular_scale_fn, "cycle"
        elif mode == "triangular2":
            self.scale_fn, self.scale_mode = self._triangular2_scale_fn, "cycle"
        else:
            self.scale_fn, self.scale_mode = self._exp_range_scale_fn, "iterations"
        super().__init__(base_learning_rate, last_epoch, verbose)

    def _triangular_scale_fn(self, x: float) -> float:
        return 1.0

    def _triangular2_scale_fn(self, x: float) -> float:
        return 1 / 2.0 ** (x - 1)

    def _exp_range_scale_fn(self, x: float) -> float:
        return self.gamma ** x

    def get_lr(self) -> float:
        iterations = self.last_epoch
        cycle = 1 + iterations // self.cycle_size
        pct_per_cycle = 1.0 + iterations / self.cycle_size - cycle   # how far into this cycle, 0..1
        if pct_per_cycle <= self.step_up_pct:
            scale_factor = pct_per_cycle / self.step_up_pct
        else:
            scale_factor = (1 - pct_per_cycle) / (1 - self.step_up_pct)
        x = cycle if self.scale_mode == "cycle" else iterations
        return self.base_lr + self.amplitude * scale_factor * self.scale_fn(x)


def _cos_anneal(start: float, end: float, pct: float) -> float:
    return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)


def _linear_anneal(start: float, end: float, pct: float) -> float:
    return (end - start) * pct + start


class ReduceOnPlateau(LRScheduler):
    """Multiply the rate by `factor` when `metrics` (e.g. the validation loss) stopped improving
    for more than `patience` epochs. Call `step(metrics)` once per epoch.

    mode 'min' (lower is better) or 'max'; threshold_mode 'rel' (better by threshold x best) or
    'abs'; cooldown epochs are skipped after a reduction; the rate never goes below min_lr, and a
    change smaller than epsilon is ignored.
    """

    def __init__(self, learning_rate: float, mode: str = "min", factor: float = 0.1, patience: int = 10,
                 threshold: float = 1e-4, threshold_mode: str = "rel", cooldown: int = 0, min_lr: float = 0,
                 epsilon: float = 1e-8, verbose: bool = False) -> None:
        api = "ReduceOnPlateau"
        if mode not in ("min", "max"):
            raise invalid_argument(api, f"mode must be 'min' or 'max', got {mode!r}.")
        if threshold_mode not in ("rel", "abs"):
            raise invalid_argument(api, f"threshold_mode must be 'rel' or 'abs', got {threshold_mode!r}.")
        self.factor = _number(api, "factor", factor, low=0.0)
        if self.factor >= 1.0:
            raise invalid_argument(api, f"factor must be < 1.0 so that the rate decreases, got {self.factor}.")
        self.mode, self.threshold_mode = mode, threshold_mode
        self.patience = int(patience)
        self.threshold = _number(api, "threshold", threshold)
        self.cooldown = int(cooldown)
        self.min_lr = _number(api, "min_lr", min_lr, low=0.0)
        self.epsilon = _number(api, "epsilon", epsilon)
        self.cooldown_counter = 0
        self.best = None
        self.num_bad_epochs = 0
        self.base_lr = self.last_lr = _number(api, "learning_rate", learning_rate, low=0.0)
        self.last_epoch = 0
        self.verbose = verbose

    def state_keys(self) -> None:
        self.keys = ["cooldown_counter", "best", "num_bad_epochs", "last_epoch", "last_lr"]

    def get_lr(self) -> float:
        return self.last_lr

    def step(self, metrics, epoch: int | None = None) -> None:  # noqa: D417 - Paddle's signature
        """Record this epoch's metric (a number or a 1-element Tensor) and maybe reduce the rate."""
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        current = _metric_value(metrics)
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            return
        if self.best is None or self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.num_bad_epochs > self.patience:
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
            new_lr = max(self.last_lr * self.factor, self.min_lr)
            if self.last_lr - new_lr > self.epsilon:
                self.last_lr = new_lr
                if self.verbose:
                    print(f"Epoch {self.last_epoch}: {type(self).__name__} set learning rate to {self.last_lr}.")

    def _is_better(self, current: float, best: float) -> bool:
        if self.mode == "min":
            bound = best - best * self.threshold if self.threshold_mode == "rel" else best - self.threshold
            return current < bound
        bound = best + best * self.threshold if self.threshold_mode == "rel" else best + self.threshold
        return current > bound


def _metric_value(metrics) -> float:
    if isinstance(metrics, bool):
        raise invalid_argument("ReduceOnPlateau.step", "metrics must be a number or a 1-element Tensor, got a bool.")
    if isinstance(metrics, (int, float, np.integer, np.floating)):
        return float(metrics)
    data = getattr(metrics, "_data", metrics)
    if isinstance(data, np.ndarray):
        if data.size != 1:
            raise invalid_argument("ReduceOnPlateau.step", f"metrics must hold one value, got shape "
                                                           f"{list(data.shape)}.", hint="reduce it first, e.g. "
                                                                                        "paddle.mean(loss).")
        return float(data.reshape(-1)[0])
    raise invalid_argument("ReduceOnPlateau.step", f"metrics must be a number or a 1-element Tensor, got "
                                                   f"{type(metrics).__name__}.")
