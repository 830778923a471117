"""The control-flow ops of a Program: cond and while_loop (real ops with sub-blocks); case and
switch_case, which are chains of cond as in Paddle. `paddle.static.nn` (minipaddle/static/nn.py)
is their public face, next to fc.

In a Program, `cond(pred, true_fn, false_fn)` builds each branch into its own sub-block and
appends one `cond` op; the Executor runs the branch `pred` picks. `while_loop(cond, body,
loop_vars)` builds the condition and the body into two sub-blocks and appends one `while` op.
Called eagerly both are plain Python (`if` / `while`), so the same model code runs in both modes.

    out = paddle.static.nn.cond(x.sum() > 0, lambda: x * 2, lambda: x - 1)
    i, s = paddle.static.nn.while_loop(lambda i, s: i < 10, lambda i, s: [i + 1, s + i], [i, s])
"""
from __future__ import annotations

import functools

import numpy as np

from ..errors import invalid_argument, invalid_type
from ..tensor import Tensor
from . import builder
from .executor import run_sub_block
from .static_ops import STATIC_OPS, static_op
from .program import Block, Program, Variable


# ---- cond -----------------------------------------------------------------------------------
def _flatten(out) -> tuple[list, object]:
    """Branch/body results as a flat list plus how to put them back ('single', 'list', 'tuple', None)."""
    if out is None:
        return [], None
    if isinstance(out, (list, tuple)):
        return list(out), type(out).__name__
    return [out], "single"


def _pack(values: list, structure):
    if structure is None:
        return None
    if structure == "single":
        return values[0]
    return tuple(values) if structure == "tuple" else list(values)


def _build_sub_block(program: Program, parent: Block, fn, args: list) -> tuple[Block, list, object]:
    block = program._create_block(parent.idx)
    try:
        with builder.block_guard(program, block):
            placeholders = [block.create_var(program._unique_name(f"{a.name}_in"), a._data.shape, a._data.dtype,
                                             stop_gradient=a.stop_gradient) for a in args]
            result = fn(*placeholders)
            flat, structure = _flatten(result)
            flat = [builder.as_variable(block, v) if isinstance(v, Tensor) else _bad_result(v) for v in flat]
    finally:
        program.current_block_idx = parent.idx
    block.placeholders = placeholders
    return block, flat, structure


def _bad_result(value):
    raise invalid_argument("static.nn", f"a branch or loop body returned a {type(value).__name__}, expected "
                                        "Variables (or Tensors).")


def _merged_shape(a: tuple, b: tuple) -> tuple:
    if len(a) != len(b):
        return a
    return tuple(x if x == y else -1 for x, y in zip(a, b))


def _outer_reads(program: Program, blocks: list[Block]) -> list[str]:
    names: list[str] = []
    for block in blocks:
        own = set(block.vars)
        for op in block.ops:
            for n in op.input_names():
                if n not in own and n not in names:
                    names.append(n)
            for idx in op.sub_blocks:
                names += [n for n in _outer_reads(program, [program.blocks[idx]]) if n not in own and n not in names]
    return names


def _returned_outer(blocks_outs: list[tuple[Block, list]], reads: list[str]) -> list[str]:
    """`reads` plus the outer variables a branch/body returns as they are (no op in it reads them)."""
    names = list(reads)
    for block, outs in blocks_outs:
        for v in outs:
            if v.name not in block.vars and v.name not in names:
                names.append(v.name)
    return names


def _check_pred(api: str, pred: Variable) -> None:
    if pred._data.dtype != np.bool_ or pred._data.size not in (1, -1):
        raise invalid_argument(api, f"the condition must be a bool Variable with one element, got "
                                    f"{pred._data.dtype}{list(pred._data.shape)}.",
                               hint="compare with a scalar, e.g. paddle.sum(x) > 0.")


