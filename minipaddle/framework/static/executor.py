"""Executor and Scope: run a Program's ops with the same kernels eager mode uses.

A `Scope` holds values by variable name (parameters and optimizer state live there between
runs). `Executor.run(program, feed, fetch_list)` checks the feeds, then walks the block's ops in
order: a registry op runs its `infer_meta`, then `registry.run_kernel`, exactly as `dispatch`
does in eager mode; ops with no kernel key (initializers, control flow, optimizer
updates, backward rules run at run time) go through the `STATIC_OPS` table.

    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)                                            # initialize the parameters
    loss_value, = exe.run(main, feed={"x": xs, "y": ys}, fetch_list=[loss])

On a GPU place (`Executor(paddle.CUDAPlace(0))`, or `Executor()` after `paddle.set_device("gpu")`)
the same loop runs on device arrays: feeds and host values in the scope are copied to the device
once, what a STATIC_OPS handler makes on the host (an initializer draws its numbers there, so a seed
gives the same parameters on either device) is copied after it runs, and each registry op then
picks its GPU kernel in `run_kernel` because its inputs are device arrays. The few host values an
update keeps on the host (Adam's beta powers, the learning rate) are named in `host_names`.
Fetches come back as numpy arrays, or as GPU Tensors with `return_numpy=False`.
"""
from __future__ import annotations

import functools
import time
from typing import Any

import numpy as np

from .. import autotune, gpu, instrument
from ..thread_modes import modes
from ..errors import MinipaddleError, invalid_argument, not_found, precondition_not_met
from ..place import Place, convert_place, require
from ..registry import backend_of, get_op, run_kernel
from ..tensor import Tensor
from .builder import default_main_program
from .static_ops import SIDE_EFFECT_OPS, STATIC_OPS
from .program import Block, Program, Variable


class ScopeTensor:
    """What `scope.var(name).get_tensor()` returns: Paddle's LoDTensor, reduced to set/array."""

    def __init__(self, scope: "Scope", name: str) -> None:
        self._scope, self._name = scope, name

    def set(self, value, place=None) -> None:
        """Store `value` (an array or Tensor); `place` (CPUPlace / CUDAPlace) says where it lives."""
        array = value._data if isinstance(value, Tensor) else value
        array = array if gpu.is_device_array(array) else np.asarray(array)
        if place is not None and convert_place(place).backend == "gpu":
            require(convert_place(place), "LoDTensor.set")
            self._scope._vars[self._name] = array if gpu.is_device_array(array) else to_device(array)
            return
        self._scope._vars[self._name] = np.array(gpu.to_host(array) if gpu.is_device_array(array) else array)

    def __array__(self, dtype=None, copy=None):
        value = self._scope._vars.get(self._name)
        if value is None:
            raise not_found("Scope", f"variable {self._name!r} has no value yet.")
        value = gpu.to_host(value)  # a GPU Executor's values are device arrays
        return value if dtype is None else value.astype(dtype)

    def _place(self) -> Place:
        """Where the value lives (Paddle's LoDTensor._place())."""
        from ..place import place_of
        return place_of(self._scope._vars.get(self._name))

    def shape(self) -> list[int]:
        return list(np.asarray(self).shape)


class ScopeVar:
    def __init__(self, scope: "Scope", name: str) -> None:
        self._tensor = ScopeTensor(scope, name)

    def get_tensor(self) -> ScopeTensor:
        return self._tensor


class Scope:
    """Values by variable name; a child scope (`new_scope()`) sees its parent's values."""

    def __init__(self, parent: "Scope | None" = None) -> None:
        self._vars: dict[str, np.ndarray] = {}
        self._parent = parent

    def var(self, name: str) -> ScopeVar:
        self._vars.setdefault(name, None)
        return ScopeVar(self, name)

    def find_var(self, name: str) -> ScopeVar | None:
        scope: Scope | None = self
        while scope is not None:
            if scope._vars.get(name) is not None:
                return ScopeVar(scope, name)
            scope = scope._parent
        return None

    def new_scope(self) -> "Scope":
        return Scope(self)

    def values(self) -> dict[str, np.ndarray]:
        """Every value this scope sees (parents first, then its own)."""
        out = {} if self._parent is None else self._parent.values()
        out.update({k: v for k, v in self._vars.items() if v is not None})
        return out

    def _set(self, name: str, value: np.ndarray) -> None:
        scope: Scope | None = self
        while scope is not None:  # a value the parent holds is updated there
            if name in scope._vars:
                scope._vars[name] = value
                return
            scope = scope._parent
        self._vars[name] = value

    def local_var_names(self) -> list[str]:
        return [k for k, v in self._vars.items() if v is not None]


