"""What a pass changed: `PassReport` for one pass, `PassPipelineReport` for a PassManager run.

Ops are named by where they stand: `{"block": 0, "index": 7, "type": "multiply", "outputs": [...]}`.
A removed op's index is in the pass's *input* program; an added op's index (and a fused op's) is in
its *output* program -- so the debugger can draw the two programs side by side and highlight both.

    program, report = paddle.static.passes.apply_passes(main, fetch_list=[loss])
    print(report)                 # one line per pass: time, ops before -> after, what changed
    report.to_dict()              # the trace document's `pass_diffs` entries
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..program import Operator


def op_ref(block_idx: int, index: int, op: Operator) -> dict:
    """How a report names one op: block, position, type and the variables it writes."""
    return {"block": block_idx, "index": index, "type": op.type, "outputs": op.output_names()}


@dataclass
class PassReport:
    """One pass's changes: removed / added / fused ops, a one-line summary, pass-specific details."""
    name: str
    summary: str = ""
    removed: list[dict] = field(default_factory=list)
    added: list[dict] = field(default_factory=list)
    fused: list[dict] = field(default_factory=list)   # {"into": op ref (output), "from": [op refs (input)]}
    details: dict[str, Any] = field(default_factory=dict)
    time_ms: float = 0.0
    ops_before: int = 0
    ops_after: int = 0
    # the program the pass produced (set by PassManager): the debugger draws it beside its input
    program: Any = field(default=None, repr=False, compare=False)

    @property
    def changed(self) -> bool:
        return bool(self.removed or self.added or self.fused or self.details.get("rewritten"))

    def to_dict(self) -> dict:
        return {"pass": self.name, "summary": self.summary, "changed": self.changed,
                "time_ms": round(self.time_ms, 4), "ops_before": self.ops_before, "ops_after": self.ops_after,
                "removed": self.removed, "added": self.added, "fused": self.fused, "details": self.details}

    def __str__(self) -> str:
        return (f"{self.name:<34} {self.time_ms:8.2f} ms  ops {self.ops_before:>4} -> {self.ops_after:<4}  "
                f"{self.summary}")


@dataclass
class PassPipelineReport:
    """Every pass a PassManager ran, in order, with the total time."""
    passes: list[PassReport] = field(default_factory=list)
    # the program the first pass read (each PassReport.program is what its pass made):
    # minipaddle.visualizer.program.pass_diffs_section turns the chain into before/after diffs
    input_program: Any = field(default=None, repr=False, compare=False)

    @property
    def total_ms(self) -> float:
        return sum(p.time_ms for p in self.passes)

    def __getitem__(self, name: str) -> PassReport:
        for p in self.passes:
            if p.name == name:
                return p
        raise KeyError(f"no pass named {name!r} ran; ran: {[p.name for p in self.passes]}")

    def __contains__(self, name: str) -> bool:
        return any(p.name == name for p in self.passes)

    def to_dict(self) -> list[dict]:
        """The `pass_diffs` section of a trace document: one entry per pass, in the order they ran."""
        return [dict(p.to_dict(), step=i) for i, p in enumerate(self.passes)]

    def __str__(self) -> str:
        if not self.passes:
            return "no passes ran"
        first, last = self.passes[0].ops_before, self.passes[-1].ops_after
        lines = [f"{p}" for p in self.passes]
        lines.append(f"{'total':<34} {self.total_ms:8.2f} ms  ops {first:>4} -> {last}")
        return "\n".join(lines)

    __repr__ = __str__
