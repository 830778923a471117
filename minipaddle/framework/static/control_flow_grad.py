"""Backward through static control flow: `cond_grad` and `while_grad` ops with grad sub-blocks.

Paddle differentiates `conditional_block` with a `conditional_block_grad` op and `while` with a
`while_grad` op, each owning a sub-block of grad ops and reading the *scopes* the forward op
kept. We do the same in our IR:

- `append_backward` marks the forward `cond` / `while` op to keep its sub-block's values (a
  `Scope` output: the taken branch and its values; `StepScopes` for while: one dict of body
  values per iteration -- Paddle's step-scope stack);
- for each branch (for the loop body) a grad block is built with the *same* rules every other op
  uses (backward.py's `_backward_ops`, passed in, run on the forward sub-block, written into the grad block),
  seeded by placeholders that receive the output gradients at run time;
- at run time `cond_grad` runs the grad block of the branch that was taken, on the values that
  branch computed; `while_grad` walks the saved iterations in reverse, feeding each iteration's
  input gradients to the one before and summing the gradients of the outer variables the body
  read (weights) over all iterations.

A grad block's parent is the block the grad op lives in; it declares copies of the forward
sub-block's variables, so a rule finds their shapes and the Executor sees them as local names.
Gradients of these grad ops themselves (double grad through control flow) are not supported:
`gradients` raises Unimplemented naming `cond_grad` / `while_grad`.
"""
from __future__ import annotations

import numpy as np

from .. import arrays
from . import builder
from .executor import run_sub_block
from .grad_vars import total_grad, wants_grad, zeros_like
from .static_ops import static_op
from .program import Block, Operator, Variable


def _mark_saving(op: Operator, dest: Block, slot: str, attr: str) -> str:
    """Make the forward op keep its sub-block values for the grad op; the name of that scope variable."""
    names = op.outputs.get(slot)
    if not names:
        var = op.block.create_var(op.block.program._unique_name(f"{op.type}.{slot.lower()}"), (), np.dtype(object))
        op.outputs[slot] = [var.name]
        op.attrs[attr] = True
        names = op.outputs[slot]
    if dest._find_var_recursive(names[0]) is None:  # dest is a grad block: declare the forward name there too
        dest.create_var(names[0], (), np.dtype(object))
    op.block.program._bump()
    return names[0]


def _new_grad_block(dest: Block, src: Block) -> Block:
    """A child block of `dest` that declares copies of `src`'s variables (the forward values it reads)."""
    program = dest.program
    g = program._create_block(dest.idx)
    program.current_block_idx = dest.idx
    for v in src.vars.values():
        g.create_var(v.name, v._data.shape, v._data.dtype, stop_gradient=v.stop_gradient)
    return g


def _seed(g: Block, target: str, like: Variable) -> Variable:
    return g.create_var(g.program._unique_name(f"{target}@GRAD"), like._data.shape, like._data.dtype,
                        stop_gradient=False)


def _grads_in_block(g: Block, src: Block, seeds: dict, targets: list[str], wanted: list[str],
                    no_grad: set, api: str, backward_ops) -> list[str]:
    """Emit into `g` the grad ops of `src` for `targets` (seeded by `seeds`); names of the grads of `wanted`.

    `backward_ops` is backward.py's block walker, passed in: a sub-block's grads are backward itself."""
    backward_ops(src, g, seeds, targets, no_grad, api)
    names = []
    with builder.block_guard(g.program, g), builder.op_role("backward"):
        for n in wanted:
            total = total_grad(g, seeds, n)
            names.append("" if total is None else total.name)
    return names


def _output_grad_vars(dest: Block, names: list[str]) -> list[Variable]:
    out = []
    for n in names:
        v = dest._find_var_recursive(n)
        out.append(dest.create_var(dest.program._unique_name(f"{n}@GRAD"), v._data.shape, v._data.dtype,
                                   stop_gradient=False))
    return out


# ---- cond -------------------------------------------------------------------------------------
def emit_cond_grad(dest: Block, op: Operator, grads: dict, no_grad: set, api: str,
                   backward_ops) -> list[tuple[str, Variable]]:
    """Append a `cond_grad` op for forward `cond` op `op`; return (outer var, its gradient) pairs."""
    outs = [n for n in op.outputs["Out"] if dest._find_var_recursive(n)._data.dtype.kind == "f"]
    douts = [total_grad(dest, grads, n) for n in outs]
    wrt = [n for n in op.inputs["Input"] if wants_grad(dest, n, no_grad)]
    if all(d is None for d in douts) or not wrt:
        return []
    douts = [d if d is not None else zeros_like(dest, dest._find_var_recursive(n)) for d, n in zip(douts, outs)]
    scope = _mark_saving(op, dest, "Scope", "save_scope")
    program = dest.program
    blocks, seeds_names, grad_names = [], [], []
    for idx, branch_outs in zip(op.sub_blocks, (op.attrs["true_outs"], op.attrs["false_outs"])):
        src = program.blocks[idx]
        g = _new_grad_block(dest, src)
        by_out = dict(zip(op.outputs["Out"], branch_outs))
        seeds: dict = {}
        placeholders = []
        for n, d in zip(outs, douts):
            p = _seed(g, by_out[n], d)
            seeds.setdefault(by_out[n], []).append(p)
            placeholders.append(p.name)
        names = _grads_in_block(g, src, seeds, [by_out[n] for n in outs], wrt, no_grad, api, backward_ops)
        blocks.append(g.idx)
        seeds_names.append(placeholders)
        grad_names.append(names)
    keep = [i for i in range(len(wrt)) if grad_names[0][i] or grad_names[1][i]]
    wrt = [wrt[i] for i in keep]
    result = _output_grad_vars(dest, wrt)
    dest.append_op("cond_grad", {"Cond": op.inputs["Cond"], "Scope": [scope], "OutGrad": [d.name for d in douts],
                                 "X": wrt},
                   {"XGrad": [v.name for v in result]},
                   {"true_douts": seeds_names[0], "false_douts": seeds_names[1],
                    "true_grads": [grad_names[0][i] for i in keep], "false_grads": [grad_names[1][i] for i in keep]},
                   sub_blocks=blocks, source=op.source, role="backward")
    return list(zip(wrt, result))