_global_scope = Scope()


def global_scope() -> Scope:
    return _global_scope


class scope_guard:  # noqa: N801 - Paddle's name
    """`with paddle.static.scope_guard(scope):` makes `scope` the global scope inside."""

    def __init__(self, scope: Scope) -> None:
        self._scope = scope

    def __enter__(self) -> None:
        global _global_scope
        self._prev, _global_scope = _global_scope, self._scope

    def __exit__(self, *exc) -> None:
        global _global_scope
        _global_scope = self._prev


# ---- plans: a block's ops turned into what the run loop needs --------------------------------
class _Step:
    __slots__ = ("op", "opdef", "ins", "outs", "attrs", "handler", "dtype_of")

    def __init__(self, op, opdef, ins, outs, attrs, handler) -> None:
        self.op, self.opdef, self.ins, self.outs, self.attrs, self.handler = op, opdef, ins, outs, attrs, handler


def _plan(block: Block, on_gpu: bool = False) -> tuple[list[_Step], list[str]]:
    """The steps of a block and the names it reads before writing them (its external inputs).
    `on_gpu`: a handler's host results are copied to the device after it runs (`_to_device_after`)."""
    steps, written, external = [], set(), []
    for op in block.ops:
        for n in op.input_names():
            if n not in written and n not in external:
                external.append(n)
        for n in _sub_block_reads(block.program, op):
            if n not in written and n not in external:
                external.append(n)
        handler = STATIC_OPS.get(op.type)
        if handler is not None and on_gpu and op.type not in SIDE_EFFECT_OPS:  # an update places its own state
            handler = functools.partial(_to_device_after, handler)
        if handler is not None:
            steps.append(_Step(op, None, None, None, op.attrs, handler))
        else:
            opdef = get_op(op.type)
            if opdef.variadic:
                ins = tuple(op.inputs[opdef.inputs[0]])
            else:
                ins = tuple(op.inputs[slot][0] for slot in opdef.inputs)
            outs = tuple(op.output_names())
            steps.append(_Step(op, opdef, ins, outs, op.attrs, None))
        written.update(op.output_names())
    return steps, external


def _sub_block_reads(program: Program, op) -> list[str]:
    names = []
    for idx in op.sub_blocks:
        block = program.blocks[idx]
        own = set(block.vars)
        for sub in block.ops:
            names += [n for n in sub.input_names() if n not in own]
            names += [n for n in _sub_block_reads(program, sub) if n not in own]
    return names


def to_device(array: np.ndarray):
    """`gpu.to_device(array)` keeping a 0-D array 0-D (numpy's ascontiguousarray makes it 1-D)."""
    device = gpu.to_device(array)
    return device if len(device.shape) == array.ndim else device.reshape(array.shape)


def _to_device_after(handler, executor, op, env: dict) -> None:
    """Run a STATIC_OPS handler on a GPU Executor: what it made on the host moves to the device."""
    handler(executor, op, env)
    for name in op.output_names():
        if type(env.get(name)) is np.ndarray:
            env[name] = to_device(env[name])


