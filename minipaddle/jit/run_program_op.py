"""The `run_program` op: a converted function's whole Program as ONE op of the eager graph.

    outs = run_partial_program(partial, inputs)   # inputs: the feeds, then parameters and buffers

Paddle runs a training `@to_static` Layer this way (its `run_program` op). Eager `dispatch` runs
the op like any other: its kernel runs the forward Program on the inputs' arrays (optimized: fused
kernels, no per-op dispatch; a RunPlan, framework/static/run_plan.py, compiled once, calls the
kernels straight away after the first run of a feed shape) and returns the outputs; the values the
backward Program reads stay in the call's `out_scope` attribute (Paddle's OutScope). The op's
backward rule runs the backward Program on them and the output gradients and hands every input its
gradient: parameters get theirs through the engine's AccumulateGrad, so their hooks fire and
`.grad` accumulates as eagerly. The rule runs a Program, not minipaddle ops, so differentiating it
again (double grad) raises Unimplemented naming run_program.

A recording shows one `run_program` node; its attrs name the forward and backward Programs, which
the trace holds (ProgramBuilt), and each Executor run of them (program_runs) lists the ops it ran.
"""
from __future__ import annotations

from ..framework import instrument
from ..framework.dispatch import dispatch
from ..framework.errors import unimplemented
from ..framework.registry import add_kernel, new_meta, register_op
from ..framework.tensor import Tensor
from ..framework.thread_modes import grad_enabled
from .partial_program import PartialProgram

__all__ = ["RUN_PROGRAM", "OutScope", "run_partial_program"]

_DTYPES = ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool",
           "complex64", "complex128")


class OutScope:
    """One call's values the backward Program reads (`values`) and the buffers the forward wrote (`states`)."""

    __slots__ = ("values", "states")

    def __init__(self) -> None:
        self.values: dict = {}
        self.states: dict = {}

    def __repr__(self) -> str:
        return f"OutScope({len(self.values)} saved values)"


def run_program_meta(*xs, program: PartialProgram = None, out_scope=None, program_id=0, forward_program="",
                     backward_program=""):
    """The outputs' shapes (-1 where the Program leaves a dim to the feed) and dtypes."""
    gb = program.forward_program.global_block()
    metas = tuple(new_meta(tuple(v._data.shape), v._data.dtype)
                  for v in (gb._find_var_recursive(n) for n in program.fetch_names))
    return metas[0] if len(metas) == 1 else metas


def run_program_kernel(*xs, program: PartialProgram = None, out_scope: OutScope = None, program_id=0,
                       forward_program="", backward_program=""):
    """Run the forward Program on the inputs' arrays; keep what the backward reads in `out_scope`."""
    env = dict(zip(program.input_names, xs))
    program.forward_plan.run(env)
    out_scope.values = {n: env[n] for n in program.saved_names}
    if program.state_names:
        out_scope.states = {n: env[n] for n in program.state_names if n in env}
    if len(program.fetch_names) == 1:
        return env[program.fetch_names[0]]
    return tuple([env[n] for n in program.fetch_names])


def run_program_grad(node, *douts):
    """Run the backward Program on the forward's saved values and the output gradients."""
    program = node.program
    if grad_enabled():  # create_graph=True: the gradients would have to be differentiable
        raise unimplemented("run_program", "double grad (create_graph=True) through a converted program is not "
                                           "supported: its backward runs as one static Program.",
                            hint="build the program with paddle.jit.to_static(..., build_strategy="
                                 "paddle.static.BuildStrategy(to_static_op_by_op=True)), or run the "
                                 "function eagerly (paddle.jit.enable_to_static(False)).")
    env = dict(node.out_scope.values)
    for name, dout in zip(program.dout_names, douts):
        if name:
            env[name] = dout._data
    program.backward_plan.run(env)
    return tuple([Tensor._wrap(env[n]) if n and node.needs_grad(i) else None
                  for i, n in enumerate(program.grad_names)])


RUN_PROGRAM = register_op(
    "run_program", inputs=("X",), outputs=("Out",), infer_meta=run_program_meta, backward=run_program_grad,
    variadic=True, attrs={"program": (object, None), "out_scope": (object, None), "program_id": (int, 0),
                          "forward_program": (str, ""), "backward_program": (str, "")},
    doc="a converted (@to_static) function's forward Program run as one op (a RunPlan); its backward "
        "rule runs the backward Program")
add_kernel("run_program", "cpu", _DTYPES, run_program_kernel, name="executor")


def run_partial_program(partial: PartialProgram, inputs: list, label: str = "") -> list:
    """Run `partial` as one `run_program` op on `inputs` (Tensors in `partial.input_names` order);
    the outputs as a list of Tensors. Buffers the forward wrote are copied back into their Tensors."""
    if instrument.subscribers:  # a recording shows both Programs (the recorder keeps each once)
        instrument.emit(instrument.ProgramBuilt(partial.forward_program, "dy2static", partial.forward_name))
        instrument.emit(instrument.ProgramBuilt(partial.backward_program, "dy2static", partial.backward_name))
    scope = OutScope()
    attrs = {"program": partial, "out_scope": scope, "program_id": partial.program_id,
             "forward_program": partial.forward_name, "backward_program": partial.backward_name}
    result = dispatch(RUN_PROGRAM, tuple(inputs), attrs, checked=True)
    outs = [result] if type(result) is not tuple else list(result)
    for out, stop in zip(outs, partial.output_stop_gradient):
        if stop:  # it depends on nothing that needs a gradient: as eager, it carries none
            out.stop_gradient = True
            out._node = None
    if scope.states:
        _write_back(partial, inputs, scope.states)
    return outs


def _write_back(partial: PartialProgram, inputs: list, states: dict) -> None:
    """Copy buffers the forward wrote (batch norm's running statistics) into their Tensors, in place."""
    for name, value in states.items():
        target = inputs[partial.input_names.index(name)] if name in partial.input_names else None
        if target is None or target._data is value:
            continue
        target._data[...] = value
        target._bump_version()
