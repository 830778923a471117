"""Adam: per-element step sizes from running averages of the gradient and its square."""
from __future__ import annotations

import math

import numpy as np

from ..framework.errors import invalid_argument
from ..framework.tensor import Tensor
from . import gpu_update
from .optimizer import Optimizer

__all__ = ["Adam"]


def _beta(api: str, name: str, value) -> float:
    value = float(value.item() if isinstance(value, Tensor) else value)  # Paddle also accepts 1-element Tensors
    if not 0.0 <= value < 1.0:
        raise invalid_argument(api, f"{name} must be in [0, 1), got {value}.")
    return value


def adam_hyper(api: str, beta1, beta2, epsilon, amsgrad: bool) -> dict:
    """Checked Adam hyper-parameters (shared with AdamW)."""
    eps = float(epsilon.item() if isinstance(epsilon, Tensor) else epsilon)
    if eps < 0:
        raise invalid_argument(api, f"epsilon must be >= 0, got {eps}.")
    return {"beta1": _beta(api, "beta1", beta1), "beta2": _beta(api, "beta2", beta2), "epsilon": eps,
            "lazy_mode": False, "amsgrad": bool(amsgrad)}


class Adam(Optimizer):
    """Paddle's Adam (t counts this parameter's updates, beta_pow = beta ** t):

        moment1 = beta1 * moment1 + (1 - beta1) * grad
        moment2 = beta2 * moment2 + (1 - beta2) * grad * grad
        lr_t    = learning_rate * sqrt(1 - beta2_pow) / (1 - beta1_pow)
        param   = param - lr_t * moment1 / (sqrt(moment2) + epsilon * sqrt(1 - beta2_pow))

    The epsilon term is scaled by sqrt(1 - beta2_pow) as in Paddle's kernel, which makes this exactly
    torch.optim.Adam's `lr * m_hat / (sqrt(v_hat) + eps)`. amsgrad=True uses the running maximum of
    moment2. lazy_mode only matters for sparse gradients and is ignored. A GPU parameter is updated by
    one fused kernel (kernels/cuda/optimizer.py's adam_step).
    """

    _gpu_ready = True

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08, parameters=None,
                 weight_decay=None, grad_clip=None, lazy_mode: bool = False, multi_precision: bool = False,
                 use_multi_tensor: bool = False, amsgrad: bool = False, name: str | None = None) -> None:
        self._hyper = adam_hyper(type(self).__name__, beta1, beta2, epsilon, amsgrad)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _kinds(self) -> tuple:
        kinds = ("moment1", "moment2", "beta1_pow_acc", "beta2_pow_acc")
        return kinds + ("moment2_max",) if self._hyper["amsgrad"] else kinds

    def _init_state(self, param: Tensor, group: dict) -> dict:
        data = param._data
        if gpu_update.on_gpu(data):
            return gpu_update.adam_init_state(data, group)
        state = {"moment1": np.zeros_like(data), "moment2": np.zeros_like(data),
                 "beta1_pow_acc": np.full([1], group["beta1"], data.dtype),
                 "beta2_pow_acc": np.full([1], group["beta2"], data.dtype)}
        if group["amsgrad"]:
            state["moment2_max"] = np.zeros_like(data)
        return state

    def _update(self, param: Tensor, grad: np.ndarray, lr: float, state: dict, group: dict) -> None:
        if type(grad) is not np.ndarray and gpu_update.on_gpu(grad):
            gpu_update.adam_step(param._data, grad, lr, state, group)
        else:
            adam_step(param._data, grad, lr, state, group)


def adam_step(p: np.ndarray, grad: np.ndarray, lr: float, state: dict, group: dict) -> None:
    """One Adam update of `p` in place (the formulas in Adam's docstring)."""
    beta1, beta2 = group["beta1"], group["beta2"]
    m, v = state["moment1"], state["moment2"]
    beta1_pow, beta2_pow = state["beta1_pow_acc"], state["beta2_pow_acc"]
    m *= beta1
    m += (1 - beta1) * grad
    v *= beta2
    v += (1 - beta2) * np.square(grad)
    if group["amsgrad"]:
        v_max = state["moment2_max"]
        np.maximum(v_max, v, out=v_max)
        v = v_max
    bias2 = math.sqrt(1 - float(beta2_pow[0]))
    denom = np.sqrt(v)
    denom += group["epsilon"] * bias2
    p -= (lr * bias2 / (1 - float(beta1_pow[0]))) * (m / denom)
    beta1_pow *= beta1
    beta2_pow *= beta2