class Executor:
    """Runs Programs on a place -- the CPU, or a GPU (`paddle.CUDAPlace(0)`) -- keeping values in a Scope.

    `place=None` is Paddle's expected place: the one `paddle.set_device` made current."""

    _observed = False  # an instrument subscriber listens to the current run (set once per run)

    def __init__(self, place=None) -> None:
        self.place = require(convert_place(place), "Executor")
        self._on_gpu = self.place.backend == "gpu"
        self.host_names: set[str] = set()  # on a GPU: values an op keeps on the host (see run_update)
        self._plans: dict = {}
        self._releases: dict = {}
        self._pools: dict = {}   # (program id, version) -> BufferPool, for programs with a buffer_reuse plan

    def close(self) -> None:
        self._plans.clear()
        self._pools.clear()  # the buffer_reuse pools hold arrays

    def run(self, program: Program | None = None, feed: dict | None = None, fetch_list=None,
            feed_var_name: str = "feed", fetch_var_name: str = "fetch", scope: Scope | None = None,
            return_numpy: bool = True, use_program_cache: bool = False) -> list:
        """Feed `feed` ({name: array}), run every op of `program`, return the `fetch_list` values."""
        program = default_main_program() if program is None else program
        if not isinstance(program, Program):
            raise invalid_argument("Executor.run", f"program must be a static.Program, got {type(program).__name__}.",
                                   hint="a CompiledProgram is not needed here: pass the Program itself.")
        scope = global_scope() if scope is None else scope
        fetch_names = self._fetch_names(program, fetch_list)
        env = scope.values()
        fed = self._check_feed(program, feed or {})
        if self._on_gpu:
            fed = self._to_device(program, scope, env, fed)
        env.update(fed)
        for opt, lr_name in program._lr_sources:  # the optimizer's current lr (a scheduler may have stepped)
            env[lr_name] = np.array(opt.get_lr(), dtype=np.float64)
            scope._set(lr_name, env[lr_name])
        self.run_global_block(program, env, fed, fetch_names)
        autotune.executor_step()
        gb = program.global_block()
        for name, value in env.items():
            v = gb.vars.get(name)
            if v is not None and v.persistable:
                scope._set(name, value)
        out = []
        for name in fetch_names:
            if name not in env:
                raise not_found("Executor.run", f"fetch variable {name!r} was not computed by the program.")
            value = env[name]
            if return_numpy and self._on_gpu:
                value = gpu.to_host(value)
            out.append(value if return_numpy else Tensor._wrap(value))
        return out

    def _to_device(self, program: Program, scope: Scope, env: dict, fed: dict) -> dict:
        """A GPU run's inputs on the device: the feeds, and the host values of the scope the program reads
        (moved there once; the scope then holds the device copy), except what an op keeps on the host
        (`host_names`)."""
        keep = self.host_names
        keep.update(lr_name for _, lr_name in program._lr_sources)
        for name in self.plan(program.global_block())[1]:
            value = env.get(name)
            if type(value) is np.ndarray and name not in keep:
                env[name] = to_device(value)
                scope._set(name, env[name])
        return {name: to_device(value) if type(value) is np.ndarray else value for name, value in fed.items()}

    def run_global_block(self, program: Program, env: dict, fed: dict, fetch_names: list[str]) -> None:
        """Run the global block on `env` (feeds and persistables bound), telling the debugger when one
        listens: `Executor.run` and `jit`'s run_program both come through here."""
        outer, observed = self._observed, bool(instrument.subscribers)  # the debugger's one check per run
        self._observed = observed
        if observed:
            instrument.emit(instrument.ExecutorRunBegin(self, program, _shown(fed, fed), list(fetch_names)))
        try:
            self.run_block(program.global_block(), env, check_inputs=True,
                           release=self._release_plan(program, tuple(fetch_names)), pool=self._buffer_pool(program))
        except Exception as exc:
            self._observed = outer
            if observed:
                instrument.emit(instrument.ExecutorRunEnd(program, {}, str(exc)))
            raise
        self._observed = outer
        if observed:
            instrument.emit(instrument.ExecutorRunEnd(program, _shown(env, fetch_names), None))

    # ---- checks -------------------------------------------------------------------------------
    @staticmethod
    def _fetch_names(program: Program, fetch_list) -> list[str]:
        if fetch_list is None:
            return []
        if isinstance(fetch_list, (str, Variable)):
            fetch_list = [fetch_list]
        names = []
        for item in fetch_list:
            name = item.name if isinstance(item, Variable) else item
            if not isinstance(name, str):
                raise invalid_argument("Executor.run", f"fetch_list holds a {type(item).__name__}, expected "
                                                       "Variables or variable names.")
            if program.global_block()._find_var_recursive(name) is None:
                raise not_found("Executor.run", f"fetch variable {name!r} is not in the program.",
                                hint="fetch a Variable the program built, or its .name.")
            names.append(name)
        return names

    @staticmethod
    def _check_feed(program: Program, feed: dict) -> dict:
        if not isinstance(feed, dict):
            raise invalid_argument("Executor.run", f"feed must be a dict {{name: array}}, got {type(feed).__name__}.")
        gb = program.global_block()
        out = {}
        for name, value in feed.items():
            name = name.name if isinstance(name, Variable) else name
            var = gb.vars.get(name)
            if var is None:
                data_names = [v.name for v in gb.vars.values() if v.is_data]
                raise not_found("Executor.run", f"feed variable {name!r} is not in the program.",
                                hint=f"the program's data variables: {data_names}.")
            array = value._data if isinstance(value, Tensor) else _feed_array(name, value)
            want = var._data
            if array.dtype != want.dtype:
                raise invalid_argument("Executor.run", f"feed '{name}' has dtype {array.dtype}, expected {want.dtype}.",
                                       hint=f"feed array.astype('{want.dtype}').")
            if len(array.shape) != len(want.shape) or any(
                    d != -1 and d != a for d, a in zip(want.shape, array.shape)):
                raise invalid_argument("Executor.run", f"feed '{name}' has shape {list(array.shape)}, expected "
                                                       f"{list(want.shape)} (-1: any size).")
            out[name] = array
        return out

    # ---- running ops --------------------------------------------------------------------------
    def plan(self, block: Block):
        key = (id(block.program), block.idx)
        entry = self._plans.get(key)
        if entry is None or entry[0] is not block.program or entry[1] != block.program._version:
            steps, external = _plan(block, self._on_gpu)
            entry = (block.program, block.program._version, steps, external)
            self._plans[key] = entry
        return entry[2], entry[3]

    def _release_plan(self, program: Program, fetch_names: tuple) -> list[tuple[str, ...]]:
        """Per step of the global block: the temporaries nobody reads after it. Dropping them at once
        keeps memory (and the page faults of fresh buffers) as small as eager mode's."""
        key = (id(program), program._version, fetch_names)
        plan = self._releases.get(key)
        if plan is None:
            block = program.global_block()
            steps, _ = self.plan(block)
            keep = set(fetch_names) | {n for n, v in block.vars.items() if v.persistable or v.is_data}
            last: dict[str, int] = {}
            for i, step in enumerate(steps):
                for name in step.op.output_names():
                    last[name] = i
                for name in step.op.input_names() + _sub_block_reads(program, step.op):
                    last[name] = i
            plan = [[] for _ in steps]
            for name, i in last.items():
                if name not in keep:
                    plan[i].append(name)
            plan = [tuple(names) for names in plan]
            self._releases = {key: plan}  # one program at a time is the common case
        return plan

    def _buffer_pool(self, program: Program):
        """The BufferPool of a program carrying a buffer_reuse plan (passes/buffer_reuse.py), else None."""
        if getattr(program, "_buffer_plan", None) is None:
            return None
        key = (id(program), program._version)
        if key not in self._pools:
            from .passes.buffer_reuse import BufferPool
            self._pools = {key: BufferPool(program, self.plan(program.global_block())[0], self.place.backend)}
        return self._pools[key]

    def run_block(self, block: Block, env: dict, check_inputs: bool = False, release=None, pool=None) -> dict:
        """Run `block`'s ops reading and writing `env` (name -> array); after step i, drop the
        names in `release[i]` (temporaries no later step reads); `pool`: write planned outputs into
        shared buffers (buffer_reuse)."""
        steps, external = self.plan(block)
        if check_inputs:
            self._check_inputs(block, external, env)
        prev_grad, prev_builder = modes.grad_enabled, modes.static_builder
        modes.grad_enabled = False
        modes.static_builder = None  # eager_guard(), written out: a converted call runs this per call
        try:
            if self._observed:  # the debugger listens: the same loop, one "executor_op" event per op
                for i, step in enumerate(steps):
                    start = time.perf_counter_ns()
                    if step.handler is not None:
                        step.handler(self, step.op, env)
                    elif pool is not None and i in pool.steps:
                        pool.run(i, step, env, _run_kernel)
                    else:
                        _run_kernel(step, env)
                    _emit_op(block, i, step.op, env, start)
                    if release is not None:
                        for name in release[i]:
                            env.pop(name, None)
            else:
                for i, step in enumerate(steps):
                    if step.handler is not None:
                        step.handler(self, step.op, env)
                    elif pool is not None and i in pool.steps:
                        pool.run(i, step, env, _run_kernel)
                    else:
                        _run_kernel(step, env)
                    if release is not None:
                        for name in release[i]:
                            env.pop(name, None)
        except MinipaddleError as e:
            raise _located(e, step.op) from None
        except KeyError as e:
            raise precondition_not_met("Executor.run", f"op '{step.op.type}' reads variable {e.args[0]!r}, "
                                                       "which has no value.") from None
        finally:
            modes.grad_enabled, modes.static_builder = prev_grad, prev_builder
        return env

    @staticmethod
    def _check_inputs(block: Block, external: list[str], env: dict) -> None:
        for name in external:
            if name in env:
                continue
            var = block._find_var_recursive(name)
            if var is not None and var.is_data:
                raise invalid_argument("Executor.run", f"data variable '{name}' was not fed.",
                                       hint=f"pass feed={{'{name}': array}} to Executor.run.")
            if var is not None and var.persistable:
                raise precondition_not_met("Executor.run", f"persistable variable '{name}' has no value in the scope.",
                                           hint="run the startup program first: exe.run(startup_program).")
            raise precondition_not_met("Executor.run", f"variable '{name}' is read before any op writes it.")


