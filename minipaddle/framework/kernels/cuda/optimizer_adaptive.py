"""The adaptive optimizers' updates on the GPU: RMSProp, Adagrad, Adadelta, Adamax and Lamb.

As in optimizer.py, one kernel per parameter updates it and its accumulators in place, one thread per
element, with the CPU's formulas (optimizer/rmsprop.py, adagrad.py, adadelta.py, adamax.py, lamb.py).
Beta powers stay on the host, where the step size is computed from them. Lamb needs two norms of
the whole parameter before it can step: they are summed on the device and read there by the second
kernel, so a Lamb step never waits for a copy back to the host.
"""
from __future__ import annotations

import math

import numpy as np
from numba import cuda

from . import elementwise as E
from . import reduction as R
from .launch import THREADS, blocks_for, flat, launch
from .strided import full, zeros


def _typed(p):
    return np.dtype(p.dtype).type


# ---- RMSProp -------------------------------------------------------------------------------------
@cuda.jit(cache=True)
def _rmsprop(param, grad, mean_square, mean_grad, momentum, rho, rest, epsilon, mu, lr, centered):
    # rest = 1 - rho
    for i in range(cuda.grid(1), param.size, cuda.gridsize(1)):
        g = grad[i]
        ms = mean_square[i] * rho + rest * (g * g)
        mean_square[i] = ms
        if centered:
            mg = mean_grad[i] * rho + rest * g
            mean_grad[i] = mg
            denom = math.sqrt(ms - mg * mg + epsilon)
        else:
            denom = math.sqrt(ms + epsilon)
        m = momentum[i] * mu + lr * g / denom
        momentum[i] = m
        param[i] -= m


def rmsprop_init_state(data, group: dict) -> dict:
    """RMSProp's three accumulators of a GPU parameter: zeros on the device."""
    shape, dtype = tuple(data.shape), np.dtype(data.dtype)
    return {"momentum": zeros(shape, dtype), "mean_square": zeros(shape, dtype), "mean_grad": zeros(shape, dtype)}


def rmsprop_step(p, grad, lr: float, state: dict, group: dict) -> None:
    """One RMSProp update of the device array `p` and its accumulators in place (optimizer/rmsprop.py's)."""
    t, n = _typed(p), p.size
    if n:
        launch(_rmsprop, blocks_for(n), THREADS, flat(p, n), flat(grad, n), flat(state["mean_square"], n),
               flat(state["mean_grad"], n), flat(state["momentum"], n), t(group["rho"]), t(1 - group["rho"]),
               t(group["epsilon"]), t(group["momentum"]), t(lr), bool(group["centered"]))


# ---- Adagrad -------------------------------------------------------------------------------------
@cuda.jit(cache=True)
def _adagrad(param, grad, moment, epsilon, lr):
    for i in range(cuda.grid(1), param.size, cuda.gridsize(1)):
        g = grad[i]
        m = moment[i] + g * g
        moment[i] = m
        param[i] -= lr * g / (math.sqrt(m) + epsilon)


def adagrad_init_state(data, group: dict) -> dict:
    """Adagrad's moment of a GPU parameter, filled with initial_accumulator_value."""
    return {"moment": full(tuple(data.shape), group["initial_accumulator_value"], np.dtype(data.dtype))}


def adagrad_step(p, grad, lr: float, state: dict, group: dict) -> None:
    """One Adagrad update of the device array `p` and its moment in place (optimizer/adagrad.py's)."""
    t, n = _typed(p), p.size
    if n:
        launch(_adagrad, blocks_for(n), THREADS, flat(p, n), flat(grad, n), flat(state["moment"], n),
               t(group["epsilon"]), t(lr))


# ---- Adadelta ------------------------------------------------------------------------------------
@cuda.jit(cache=True)
def _adadelta(param, grad, sq_grad, sq_update, rho, rest, epsilon, lr):
    for i in range(cuda.grid(1), param.size, cuda.gridsize(1)):
        g = grad[i]
        sg = sq_grad[i] * rho + rest * (g * g)
        sq_grad[i] = sg
        update = -math.sqrt((sq_update[i] + epsilon) / (sg + epsilon)) * g
        sq_update[i] = sq_update[i] * rho + rest * (update * update)
        param[i] += lr * update


def adadelta_init_state(data, group: dict) -> dict:
    """Adadelta's two running averages of a GPU parameter: zeros on the device."""
    shape, dtype = tuple(data.shape), np.dtype(data.dtype)
    return {"_avg_squared_grad": zeros(shape, dtype), "_avg_squared_update": zeros(shape, dtype)}


