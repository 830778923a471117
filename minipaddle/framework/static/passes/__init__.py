"""Optimizing passes over static Programs: Program -> (Program, PassReport), the input left untouched.

    algebraic_simplification   x*1, x+0, x-0, x/1, scale(1, 0), same-dtype cast, same-shape reshape
    constant_folding           ops on constants computed now, replaced by their values
    common_subexpression_elimination   a repeated deterministic op reads the first one's result
    dead_code_elimination      ops no fetch and no persistable variable needs are removed
    fuse_elementwise           elementwise chains -> one generated numba kernel (print its source)
    buffer_reuse               liveness-based buffer sharing plan and the bytes it saves

One call runs the default pipeline (in that order) and returns the optimized program and a report:

    program, report = paddle.static.passes.apply_passes(main, fetch_list=[loss])
    print(report)                         # per pass: time, ops before -> after, what changed
    exe.run(program, feed=..., fetch_list=[loss])

`BuildStrategy` switches passes off (as Paddle's BuildStrategy does); `PassManager` runs any list.
Pass a fetch_list: what is not fetched (and not persistable) may be removed or fused away.
"""
from __future__ import annotations

import time
from typing import Callable

from ...errors import invalid_argument
from ..program import Program
from .algebraic import algebraic_simplification
from .buffer_reuse import buffer_reuse
from .constant_folding import constant_folding
from .cse import common_subexpression_elimination
from .dead_code import dead_code_elimination
from .fusion import fuse_elementwise, fused_source
from .report import PassPipelineReport, PassReport

PASSES: dict[str, Callable] = {
    "algebraic_simplification": algebraic_simplification,
    "constant_folding": constant_folding,
    "common_subexpression_elimination": common_subexpression_elimination,
    "dead_code_elimination": dead_code_elimination,
    "fuse_elementwise": fuse_elementwise,
    "buffer_reuse": buffer_reuse,
}
ALIASES = {"algebraic": "algebraic_simplification", "cse": "common_subexpression_elimination",
           "dce": "dead_code_elimination", "fusion": "fuse_elementwise", "fuse_elementwise_ops": "fuse_elementwise",
           "memory_optimize": "buffer_reuse", "inplace": "buffer_reuse"}
DEFAULT_PIPELINE = tuple(PASSES)


class BuildStrategy:
    """Which passes the default pipeline runs (Paddle's `static.BuildStrategy` switches).

    fuse_elementwise_ops (Paddle: fuse_elewise_add_act_ops), enable_inplace / memory_optimize
    (either one turns buffer_reuse on), remove_unused_ops (dead-code elimination),
    constant_folding, eliminate_common_subexpressions, algebraic_simplification; batch_size is the
    size buffer_reuse counts a -1 dim as. to_static_op_by_op (minipaddle's): a `paddle.jit.to_static`
    function given this strategy runs its Program op by op through eager dispatch instead of as one
    `run_program` op (no passes then; double grad works through it).
    """

    def __init__(self, fuse_elementwise_ops: bool = True, enable_inplace: bool = True, memory_optimize: bool = True,
                 remove_unused_ops: bool = True, constant_folding: bool = True,
                 eliminate_common_subexpressions: bool = True, algebraic_simplification: bool = True,
                 batch_size: int = 1, to_static_op_by_op: bool = False) -> None:
        self.to_static_op_by_op = to_static_op_by_op
        self.fuse_elementwise_ops = fuse_elementwise_ops
        self.enable_inplace = enable_inplace
        self.memory_optimize = memory_optimize
        self.remove_unused_ops = remove_unused_ops
        self.constant_folding = constant_folding
        self.eliminate_common_subexpressions = eliminate_common_subexpressions
        self.algebraic_simplification = algebraic_simplification
        self.batch_size = batch_size

    # Paddle's names for the same switches
    @property
    def fuse_elewise_add_act_ops(self) -> bool:
        return self.fuse_elementwise_ops

    @fuse_elewise_add_act_ops.setter
    def fuse_elewise_add_act_ops(self, value: bool) -> None:
        self.fuse_elementwise_ops = bool(value)

    @property
    def remove_unused(self) -> bool:
        return self.remove_unused_ops

    @remove_unused.setter
    def remove_unused(self, value: bool) -> None:
        self.remove_unused_ops = bool(value)

    def pass_names(self) -> list[str]:
        on = {"algebraic_simplification": self.algebraic_simplification, "constant_folding": self.constant_folding,
              "common_subexpression_elimination": self.eliminate_common_subexpressions,
              "dead_code_elimination": self.remove_unused_ops, "fuse_elementwise": self.fuse_elementwise_ops,
              "buffer_reuse": self.enable_inplace or self.memory_optimize}
        return [name for name in DEFAULT_PIPELINE if on[name]]

    def __repr__(self) -> str:
        return f"BuildStrategy(passes={self.pass_names()})"


