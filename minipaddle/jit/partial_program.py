"""PartialProgram: a converted function's forward Program and its backward Program, built once.

Paddle's dy2static design (its `partial_program.py`): when a converted Layer trains, its Program
is not replayed op by op through eager dispatch. Per input signature and training mode it becomes
two Programs --

    forward    the converted ops
    backward   the grad ops `gradients()` writes for them with the same rules eager autograd runs,
               seeded by one `<out>@DOUT` data variable per differentiable output

-- both optimized by the passes a `BuildStrategy` switches on (fusion, CSE, dead code, buffer
reuse, ...), and the Executor runs them as ONE op of the eager graph, `run_program`
(run_program_op.py): its kernel runs the forward Program and keeps the values the backward
Program reads (`saved_names`, Paddle's OutScope); its backward rule runs the backward Program.

    partial = build_partial_program(concrete.main_program, feed_names, fetch_names, input_names,
                                    trainable, strategy, label="MLP.forward")
    partial.forward_program, partial.backward_program, partial.saved_names

The passes run once over forward and backward together (fusion never mixes the two roles, so the
forward ops stay first), then the block is cut where the first grad op starts. What the backward
cannot be built for raises `CannotBuild`, and the caller runs the Program op by op instead.
"""
from __future__ import annotations

import itertools
import warnings

from ..framework.dtype import DIFFERENTIABLE_KINDS
from ..framework.errors import MinipaddleError
from ..framework.place import CPUPlace
from ..framework.registry import DEVICE_ARRAY_TYPES
from ..framework.static import builder
from ..framework.static.backward import gradients
from ..framework.static.executor import Executor
from ..framework.static.passes import BuildStrategy, PassManager
from ..framework.static.program import Program
from ..framework.static.run_plan import RunPlan
from ..framework.thread_modes import modes

__all__ = ["PartialProgram", "ForwardProgram", "CannotBuild", "build_partial_program", "partial_for", "forward_for"]

_ids = itertools.count()


class CannotBuild(Exception):
    """The backward Program cannot be built; the message says why (the fallback's warning shows it)."""


class NothingToDifferentiate(CannotBuild):
    """No gradient can flow (integer outputs only, or none reaching a trainable input): no warning is due."""


class PartialProgram:
    """The two optimized Programs of one converted signature, and the names that tie them together.

    `input_names`: the run_program op's inputs, in order (feeds, then parameters and buffers);
    `fetch_names`: its outputs; `grad_names[i]`: the backward Program's gradient of input i ("" for none);
    `dout_names[j]`: the data variable fed output j's gradient ("" where output j takes none);
    `saved_names`: what the forward run keeps for the backward run; `state_names`: buffers it writes.
    """

    def __init__(self, forward: Program, backward: Program, input_names: tuple, fetch_names: tuple,
                 grad_names: tuple, dout_names: tuple, saved_names: tuple, state_names: tuple,
                 output_stop_gradient: tuple, label: str) -> None:
        self.program_id = next(_ids)
        self.forward_program, self.backward_program = forward, backward
        self.input_names, self.fetch_names = input_names, fetch_names
        self.grad_names, self.dout_names = grad_names, dout_names
        self.saved_names, self.state_names = saved_names, state_names
        self.output_stop_gradient = output_stop_gradient
        self.forward_name = f"run_program {self.program_id} forward: {label}"
        self.backward_name = f"run_program {self.program_id} backward: {label}"
        # CPU Executors whatever set_device says: GPU inputs run op by op (partial_for)
        self.forward_executor, self.backward_executor = Executor(CPUPlace()), Executor(CPUPlace())
        # what the forward run must not drop: the outputs and every value the backward reads
        self.forward_keep = list(dict.fromkeys(fetch_names + saved_names))
        self.grad_fetch = [n for n in grad_names if n]
        # each run after the first with feeds of a shape skips the per-op lookups and checks (run_plan.py)
        self.forward_plan = RunPlan(forward, self.forward_keep, self.forward_executor)
        self.backward_plan = RunPlan(backward, self.grad_fetch, self.backward_executor)

    def __repr__(self) -> str:
        return (f"PartialProgram({self.program_id}: forward {self.forward_program.num_ops()} ops, "
                f"backward {self.backward_program.num_ops()} ops, saves {len(self.saved_names)} values)")


