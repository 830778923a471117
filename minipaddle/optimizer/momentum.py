"""Momentum: SGD with a velocity that accumulates past gradients (optionally Nesterov's variant)."""
from __future__ import annotations

import numpy as np

from ..framework.errors import invalid_argument
from ..framework.tensor import Tensor
from . import gpu_update
from .optimizer import Optimizer

__all__ = ["Momentum"]


class Momentum(Optimizer):
    """Paddle's momentum update:

        velocity = momentum * velocity + grad
        param    = param - learning_rate * velocity                          (use_nesterov=False)
        param    = param - learning_rate * (grad + momentum * velocity)      (use_nesterov=True)

    The same as torch.optim.SGD(momentum=..., dampening=0). `rescale_grad` multiplies the gradient
    first (after weight decay has been added).
    """

    _accumulator_kinds = ("velocity",)
    _gpu_ready = True  # a GPU parameter is updated by kernels/cuda/optimizer.py's momentum_step

    def __init__(self, learning_rate=0.001, momentum: float = 0.9, parameters=None, use_nesterov: bool = False,
                 weight_decay=None, grad_clip=None, multi_precision: bool = False, rescale_grad: float = 1.0,
                 use_multi_tensor: bool = False, name: str | None = None) -> None:
        if isinstance(momentum, bool) or not isinstance(momentum, (int, float)) or momentum < 0:
            raise invalid_argument("Momentum", f"momentum must be a number >= 0, got {momentum!r}.")
        self._hyper = {"momentum": float(momentum), "use_nesterov": bool(use_nesterov),
                       "rescale_grad": float(rescale_grad)}
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _init_state(self, param: Tensor, group: dict) -> dict:
        if gpu_update.on_gpu(param._data):
            return gpu_update.momentum_init_state(param._data, group)
        return {"velocity": np.zeros_like(param._data)}

    def _update(self, param: Tensor, grad: np.ndarray, lr: float, state: dict, group: dict) -> None:
        if type(grad) is not np.ndarray and gpu_update.on_gpu(grad):
            gpu_update.momentum_step(param._data, grad, lr, state, group)
            return
        mu = group["momentum"]
        if group["rescale_grad"] != 1.0:
            grad = grad * group["rescale_grad"]
        velocity = state["velocity"]
        velocity *= mu
        velocity += grad
        p = param._data
        if group["use_nesterov"]:
            p -= lr * (grad + mu * velocity)
        else:
            p -= lr * velocity
