"""Every pass, alone and in the default pipeline, keeps what the program computes and leaves the input
program untouched; the PassManager's report, switches and errors."""
from __future__ import annotations

import json

import numpy as np
import pytest

from minipaddle import static
from minipaddle.framework import instrument
from minipaddle.framework.errors import InvalidArgument
from minipaddle.framework.static.passes import (DEFAULT_PIPELINE, PASSES, BuildStrategy, PassManager,
                                                apply_passes)

from .programs import CASES, run_case

PIPELINES = [[name] for name in PASSES] + [None]


@pytest.mark.parametrize("passes", PIPELINES, ids=lambda p: "default" if p is None else p[0])
@pytest.mark.parametrize("case_name", list(CASES))
def test_optimized_program_computes_the_same_fetches(case_name, passes):
    case = CASES[case_name]()
    before = case.main.to_dict()
    optimized, report = apply_passes(case.main, fetch_list=case.fetch, passes=passes)
    assert case.main.to_dict() == before                      # the input program is untouched
    assert optimized is not case.main
    expected, got = run_case(case, case.main), run_case(case, optimized)
    assert len(expected) == len(got)
    for e, g in zip(expected, got):
        np.testing.assert_allclose(g, e, rtol=2e-5, atol=1e-6)
    assert optimized.num_ops() <= case.main.num_ops()


def test_default_pipeline_shrinks_the_training_program():
    case = CASES["gelu_mlp_train"]()
    optimized, report = apply_passes(case.main, fetch_list=case.fetch)
    assert [p.name for p in report.passes] == list(DEFAULT_PIPELINE)
    assert report["fuse_elementwise"].fused and report["dead_code_elimination"].ops_after <= \
        report["dead_code_elimination"].ops_before
    assert optimized.num_ops() < case.main.num_ops() * 0.7
    types = [op.type for op in optimized.global_block().ops]
    assert "fused_elementwise" in types and types.count("momentum") == 4


def test_report_is_printable_and_json_ready():
    case = CASES["identities"]()
    _, report = apply_passes(case.main, fetch_list=case.fetch)
    text = str(report)
    for name in DEFAULT_PIPELINE:
        assert name in text
    assert "total" in text and " ms" in text
    diffs = report.to_dict()
    json.dumps(diffs)                                          # the trace document's pass_diffs entries
    assert [d["pass"] for d in diffs] == list(DEFAULT_PIPELINE)
    assert [d["step"] for d in diffs] == list(range(len(DEFAULT_PIPELINE)))
    algebraic = diffs[0]
    assert algebraic["changed"] and algebraic["removed"]
    assert {"block", "index", "type", "outputs"} <= set(algebraic["removed"][0])
    assert all(d["time_ms"] >= 0 for d in diffs)


def test_build_strategy_switches_passes_off():
    case = CASES["gelu_forward"]()
    strategy = BuildStrategy(fuse_elementwise_ops=False, enable_inplace=False, memory_optimize=False)
    assert strategy.pass_names() == list(DEFAULT_PIPELINE[:4])
    optimized, report = apply_passes(case.main, fetch_list=case.fetch, passes=strategy)
    assert "fuse_elementwise" not in report and "buffer_reuse" not in report
    assert all(op.type != "fused_elementwise" for op in optimized.global_block().ops)
    strategy.fuse_elewise_add_act_ops = True                   # Paddle's name for the switch
    strategy.remove_unused = False
    assert strategy.fuse_elementwise_ops and "dead_code_elimination" not in strategy.pass_names()
    _, report = PassManager(strategy=strategy).run(case.main, case.fetch)
    assert "fuse_elementwise" in report


def test_passes_by_name_alias_and_function():
    case = CASES["duplicates"]()
    pm = PassManager(["cse", "dce"])
    assert pm.names == ["common_subexpression_elimination", "dead_code_elimination"]
    calls = []

    def my_pass(program, fetch_list):
        calls.append(fetch_list)
        return PASSES["dead_code_elimination"](program, fetch_list)
    optimized, report = apply_passes(case.main, fetch_list=case.fetch, passes=[my_pass])
    assert calls == [case.fetch] and len(report.passes) == 1


def test_no_passes_still_returns_a_copy():
    case = CASES["mlp_forward"]()
    optimized, report = apply_passes(case.main, case.fetch, passes=[])
    assert optimized is not case.main and optimized.to_dict() == case.main.to_dict()
    assert str(report) == "no passes ran"


def test_pass_events_reach_instrument_subscribers():
    case = CASES["identities"]()
    events = []
    unsubscribe = instrument.subscribe(events.append)
    try:
        apply_passes(case.main, fetch_list=case.fetch, passes=["algebraic", "dce"])
    finally:
        unsubscribe()
    kinds = [(e.kind, e.pass_name) for e in events if e.kind == "pass_applied"]
    assert kinds == [("pass_applied", "algebraic_simplification"), ("pass_applied", "dead_code_elimination")]
    assert events[0].before is case.main and events[0].after is not case.main


def test_errors():
    case = CASES["mlp_forward"]()
    with pytest.raises(InvalidArgument, match="unknown pass 'fuse_everything'.*Hint: passes: algebraic"):
        apply_passes(case.main, passes=["fuse_everything"])
    with pytest.raises(InvalidArgument, match="program must be a static.Program, got dict"):
        apply_passes(case.main.to_dict())
    with pytest.raises(InvalidArgument, match="passes must be a list of pass names.*got str"):
        apply_passes(case.main, passes="dce")

    def bad_pass(program, fetch_list):
        return program
    with pytest.raises(InvalidArgument, match="pass 'bad_pass' returned"):
        apply_passes(case.main, passes=[bad_pass])


def test_fetch_by_name_and_variable_agree():
    case = CASES["dead_ops"]()
    a, _ = apply_passes(case.main, fetch_list=case.fetch)
    b, _ = apply_passes(case.main, fetch_list=[v.name for v in case.fetch])
    assert a.to_dict() == b.to_dict()
    assert isinstance(static.Program.from_dict(json.loads(json.dumps(a.to_dict()))), static.Program)