def _resolve(passes) -> tuple[list[tuple[str, Callable]], dict]:
    if passes is None:
        passes = BuildStrategy()
    options = {}
    if isinstance(passes, BuildStrategy):
        options = {"buffer_reuse": {"batch_size": passes.batch_size}}
        passes = passes.pass_names()
    if isinstance(passes, (str, bytes)) or not hasattr(passes, "__iter__"):
        raise invalid_argument("apply_passes", f"passes must be a list of pass names, a BuildStrategy or None, "
                                               f"got {type(passes).__name__}.")
    out = []
    for p in passes:
        if callable(p):
            out.append((getattr(p, "__name__", "pass"), p))
            continue
        name = ALIASES.get(p, p)
        if name not in PASSES:
            raise invalid_argument("apply_passes", f"unknown pass {p!r}.",
                                   hint=f"passes: {', '.join(PASSES)} (or {', '.join(ALIASES)}).")
        out.append((name, PASSES[name]))
    return out, options


class PassManager:
    """Runs passes in order, each on the previous one's output; collects their reports.

        pm = PassManager()                                   # the default pipeline
        pm = PassManager(["cse", "dce"])                     # by name
        pm = PassManager(strategy=BuildStrategy(fuse_elementwise_ops=False))
        program, report = pm.run(main, fetch_list=[loss])
    """

    def __init__(self, passes=None, strategy: BuildStrategy | None = None) -> None:
        self._passes, self._options = _resolve(passes if passes is not None else strategy)

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self._passes]

    def run(self, program: Program, fetch_list=None) -> tuple[Program, PassPipelineReport]:
        if not isinstance(program, Program):
            raise invalid_argument("apply_passes", f"program must be a static.Program, got {type(program).__name__}.")
        from ... import instrument
        report = PassPipelineReport(input_program=program)
        current = program
        for name, fn in self._passes:
            before = current
            start = time.perf_counter()
            result = fn(current, fetch_list, **self._options.get(name, {}))
            if not (isinstance(result, tuple) and len(result) == 2 and isinstance(result[0], Program)
                    and isinstance(result[1], PassReport)):
                raise invalid_argument("apply_passes", f"pass {name!r} returned {type(result).__name__}, "
                                                       "expected (Program, PassReport).")
            current, pass_report = result
            pass_report.time_ms = (time.perf_counter() - start) * 1e3
            pass_report.program = current  # kept for the debugger's before/after view
            report.passes.append(pass_report)
            if instrument.subscribers:
                instrument.emit(instrument.PassApplied(name, pass_report, before, current))
        if current is program:  # no passes ran: still hand back a copy, never the input itself
            current = program.clone()
        return current, report


def apply_passes(program: Program, fetch_list=None, passes=None) -> tuple[Program, PassPipelineReport]:
    """Optimize a copy of `program` for `fetch_list`; returns (optimized program, report).

    `passes`: None (the default pipeline), a BuildStrategy, or a list of pass names / functions.
    """
    return PassManager(passes).run(program, fetch_list)


__all__ = ["apply_passes", "PassManager", "BuildStrategy", "PassReport", "PassPipelineReport", "PASSES",
           "DEFAULT_PIPELINE", "algebraic_simplification", "constant_folding", "common_subexpression_elimination",
           "dead_code_elimination", "fuse_elementwise", "buffer_reuse", "fused_source"]
