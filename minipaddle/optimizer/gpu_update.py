"""What an optimizer step does differently when the parameters live on the GPU.

The update rules themselves are fused GPU kernels (framework/kernels/cuda/optimizer.py), one launch per
parameter, named here by LazyKernel so that numba loads only when a GPU parameter is first updated. The
steps around them -- gradient clipping, weight decay -- run as GPU ops on the gradients: only the global
norm of ClipGradByGlobalNorm comes back to the host, one number per step.

    opt = paddle.optimizer.Adam(parameters=model.parameters())   # model built after set_device("gpu")
    loss.backward(); opt.step()                                   # Adam's kernel on each GPU parameter
"""
from __future__ import annotations

import math

import numpy as np

from ..framework import gpu
from ..framework.errors import unimplemented
from ..framework.ops.activation import clip as clip_values
from ..framework.ops.elementwise import add, cast, scale, sign, square
from ..framework.ops.joining import stack
from ..framework.ops.reduction import sum as sum_all
from ..framework.registry import DEVICE_ARRAY_TYPES, LazyKernel
from ..framework.tensor import Tensor
from ..nn.clip import ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue
from ..regularizer import L1Decay, L2Decay

sgd_step = LazyKernel("minipaddle.framework.kernels.cuda.optimizer:sgd_step")
momentum_init_state = LazyKernel("minipaddle.framework.kernels.cuda.optimizer:momentum_init_state")
momentum_step = LazyKernel("minipaddle.framework.kernels.cuda.optimizer:momentum_step")
adam_init_state = LazyKernel("minipaddle.framework.kernels.cuda.optimizer:adam_init_state")
adam_step = LazyKernel("minipaddle.framework.kernels.cuda.optimizer:adam_step")

_ADAPTIVE = "minipaddle.framework.kernels.cuda.optimizer_adaptive:"
rmsprop_init_state = LazyKernel(_ADAPTIVE + "rmsprop_init_state")
rmsprop_step = LazyKernel(_ADAPTIVE + "rmsprop_step")
adagrad_init_state = LazyKernel(_ADAPTIVE + "adagrad_init_state")
adagrad_step = LazyKernel(_ADAPTIVE + "adagrad_step")
adadelta_init_state = LazyKernel(_ADAPTIVE + "adadelta_init_state")
adadelta_step = LazyKernel(_ADAPTIVE + "adadelta_step")
adamax_init_state = LazyKernel(_ADAPTIVE + "adamax_init_state")
adamax_step = LazyKernel(_ADAPTIVE + "adamax_step")
lamb_step = LazyKernel(_ADAPTIVE + "lamb_step")


def on_gpu(array) -> bool:
    """Whether `array` (a parameter's or gradient's storage) is a GPU device array."""
    return type(array) in DEVICE_ARRAY_TYPES


def check_supported(optimizer, param: Tensor) -> None:
    """A clear error for an optimizer whose update has no GPU kernel yet, before it touches a GPU parameter."""
    if not getattr(optimizer, "_gpu_ready", False) and on_gpu(param._data):
        api = type(optimizer).__name__
        raise unimplemented(api, f"parameter '{param.name}' lives on the GPU, and {api} has no GPU update yet.",
                            hint="train on the CPU (model.to('cpu')), or let its _update handle device arrays (as "
                                 "optimizer/adam.py does) and set _gpu_ready = True.")


def host(array):
    """`array` on the host: a copy for a device array, host data (arrays, numpy scalars) as it is."""
    return gpu.to_host(array) if on_gpu(array) else array


def load_into(array, value) -> None:
    """Copy `value` (host or device) into the accumulator `array` in place, on whichever backend it lives."""
    if not on_gpu(array):
        array[...] = host(value)
        return
    if not on_gpu(value):
        value = gpu.to_device(np.asarray(value, dtype=array.dtype))
    array.copy_to_device(value)


# ---- weight decay and clipping, as GPU ops on the gradient arrays ----------------------------------------
def regularized(reg, param, grad):
    """grad + the regularizer's term (L2Decay: coeff * param, L1Decay: coeff * sign(param)), on the GPU."""
    p, g = Tensor._wrap(param), Tensor._wrap(grad)
    if type(reg) is L2Decay:
        return add(g, scale(p, reg.coeff))._data
    if type(reg) is L1Decay:
        return add(g, scale(sign(p), reg.coeff))._data
    return gpu.to_device(reg._apply(gpu.to_host(param), gpu.to_host(grad)))  # another regularizer: its numpy rule


def clipped(clip, params: list, grads: list) -> list:
    """`clip._clip_arrays(params, grads)` for GPU gradients: new device arrays where clipped."""
    if isinstance(clip, ClipGradByValue):
        return [_clip_value(g, clip) if getattr(p, "need_clip", True) else g for p, g in zip(params, grads)]
    if isinstance(clip, ClipGradByNorm):
        out = []
        for p, g in zip(params, grads):
            norm = math.sqrt(float(_sum_squares(g))) if getattr(p, "need_clip", True) else 0.0
            out.append(_scaled(g, clip.clip_norm / norm) if norm > clip.clip_norm else g)
        return out
    if isinstance(clip, ClipGradByGlobalNorm):
        squares = [_sum_squares(g) for p, g in zip(params, grads) if getattr(p, "need_clip", True)]
        norm = math.sqrt(float(sum_all(stack(squares)))) if squares else 0.0  # one number comes to the host
        if clip.auto_skip_clip and norm <= clip.clip_norm:
            return grads
        factor = clip.clip_norm / max(norm, clip.clip_norm)
        return [_scaled(g, factor) if getattr(p, "need_clip", True) else g for p, g in zip(params, grads)]
    return [gpu.to_device(g) for g in clip._clip_arrays(params, [gpu.to_host(g) for g in grads])]


def _sum_squares(grad) -> Tensor:
    """sum(g * g) as a 0-D float tensor on the GPU; float16 is summed in float32, as the CPU's clip does."""
    g = Tensor._wrap(grad)
    if g._data.dtype == np.float16:
        g = cast(g, "float32")
    return cast(sum_all(square(g)), "float64")


def _scaled(grad, factor: float):
    return scale(Tensor._wrap(grad), factor)._data


def _clip_value(grad, clip):
    return clip_values(Tensor._wrap(grad), clip.min, clip.max)._data
