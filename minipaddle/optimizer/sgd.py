"""SGD: plain stochastic gradient descent, `param = param - learning_rate * grad`."""
from __future__ import annotations

import numpy as np

from ..framework.registry import LazyKernel
from ..framework.tensor import Tensor
from . import gpu_update
from .optimizer import Optimizer

_sgd_step = LazyKernel("minipaddle.framework.kernels.cpu.optimizer_updates:sgd_step")

__all__ = ["SGD"]


class SGD(Optimizer):
    """`param -= learning_rate * grad` (grad already clipped and weight-decayed).

    >>> opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())   # doctest: +SKIP
    >>> loss.backward(); opt.step(); opt.clear_grad()                                   # doctest: +SKIP
    """

    _gpu_ready = True  # a GPU parameter is updated by kernels/cuda/optimizer.py's sgd_step

    def __init__(self, learning_rate=0.001, parameters=None, weight_decay=None, grad_clip=None,
                 multi_precision: bool = False, name: str | None = None) -> None:
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _update(self, param: Tensor, grad: np.ndarray, lr: float, state: dict, group: dict) -> None:
        p = param._data
        if type(p) is not np.ndarray and gpu_update.on_gpu(p):
            gpu_update.sgd_step(p, grad, lr)
            return
        if p.flags.c_contiguous and grad.flags.c_contiguous and grad.dtype == p.dtype and p.dtype.kind == "f" \
                and p.dtype.itemsize >= 4:
            _sgd_step(p, grad, lr)  # one pass, no temporary
        else:
            p -= lr * grad
