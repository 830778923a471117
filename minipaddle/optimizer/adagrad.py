"""Adagrad: per-element step sizes shrinking with the sum of all past squared gradients."""
from __future__ import annotations

import numpy as np

from ..framework.errors import invalid_argument
from ..framework.tensor import Tensor
from . import gpu_update
from .optimizer import Optimizer, _is_number

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Paddle's Adagrad (the same as torch.optim.Adagrad with lr_decay=0):

        moment = moment + grad * grad
        param  = param - learning_rate * grad / (sqrt(moment) + epsilon)
    """

    _gpu_ready = True  # kernels/cuda/optimizer_adaptive.py updates a GPU parameter
    _accumulator_kinds = ("moment",)

    def __init__(self, learning_rate, epsilon: float = 1e-06, parameters=None, weight_decay=None, grad_clip=None,
                 name: str | None = None, initial_accumulator_value: float = 0.0) -> None:
        if not _is_number(epsilon) or epsilon < 0:
            raise invalid_argument("Adagrad", f"epsilon must be a number >= 0, got {epsilon!r}.")
        if not _is_number(initial_accumulator_value) or initial_accumulator_value < 0:
            raise invalid_argument("Adagrad", f"initial_accumulator_value must be a number >= 0, got "
                                              f"{initial_accumulator_value!r}.")
        self._hyper = {"epsilon": float(epsilon), "initial_accumulator_value": float(initial_accumulator_value)}
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _init_state(self, param: Tensor, group: dict) -> dict:
        if gpu_update.on_gpu(param._data):
            return gpu_update.adagrad_init_state(param._data, group)
        return {"moment": np.full_like(param._data, group["initial_accumulator_value"])}

    def _update(self, param: Tensor, grad: np.ndarray, lr: float, state: dict, group: dict) -> None:
        if type(grad) is not np.ndarray and gpu_update.on_gpu(grad):
            gpu_update.adagrad_step(param._data, grad, lr, state, group)
            return
        moment = state["moment"]
        moment += np.square(grad)
        denom = np.sqrt(moment)
        denom += group["epsilon"]
        p = param._data
        p -= lr * grad / denom
