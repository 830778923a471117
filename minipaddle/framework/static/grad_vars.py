"""Gradient variables while grad ops are emitted: which variables want one, their summed gradient.

Shared by `backward.py` (a block's grad ops) and `control_flow_grad.py` (the grad sub-blocks of
cond and while), which call each other's work and so share these instead of importing each other.
"""
from __future__ import annotations

from ..dtype import is_differentiable
from . import builder
from .program import Block, Variable


def total_grad(block: Block, grads: dict, name: str):
    """The summed gradient of `name` (None when none arrived), adding the contributions once."""
    parts = grads.get(name)
    if not parts:
        return None
    if len(parts) > 1:
        from ..ops.elementwise import add
        total = parts[0]
        for g in parts[1:]:
            total = add(total, g)
        grads[name] = [total]
    return grads[name][0]


def zeros_like(block: Block, var: Variable) -> Variable:
    return builder.fill_constant(block, var._data.shape, var._data.dtype, 0.0, like=var)


def wants_grad(block: Block, name: str, no_grad: set) -> bool:
    var = block._find_var_recursive(name)
    return (var is not None and is_differentiable(var._data.dtype) and not var.stop_gradient
            and name not in no_grad)
