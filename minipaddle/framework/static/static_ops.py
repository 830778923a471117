"""The second op table: ops the Executor runs through a handler of their own instead of a registry
kernel -- values from nothing (fill_constant, the random initializers), control flow (cond, while),
optimizer updates, backward rules run at run time. Each module that defines such ops registers them
with `static_op`, saying what the passes and backward must know about them:

    constant      its outputs depend on no differentiable input: backward skips it, jit's
                  run_program runs it as a constant
    side_effect   it writes persistable state (an optimizer update): no pass may remove, merge or fold it
"""
from __future__ import annotations

from typing import Callable

# op type -> handler(executor, op, env) that writes the op's outputs into env
STATIC_OPS: dict[str, Callable] = {}
CONSTANT_OPS: set[str] = set()
SIDE_EFFECT_OPS: set[str] = set()


def static_op(name: str, constant: bool = False, side_effect: bool = False):
    """Register the decorated handler as the Executor's way to run ops of type `name`."""
    def register(fn):
        STATIC_OPS[name] = fn
        if constant:
            CONSTANT_OPS.add(name)
        if side_effect:
            SIDE_EFFECT_OPS.add(name)
        return fn
    return register
