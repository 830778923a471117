"""RunPlan: a Program's global block compiled once into the loop that runs it call after call.

jit's run_program runs a converted Layer's forward Program and its backward Program on every
training step, with inputs of one signature. `Executor.run_global_block` does, per op and per run,
what is the same every time for such a Program: look up the op, call its `infer_meta` (the checks
and the output shapes), call `run_kernel`, look up the release plan and check the inputs are bound.
A RunPlan does that work once:

    plan = RunPlan(program, keep=fetch_names, executor=exe)
    plan.run(env)       # env: name -> array (feeds and parameters); the outputs are written into it

Each step holds its op's definition, input and output names and attrs, and the temporaries no later
step reads (dropped right after it, as the Executor drops them). The first run with feeds of a new
shape goes through the Executor -- every infer_meta check, errors naming the op -- and later runs with
feeds of a shape seen before call each op's kernel straight away. Ops without a registry kernel
(control flow, backward rules) run their STATIC_OPS handler with the executor; outputs the
buffer_reuse pass planned go into the executor's pooled buffers. With a debugger listening the
Executor runs the program, so each op is reported as usual.
"""
from __future__ import annotations

import numpy as np

from .. import instrument
from ..errors import MinipaddleError, precondition_not_met
from ..registry import KernelKey, backend_of, get_op, kernel_fn, kernel_output
from ..thread_modes import modes
from .executor import Executor, _located
from .passes.common import op_reads
from .program import Program
from .static_ops import STATIC_OPS

__all__ = ["RunPlan"]

_ndarray = np.ndarray


class PlanStep:
    """One op of the plan: its kernel's OpDef (None for a STATIC_OPS handler), inputs, outputs, attrs,
    and `release`: the names nobody reads after it. `call(*arrays)`: the kernel last chosen for the
    step (`kernel`) with the attrs bound -- a kernel's own `prepare(attrs)` where it has one."""

    __slots__ = ("op", "opdef", "handler", "ins", "outs", "attrs", "release", "kernel", "call")

    def __init__(self, op, release: tuple) -> None:
        self.op, self.attrs, self.release = op, op.attrs, release
        self.kernel = self.call = None
        self.handler = STATIC_OPS.get(op.type)
        self.opdef = None if self.handler is not None else get_op(op.type)
        self.outs = tuple(op.output_names())
        if self.opdef is None:
            self.ins = ()
        elif self.opdef.variadic:
            self.ins = tuple(op.inputs[self.opdef.inputs[0]])
        else:
            self.ins = tuple(op.inputs[slot][0] for slot in self.opdef.inputs)

    def bind(self, fn) -> None:
        """Call `fn` from now on (the kernel picked for the inputs' device and dtype)."""
        prepare = getattr(fn, "prepare", None)
        attrs = self.attrs
        if prepare is not None:
            call = prepare(attrs)
        elif attrs:
            def call(*arrays):
                return fn(*arrays, **attrs)
        else:
            call = fn
        self.kernel, self.call = fn, call

    def __repr__(self) -> str:
        return f"PlanStep({self.op.type}: {list(self.ins)} -> {list(self.outs)}, drops {list(self.release)})"


class RunPlan:
    """The global block of `program` as a list of PlanSteps; `keep`: names the caller reads after the run
    (fetches, values saved for a backward run), never dropped."""

    def __init__(self, program: Program, keep, executor: Executor) -> None:
        self.program, self.version, self.executor = program, program._version, executor
        self.keep = list(keep)
        block = program.global_block()
        fed = {n for n, v in block.vars.items() if v.is_data}
        protected = set(self.keep) | fed | {n for n, v in block.vars.items() if v.persistable}
        last: dict[str, int] = {}
        for i, op in enumerate(block.ops):
            for name in list(op_reads(program, op)) + op.output_names():
                last[name] = i
        drops: list[list[str]] = [[] for _ in block.ops]
        for name, i in last.items():
            if name not in protected:
                drops[i].append(name)
        self.steps = [PlanStep(op, tuple(d)) for op, d in zip(block.ops, drops)]
        self.feed_names = tuple(sorted(fed))   # their shapes key the checked runs
        self._handlers = any(step.handler is not None for step in self.steps)
        self._checked: set = set()

    def __repr__(self) -> str:
        return f"RunPlan({len(self.steps)} steps, {len(self._checked)} checked feed shapes)"

    def run(self, env: dict) -> None:
        """Run the program on `env` (feeds and persistables bound): through the Executor the first time
        feeds of these shapes come (or a debugger listens, or the program changed), else the plan."""
        shapes = tuple([getattr(env.get(n), "shape", None) for n in self.feed_names])  # (a while saves a list)
        if shapes not in self._checked or instrument.subscribers or self.program._version != self.version:
            self.executor.run_global_block(self.program, env, env, self.keep)
            if self.program._version == self.version:
                self._checked.add(shapes)
            return
        if not self._handlers:  # kernels only: they read no mode, so none is switched
            self._run_steps(env)
            return
        prev_grad, prev_builder = modes.grad_enabled, modes.static_builder
        modes.grad_enabled = False  # a handler's grad rules run minipaddle ops: eagerly, recording nothing
        modes.static_builder = None
        try:
            self._run_steps(env)
        finally:
            modes.grad_enabled, modes.static_builder = prev_grad, prev_builder

    def _run_steps(self, env: dict) -> None:
        executor = self.executor
        pool = executor._buffer_pool(self.program)
        pooled = pool.steps if pool is not None else ()
        step = None
        try:
            for i, step in enumerate(self.steps):
                if step.handler is not None:
                    step.handler(executor, step.op, env)
                elif i in pooled:
                    pool.run(i, step, env, _run_kernel)
                else:
                    _run_kernel(step, env)
                for name in step.release:
                    env.pop(name, None)
        except MinipaddleError as e:
            raise _located(e, step.op) from None
        except KeyError as e:
            raise precondition_not_met("run_program", f"op '{step.op.type}' reads variable {e.args[0]!r}, "
                                                       "which has no value.") from None


def _run_kernel(step: PlanStep, env: dict) -> None:
    """The step's kernel on its inputs, no infer_meta: the checked run vouched for these shapes."""
    opdef = step.opdef
    arrays = [env[n] for n in step.ins]
    first = arrays[opdef.kernel_input]
    fn = opdef._chosen.get(("cpu", first.dtype)) if type(first) is _ndarray else None
    if fn is None:
        fn = kernel_fn(opdef, KernelKey(backend_of(first), first.dtype))
    if fn is not step.kernel:
        step.bind(fn)
    result = step.call(*arrays)
    if type(result) is _ndarray:
        env[step.outs[0]] = result
        return
    if type(result) is not tuple or any(type(r) is not _ndarray for r in result):
        result = kernel_output(result, opdef.infer_meta(*arrays, **step.attrs))  # a scalar from a full reduction
    if type(result) is not tuple:
        env[step.outs[0]] = result
    else:
        for name, r in zip(step.outs, result):
            env[name] = r