def cond(pred, true_fn=None, false_fn=None, name=None, return_names=None):
    """`true_fn()` if pred else `false_fn()`: a `cond` op with two sub-blocks in static mode."""
    if not builder.in_static_mode():
        if not isinstance(pred, Tensor) and not isinstance(pred, (bool, np.bool_)):
            raise invalid_argument("cond", f"pred must be a bool Tensor, got {type(pred).__name__}.")
        fn = true_fn if bool(pred) else false_fn
        return None if fn is None else fn()
    program = builder.default_main_program()
    parent = program.current_block()
    pred = builder.as_variable(parent, pred)
    _check_pred("cond", pred)
    t_block, t_outs, t_struct = _build_sub_block(program, parent, (lambda: true_fn()) if true_fn else lambda: None, [])
    f_block, f_outs, f_struct = _build_sub_block(program, parent, (lambda: false_fn()) if false_fn else lambda: None,
                                                 [])
    if len(t_outs) != len(f_outs) or t_struct != f_struct:
        raise invalid_argument("cond", f"true_fn returned {len(t_outs)} value(s) ({t_struct}) but false_fn returned "
                                       f"{len(f_outs)} ({f_struct}); both branches must return the same structure.")
    outs = []
    for i, (t, f) in enumerate(zip(t_outs, f_outs)):
        if t._data.dtype != f._data.dtype:
            raise invalid_argument("cond", f"output {i}: true_fn gives {t._data.dtype}, false_fn gives "
                                           f"{f._data.dtype}; expected the same dtype.")
        outs.append(parent.create_var(program._unique_name("cond"), _merged_shape(t._data.shape, f._data.shape),
                                      t._data.dtype, stop_gradient=t.stop_gradient and f.stop_gradient))
    parent.append_op("cond", {"Cond": [pred.name], "Input": _returned_outer(
                         [(t_block, t_outs), (f_block, f_outs)], _outer_reads(program, [t_block, f_block]))},
                     {"Out": [o.name for o in outs]},
                     {"true_outs": [v.name for v in t_outs], "false_outs": [v.name for v in f_outs]},
                     sub_blocks=[t_block.idx, f_block.idx], source=builder.user_source())
    return _pack(outs, t_struct)


@static_op("cond")
def run_cond(executor, op, env: dict) -> None:
    pred = env[op.inputs["Cond"][0]]
    if pred.size != 1:
        raise invalid_argument("cond", f"the condition has {pred.size} elements at run time, expected 1.")
    taken = bool(pred.reshape(-1)[0])
    idx = op.sub_blocks[0] if taken else op.sub_blocks[1]
    names = op.attrs["true_outs"] if taken else op.attrs["false_outs"]
    local = run_sub_block(executor, op.block.program, idx, env, {})
    for out, name in zip(op.outputs["Out"], names):
        env[out] = local[name]
    if op.attrs.get("save_scope"):  # cond_grad runs the taken branch's grad block on these values
        own = op.block.program.blocks[idx].vars
        env[op.outputs["Scope"][0]] = (taken, {k: local[k] for k in own if k in local})


# ---- case / switch_case: chains of cond ---------------------------------------------------------
def case(pred_fn_pairs, default=None, name=None):
    """The fn of the first pair whose pred is True, else `default()` (else the last pair's fn).

        out = paddle.static.nn.case([(x < 0, lambda: -x), (x < 1, lambda: x * x)], default=lambda: x)

    Built, as Paddle builds it, from nested `cond`s: cond(p1, f1, cond(p2, f2, default)); so it has
    cond's backward and runs eagerly as plain Python."""
    pairs, default = _case_args(pred_fn_pairs, default)
    false_fn = default
    for pred, true_fn in reversed(pairs):
        false_fn = functools.partial(cond, pred, true_fn, false_fn)
    return false_fn()


def _case_args(pred_fn_pairs, default) -> tuple[list, object]:
    api = "static.nn.case"
    if not isinstance(pred_fn_pairs, (list, tuple)) or not pred_fn_pairs:
        raise invalid_type(api, f"pred_fn_pairs must be a non-empty list or tuple of (pred, fn), got "
                                f"{type(pred_fn_pairs).__name__}.")
    for i, pair in enumerate(pred_fn_pairs):
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise invalid_type(api, f"pred_fn_pairs[{i}] must be a 2-tuple (pred, fn), got {pair!r:.60}.")
        pred, fn = pair
        if not isinstance(pred, Tensor) or np.dtype(pred._data.dtype) != np.bool_:
            raise invalid_type(api, f"pred_fn_pairs[{i}]'s pred must be a bool Tensor, got {_what(pred)}.",
                               hint="compare, e.g. (x.sum() > 0, fn).")
        if not callable(fn):
            raise invalid_type(api, f"pred_fn_pairs[{i}]'s fn must be callable, got {type(fn).__name__}.")
    pairs = list(pred_fn_pairs)
    if default is None:   # as Paddle: the last pair's fn is the default
        return pairs[:-1], pairs[-1][1]
    if not callable(default):
        raise invalid_type(api, f"default must be callable, got {type(default).__name__}.")
    return pairs, default


