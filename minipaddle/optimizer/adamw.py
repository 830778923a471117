"""AdamW: Adam with decoupled weight decay (the decay shrinks the weights, not the gradient)."""
from __future__ import annotations

from typing import Callable

import numpy as np

from ..framework.errors import invalid_argument
from ..framework.tensor import Tensor
from . import gpu_update
from .adam import Adam, adam_hyper, adam_step
from .optimizer import Optimizer, _is_number

__all__ = ["AdamW"]


class AdamW(Adam):
    """Paddle's AdamW: first `param = param - learning_rate * weight_decay * param`, then the Adam update.

    weight_decay is the decoupled coefficient (a float, default 0.01), not an L2 term added to the
    gradient, so it does not pass through Adam's per-element scaling (Loshchilov & Hutter). The same as
    torch.optim.AdamW. apply_decay_param_fun(param_name) -> bool chooses which parameters decay (e.g.
    not biases or norms); lr_ratio(param) -> float scales the learning rate per parameter.
    """

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, parameters=None,
                 weight_decay: float = 0.01, lr_ratio: Callable | None = None,
                 apply_decay_param_fun: Callable[[str], bool] | None = None, grad_clip=None, lazy_mode: bool = False,
                 multi_precision: bool = False, amsgrad: bool = False, name: str | None = None) -> None:
        api = type(self).__name__
        if isinstance(weight_decay, Tensor):
            weight_decay = weight_decay.item()
        if not _is_number(weight_decay):
            raise invalid_argument(api, f"weight_decay must be a float (the decoupled decay coefficient), got "
                                        f"{type(weight_decay).__name__}.")
        for fn_name, fn in (("lr_ratio", lr_ratio), ("apply_decay_param_fun", apply_decay_param_fun)):
            if fn is not None and not callable(fn):
                raise invalid_argument(api, f"{fn_name} must be a function, got {type(fn).__name__}.")
        self._hyper = adam_hyper(api, beta1, beta2, epsilon, amsgrad)
        # weight_decay lives with the hyper-parameters: it is decoupled, never a regularizer on the gradient
        self._hyper.update(weight_decay=float(weight_decay), lr_ratio=lr_ratio,
                           apply_decay_param_fun=apply_decay_param_fun)
        Optimizer.__init__(self, learning_rate, parameters, None, grad_clip, name)

    def _group_regularizer(self, api: str, group: dict):
        if not _is_number(group["weight_decay"]):
            raise invalid_argument(api, f"a group's weight_decay must be a float for AdamW, got "
                                        f"{type(group['weight_decay']).__name__}.")
        group["weight_decay"] = float(group["weight_decay"])
        return None

    def _update(self, param: Tensor, grad: np.ndarray, lr: float, state: dict, group: dict) -> None:
        if group["lr_ratio"] is not None:
            lr *= group["lr_ratio"](param)
        coeff = group["weight_decay"]
        decide = group["apply_decay_param_fun"]
        p = param._data
        decays = bool(coeff) and (decide is None or decide(param.name))
        if type(p) is not np.ndarray and gpu_update.on_gpu(p):  # the decay and Adam's update: one GPU kernel
            gpu_update.adam_step(p, grad, lr, state, group, decay=1.0 - lr * coeff if decays else 1.0)
            return
        if decays:
            p *= 1.0 - lr * coeff
        adam_step(p, grad, lr, state, group)
