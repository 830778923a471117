"""Dead-code elimination: drop ops whose results reach no fetched and no persistable variable.

Walking the ops from last to first, an op is live when it has side effects (an optimizer update,
a random op, a write to a persistable variable, control flow doing one of these) or when another
live op -- or the fetch list -- reads something it writes; a live op makes everything it reads live.
The rest is removed, and so are the declarations of the temporaries nothing uses any more. Inside
control-flow sub-blocks the same walk starts from what the owning op and the other blocks read.

Without a fetch_list every variable no op reads could be what the caller fetches, so such
"leaf" variables are kept live and nothing is removed.
"""
from __future__ import annotations

from ..program import Program
from .common import block_fetched, fetch_names, has_side_effects, op_reads, prune_vars, run_pass
from .report import PassReport, op_ref


def dead_code_elimination(program: Program, fetch_list=None) -> tuple[Program, PassReport]:
    """`program` without the ops no fetch (and no persistable variable) needs; the input is unchanged."""
    return run_pass("dead_code_elimination", _eliminate, program, fetch_names(fetch_list))


def _eliminate(program: Program, report: PassReport, fetched: set[str] | None) -> None:
    if fetched is None:
        report.summary = "no fetch_list: every leaf variable may be fetched, nothing removed"
        return
    for block in program.blocks:  # the global block first: a sub-block's keep-set reads the blocks after
        _eliminate_block(program, block, report, block_fetched(program, block, fetched))
    dropped = prune_vars(program)
    report.details = {"vars_removed": dropped}
    report.summary = f"removed {len(report.removed)} dead op(s), {len(dropped)} unused variable(s)"


def _eliminate_block(program: Program, block, report: PassReport, fetched: set[str]) -> None:
    live = set(fetched)
    keep = [False] * len(block.ops)
    for i in range(len(block.ops) - 1, -1, -1):
        op = block.ops[i]
        if has_side_effects(program, op) or any(n in live for n in op.output_names()):
            keep[i] = True
            live.update(op_reads(program, op))
    removed = [op_ref(block.idx, i, op) for i, op in enumerate(block.ops) if not keep[i]]
    if removed:
        block.ops = [op for i, op in enumerate(block.ops) if keep[i]]
        report.removed += removed
