"""Static graphs: the Program IR, static mode, the Executor, append_backward, save/load.

`paddle.static` (minipaddle/static/) is the public face of this package. The same OpDefs and
kernels serve eager and static mode: in static mode `dispatch` hands each op call to
`builder.build_op`, which appends an Operator; the Executor later runs the kernels.

    program.py       Program / Block / Operator / Variable, to_string, clone, to_dict / from_dict
    builder.py       enable_static, program_guard, static.data, the dispatch hook
    initializers.py  the startup ops (fill_constant, uniform_random, gaussian_random, ...), fill_any_like, shape
    executor.py      Scope, Executor
    backward.py      append_backward, gradients (grad ops from the eager backward rules)
    control_flow_grad.py  cond_grad / while_grad: backward through cond and while_loop (per-iteration scopes)
    control_flow.py  cond, while_loop, case, switch_case (the public fc is paddle.static.nn's)
    io.py            save_inference_model / load_inference_model, save / load
    passes/          optimizing passes (Program -> Program + a report), apply_passes

minimize's static half (clip, weight decay, the update ops) lives above, in optimizer/static_minimize.py.
"""
from __future__ import annotations

from . import initializers  # noqa: F401 - registers fill_constant and the random initializers
from . import passes  # noqa: F401 - registers fused_elementwise, so saved optimized programs load
from .backward import append_backward, gradients
from .builder import (create_parameter, data, default_main_program, default_startup_program, disable_static,
                      enable_static, in_dynamic_mode, in_static_mode, program_guard)
from .control_flow import cond, while_loop
from .executor import Executor, Scope, global_scope, scope_guard
from .io import load, load_inference_model, load_program_state, save, save_inference_model, set_program_state
from .program import Block, Operator, Program, Variable

__all__ = ["Program", "Block", "Operator", "Variable", "program_guard", "default_main_program",
           "default_startup_program", "data", "create_parameter", "enable_static", "disable_static",
           "in_dynamic_mode", "in_static_mode", "append_backward", "gradients", "Executor", "Scope",
           "global_scope", "scope_guard", "save_inference_model", "load_inference_model", "save", "load",
           "load_program_state", "set_program_state", "cond", "while_loop"]
