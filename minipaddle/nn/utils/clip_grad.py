"""clip_grad_norm_ / clip_grad_value_: clip the `.grad` of parameters in place, before `optimizer.step()`.

Unlike `grad_clip=` of an optimizer (nn/clip.py), these change the stored gradients themselves:

    loss.backward()
    paddle.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    opt.step()
"""
from __future__ import annotations

import math

import numpy as np

from ...framework import gpu
from ...framework.errors import invalid_argument, precondition_not_met
from ...framework.registry import OPS, run_kernel
from ...framework.tensor import Tensor

__all__ = ["clip_grad_norm_", "clip_grad_value_"]

SUPPORTED_NORM_TYPES = (float("inf"), 0, 1, 2)


def _parameters(api: str, parameters) -> list:
    from ...framework.static.builder import in_dynamic_mode
    if not in_dynamic_mode():
        raise precondition_not_met(api, "this API can only run in dynamic mode.")
    return [parameters] if isinstance(parameters, Tensor) else list(parameters)



def _apply_in_place(grad: Tensor, op: str, attrs: dict) -> None:
    """grad = op(grad, **attrs) in grad's own storage, on the device it lives on."""
    data = grad._data
    if type(data) is np.ndarray:
        data[...] = run_kernel(OPS[op], (data,), attrs)
    else:
        data.copy_to_device(run_kernel(OPS[op], (data,), attrs, "gpu"))
    grad._bump_version()


def _vector_norm(x: np.ndarray, norm_type: float) -> float:
    x = np.abs(gpu.to_host(x).reshape(-1).astype(np.float64))
    if norm_type == math.inf:
        return float(x.max()) if x.size else 0.0
    if norm_type == 0:
        return float(np.count_nonzero(x))
    return float(np.sum(x ** norm_type) ** (1.0 / norm_type))


def clip_grad_norm_(parameters, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False) -> Tensor:
    """Scale all gradients by max_norm / (total_norm + 1e-6) when that is below 1; return total_norm.

    total_norm is the `norm_type` norm (inf, 0, 1 or 2) of the per-gradient norms, i.e. of all gradients
    concatenated.
    """
    api = "clip_grad_norm_"
    params = _parameters(api, parameters)
    if norm_type not in SUPPORTED_NORM_TYPES:
        raise invalid_argument(api, f"norm_type got {norm_type!r}, expected one of {list(SUPPORTED_NORM_TYPES)}.")
    grads = [p.grad for p in params if p.grad is not None]
    max_norm, norm_type = float(max_norm), float(norm_type)
    if not grads:
        return Tensor._wrap(np.array(0.0, dtype=np.float32))
    total = _vector_norm(np.array([_vector_norm(g._data, norm_type) for g in grads]), norm_type)
    if error_if_nonfinite and not math.isfinite(total):
        raise precondition_not_met(api, f"the total {norm_type} norm of the gradients is {total}, so they cannot be "
                                        "clipped.", hint="pass error_if_nonfinite=False to scale them anyway.")
    coef = min(max_norm / (total + 1e-6), 1.0)
    for g in grads:
        _apply_in_place(g, "scale", {"scale": float(g._data.dtype.type(coef))})
    return Tensor._wrap(np.array(total, dtype=grads[0]._data.dtype))


def clip_grad_value_(parameters, clip_value: float) -> None:
    """Clip every gradient element into [-clip_value, clip_value], in place."""
    api = "clip_grad_value_"
    params = _parameters(api, parameters)
    if isinstance(clip_value, bool) or not isinstance(clip_value, (int, float, np.number)):
        raise invalid_argument(api, f"clip_value must be a number, got {type(clip_value).__name__}.")
    clip_value = float(clip_value)
    for p in params:
        if p.grad is not None:
            _apply_in_place(p.grad, "clip", {"min": -clip_value, "max": clip_value})
