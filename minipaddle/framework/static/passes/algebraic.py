"""Algebraic simplification: ops that return their input unchanged are removed.

    x * 1, 1 * x, x / 1, x + 0, 0 + x, x - 0     (the constant: one element, so no broadcast)
    scale(x, scale=1, bias=0)
    cast(x, dtype) where x already has that dtype
    reshape(x, shape) where the shape is x's own

The op's readers read `x` instead. When its result is fetched it must keep its name, so the op
becomes a plain `assign` (a copy) instead. Nothing is changed where `x` is written again later
(its readers would see the new value) or where the result would not have x's shape and dtype.
"""
from __future__ import annotations

import numpy as np

from ..program import Block, Operator, Program
from .common import (block_fetched, fetch_names, is_fed, is_persistable, prune_vars, rename_reads, run_pass,
                     scalar_constant, writers)
from .report import PassReport, op_ref

# op type -> (the neutral constant, which input positions it may take)
_NEUTRAL = {"multiply": (1, (0, 1)), "add": (0, (0, 1)), "subtract": (0, (1,)), "divide": (1, (1,))}


def algebraic_simplification(program: Program, fetch_list=None) -> tuple[Program, PassReport]:
    """`program` without identity ops (x*1, x+0, same-dtype casts, ...); the input is unchanged."""
    return run_pass("algebraic_simplification", _simplify, program, fetch_names(fetch_list))


def _identity_input(block: Block, written: dict, op: Operator) -> str | None:
    """The input `op` passes through unchanged, or None."""
    t = op.type
    if t in _NEUTRAL:
        neutral, positions = _NEUTRAL[t]
        names = [op.inputs["x"][0], op.inputs["y"][0]]
        for pos in positions:
            c = names[pos]
            if scalar_constant(block, written, c) == neutral:
                other = names[1 - pos]
                if block._find_var_recursive(c)._data.ndim <= block._find_var_recursive(other)._data.ndim:
                    return other
        return None
    if t == "scale":
        a = op.attrs
        return op.inputs["x"][0] if a.get("scale", 1.0) == 1 and a.get("bias", 0.0) == 0 else None
    x = op.inputs["x"][0] if "x" in op.inputs else None
    if t == "cast":
        same = np.dtype(op.attrs["dtype"]) == block._find_var_recursive(x)._data.dtype
        return x if same else None
    if t == "reshape":
        return x if _same_shape(block._find_var_recursive(x)._data.shape, tuple(op.attrs["shape"])) else None
    return None


def _same_shape(have: tuple, wanted: tuple) -> bool:
    """True when reshaping a `have`-shaped variable (-1: unknown) to `wanted` cannot change its shape."""
    if len(have) != len(wanted) or list(have).count(-1) > 1:
        return False
    return all(w == h or w == 0 or (w == -1 and h == -1) for h, w in zip(have, wanted))


def _simplify(program: Program, report: PassReport, fetched) -> None:
    rewrites: list = []
    for block in program.blocks:  # sub-blocks too, keeping the names other blocks read
        _simplify_block(program, block, report, block_fetched(program, block, fetched), rewrites)
    report.details = {"rewritten": rewrites, "vars_removed": prune_vars(program)}
    report.summary = f"simplified {len(rewrites)} identity op(s)"


def _simplify_block(program: Program, block: Block, report: PassReport, fetched, rewrites: list) -> None:
    written = writers(block)
    kept = []
    for i, op in enumerate(block.ops):
        outs = op.output_names()
        x = _identity_input(block, written, op) if len(outs) == 1 else None
        out = outs[0] if outs else None
        if x is None or len(written[out]) != 1 or is_persistable(block, out) or is_fed(block, out) \
                or any(w > i for w in written.get(x, [])) or not _same_meta(block, x, out):
            kept.append(op)
            continue
        report.removed.append(op_ref(block.idx, i, op))
        if fetched is not None and out in fetched or fetched is None:
            copy = Operator(block, "assign", {"x": [x]}, {"out": [out]}, {}, source=op.source, role=op.role)
            report.added.append(op_ref(block.idx, len(kept), copy))
            kept.append(copy)
            rewrites.append({"block": block.idx, "index": i, "type": op.type, "into": "assign", "out": out})
        else:
            rename_reads(program, block, i + 1, out, x)
            rewrites.append({"block": block.idx, "index": i, "type": op.type, "into": x, "out": out})
    block.ops = kept


def _same_meta(block: Block, x: str, out: str) -> bool:
    a, b = block._find_var_recursive(x)._data, block._find_var_recursive(out)._data
    return a.shape == b.shape and a.dtype == b.dtype
