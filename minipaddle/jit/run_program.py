"""run_program: run a forward static Program in dygraph op by op, so autograd records through it.

A loaded model (`jit.load`) holds a Program -- as does a converted function (`@to_static`), which
trains through the run_program *op* (run_program_op.py) and comes here only where that op's
backward Program cannot be built, when asked to (`BuildStrategy(to_static_op_by_op=True)`), or
under no_grad. Their callers want eager Tensors back and `loss.backward()` to reach the inputs
and the Layer's own Parameters. `run_program` walks the global block and sends each op through eager
`dispatch` -- the same OpDefs the Executor runs -- with variables bound to Tensors:

    outs = run_program(program, ["x"], [x], [logits.name], {p.name: p for p in layer.parameters()})
    outs[0].mean().backward()          # grads land in x.grad and in the layer's parameters

Constant ops (fill_constant, assign_value, random fills) run their static handler and become
constant Tensors; `cond` runs the sub-block its predicate picks and `while` repeats its body,
both eagerly, so gradients follow the path actually taken. When nothing needs a gradient
(under `paddle.no_grad()`, or all inputs and params stop gradients) the static Executor runs
the Program instead: same kernels, no graph bookkeeping. Called while another Program is being
built (a loaded model inside a model being converted or traced), it copies its ops into that
Program instead (`inline_program`).

Persistable state the program writes (a training batch_norm's `batch_norm_update` writes the running
statistics into their buffer variables) is copied back, in place, into the Tensors passed in `params`
after the run -- the layer's (or TranslatedLayer's) buffers move as they would eagerly.
"""
from __future__ import annotations

import numpy as np

from ..framework import instrument
from ..framework.dispatch import dispatch
from ..framework.errors import invalid_argument, not_found, precondition_not_met, unimplemented
from ..framework.registry import get_op
from ..framework.tensor import Tensor
from ..framework.thread_modes import modes
from ..framework.static import builder
from ..framework.static.executor import Executor
from ..framework.static.static_ops import CONSTANT_OPS, STATIC_OPS
from ..framework.static.program import Block, Program

__all__ = ["run_program", "run_forward_program"]

_API = "run_program"
_OP, _CONST, _COND, _WHILE = 0, 1, 2, 3


def _cache(program: Program) -> dict:
    """Plans and an Executor kept on the program itself: a global table would keep every program alive
    (its plans point back at it), this way they go with it."""
    cache = program.__dict__.get("_run_program_cache")
    if cache is None:
        cache = program.__dict__["_run_program_cache"] = {"executor": Executor()}
    return cache


class _Step:
    __slots__ = ("kind", "op", "opdef", "ins", "outs", "attrs")

    def __init__(self, kind: int, op, opdef=None, ins: tuple = (), outs: tuple = ()) -> None:
        self.kind, self.op, self.opdef, self.ins, self.outs, self.attrs = kind, op, opdef, ins, outs, op.attrs


def _plan(block: Block) -> list[_Step]:
    per_program = _cache(block.program)
    entry = per_program.get(block.idx)
    if entry is not None and entry[0] == block.program._version:
        return entry[1]
    steps = [_step(op) for op in block.ops]
    per_program[block.idx] = (block.program._version, steps)
    return steps


def _step(op) -> _Step:
    if op.type == "cond":
        return _Step(_COND, op)
    if op.type == "while":
        return _Step(_WHILE, op)
    if op.type in CONSTANT_OPS:
        return _Step(_CONST, op, outs=tuple(op.output_names()))
    if op.type in STATIC_OPS or op.role not in ("forward", "startup"):  # grads, clipping, updates
        raise unimplemented(_API, f"the program holds a '{op.type}' op (role {op.role!r}); run_program runs "
                                  "forward programs only.",
                            hint="save or pass the forward program (program.clone(for_test=True)).")
    opdef = get_op(op.type)
    if opdef.variadic:
        ins = tuple(op.inputs[opdef.inputs[0]])
    else:
        ins = tuple(op.inputs[slot][0] for slot in opdef.inputs)
    return _Step(_OP, op, opdef, ins, tuple(op.output_names()))