def switch_case(branch_index, branch_fns, default=None, name=None):
    """`branch_fns[branch_index]()`, else `default()` (else the fn with the largest index).

        out = paddle.static.nn.switch_case(i, {0: lambda: x, 3: lambda: x * 2}, default=lambda: -x)
        out = paddle.static.nn.switch_case(i, [f0, f1, f2])     # indices 0, 1, 2

    Built from `cond`s on `branch_index == k`, as Paddle's."""
    from ..creation import full
    from ..ops.compare import equal
    from ..ops.elementwise import cast
    pairs, default = _switch_args(branch_index, branch_fns, default)
    if np.dtype(branch_index._data.dtype) != np.int64:
        branch_index = cast(branch_index, "int64")
    false_fn = default
    for index, fn in pairs:
        pred = equal(branch_index, full([1], index, "int64"))
        false_fn = functools.partial(cond, pred, fn, false_fn)
    return false_fn()


def _switch_args(branch_index, branch_fns, default) -> tuple[list, object]:
    api = "static.nn.switch_case"
    if not isinstance(branch_index, Tensor) or np.dtype(branch_index._data.dtype) not in _INDEX_DTYPES:
        raise invalid_type(api, f"branch_index must be an int32, int64 or uint8 Tensor, got {_what(branch_index)}.")
    if not isinstance(branch_fns, (list, tuple, dict)) or not branch_fns:
        raise invalid_type(api, f"branch_fns must be a non-empty dict, list or tuple, got {type(branch_fns).__name__}.")
    items = list(branch_fns.items()) if isinstance(branch_fns, dict) else list(branch_fns)
    if all(callable(fn) for fn in items):
        items = list(enumerate(items))
    seen = set()
    for pair in items:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise invalid_type(api, f"branch_fns must hold (index, fn) pairs or callables, got {pair!r:.60}.")
        key, fn = pair
        if isinstance(key, bool) or not isinstance(key, int):
            raise invalid_type(api, f"an index of branch_fns must be an int, got {type(key).__name__} ({key!r}).")
        if key in seen:
            raise invalid_argument(api, f"the index {key} appears more than once in branch_fns; indices must be "
                                        "unique.")
        seen.add(key)
        if not callable(fn):
            raise invalid_type(api, f"the fn for index {key} must be callable, got {type(fn).__name__}.")
    items.sort(key=lambda pair: pair[0])
    if default is None:   # as Paddle: the fn with the largest index is the default
        return items[:-1], items[-1][1]
    if not callable(default):
        raise invalid_type(api, f"default must be callable, got {type(default).__name__}.")
    return items, default


_INDEX_DTYPES = (np.dtype(np.int32), np.dtype(np.int64), np.dtype(np.uint8))


def _what(value) -> str:
    return f"a {np.dtype(value._data.dtype)} Tensor" if isinstance(value, Tensor) else type(value).__name__


