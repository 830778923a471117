"""Lamb: Adam's direction, rescaled per parameter by a trust ratio ||param|| / ||update||."""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

from ..framework.errors import invalid_argument
from ..framework.tensor import Tensor
from .adam import adam_hyper
from . import gpu_update
from .optimizer import Optimizer, _is_number

__all__ = ["Lamb"]


def _norm(a: np.ndarray) -> float:
    flat = a.reshape(-1)
    return math.sqrt(float(np.dot(flat, flat)))


class Lamb(Optimizer):
    """Paddle's Lamb (You et al., "Large Batch Optimization for Deep Learning"):

        moment1 = beta1 * moment1 + (1 - beta1) * grad
        moment2 = beta2 * moment2 + (1 - beta2) * grad * grad
        r       = (moment1 / (1 - beta1_pow)) / (sqrt(moment2 / (1 - beta2_pow)) + epsilon)
                  + lamb_weight_decay * param
        param   = param - learning_rate * (||param|| / ||r||) * r

    The trust ratio ||param|| / ||r|| is 1 when either norm is 0. exclude_from_weight_decay_fn(param)
    -> True turns the decay off for that parameter.
    """

    _gpu_ready = True  # kernels/cuda/optimizer_adaptive.py updates a GPU parameter
    _accumulator_kinds = ("moment1", "moment2", "beta1_pow_acc", "beta2_pow_acc")

    def __init__(self, learning_rate=0.001, lamb_weight_decay: float = 0.01, beta1=0.9, beta2=0.999,
                 epsilon=1e-6, parameters=None, grad_clip=None,
                 exclude_from_weight_decay_fn: Callable[[Tensor], bool] | None = None,
                 multi_precision: bool = False, name: str | None = None) -> None:
        if not _is_number(lamb_weight_decay) or lamb_weight_decay < 0:
            raise invalid_argument("Lamb", f"lamb_weight_decay must be a number >= 0, got {lamb_weight_decay!r}.")
        if exclude_from_weight_decay_fn is not None and not callable(exclude_from_weight_decay_fn):
            raise invalid_argument("Lamb", "exclude_from_weight_decay_fn must be a function of the parameter.")
        self._hyper = adam_hyper("Lamb", beta1, beta2, epsilon, False)
        del self._hyper["lazy_mode"], self._hyper["amsgrad"]
        self._hyper.update(lamb_weight_decay=float(lamb_weight_decay),
                           exclude_from_weight_decay_fn=exclude_from_weight_decay_fn)
        super().__init__(learning_rate, parameters, None, grad_clip, name)

    def _init_state(self, param: Tensor, group: dict) -> dict:
        if gpu_update.on_gpu(param._data):
            return gpu_update.adam_init_state(param._data, group)  # Adam's accumulators
        data = param._data
        return {"moment1": np.zeros_like(data), "moment2": np.zeros_like(data),
                "beta1_pow_acc": np.full([1], group["beta1"], data.dtype),
                "beta2_pow_acc": np.full([1], group["beta2"], data.dtype)}

    @staticmethod
    def _decay(param: Tensor, group: dict) -> float:
        exclude = group["exclude_from_weight_decay_fn"]
        return 0.0 if exclude is not None and exclude(param) else group["lamb_weight_decay"]

    def _update(self, param: Tensor, grad: np.ndarray, lr: float, state: dict, group: dict) -> None:
        if type(grad) is not np.ndarray and gpu_update.on_gpu(grad):
            gpu_update.lamb_step(param._data, grad, lr, state, group, self._decay(param, group))
            return
        beta1, beta2 = group["beta1"], group["beta2"]
        m, v = state["moment1"], state["moment2"]
        beta1_pow, beta2_pow = state["beta1_pow_acc"], state["beta2_pow_acc"]
        m *= beta1
        m += (1 - beta1) * grad
        v *= beta2
        v += (1 - beta2) * np.square(grad)
        p = param._data
        r = m / (1 - float(beta1_pow[0]))
        r /= np.sqrt(v / (1 - float(beta2_pow[0]))) + group["epsilon"]
        decay = self._decay(param, group)
        if decay:
            r += decay * p
        p_norm, r_norm = _norm(p), _norm(r)
        trust_ratio = p_norm / r_norm if p_norm > 0 and r_norm > 0 else 1.0
        p -= (lr * trust_ratio) * r
        beta1_pow *= beta1
        beta2_pow *= beta2