# ---- checks -------------------------------------------------------------------------------------
def _check_args(program, feed_names, inputs, fetch_names, params) -> None:
    if not isinstance(program, Program):
        raise invalid_argument(_API, f"program must be a static.Program, got {type(program).__name__}.")
    if len(feed_names) != len(inputs):
        raise invalid_argument(_API, f"got {len(inputs)} inputs for {len(feed_names)} feed names {list(feed_names)}.")
    gb = program.global_block()
    for name, t in zip(feed_names, inputs):
        if not isinstance(t, Tensor):
            raise invalid_argument(_API, f"input {name!r} is a {type(t).__name__}, expected a Tensor.",
                                   hint="wrap arrays with paddle.to_tensor(...).")
        var = gb.vars.get(name)
        if var is None:
            raise not_found(_API, f"feed {name!r} is not a variable of the program.")
        want, got = var._data, t._data
        if got.dtype != want.dtype:
            raise invalid_argument(_API, f"input {name!r} has dtype {got.dtype}, expected {want.dtype}.",
                                   hint=f"cast it: x.astype('{want.dtype}').")
        if got.shape != want.shape and (  # equal shapes (no -1) are the common case: skip the dim walk
                got.ndim != len(want.shape) or any(d != -1 and d != g for d, g in zip(want.shape, got.shape))):
            raise invalid_argument(_API, f"input {name!r} has shape {list(got.shape)}, expected "
                                         f"{list(want.shape)} (-1: any size).")
    for name in fetch_names:
        if gb._find_var_recursive(name) is None:
            raise not_found(_API, f"fetch {name!r} is not a variable of the program.")
    data_reads, persist_reads = _reads(program)
    unfed = [n for n in data_reads if n not in params and n not in feed_names]
    if unfed:
        raise invalid_argument(_API, f"data variables {unfed} are read but not fed.",
                               hint=f"feed_names is {feed_names}.")
    missing = [n for n in persist_reads if n not in params and n not in feed_names]
    if missing:
        raise precondition_not_met(_API, f"the program's persistable variables {missing[:5]} have no value in "
                                         "params.", hint="pass {name: Parameter} for every parameter it reads.")


