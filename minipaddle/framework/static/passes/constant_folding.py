"""Constant folding: compute at build time what depends only on constants.

A variable is a *constant* when a `fill_constant` / `assign_value` op with a fixed shape writes it,
once, and it is neither persistable (a parameter or optimizer state, which changes) nor fed. An
op whose inputs are all constants, that is deterministic and has no side effects, is run now with
its own kernel and replaced by an `assign_value` (or `fill_constant`, when every element is equal)
holding the result -- which may in turn make the next op foldable. The constants it read are left
for dead-code elimination to remove. Results bigger than `max_elements` are not folded (the program
would carry their values).

    c = paddle.exp(paddle.to_tensor([0.0, 1.0])) * 2.0   # two ops -> one assign_value
"""
from __future__ import annotations

import numpy as np

from ...errors import MinipaddleError
from ...registry import OPS, backend_of, run_kernel
from ..static_ops import STATIC_OPS
from ..program import Block, Operator, Program
from .common import CONSTANT_OPS, RANDOM_OPS, fetch_names, is_fed, is_persistable, run_pass, writers
from .report import PassReport, op_ref


def constant_folding(program: Program, fetch_list=None, max_elements: int = 65536) -> tuple[Program, PassReport]:
    """`program` with constant-only ops replaced by their values; the input is unchanged."""
    return run_pass("constant_folding", _fold, program, fetch_names(fetch_list), max_elements=max_elements)


def _constant_value(block: Block, op: Operator) -> np.ndarray | None:
    if op.input_names():  # a shape known only at run time (like / ShapeTensor / ShapeTensorList inputs)
        return None
    env: dict = {}
    STATIC_OPS[op.type](None, op, env)
    return env[op.outputs["out"][0]]


def _evaluate(op: Operator, known: dict) -> np.ndarray | None:
    """The op's single output computed by its kernel, or None if it cannot be (or may not be) folded."""
    opdef = OPS.get(op.type)
    if opdef is None or op.type in STATIC_OPS or op.type in RANDOM_OPS or op.sub_blocks:
        return None
    if len(op.output_names()) != 1:
        return None
    names = op.inputs[opdef.inputs[0]] if opdef.variadic else [op.inputs[s][0] for s in opdef.inputs]
    if not names or any(n not in known for n in names):
        return None
    arrays = [known[n] for n in names]
    try:
        metas = opdef.infer_meta(*arrays, **op.attrs)
        out = run_kernel(opdef, arrays, op.attrs, backend_of(arrays[opdef.kernel_input]), metas)
    except (MinipaddleError, ValueError, TypeError, ArithmeticError):
        return None  # left as it is: running the program reports the error where it happens
    return None if isinstance(out, tuple) else np.asarray(out)


def _constant_op(block: Block, name: str, value: np.ndarray, like: Operator) -> Operator:
    attrs = {"shape": tuple(value.shape), "dtype": value.dtype}
    if value.size and np.all(value == value.flat[0]):
        return Operator(block, "fill_constant", {}, {"out": [name]}, attrs | {"value": value.flat[0].item()},
                        source=like.source, role=like.role)
    return Operator(block, "assign_value", {}, {"out": [name]}, attrs | {"values": np.array(value, copy=True)},
                    source=like.source, role=like.role)


def _fold(program: Program, report: PassReport, fetched, max_elements: int) -> None:
    folded: list = []
    for block in program.blocks:  # sub-blocks too: a constant chain inside a branch folds the same way
        _fold_block(block, report, max_elements, folded)
    report.details = {"folded": folded}
    report.summary = f"folded {len(folded)} op(s) into constants"


def _fold_block(block: Block, report: PassReport, max_elements: int, folded: list) -> None:
    written = writers(block)
    known: dict[str, np.ndarray] = {}
    for i, op in enumerate(block.ops):
        outs = op.output_names()
        if len(outs) != 1:
            continue
        name = outs[0]
        if len(written[name]) != 1 or is_persistable(block, name) or is_fed(block, name):
            continue
        if op.type in CONSTANT_OPS:
            value = _constant_value(block, op)
            if value is not None:
                known[name] = value
            continue
        value = _evaluate(op, known)
        var = block.vars.get(name)
        if value is None or value.size > max_elements or var is None or value.dtype != var._data.dtype:
            continue
        known[name] = value
        block.ops[i] = _constant_op(block, name, value, op)
        report.removed.append(op_ref(block.idx, i, op))
        report.added.append(op_ref(block.idx, i, block.ops[i]))
        folded.append({"block": block.idx, "op": op.type, "index": i, "out": name, "shape": list(value.shape)})
