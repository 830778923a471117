"""Dead-code elimination: drop ops whose results reach no fetched and no persistable variable.

Walking the ops from last to first, an op is live when it has side effects (an optimizer update,
a random op, a write to a persistable variable, control flow doing one of these) or when another
live op -- or the fetch list -- reads something it writes; a live op makes everything it reads live.
The rest is removed, and so are the declarations of the temporaries nothing uses any more.

Without a fetch_list every variable no op reads could be what the caller fetches, so such
"leaf" variables are kept live and nothing is removed.
"""
from __future__ import annotations

from ..program import Program
from .common import fetch_names, has_side_effects, op_reads, prune_vars, run_pass
from .report import PassReport, op_ref


def dead_code_elimination(program: Program, fetch_list=None) -> tuple[Program, PassReport]:
    """`program` without the ops no fetch (and no persistable variable) needs; the input is unchanged."""
    return run_pass("dead_code_elimination", _eliminate, program, fetch_names(fetch_list))


def _eliminate(program: Program, report: PassReport, fetched: set[str] | None) -> None:
    block = program.global_block()
    if fetched is None:
        report.summary = "no fetch_list: every leaf variable may be fetched, nothing removed"
        return
    live = set(fetched)
    keep = [False] * len(block.ops)
    for i in range(len(block.ops) - 1, -1, -1):
        op = block.ops[i]
        if has_side_effects(program, op) or any(n in live for n in op.output_names()):
            keep[i] = True
            live.update(op_reads(program, op))
    report.removed = [op_ref(0, i, op) for i, op in enumerate(block.ops) if not keep[i]]
    if report.removed:
        block.ops = [op for i, op in enumerate(block.ops) if keep[i]]
    dropped = prune_vars(program)
    report.details = {"vars_removed": dropped}
    report.summary = f"removed {len(report.removed)} dead op(s), {len(dropped)} unused variable(s)"