def _reads(program: Program) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The data and the persistable variables the program reads before writing them (cached per version)."""
    per_program = _cache(program)
    entry = per_program.get("reads")
    if entry is None or entry[0] != program._version:
        gb = program.global_block()
        _, external = per_program["executor"].plan(gb)
        data = tuple(n for n in external if n in gb.vars and gb.vars[n].is_data)
        persist = tuple(n for n in external if n in gb.vars and gb.vars[n].persistable)
        entry = per_program["reads"] = (program._version, data, persist)
    return entry[1], entry[2]


def _needs_grad(inputs, params: dict) -> bool:
    if not modes.grad_enabled:
        return False
    for t in inputs:
        if not t.stop_gradient:
            return True
    for t in params.values():
        if not t.stop_gradient:
            return True
    return False


# ---- running ------------------------------------------------------------------------------------
def run_program(program: Program, feed_names: list[str], inputs: list[Tensor], fetch_names: list[str],
                params: dict[str, Tensor], checked: bool = False) -> list[Tensor]:
    """Run `program`'s forward ops on `inputs` (bound to `feed_names`) and `params` (persistable
    variables by name), recording autograd; return the Tensors named by `fetch_names`. `checked`: the
    caller vouches that the arguments passed these checks before (to_static's signature cache)."""
    if params is None:
        params = {}
    if not checked:
        _check_args(program, feed_names, inputs, fetch_names, params)
    if modes.static_builder is not None:  # called while another Program is built: copy the ops in
        return inline_program(program, feed_names, inputs, fetch_names, params)
    if not _needs_grad(inputs, params):
        return _run_static(program, feed_names, inputs, fetch_names, params)
    env: dict[str, Tensor] = dict(params)
    env.update(zip(feed_names, inputs))
    _run_block(program, program.global_block(), env)
    _write_back(program, params, {n: env[n]._data for n in _written_state(program) if n in env})
    try:
        return [env[n] for n in fetch_names]
    except KeyError as e:
        raise not_found(_API, f"fetch {e.args[0]!r} was not computed by the program.") from None


def _written_state(program: Program) -> tuple[str, ...]:
    """The persistable variables the global block's ops write (cached per program version)."""
    per_program = _cache(program)
    entry = per_program.get("writes")
    if entry is None or entry[0] != program._version:
        gb = program.global_block()
        names = dict.fromkeys(n for op in gb.ops for n in op.output_names()
                              if n in gb.vars and gb.vars[n].persistable)
        entry = per_program["writes"] = (program._version, tuple(names))
    return entry[1]


def _write_back(program: Program, params: dict, values: dict) -> None:
    """Copy the new values of written persistables into the bound Tensors, in place (as eager
    batch_norm updates its running statistics), outside autograd."""
    for name, value in values.items():
        target = params.get(name)
        if target is None or target._data is value:
            continue
        if target._data.shape != value.shape:
            raise invalid_argument(_API, f"the program wrote {list(value.shape)} into persistable {name!r}, whose "
                                         f"tensor has shape {list(target._data.shape)}.")
        target._data[...] = value
        target._bump_version()


def _run_static(program, feed_names, inputs, fetch_names, params) -> list[Tensor]:
    """No gradient needed: the Executor's loop on arrays (temporaries freed as soon as they die)."""
    env = {n: t._data for n, t in params.items()}
    fed = {n: t._data for n, t in zip(feed_names, inputs)}
    env.update(fed)
    _cache(program)["executor"].run_global_block(program, env, fed, list(fetch_names))
    _write_back(program, params, {n: env[n] for n in _written_state(program) if n in env})
    try:
        return [Tensor._wrap(env[n]) for n in fetch_names]
    except KeyError as e:
        raise not_found(_API, f"fetch {e.args[0]!r} was not computed by the program.") from None


def run_forward_program(forward, feed_names: list[str], inputs: list[Tensor], params: dict[str, Tensor],
                        checked: bool = False) -> list[Tensor]:
    """No gradient wanted from a converted call: its optimized forward (`forward`, a
    jit.partial_program.ForwardProgram) run by its RunPlan on the inputs' arrays, as a training call
    runs its forward Program; buffers it writes are copied back into their Tensors."""
    if not checked:
        _check_args(forward.program, feed_names, inputs, forward.fetch_names, params)
    if instrument.subscribers:  # a recording shows the Program the call ran
        instrument.emit(instrument.ProgramBuilt(forward.program, "dy2static", forward.name))
    env = {n: t._data for n, t in params.items()}
    for name, t in zip(feed_names, inputs):
        env[name] = t._data
    forward.plan.run(env)
    if forward.state_names:
        _write_back(forward.program, params, {n: env[n] for n in forward.state_names if n in env})
    try:
        return [Tensor._wrap(env[n]) for n in forward.fetch_names]
    except KeyError as e:
        raise not_found(_API, f"fetch {e.args[0]!r} was not computed by the program.") from None


def _run_block(program: Program, block: Block, env: dict) -> None:
    step = None
    try:
        for step in _plan(block):
            kind = step.kind
            if kind == _OP:
                result = dispatch(step.opdef, tuple([env[n] for n in step.ins]), step.attrs)
                if type(result) is tuple:
                    env.update(zip(step.outs, result))
                else:
                    env[step.outs[0]] = result
            elif kind == _CONST:
                arrays = {n: env[n]._data for n in step.op.input_names()}
                STATIC_OPS[step.op.type](None, step.op, arrays)
                for n in step.outs:
                    env[n] = Tensor._wrap(arrays[n])
            elif kind == _COND:
                _run_cond(program, step.op, env)
            else:
                _run_while(program, step.op, env)
    except KeyError as e:
        raise precondition_not_met(_API, f"op '{step.op.type}' reads variable {e.args[0]!r}, which has no "
                                         "value.", hint="feed every data variable the program reads.") from None


def _predicate(op, value: Tensor) -> bool:
    data = np.asarray(value._data)
    if data.size != 1:
        raise invalid_argument(op.type, f"the condition has {data.size} elements at run time, expected 1.")
    return bool(data.reshape(-1)[0])


def _run_cond(program: Program, op, env: dict) -> None:
    taken = _predicate(op, env[op.inputs["Cond"][0]])
    idx = op.sub_blocks[0] if taken else op.sub_blocks[1]
    names = op.attrs["true_outs"] if taken else op.attrs["false_outs"]
    local = dict(env)  # the branch sees the outer values; its own names stay local
    _run_block(program, program.blocks[idx], local)
    for out, name in zip(op.outputs["Out"], names):
        env[out] = local[name]


def _run_while(program: Program, op, env: dict) -> None:
    a = op.attrs
    values = [env[n] for n in op.inputs["X"]]
    cond_block, body_block = (program.blocks[i] for i in op.sub_blocks)
    while True:
        local = dict(env)
        local.update(zip(a["cond_inputs"], values))
        _run_block(program, cond_block, local)
        if not _predicate(op, local[a["cond_out"]]):
            break
        local = dict(env)
        local.update(zip(a["body_inputs"], values))
        _run_block(program, body_block, local)
        values = [local[n] for n in a["body_outs"]]
    for out, value in zip(op.outputs["Out"], values):
        env[out] = value


# ---- building: the program's ops copied into the Program being built -----------------------------------
_NAME_ATTRS = {"cond": ("true_outs", "false_outs"), "while": ("cond_inputs", "cond_out", "body_inputs", "body_outs")}


def inline_program(program: Program, feed_names, inputs, fetch_names, params: dict) -> list:
    """Append `program`'s ops to the block being built (a loaded model inside a model that is being
    converted or traced): feeds become the given inputs, persistables the given params (lifted as
    parameters of the new Program), every other variable -- sub-blocks included -- a fresh name."""
    target = builder.default_main_program()
    block = target.current_block()
    names = {n: builder.as_variable(block, t).name for n, t in zip(feed_names, inputs)}
    src_vars = program.global_block().vars
    for n, t in params.items():  # buffers stay buffers (an update op may write them), parameters parameters
        buffer = n in src_vars and src_vars[n].persistable and not src_vars[n].is_parameter
        names[n] = (builder.lift_buffer(target, t) if buffer else builder.as_variable(block, t)).name
    block_map = {0: block.idx}
    try:
        for src in program.blocks[1:]:
            new = target._create_block(block_map[src.parent_idx])
            block_map[src.idx] = new.idx
    finally:
        target.current_block_idx = block.idx
    for src in program.blocks:
        dst = target.blocks[block_map[src.idx]]
        for name, var in src.vars.items():
            if name not in names:
                names[name] = target._unique_name(name.split(".tmp_")[0])
                dst.create_var(names[name], var._data.shape, var._data.dtype, stop_gradient=var.stop_gradient)
    for src in program.blocks:
        dst = target.blocks[block_map[src.idx]]
        for op in src.ops:
            attrs = dict(op.attrs)
            for key in _NAME_ATTRS.get(op.type, ()):
                value = attrs[key]
                attrs[key] = names[value] if isinstance(value, str) else [names[n] for n in value]
            dst.append_op(op.type, {k: [names[n] for n in v] for k, v in op.inputs.items()},
                          {k: [names[n] for n in v] for k, v in op.outputs.items()}, attrs,
                          sub_blocks=[block_map[i] for i in op.sub_blocks], source=op.source, role=op.role)
    return [block._find_var_recursive(names[n]) for n in fetch_names]
