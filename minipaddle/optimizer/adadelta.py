"""Adadelta: step sizes from the ratio of running RMS of past updates to running RMS of gradients."""
from __future__ import annotations

import numpy as np

from ..framework.errors import invalid_argument
from ..framework.tensor import Tensor
from . import gpu_update
from .optimizer import Optimizer, _is_number

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """Paddle's Adadelta (Zeiler 2012), scaled by learning_rate as in Paddle's kernel:

        avg_squared_grad   = rho * avg_squared_grad + (1 - rho) * grad * grad
        update             = -sqrt((avg_squared_update + epsilon) / (avg_squared_grad + epsilon)) * grad
        avg_squared_update = rho * avg_squared_update + (1 - rho) * update * update
        param              = param + learning_rate * update

    The paper's method has no learning rate (learning_rate=1.0 gives it); Paddle's default is 0.001.
    """

    _gpu_ready = True  # kernels/cuda/optimizer_adaptive.py updates a GPU parameter
    _accumulator_kinds = ("_avg_squared_grad", "_avg_squared_update")

    def __init__(self, learning_rate=0.001, epsilon: float = 1.0e-6, rho: float = 0.95, parameters=None,
                 weight_decay=None, grad_clip=None, name: str | None = None) -> None:
        for arg, value in (("epsilon", epsilon), ("rho", rho)):
            if not _is_number(value):
                raise invalid_argument("Adadelta", f"{arg} must be a number, got {value!r}.")
        if epsilon < 0:
            raise invalid_argument("Adadelta", f"epsilon must be >= 0, got {epsilon}.")
        if not 0.0 <= rho <= 1.0:
            raise invalid_argument("Adadelta", f"rho must be in [0, 1], got {rho}.")
        self._hyper = {"epsilon": float(epsilon), "rho": float(rho)}
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _init_state(self, param: Tensor, group: dict) -> dict:
        if gpu_update.on_gpu(param._data):
            return gpu_update.adadelta_init_state(param._data, group)
        data = param._data
        return {"_avg_squared_grad": np.zeros_like(data), "_avg_squared_update": np.zeros_like(data)}

    def _update(self, param: Tensor, grad: np.ndarray, lr: float, state: dict, group: dict) -> None:
        if type(grad) is not np.ndarray and gpu_update.on_gpu(grad):
            gpu_update.adadelta_step(param._data, grad, lr, state, group)
            return
        rho, eps = group["rho"], group["epsilon"]
        sq_grad, sq_update = state["_avg_squared_grad"], state["_avg_squared_update"]
        sq_grad *= rho
        sq_grad += (1 - rho) * np.square(grad)
        update = -np.sqrt((sq_update + eps) / (sq_grad + eps)) * grad
        sq_update *= rho
        sq_update += (1 - rho) * np.square(update)
        p = param._data
        p += lr * update
