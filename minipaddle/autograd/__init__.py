"""paddle.autograd: `backward`, `grad`, grad modes, `PyLayer` (an op written in Python), and the
lazy `jacobian` / `hessian` matrices (functional.py).

    paddle.autograd.backward([loss1, loss2], [None, paddle.to_tensor(0.5)])   # into each leaf's .grad
    J = paddle.autograd.jacobian(y, x)                                         # rows computed when indexed

The engine itself lives in minipaddle/framework/autograd; this is the public module in Paddle's place.
"""
from __future__ import annotations

from ..framework.autograd import enable_grad, grad, is_grad_enabled, no_grad, set_grad_enabled
from ..framework.autograd.engine import run_backward
from ..framework.errors import invalid_argument
from ..framework.tensor import Tensor
from .functional import Hessian, Jacobian, hessian, jacobian
from .py_layer import PyLayer, PyLayerContext

__all__ = ["backward", "grad", "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "PyLayer",
           "PyLayerContext", "jacobian", "hessian", "Jacobian", "Hessian"]


def backward(tensors, grad_tensors=None, retain_graph: bool = False) -> None:
    """Run backward from several tensors at once, adding into the leaves' `.grad`.

    `grad_tensors`: one starting gradient per tensor (None: ones, as `t.backward()`); a single
    Tensor stands for a list of one. The graph is freed afterwards unless `retain_graph=True`.
    """
    api = "paddle.autograd.backward"
    items = list(tensors) if isinstance(tensors, (list, tuple)) else [tensors]
    for i, t in enumerate(items):
        if not isinstance(t, Tensor):
            raise invalid_argument(api, f"tensors[{i}] is {type(t).__name__}, expected a Tensor or a list of Tensors.")
    if grad_tensors is None:
        grads = [None] * len(items)
    else:
        grads = list(grad_tensors) if isinstance(grad_tensors, (list, tuple)) else [grad_tensors]
        if len(grads) != len(items):
            raise invalid_argument(api, f"got {len(grads)} grad_tensors for {len(items)} tensors; expected one "
                                        "per tensor (None for ones).")
        for i, g in enumerate(grads):
            if g is not None and not isinstance(g, Tensor):
                raise invalid_argument(api, f"grad_tensors[{i}] is {type(g).__name__}, expected a Tensor or None.")
    if len({id(t) for t in items}) != len(items):
        raise invalid_argument(api, "the same Tensor appears twice in tensors; expected each once.")
    run_backward(items, grads, retain_graph=retain_graph, create_graph=False, api=api)
