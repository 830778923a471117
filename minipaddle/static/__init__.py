"""paddle.static: build a Program, run it with an Executor, save it for inference.

    import minipaddle as paddle
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 4], "float32")
        loss = paddle.mean(paddle.static.nn.fc(x, 2, activation="relu"))
        paddle.optimizer.SGD(learning_rate=0.1).minimize(loss)   # trains the Program's parameters
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    exe.run(main, feed={"x": xs}, fetch_list=[loss])

The implementation lives in minipaddle/framework/static/.
"""
from __future__ import annotations

import contextlib

from ..framework.place import CPUPlace
from ..framework.static import (Block, Executor, Operator, Program, Scope, Variable, append_backward,
                                create_parameter, data, default_main_program, default_startup_program,
                                disable_static, enable_static, global_scope, gradients, in_dynamic_mode,
                                in_static_mode, load, load_inference_model, load_program_state, program_guard,
                                save, save_inference_model, scope_guard, set_program_state)
from ..framework.static import passes  # noqa: F401
from ..framework.static.passes import BuildStrategy
from ..jit.input_spec import InputSpec
from . import nn

__all__ = ["Program", "Block", "Operator", "Variable", "program_guard", "default_main_program",
           "default_startup_program", "data", "create_parameter", "enable_static", "disable_static",
           "in_dynamic_mode", "in_static_mode", "append_backward", "gradients", "Executor", "Scope",
           "global_scope", "scope_guard", "save_inference_model", "load_inference_model", "save", "load",
           "load_program_state", "set_program_state", "nn", "passes", "cpu_places", "name_scope", "device_guard",
           "InputSpec", "BuildStrategy"]


def cpu_places(device_count: int | None = None) -> list:
    return [CPUPlace()] * (device_count or 1)


@contextlib.contextmanager
def name_scope(prefix: str | None = None):
    """Accepted for Paddle compatibility; names here do not carry scopes."""
    yield


@contextlib.contextmanager
def device_guard(device: str | None = None):
    """Accepted for Paddle compatibility; everything runs on the CPU."""
    yield