# ---- while_loop -------------------------------------------------------------------------------
def while_loop(cond, body, loop_vars, is_test: bool = False, name=None) -> list:
    """Repeat `loop_vars = body(*loop_vars)` while `cond(*loop_vars)`: a `while` op in static mode."""
    if not callable(cond) or not callable(body):
        raise invalid_argument("while_loop", "cond and body must be callables.")
    if not isinstance(loop_vars, (list, tuple)) or not loop_vars:
        raise invalid_argument("while_loop", f"loop_vars must be a non-empty list, got {type(loop_vars).__name__}.")
    if not builder.in_static_mode():
        values = list(loop_vars)
        while bool(cond(*values)):
            values, _ = _flatten(body(*values))
            if len(values) != len(loop_vars):
                raise invalid_argument("while_loop", f"body returned {len(values)} values for {len(loop_vars)} "
                                                     "loop_vars.")
        return values
    program = builder.default_main_program()
    parent = program.current_block()
    inits = [builder.as_variable(parent, v) for v in loop_vars]
    c_block, c_outs, _ = _build_sub_block(program, parent, cond, inits)
    if len(c_outs) != 1:
        raise invalid_argument("while_loop", f"cond returned {len(c_outs)} values, expected one bool Variable.")
    _check_pred("while_loop", c_outs[0])
    b_block, b_outs, _ = _build_sub_block(program, parent, body, inits)
    if len(b_outs) != len(inits):
        raise invalid_argument("while_loop", f"body returned {len(b_outs)} values for {len(inits)} loop_vars.")
    _carry_differentiable(program, b_block, inits, b_outs)
    outs = []
    for i, (v, b) in enumerate(zip(inits, b_outs)):
        if v._data.dtype != b._data.dtype:
            raise invalid_argument("while_loop", f"loop var {i} is {v._data.dtype} but body returns "
                                                 f"{b._data.dtype}; a loop var keeps its dtype.")
        outs.append(parent.create_var(program._unique_name("while"), _merged_shape(v._data.shape, b._data.shape),
                                      v._data.dtype, stop_gradient=v.stop_gradient and b.stop_gradient))
    parent.append_op("while", {"X": [v.name for v in inits], "Input": _returned_outer(
                         [(b_block, b_outs)], _outer_reads(program, [c_block, b_block]))},
                     {"Out": [o.name for o in outs]},
                     {"cond_inputs": [p.name for p in c_block.placeholders], "cond_out": c_outs[0].name,
                      "body_inputs": [p.name for p in b_block.placeholders], "body_outs": [v.name for v in b_outs]},
                     sub_blocks=[c_block.idx, b_block.idx], source=builder.user_source())
    return outs


def _carry_differentiable(program: Program, body: Block, inits: list, outs: list) -> None:
    """A loop var whose init is a constant but whose body result depends on a weight carries a
    gradient from one iteration to the next: mark its placeholder (and what it feeds) differentiable."""
    for _ in range(len(inits)):
        changed = False
        for p, v, b in zip(body.placeholders, inits, outs):
            if p.stop_gradient and p._data.dtype.kind == "f" and not (v.stop_gradient and b.stop_gradient):
                p.stop_gradient = False
                changed = True
        if not changed:
            return
        _refresh_stop_gradient(program, body)


def _refresh_stop_gradient(program: Program, block: Block) -> None:
    """Forward-propagate stop_gradient=False through `block`'s ops (and their sub-blocks)."""
    from ..registry import get_op
    for op in block.ops:
        for idx in op.sub_blocks:
            _refresh_stop_gradient(program, program.blocks[idx])
        ins = [block._find_var_recursive(n) for n in op.input_names()]
        if op.sub_blocks:
            live = any(v is not None and not v.stop_gradient for v in ins)
        elif op.type in STATIC_OPS:
            live = False
        else:
            opdef = get_op(op.type)
            live = opdef.backward is not None and any(
                not v.stop_gradient for i, v in enumerate(ins) if v is not None and i in opdef.differentiable_inputs)
        if live:
            for n in op.output_names():
                v = block.vars.get(n)
                if v is not None and v._data.dtype.kind == "f":
                    v.stop_gradient = False


@static_op("while")
def run_while(executor, op, env: dict) -> None:
    a = op.attrs
    program = op.block.program
    values = [env[n] for n in op.inputs["X"]]
    cond_idx, body_idx = op.sub_blocks
    own = program.blocks[body_idx].vars
    step_scopes = [] if a.get("save_step_scopes") else None  # while_grad walks these in reverse
    while True:
        local = run_sub_block(executor, program, cond_idx, env, dict(zip(a["cond_inputs"], values)))
        if not bool(np.asarray(local[a["cond_out"]]).reshape(-1)[0]):
            break
        local = run_sub_block(executor, program, body_idx, env, dict(zip(a["body_inputs"], values)))
        values = [local[n] for n in a["body_outs"]]
        if step_scopes is not None:
            step_scopes.append({k: local[k] for k in own if k in local})
    for out, value in zip(op.outputs["Out"], values):
        env[out] = value
    if step_scopes is not None:
        env[op.outputs["StepScopes"][0]] = step_scopes


from . import control_flow_grad  # noqa: E402,F401 - registers cond_grad / while_grad with the Executor
