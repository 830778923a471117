"""RMSProp: divide the gradient by a running root-mean-square of recent gradients."""
from __future__ import annotations

import numpy as np

from ..framework.errors import invalid_argument
from ..framework.tensor import Tensor
from . import gpu_update
from .optimizer import Optimizer, _is_number

__all__ = ["RMSProp"]


class RMSProp(Optimizer):
    """Paddle's RMSProp (epsilon inside the square root; learning_rate inside the momentum buffer):

        mean_square = rho * mean_square + (1 - rho) * grad * grad
        mean_grad   = rho * mean_grad + (1 - rho) * grad                        (centered only)
        momentum    = momentum * momentum_buf + learning_rate * grad / sqrt(mean_square + epsilon)
                      (centered: sqrt(mean_square - mean_grad ** 2 + epsilon))
        param       = param - momentum

    torch.optim.RMSprop differs: its epsilon is added outside the square root.
    """

    _gpu_ready = True  # kernels/cuda/optimizer_adaptive.py updates a GPU parameter
    _accumulator_kinds = ("momentum", "mean_square", "mean_grad")

    def __init__(self, learning_rate, rho: float = 0.95, epsilon: float = 1e-06, momentum: float = 0.0,
                 centered: bool = False, parameters=None, weight_decay=None, grad_clip=None,
                 name: str | None = None) -> None:
        for arg, value in (("rho", rho), ("epsilon", epsilon), ("momentum", momentum)):
            if not _is_number(value) or value < 0:
                raise invalid_argument("RMSProp", f"{arg} must be a number >= 0, got {value!r}.")
        self._hyper = {"rho": float(rho), "epsilon": float(epsilon), "momentum": float(momentum),
                       "centered": bool(centered)}
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _init_state(self, param: Tensor, group: dict) -> dict:
        if gpu_update.on_gpu(param._data):
            return gpu_update.rmsprop_init_state(param._data, group)
        data = param._data
        return {"momentum": np.zeros_like(data), "mean_square": np.zeros_like(data),
                "mean_grad": np.zeros_like(data)}

    def _update(self, param: Tensor, grad: np.ndarray, lr: float, state: dict, group: dict) -> None:
        if type(grad) is not np.ndarray and gpu_update.on_gpu(grad):
            gpu_update.rmsprop_step(param._data, grad, lr, state, group)
            return
        rho = group["rho"]
        ms, mom = state["mean_square"], state["momentum"]
        ms *= rho
        ms += (1 - rho) * np.square(grad)
        if group["centered"]:
            mg = state["mean_grad"]
            mg *= rho
            mg += (1 - rho) * grad
            denom = np.sqrt(ms - np.square(mg) + group["epsilon"])
        else:
            denom = np.sqrt(ms + group["epsilon"])
        mom *= group["momentum"]
        mom += lr * grad / denom
        p = param._data
        p -= mom
