"""Adamax: Adam with the second moment replaced by an exponentially decaying infinity norm."""
from __future__ import annotations

import numpy as np

from ..framework.errors import invalid_argument
from ..framework.tensor import Tensor
from .adam import _beta
from . import gpu_update
from .optimizer import Optimizer

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """Paddle's Adamax (Kingma & Ba, section 7; t counts this parameter's updates, beta1_pow = beta1 ** t):

        moment   = beta1 * moment + (1 - beta1) * grad
        inf_norm = max(beta2 * inf_norm + epsilon, |grad|)
        param    = param - learning_rate / (1 - beta1_pow) * moment / inf_norm

    epsilon is added inside the max, as in Paddle's kernel (torch.optim.Adamax does the same).
    """

    _gpu_ready = True  # kernels/cuda/optimizer_adaptive.py updates a GPU parameter
    _accumulator_kinds = ("moment", "inf_norm", "beta1_pow_acc")

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08, parameters=None,
                 weight_decay=None, grad_clip=None, name: str | None = None) -> None:
        eps = float(epsilon.item() if isinstance(epsilon, Tensor) else epsilon)
        if eps < 0:
            raise invalid_argument("Adamax", f"epsilon must be >= 0, got {eps}.")
        self._hyper = {"beta1": _beta("Adamax", "beta1", beta1), "beta2": _beta("Adamax", "beta2", beta2),
                       "epsilon": eps}
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _init_state(self, param: Tensor, group: dict) -> dict:
        if gpu_update.on_gpu(param._data):
            return gpu_update.adamax_init_state(param._data, group)
        data = param._data
        return {"moment": np.zeros_like(data), "inf_norm": np.zeros_like(data),
                "beta1_pow_acc": np.full([1], group["beta1"], data.dtype)}

    def _update(self, param: Tensor, grad: np.ndarray, lr: float, state: dict, group: dict) -> None:
        if type(grad) is not np.ndarray and gpu_update.on_gpu(grad):
            gpu_update.adamax_step(param._data, grad, lr, state, group)
            return
        beta1, beta2 = group["beta1"], group["beta2"]
        moment, inf_norm, beta1_pow = state["moment"], state["inf_norm"], state["beta1_pow_acc"]
        moment *= beta1
        moment += (1 - beta1) * grad
        inf_norm *= beta2
        inf_norm += group["epsilon"]
        np.maximum(inf_norm, np.abs(grad), out=inf_norm)
        p = param._data
        p -= (lr / (1 - float(beta1_pow[0]))) * moment / inf_norm
        beta1_pow *= beta1