def _feed_array(name: str, value) -> np.ndarray:
    """A feed value as an array, with an error naming the feed for ragged lists or non-numbers."""
    try:
        array = np.asarray(value)
    except ValueError as error:  # numpy 2: "setting an array element with a sequence ... inhomogeneous"
        raise invalid_argument("Executor.run", f"feed '{name}' is a ragged nested list ({error}); it must be "
                                               "rectangular.", hint="every row must have the same length; "
                                                                    "pad the rows, or feed a numpy array.") from None
    if array.dtype == object or array.dtype.kind in "USV":
        raise invalid_argument("Executor.run", f"feed '{name}' holds {type(value).__name__} data numpy reads as "
                                               f"{array.dtype}, expected numbers.")
    return array


def _run_kernel(step: _Step, env: dict) -> None:
    arrays = [env[n] for n in step.ins]
    opdef, attrs = step.opdef, step.attrs
    metas = opdef.infer_meta(*arrays, **attrs)
    result = run_kernel(opdef, arrays, attrs, backend_of(arrays[opdef.kernel_input]), metas)
    if type(result) is not tuple:
        env[step.outs[0]] = result
    else:
        for name, r in zip(step.outs, result):
            env[name] = r


def _shown(env: dict, names) -> dict:
    """The values of `names` the debugger can show: a cond's saved Scope (a tuple) and a while's
    StepScopes (a list) are bookkeeping for their grad ops, not tensors."""
    return {n: env[n] for n in names if n in env and not isinstance(env[n], (tuple, list, dict))}


def _emit_op(block: Block, index: int, op, env: dict, start: int) -> None:
    end = time.perf_counter_ns()
    outputs = _shown(env, op.output_names())
    instrument.emit(instrument.ExecutorOp(block.program, block.idx, index, op, outputs, start, end))


def _located(error: MinipaddleError, op) -> MinipaddleError:
    where = f" (running static op '{op.type}'" + (f" built at {op.source})" if op.source else ")")
    if where in str(error):
        return error
    return type(error)(str(error) + where)


def run_sub_block(executor: Executor, program: Program, idx: int, env: dict, bindings: dict[str, Any]) -> dict:
    """Run sub-block `idx` on a copy of `env` with `bindings` added; returns that copy."""
    local = dict(env)
    local.update(bindings)
    return executor.run_block(program.blocks[idx], local)
