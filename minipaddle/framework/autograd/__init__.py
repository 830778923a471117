"""Autograd: grad nodes, the backward engine, grad modes and `paddle.grad`."""
from __future__ import annotations

from ..errors import invalid_argument
from .engine import run_backward
from .mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled

__all__ = ["grad", "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled"]


def _as_list(api: str, arg: str, value, allow_none: bool = False) -> list:
    from ..tensor import Tensor
    if value is None and allow_none:
        return None
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    for i, t in enumerate(items):
        if not isinstance(t, Tensor) and not (allow_none and t is None):
            raise invalid_argument(api, f"{arg}[{i}] is {type(t).__name__}, expected a Tensor.")
    return items


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=False, no_grad_vars=None):
    """Gradients of `outputs` with respect to `inputs`, returned (not accumulated into `.grad`).

    With `create_graph=True` the returned gradients are part of the graph, so they can be
    differentiated again:

        >>> x = paddle.to_tensor(1.0, stop_gradient=False)
        >>> y = x * x
        >>> (dx,) = paddle.grad(y, x, create_graph=True)   # 2x, differentiable
        >>> (y + dx).backward()                             # x.grad == 2x + 2 == 4
    """
    outs = _as_list("grad", "outputs", outputs)
    ins = _as_list("grad", "inputs", inputs)
    if grad_outputs is None:
        gouts = [None] * len(outs)
    else:
        gouts = _as_list("grad", "grad_outputs", grad_outputs, allow_none=True)
        if len(gouts) != len(outs):
            raise invalid_argument("grad", f"got {len(gouts)} grad_outputs for {len(outs)} outputs; expected "
                                           "one per output.")
    if retain_graph is None:
        retain_graph = create_graph
    blocked = [] if no_grad_vars is None else _as_list("grad", "no_grad_vars", no_grad_vars)
    return run_backward(outs, gouts, retain_graph=retain_graph, create_graph=create_graph,
                        inputs=ins, allow_unused=allow_unused, no_grad_vars=blocked, api="grad")