class ForwardProgram:
    """A converted signature's forward Program for calls that need no gradient (eval, `no_grad`),
    optimized by the strategy's passes like a training call's forward, and run by a RunPlan.
    `state_names`: the buffers it writes (a training batch norm's running statistics)."""

    def __init__(self, program: Program, input_names: tuple, fetch_names: tuple, label: str) -> None:
        self.program_id = next(_ids)
        self.program, self.input_names, self.fetch_names = program, input_names, fetch_names
        self.state_names = _written_persistables(program)
        self.name = f"to_static {self.program_id} no_grad forward: {label}"
        self.executor = Executor(CPUPlace())   # GPU inputs run op by op (forward_for)
        self.plan = RunPlan(program, list(dict.fromkeys(fetch_names + self.state_names)), self.executor)

    def __repr__(self) -> str:
        return f"ForwardProgram({self.program_id}: {self.program.num_ops()} ops)"


def forward_for(concrete, inputs: list, strategy: BuildStrategy | None, label: str) -> ForwardProgram | None:
    """The optimized forward of a ConcreteProgram for a call that needs no gradient (built once, cached on
    `concrete`); None where a gradient is needed, where the strategy asks for op by op, or on the GPU."""
    if (strategy is not None and strategy.to_static_op_by_op) or modes.static_builder is not None:
        return None  # (called while another Program is built: run_program copies the ops into it)
    tensors = inputs + concrete._bound
    if modes.grad_enabled and any(not t.stop_gradient for t in tensors):
        return None
    if DEVICE_ARRAY_TYPES and any(type(t._data) in DEVICE_ARRAY_TYPES for t in tensors):
        return None
    forward = concrete._forward
    if forward is None:
        feed_names, fetch_names, params = concrete._run_args
        program = concrete.main_program.clone()
        passes = (strategy if strategy is not None else BuildStrategy()).pass_names()
        states = list(_written_persistables(program))
        if passes:
            program, _ = PassManager(passes).run(program, fetch_list=list(fetch_names) + states)
        forward = concrete._forward = ForwardProgram(program, tuple(feed_names) + tuple(params), tuple(fetch_names),
                                                     label)
    return forward


def partial_for(concrete, inputs: list, strategy: BuildStrategy | None, label: str) -> PartialProgram | None:
    """The PartialProgram of a ConcreteProgram for these inputs' needs-grad flags (built once, cached on
    `concrete`); None where nothing needs a gradient, the strategy asks for op by op, or the backward
    cannot be built (then the warning says why, once)."""
    if strategy is not None and strategy.to_static_op_by_op:
        return None
    tensors = inputs + concrete._bound
    if DEVICE_ARRAY_TYPES and any(type(t._data) in DEVICE_ARRAY_TYPES for t in tensors):
        return None  # on the GPU: op by op, as before (the run_program kernel is registered for the CPU)
    flags = tuple([not t.stop_gradient for t in tensors])
    cache = concrete._partials
    if flags in cache:
        return cache[flags]
    if not any(flags):
        cache[flags] = None
        return None
    feed_names, fetch_names, params = concrete._run_args
    names = list(feed_names) + list(params)
    try:
        _check_trainable(concrete.main_program, names[len(feed_names):], flags[len(feed_names):])
        partial = build_partial_program(concrete.main_program, feed_names, fetch_names, names, flags, strategy,
                                        label)
    except NothingToDifferentiate:
        partial = None   # op by op: the outputs carry no gradient anyway
    except CannotBuild as e:
        warnings.warn(f"to_static: {label} runs its Program op by op through eager dispatch (slower): {e}.",
                      stacklevel=4)
        partial = None
    cache[flags] = partial
    return partial


def _check_trainable(program: Program, names: list, flags: tuple) -> None:
    """A parameter's stop_gradient must be what it was when the Program was built (its grad ops depend on it)."""
    gb = program.global_block()
    for name, flag in zip(names, flags):
        var = gb.vars.get(name)
        if var is not None and var.stop_gradient == flag and _differentiable(var):
            raise CannotBuild(f"the stop_gradient of {name!r} changed since the program was built")


