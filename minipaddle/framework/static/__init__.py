"""Static graphs: the Program IR, static mode, the Executor, append_backward, save/load.

`paddle.static` (minipaddle/static/) is the public face of this package. The same OpDefs and
kernels serve eager and static mode: in static mode `dispatch` hands each op call to
`builder.build_op`, which appends an Operator; the Executor later runs the kernels.
"""
from __future__ import annotations

from .builder import (create_parameter, data, default_main_program, default_startup_program, disable_static,
                      enable_static, in_dynamic_mode, in_static_mode, program_guard)
from .backward import append_backward, gradients
from .executor import Executor, Scope, global_scope, scope_guard
from .program import Block, Operator, Program, Variable

__all__ = ["Program", "Block", "Operator", "Variable", "program_guard", "default_main_program",
           "default_startup_program", "data", "create_parameter", "enable_static", "disable_static",
           "in_dynamic_mode", "in_static_mode", "append_backward", "gradients", "Executor", "Scope",
           "global_scope", "scope_guard"]