@static_op("cond_grad")
def run_cond_grad(executor, op: Operator, env: dict) -> None:
    taken, values = env[op.inputs["Scope"][0]]
    a = op.attrs
    idx, douts, grads = ((op.sub_blocks[0], a["true_douts"], a["true_grads"]) if taken
                         else (op.sub_blocks[1], a["false_douts"], a["false_grads"]))
    bindings = dict(values)
    bindings.update({p: env[d] for p, d in zip(douts, op.inputs["OutGrad"])})
    local = run_sub_block(executor, op.block.program, idx, env, bindings)
    for out, g, x in zip(op.outputs["XGrad"], grads, op.inputs["X"]):
        env[out] = local[g] if g else arrays.zeros_like(env[x])


# ---- while ------------------------------------------------------------------------------------
def emit_while_grad(dest: Block, op: Operator, grads: dict, no_grad: set, api: str,
                    backward_ops) -> list[tuple[str, Variable]]:
    """Append a `while_grad` op for forward `while` op `op`; return (outer var, its gradient) pairs."""
    program = dest.program
    a = op.attrs
    body = program.blocks[op.sub_blocks[1]]
    outs, xs = op.outputs["Out"], op.inputs["X"]
    loop = [k for k, n in enumerate(outs) if dest._find_var_recursive(n)._data.dtype.kind == "f"]
    douts = [total_grad(dest, grads, outs[k]) for k in loop]
    wrt_outer = [n for n in op.inputs["Input"] if wants_grad(dest, n, no_grad)]
    wrt_x = [k for k in loop if wants_grad(dest, xs[k], no_grad)]
    if all(d is None for d in douts) or not (wrt_outer or wrt_x):
        return []
    douts = [d if d is not None else zeros_like(dest, dest._find_var_recursive(outs[k])) for d, k in zip(douts, loop)]
    scopes = _mark_saving(op, dest, "StepScopes", "save_step_scopes")
    g = _new_grad_block(dest, body)
    seeds: dict = {}
    placeholders = []
    for k, d in zip(loop, douts):
        p = _seed(g, a["body_outs"][k], d)
        seeds.setdefault(a["body_outs"][k], []).append(p)
        placeholders.append(p.name)
    body_inputs = [a["body_inputs"][k] for k in loop]
    names = _grads_in_block(g, body, seeds, [a["body_outs"][k] for k in loop], body_inputs + wrt_outer,
                            no_grad, api, backward_ops)
    dins, outer_names = names[:len(loop)], names[len(loop):]
    kept_outer = [(n, gn) for n, gn in zip(wrt_outer, outer_names) if gn]
    x_grads = _output_grad_vars(dest, [xs[k] for k in wrt_x])
    in_grads = _output_grad_vars(dest, [n for n, _ in kept_outer])
    x_slot = ["" for _ in loop]
    for k, v in zip(wrt_x, x_grads):
        x_slot[loop.index(k)] = v.name
    dest.append_op("while_grad", {"StepScopes": [scopes], "OutGrad": [d.name for d in douts],
                                  "X": [xs[k] for k in loop], "Input": [n for n, _ in kept_outer]},
                   {"XGrad": x_slot, "InputGrad": [v.name for v in in_grads]},
                   {"douts": placeholders, "dins": dins, "body_inputs": body_inputs,
                    "input_grads": [gn for _, gn in kept_outer]},
                   sub_blocks=[g.idx], source=op.source, role="backward")
    return [(xs[k], v) for k, v in zip(wrt_x, x_grads)] + [(n, v) for (n, _), v in zip(kept_outer, in_grads)]


@static_op("while_grad")
def run_while_grad(executor, op: Operator, env: dict) -> None:
    a = op.attrs
    program = op.block.program
    current = [env[n] for n in op.inputs["OutGrad"]]
    sums: list = [None] * len(a["input_grads"])
    for scope in reversed(env[op.inputs["StepScopes"][0]]):
        bindings = dict(scope)
        bindings.update(zip(a["douts"], current))
        local = run_sub_block(executor, program, op.sub_blocks[0], env, bindings)
        current = [local[d] if d else arrays.zeros_like(scope[b]) for d, b in zip(a["dins"], a["body_inputs"])]
        for j, name in enumerate(a["input_grads"]):
            sums[j] = local[name] if sums[j] is None else arrays.add(sums[j], local[name])
    for out, value in zip(op.outputs["XGrad"], current):
        if out:
            env[out] = value
    for out, value, x in zip(op.outputs["InputGrad"], sums, op.inputs["Input"]):
        env[out] = arrays.zeros_like(env[x]) if value is None else value
