"""Passes run inside control-flow sub-blocks (cond branches, while bodies, their grad blocks), keeping
what the owning op and the other blocks read; the results stay equal to the unoptimized program's."""
from __future__ import annotations

import numpy as np
import pytest

from minipaddle.framework.static.passes import apply_passes

from .programs import CASES, run_case


def _inside(report, key: str = "removed") -> list:
    return [ref for ref in getattr(report, key) if ref["block"] > 0]


@pytest.mark.parametrize("name, key, at_least", [
    ("dead_code_elimination", "removed", 3),            # the dead exp of each branch and of the loop body
    ("common_subexpression_elimination", "removed", 3),  # the repeated tanh
    ("constant_folding", "added", 3),                    # [1, 2, 3, 4] * 2 + 1
    ("algebraic_simplification", "removed", 6),          # * 1.0 and + 0.0
])
def test_each_pass_changes_sub_blocks(name, key, at_least):
    case = CASES["control_flow_forward"]()
    optimized, report = apply_passes(case.main, fetch_list=case.fetch, passes=[name])
    assert len(_inside(report[name], key)) >= at_least
    for e, g in zip(run_case(case, case.main), run_case(case, optimized)):
        np.testing.assert_allclose(g, e, rtol=2e-5, atol=1e-6)


def test_fusion_inside_branches_and_loop_body():
    case = CASES["control_flow_forward"]()
    optimized, report = apply_passes(case.main, fetch_list=case.fetch, passes=["fusion"])
    blocks = {f["into"]["block"] for f in report["fuse_elementwise"].fused}
    assert {1, 2, 4} <= blocks                     # both branches and the while body
    for idx in blocks:
        assert any(op.type == "fused_elementwise" for op in optimized.block(idx).ops)


def test_default_pipeline_on_a_training_program_through_cond_and_while():
    case = CASES["control_flow_train"]()
    optimized, report = apply_passes(case.main, fetch_list=case.fetch)
    grad_blocks = [b.idx for b in optimized.blocks if b.idx > 0 and any(
        op.role == "backward" for op in b.ops)]
    assert grad_blocks and any(f["into"]["block"] in grad_blocks for f in report["fuse_elementwise"].fused)
    losses = run_case(case, case.main), run_case(case, optimized)
    for e, g in zip(*losses):
        np.testing.assert_allclose(g, e, rtol=2e-5, atol=1e-6)
    assert losses[0][0] != losses[0][1]            # it trains


@pytest.mark.parametrize("case_name", ["control_flow_forward", "control_flow_train"])
def test_report_refs_name_the_block_and_index_of_each_changed_op(case_name):
    case = CASES[case_name]()
    program = case.main
    _, report = apply_passes(program, fetch_list=case.fetch)
    for p in report.passes:
        for ref in p.removed:
            assert program.block(ref["block"]).ops[ref["index"]].type == ref["type"], (p.name, ref)
        for ref in p.added:
            assert p.program.block(ref["block"]).ops[ref["index"]].type == ref["type"], (p.name, ref)
        program = p.program
