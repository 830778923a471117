"""Common-subexpression elimination: an op that repeats an earlier one is dropped, its readers
read the earlier result.

Two ops are the same expression when they have the same type, read the same values (the same
variable names *at the same version*: a variable written again in between, such as a parameter
after its update op, is a different value) and have equal attributes. Only deterministic ops
without side effects take part: never random ops (two dropouts draw two masks), updates or
control flow. `add` / `multiply` / `maximum` / `minimum` are commutative: `x + y` matches `y + x`.
A repeat whose result is fetched, persistable or fed stays (its name must keep a value).
"""
from __future__ import annotations

import numpy as np

from ..static_ops import STATIC_OPS
from ..program import Operator, Program
from .common import (CONSTANT_OPS, RANDOM_OPS, block_fetched, fetch_names, is_persistable, protected, prune_vars,
                     rename_reads, run_pass, writers)
from .report import PassReport, op_ref

COMMUTATIVE = frozenset({"add", "multiply", "maximum", "minimum"})


def common_subexpression_elimination(program: Program, fetch_list=None) -> tuple[Program, PassReport]:
    """`program` with repeated computations merged into their first occurrence; the input is unchanged."""
    return run_pass("common_subexpression_elimination", _eliminate, program, fetch_names(fetch_list))


def freeze(value):
    """A hashable stand-in for an attribute value (arrays by bytes, dicts by sorted items)."""
    if isinstance(value, np.ndarray):
        return ("ndarray", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, dict):
        return ("dict", tuple(sorted(((repr(k), freeze(v)) for k, v in value.items()))))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(freeze(v) for v in value))
    if isinstance(value, np.dtype):
        return ("dtype", value.str)
    if isinstance(value, float) and value != value:
        return ("float", "nan")
    try:
        hash(value)
    except TypeError:
        return ("repr", repr(value))
    return (type(value).__name__, value)


def _eligible(op: Operator, written: dict) -> bool:
    """Deterministic, side-effect free, its results written only here: it may stand for its repeats."""
    if op.sub_blocks or op.type in RANDOM_OPS:
        return False
    if op.type in STATIC_OPS and op.type not in CONSTANT_OPS:
        return False
    outs = op.output_names()
    return bool(outs) and all(len(written[n]) == 1 and not is_persistable(op.block, n) for n in outs)


def _key(op: Operator, version: dict) -> tuple:
    slots = []
    for slot in sorted(op.inputs):
        slots.append((slot, tuple((n, version.get(n, 0)) for n in op.inputs[slot])))
    if op.type in COMMUTATIVE and len(slots) == 2:
        slots = [(None, v) for v in sorted(s[1] for s in slots)]
    return (op.type, tuple(slots), freeze(op.attrs), len(op.output_names()))


def _eliminate(program: Program, report: PassReport, fetched) -> None:
    merged: list = []
    for block in program.blocks:  # sub-blocks too, keeping what other blocks read from them
        _eliminate_block(program, block, report, block_fetched(program, block, fetched), merged)
    report.details = {"merged": merged, "vars_removed": prune_vars(program)}
    report.summary = f"merged {len(merged)} repeated op(s) into their first occurrence"


def _eliminate_block(program: Program, block, report: PassReport, fetched, merged: list) -> None:
    written = writers(block)
    version: dict[str, int] = {}
    seen: dict[tuple, tuple[int, Operator]] = {}
    kept_ops = []
    for i, op in enumerate(block.ops):
        key = _key(op, version) if _eligible(op, written) else None
        removable = key is not None and not any(protected(block, n, fetched) for n in op.output_names())
        if removable and key in seen:
            first_index, first = seen[key]
            for old, new in zip(op.output_names(), first.output_names()):
                rename_reads(program, block, i + 1, old, new)
            report.removed.append(op_ref(block.idx, i, op))
            merged.append({"block": block.idx, "removed": i, "kept": first_index, "type": op.type})
            continue
        if key is not None and key not in seen:
            seen[key] = (i, op)
        for n in op.output_names():
            version[n] = version.get(n, 0) + 1
        kept_ops.append(op)
    block.ops = kept_ops