def build_partial_program(program: Program, feed_names, fetch_names, input_names, trainable,
                          strategy: BuildStrategy | None, label: str) -> PartialProgram:
    """Forward and backward Programs for gradients of `fetch_names` w.r.t. the inputs flagged in
    `trainable` (one bool per name of `input_names`), optimized as `strategy` says."""
    whole = program.clone()
    gb = whole.global_block()
    targets, douts, dout_names = _targets(whole, fetch_names)
    wrt = [gb.vars[n] for n, flag in zip(input_names, trainable) if flag and _differentiable(gb.vars[n])]
    if not targets or not wrt:
        raise NothingToDifferentiate("no output depends on an input that needs a gradient")
    try:
        with builder.program_guard(whole, Program()):
            grads = gradients(targets, wrt, douts)
    except (MinipaddleError, NotImplementedError) as e:
        raise CannotBuild(f"append_backward cannot differentiate it: {e}") from None
    by_input = {v.name: (g.name if g is not None else "") for v, g in zip(wrt, grads)}
    grad_names = tuple(by_input.get(n, "") for n in input_names)
    if not any(grad_names):
        raise NothingToDifferentiate("no gradient reaches the inputs or parameters")
    strategy = strategy if strategy is not None else BuildStrategy()
    passes = strategy.pass_names()
    fetch = list(fetch_names) + [n for n in grad_names if n]
    combined = [p for p in passes if p != "buffer_reuse"]
    if combined:
        whole, _ = PassManager(combined).run(whole, fetch_list=fetch)
    forward, backward, saved = _split(whole, set(input_names), fetch_names, set(dout_names))
    if "buffer_reuse" in passes:
        forward, _ = PassManager(["buffer_reuse"]).run(forward, fetch_list=list(fetch_names) + list(saved))
        backward, _ = PassManager(["buffer_reuse"]).run(backward, fetch_list=[n for n in grad_names if n])
    states = _written_persistables(forward)
    stops = tuple(_output_stop_gradient(program, n) for n in fetch_names)
    return PartialProgram(forward, backward, tuple(input_names), tuple(fetch_names), grad_names,
                          tuple(dout_names), saved, states, stops, label)


def _differentiable(var) -> bool:
    return var._data.dtype.kind in DIFFERENTIABLE_KINDS


def _output_stop_gradient(program: Program, name: str) -> bool:
    var = program.global_block()._find_var_recursive(name)
    return var.stop_gradient or not _differentiable(var)


def _targets(whole: Program, fetch_names) -> tuple[list, list, list]:
    """Per output: the Variable to differentiate and a fresh data variable for its gradient (none for
    integer outputs and outputs that depend on nothing needing a gradient)."""
    gb = whole.global_block()
    targets, douts, dout_names = [], [], []
    for name in fetch_names:
        var = gb._find_var_recursive(name)
        if var.stop_gradient or not _differentiable(var):
            dout_names.append("")
            continue
        dout = gb.create_var(whole._unique_name(f"{name}@DOUT"), var._data.shape, var._data.dtype,
                             is_data=True, stop_gradient=True)
        targets.append(var)
        douts.append(dout)
        dout_names.append(dout.name)
    return targets, douts, dout_names


def _split(whole: Program, inputs: set, fetch_names, douts: set) -> tuple[Program, Program, tuple]:
    """Cut the optimized block where the first grad op starts: (forward, backward, saved names)."""
    ops = whole.global_block().ops
    cut = next((i for i, op in enumerate(ops) if op.role != "forward"), len(ops))
    forward, backward = whole.clone(), whole.clone()
    forward.global_block().ops = forward.global_block().ops[:cut]
    backward.global_block().ops = backward.global_block().ops[cut:]
    forward._bump()
    backward._bump()
    fgb, bgb = forward.global_block(), backward.global_block()
    written = {n for op in fgb.ops for n in op.output_names()}
    missing = [n for n in fetch_names if n not in written and n not in inputs and not _persistable(fgb, n)]
    if missing:
        raise CannotBuild(f"the optimized forward no longer computes the outputs {missing}")
    _, external = Executor().plan(bgb)
    saved = []
    for name in external:
        if name in douts:
            continue
        if name not in written and name not in inputs and not _persistable(bgb, name):
            raise CannotBuild(f"the backward reads {name!r}, which the forward does not compute")
        saved.append(name)
        var = bgb.vars.get(name)
        if var is not None and not var.persistable:
            var.is_data = True  # fed to the backward run from the forward's values
    return forward, backward, tuple(saved)


def _persistable(block, name: str) -> bool:
    var = block._find_var_recursive(name)
    return var is not None and var.persistable


def _written_persistables(program: Program) -> tuple:
    """The persistable variables (buffers: batch norm's running statistics) the forward writes."""
    gb = program.global_block()
    return tuple(dict.fromkeys(n for op in gb.ops for n in op.output_names()
                               if n in gb.vars and gb.vars[n].persistable))
