"""What every pass needs to know about a block: who reads and writes each variable, which ops
must stay (side effects), which variables a pass may not rename away (fetched, persistable, fed).

Passes run on every block. Seen from its parent, a control-flow op is opaque: the variables its
sub-blocks read count as reads *by that op*, and it is only removed when it is unused and has no
side effects. Inside a sub-block, what plays the fetch list's part is `block_fetched`: the names the
owning op takes out of it by attribute (a branch's outputs, a loop body's results) and every name
another block reads (a grad block reads the forward branch's values from the saved scope).
"""
from __future__ import annotations

import time
from typing import Callable

import numpy as np

from ..static_ops import SIDE_EFFECT_OPS
from ..program import Block, Program, Variable
from .report import PassReport

# Ops whose result depends on the random generator: never merged (CSE) or folded, never removed (DCE
# would shift the random stream every later random op draws from).
RANDOM_OPS = frozenset({"uniform_random", "gaussian_random", "truncated_gaussian_random", "dropout", "rrelu",
                        "randint", "randperm", "bernoulli", "multinomial", "poisson", "rand", "randn", "uniform",
                        "normal"})

CONSTANT_OPS = ("fill_constant", "assign_value")


def fetch_names(fetch_list) -> set[str] | None:
    """Names in a fetch_list (Variables or names); None when no fetch_list was given."""
    if fetch_list is None:
        return None
    if isinstance(fetch_list, (str, Variable)):
        fetch_list = [fetch_list]
    return {item.name if isinstance(item, Variable) else str(item) for item in fetch_list}


def attr_names(op) -> set[str]:
    """Strings an op holds in its attributes (true_outs, body_outs, cond_out, ...): variables it binds."""
    names: set[str] = set()
    for value in op.attrs.values():
        if isinstance(value, str):
            names.add(value)
        elif isinstance(value, (list, tuple)):
            names.update(v for v in value if isinstance(v, str))
    return names


def block_fetched(program: Program, block: Block, fetched: set[str] | None) -> set[str] | None:
    """What a pass must keep computed in `block`: the fetch list for the global block; for a sub-block
    the names its owning op binds by attribute and every name an op of another block reads."""
    if block.idx == 0:
        return fetched
    keep: set[str] = set()
    for other in program.blocks:
        for op in other.ops:
            if block.idx in op.sub_blocks:
                keep |= attr_names(op)
            if other.idx != block.idx:
                keep.update(op.input_names())
    return keep


def sub_block_reads(program: Program, op) -> set[str]:
    """Variables of enclosing blocks that `op`'s sub-blocks (recursively) read."""
    names: set[str] = set()
    for idx in op.sub_blocks:
        block = program.blocks[idx]
        for sub in block.ops:
            names.update(n for n in sub.input_names() if n not in block.vars)
            names.update(n for n in sub_block_reads(program, sub) if n not in block.vars)
    return names


def op_reads(program: Program, op) -> set[str]:
    return set(op.input_names()) | sub_block_reads(program, op)


def readers(block: Block) -> dict[str, list[int]]:
    """name -> indices of the ops of `block` that read it (sub-block reads count for their op)."""
    out: dict[str, list[int]] = {}
    for i, op in enumerate(block.ops):
        for n in op_reads(block.program, op):
            out.setdefault(n, []).append(i)
    return out


def writers(block: Block) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for i, op in enumerate(block.ops):
        for n in op.output_names():
            out.setdefault(n, []).append(i)
    return out


def is_persistable(block: Block, name: str) -> bool:
    v = block._find_var_recursive(name)
    return v is not None and v.persistable


def is_fed(block: Block, name: str) -> bool:
    v = block._find_var_recursive(name)
    return v is not None and v.is_data


def has_side_effects(program: Program, op) -> bool:
    """Update ops, random ops, ops writing a persistable variable, control flow doing any of these."""
    if op.type in SIDE_EFFECT_OPS or op.type in RANDOM_OPS:  # updates are marked where they are registered
        return True
    block = op.block
    if any(is_persistable(block, n) for n in op.output_names()):
        return True
    for idx in op.sub_blocks:
        if any(has_side_effects(program, sub) for sub in program.blocks[idx].ops):
            return True
    return False


def protected(block: Block, name: str, fetched: set[str] | None) -> bool:
    """A variable a pass may not make disappear: fetched, persistable or fed."""
    return (fetched is not None and name in fetched) or is_persistable(block, name) or is_fed(block, name)


def rename_reads(program: Program, block: Block, start: int, old: str, new: str) -> None:
    """Make the ops of `block` from `start` on (and their sub-blocks) read `new` where they read `old`."""
    for op in block.ops[start:]:
        for names in op.inputs.values():
            for i, n in enumerate(names):
                if n == old:
                    names[i] = new
        for idx in op.sub_blocks:
            sub = program.blocks[idx]
            if old not in sub.vars:
                rename_reads(program, sub, 0, old, new)


def scalar_constant(block: Block, written: dict, name: str) -> float | None:
    """The value of a one-element constant variable written once, else None."""
    ws = written.get(name, [])
    if len(ws) != 1 or is_persistable(block, name) or is_fed(block, name):
        return None
    op = block.ops[ws[0]]
    shape = tuple(op.attrs.get("shape", (-1,)))
    if -1 in shape or int(np.prod(shape)) != 1:
        return None
    if op.type == "fill_constant":
        return op.attrs["value"]
    if op.type == "assign_value":
        return np.asarray(op.attrs["values"]).reshape(-1)[0].item()
    return None


def prune_vars(program: Program) -> list[str]:
    """Drop declarations of global-block temporaries no op reads or writes any more; returns their names."""
    used: set[str] = set()
    for block in program.blocks:
        for op in block.ops:
            used.update(op.input_names())
            used.update(op.output_names())
    gb = program.global_block()
    gone = [n for n, v in gb.vars.items() if n not in used and not v.persistable and not v.is_data]
    for n in gone:
        del gb.vars[n]
    return gone


def run_pass(name: str, fn: Callable, program: Program, fetched: set[str] | None,
             **options) -> tuple[Program, PassReport]:
    """Clone `program`, let `fn(clone, report, fetched, **options)` rewrite the clone, time it."""
    start = time.perf_counter()
    new = program.clone()
    report = PassReport(name, ops_before=program.num_ops())
    fn(new, report, fetched, **options)
    new._bump()
    report.ops_after = new.num_ops()
    report.time_ms = (time.perf_counter() - start) * 1e3
    return new, report
