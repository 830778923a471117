"""The optimizers' updates on the GPU: one kernel per parameter updates it and its accumulators in place,
one thread per element. The formulas are the CPU's (optimizer/sgd.py, momentum.py, adam.py, adamw.py):

    SGD       param = param - lr * grad
    Momentum  velocity = mu * velocity + grad
              param    = param - lr * velocity                      (use_nesterov: lr * (grad + mu * velocity))
    Adam      moment1 = beta1 * moment1 + (1 - beta1) * grad
              moment2 = beta2 * moment2 + (1 - beta2) * grad * grad   (amsgrad: its running maximum is used)
              param   = param - lr_t * moment1 / (sqrt(moment2) + epsilon * sqrt(1 - beta2_pow))
              lr_t    = learning_rate * sqrt(1 - beta2_pow) / (1 - beta1_pow)
    AdamW     param = param * (1 - lr * coeff) first, then Adam's update (the `decay` factor below)

For Adam, t counts this parameter's updates and beta_pow = beta ** t. The accumulators live on the device
beside the parameter; Adam's two beta powers are one number each and stay on the host, where the step
size is computed from them (as the CPU does), so a step needs no copy back from the GPU. Constants go to
the kernel in the parameter's dtype, as numpy applies them to a float32 array.
"""
from __future__ import annotations

import math

import numpy as np
from numba import cuda

from .launch import THREADS, blocks_for, flat, launch
from .strided import zeros


# ---- SGD -----------------------------------------------------------------------------------------
@cuda.jit(cache=True)
def _sgd(param, grad, lr):
    for i in range(cuda.grid(1), param.size, cuda.gridsize(1)):
        param[i] -= lr * grad[i]


def sgd_step(p, grad, lr: float) -> None:
    """param -= lr * grad on the device array `p`, in place (optimizer/sgd.py's update)."""
    n = p.size
    if n:
        launch(_sgd, blocks_for(n), THREADS, flat(p, n), flat(grad, n), np.dtype(p.dtype).type(lr))


# ---- Momentum --------------------------------------------------------------------------------------
@cuda.jit(cache=True)
def _momentum(param, grad, velocity, mu, lr, rescale, nesterov):
    for i in range(cuda.grid(1), param.size, cuda.gridsize(1)):
        g = grad[i] * rescale
        v = velocity[i] * mu + g
        velocity[i] = v
        if nesterov:
            param[i] -= lr * (g + mu * v)
        else:
            param[i] -= lr * v


def momentum_init_state(data, group: dict) -> dict:
    """The velocity of a GPU parameter: zeros on the device."""
    return {"velocity": zeros(tuple(data.shape), np.dtype(data.dtype))}


def momentum_step(p, grad, lr: float, state: dict, group: dict) -> None:
    """One Momentum update of the device array `p` and its velocity in place (optimizer/momentum.py's)."""
    as_dtype = np.dtype(p.dtype).type
    n = p.size
    if n:
        launch(_momentum, blocks_for(n), THREADS, flat(p, n), flat(grad, n), flat(state["velocity"], n),
               as_dtype(group["momentum"]), as_dtype(lr), as_dtype(group["rescale_grad"]),
               bool(group["use_nesterov"]))


# ---- Adam and AdamW --------------------------------------------------------------------------------
@cuda.jit(cache=True)
def _adam(param, grad, moment1, moment2, moment2_max, amsgrad, beta1, rest1, beta2, rest2, step, epsilon, decay):
    # rest1 = 1 - beta1, rest2 = 1 - beta2; step = lr_t; epsilon = epsilon * sqrt(1 - beta2_pow);
    # decay = 1 - lr * coeff for AdamW, 1 for Adam (a multiply by 1 changes no bit)
    for i in range(cuda.grid(1), param.size, cuda.gridsize(1)):
        g = grad[i]
        m = moment1[i] * beta1 + rest1 * g
        v = moment2[i] * beta2 + rest2 * (g * g)
        moment1[i] = m
        moment2[i] = v
        if amsgrad:
            v = max(moment2_max[i], v)
            moment2_max[i] = v
        param[i] = param[i] * decay - step * (m / (math.sqrt(v) + epsilon))


def adam_init_state(data, group: dict) -> dict:
    """The accumulators of a GPU parameter: zero moments on the device, the beta powers (1,) on the host
    (Lamb keeps the same ones: its group has no amsgrad)."""
    shape, dtype = tuple(data.shape), np.dtype(data.dtype)
    state = {"moment1": zeros(shape, dtype), "moment2": zeros(shape, dtype),
             "beta1_pow_acc": np.full([1], group["beta1"], dtype), "beta2_pow_acc": np.full([1], group["beta2"], dtype)}
    if group.get("amsgrad"):
        state["moment2_max"] = zeros(shape, dtype)
    return state


def adam_step(p, grad, lr: float, state: dict, group: dict, decay: float = 1.0) -> None:
    """One Adam update of the device array `p` in place (optimizer/adam.py's adam_step, on the GPU).

    `decay` multiplies the parameter first, in the same kernel: AdamW passes 1 - lr * coeff."""
    beta1, beta2 = group["beta1"], group["beta2"]
    beta1_pow, beta2_pow = state["beta1_pow_acc"], state["beta2_pow_acc"]
    bias2 = math.sqrt(1 - float(beta2_pow[0]))
    as_dtype = np.dtype(p.dtype).type
    n = p.size
    if n:
        v_max = state.get("moment2_max", state["moment2"])
        launch(_adam, blocks_for(n), THREADS, flat(p, n), flat(grad, n), flat(state["moment1"], n),
               flat(state["moment2"], n), flat(v_max, n), bool(group["amsgrad"]), as_dtype(beta1), as_dtype(1 - beta1),
               as_dtype(beta2), as_dtype(1 - beta2), as_dtype(lr * bias2 / (1 - float(beta1_pow[0]))),
               as_dtype(group["epsilon"] * bias2), as_dtype(decay))
    beta1_pow *= beta1
    beta2_pow *= beta2