def adadelta_step(p, grad, lr: float, state: dict, group: dict) -> None:
    """One Adadelta update of the device array `p` and its averages in place (optimizer/adadelta.py's)."""
    t, n = _typed(p), p.size
    if n:
        launch(_adadelta, blocks_for(n), THREADS, flat(p, n), flat(grad, n), flat(state["_avg_squared_grad"], n),
               flat(state["_avg_squared_update"], n), t(group["rho"]), t(1 - group["rho"]), t(group["epsilon"]), t(lr))


# ---- Adamax --------------------------------------------------------------------------------------
@cuda.jit(cache=True)
def _adamax(param, grad, moment, inf_norm, beta1, rest1, beta2, epsilon, step):
    # rest1 = 1 - beta1; step = lr / (1 - beta1_pow)
    for i in range(cuda.grid(1), param.size, cuda.gridsize(1)):
        g = grad[i]
        m = moment[i] * beta1 + rest1 * g
        moment[i] = m
        u = max(inf_norm[i] * beta2 + epsilon, abs(g))
        inf_norm[i] = u
        param[i] -= step * m / u


def adamax_init_state(data, group: dict) -> dict:
    """Adamax's moment and infinity norm on the device, its beta1 power (1,) on the host."""
    shape, dtype = tuple(data.shape), np.dtype(data.dtype)
    return {"moment": zeros(shape, dtype), "inf_norm": zeros(shape, dtype),
            "beta1_pow_acc": np.full([1], group["beta1"], dtype)}


def adamax_step(p, grad, lr: float, state: dict, group: dict) -> None:
    """One Adamax update of the device array `p` in place (optimizer/adamax.py's)."""
    beta1, beta1_pow = group["beta1"], state["beta1_pow_acc"]
    t, n = _typed(p), p.size
    if n:
        launch(_adamax, blocks_for(n), THREADS, flat(p, n), flat(grad, n), flat(state["moment"], n),
               flat(state["inf_norm"], n), t(beta1), t(1 - beta1), t(group["beta2"]), t(group["epsilon"]),
               t(lr / (1 - float(beta1_pow[0]))))
    beta1_pow *= beta1


# ---- Lamb ----------------------------------------------------------------------------------------
@cuda.jit(cache=True)
def _lamb_direction(param, grad, moment1, moment2, r, beta1, rest1, beta2, rest2, bias1, bias2, epsilon, decay):
    # bias1 = 1 - beta1_pow, bias2 = 1 - beta2_pow; decay = lamb_weight_decay (0 when excluded)
    for i in range(cuda.grid(1), param.size, cuda.gridsize(1)):
        g = grad[i]
        m = moment1[i] * beta1 + rest1 * g
        v = moment2[i] * beta2 + rest2 * (g * g)
        moment1[i] = m
        moment2[i] = v
        r[i] = (m / bias1) / (math.sqrt(v / bias2) + epsilon) + decay * param[i]


@cuda.jit(cache=True)
def _lamb_apply(param, r, p_square, r_square, lr):
    # p_square, r_square: the squared norms, 0-D device arrays summed by the reduction kernels
    p_norm = math.sqrt(p_square[()])
    r_norm = math.sqrt(r_square[()])
    trust = p_norm / r_norm if p_norm > 0 and r_norm > 0 else 1.0
    step = lr * trust
    for i in range(cuda.grid(1), param.size, cuda.gridsize(1)):
        param[i] -= step * r[i]


def lamb_step(p, grad, lr: float, state: dict, group: dict, decay: float) -> None:
    """One Lamb update of the device array `p` in place (optimizer/lamb.py's); `decay` is the weight decay
    this parameter takes (0 when exclude_from_weight_decay_fn excludes it)."""
    beta1, beta2 = group["beta1"], group["beta2"]
    beta1_pow, beta2_pow = state["beta1_pow_acc"], state["beta2_pow_acc"]
    t, n = _typed(p), p.size
    if n:
        r = zeros(tuple(p.shape), np.dtype(p.dtype))
        launch(_lamb_direction, blocks_for(n), THREADS, flat(p, n), flat(grad, n), flat(state["moment1"], n),
               flat(state["moment2"], n), flat(r, n), t(beta1), t(1 - beta1), t(beta2), t(1 - beta2),
               t(1 - float(beta1_pow[0])), t(1 - float(beta2_pow[0])), t(group["epsilon"]), t(decay))
        p_square, r_square = R.sum(E.square(p)), R.sum(E.square(r))
        launch(_lamb_apply, blocks_for(n), THREADS, flat(p, n), flat(r, n), p_square, r_square, t(lr))
    beta1_pow *= beta1
    beta2_pow *= beta2
