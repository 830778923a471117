"""Dead code, constant folding, common subexpressions and algebraic identities: what each removes,
and what it must keep (side effects, random ops, fetched names, values written again)."""
from __future__ import annotations

import numpy as np

import minipaddle as paddle
import minipaddle.nn.functional as F
from minipaddle import static
from minipaddle.framework.static.passes import (algebraic_simplification, common_subexpression_elimination,
                                                constant_folding, dead_code_elimination)

from .programs import CASES, run_case


def _types(program) -> list[str]:
    return [op.type for op in program.global_block().ops]


def _program(body):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 3], "float32")
        fetch = body(x)
    return main, startup, fetch


# ---- dead code ---------------------------------------------------------------------------------
def test_dce_removes_what_no_fetch_needs_and_names_it():
    case = CASES["dead_ops"]()
    out, report = dead_code_elimination(case.main, case.fetch)
    assert _types(out) == ["linear", "relu"]
    assert sorted(r["type"] for r in report.removed) == ["exp", "fill_constant", "matmul", "multiply", "sum",
                                                          "transpose"]
    removed_names = {n for r in report.removed for n in r["outputs"]}
    assert not removed_names & set(out.global_block().vars)     # their variables are gone too
    assert report.summary.startswith("removed 6 dead op(s)")


def test_dce_keeps_updates_and_everything_they_need():
    case = CASES["mlp_train"]()
    out, report = dead_code_elimination(case.main, fetch_list=[])  # nothing fetched: updates still run
    assert _types(out).count("sgd") == 4
    assert _types(out) == _types(case.main)[:len(_types(out))] or len(out.global_block().ops) >= 18
    for got, want in zip(run_case(case, out)[-4:], run_case(case, case.main)[-4:]):  # the trained parameters
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_dce_keeps_random_ops_and_without_fetch_list_removes_nothing():
    def body(x):
        F.dropout(x, 0.5)                       # unused, but it advances the random stream
        return [paddle.exp(x)]
    main, _, fetch = _program(body)
    out, _ = dead_code_elimination(main, fetch)
    assert "dropout" in _types(out)
    out, report = dead_code_elimination(main)
    assert _types(out) == _types(main) and "nothing removed" in report.summary


# ---- constant folding --------------------------------------------------------------------------
def test_constant_folding_computes_constant_chains_now():
    case = CASES["constants"]()
    out, report = constant_folding(case.main, case.fetch)
    folded = report.details["folded"]
    assert [f["op"] for f in folded] == ["exp", "multiply", "add", "multiply"]
    block = out.global_block()
    d = block.ops[folded[2]["index"]]
    assert d.type == "assign_value"
    np.testing.assert_allclose(d.attrs["values"], np.exp([1.0, 2.0, 3.0, 4.0]) * 2 + 1, rtol=1e-6)
    e = block.ops[folded[3]["index"]]
    assert e.type == "fill_constant" and e.attrs["value"] == 1.5   # all equal: a fill_constant
    assert len(report.removed) == len(report.added) == 4


def test_constant_folding_leaves_parameters_feeds_and_big_results():
    def body(x):
        w = static.create_parameter([3], "float32")
        c = paddle.to_tensor(np.arange(3, dtype=np.float32))
        return [x + w * 2.0 + c * 2.0, paddle.exp(paddle.full([4, 4], 1.0, "float32"))]
    main, _, fetch = _program(body)
    out, report = constant_folding(main, fetch, max_elements=8)
    assert [f["op"] for f in report.details["folded"]] == ["multiply"]   # c * 2 only
    assert _types(out).count("exp") == 1                                  # 16 elements > 8


# ---- common subexpressions ---------------------------------------------------------------------
def test_cse_merges_repeats_and_commutative_operands():
    case = CASES["duplicates"]()
    out, report = common_subexpression_elimination(case.main, case.fetch)
    assert sorted(m["type"] for m in report.details["merged"]) == ["add", "exp", "linear"]
    assert _types(out).count("exp") == 1 and _types(out).count("linear") == 1


def test_cse_never_merges_random_ops_or_values_written_in_between():
    case = CASES["mlp_train"]()
    main = case.main
    gb = main.global_block()
    with static.program_guard(main, case.startup):
        w = gb.var(main.all_parameters()[0].name)
        before_update = paddle.sum(w)            # appended after the sgd ops: reads the updated w
    # the same sum placed before the updates reads the old w: a different value, never merged
    gb.ops.insert(0, gb.ops.pop())
    with static.program_guard(main, case.startup):
        after_update = paddle.sum(w)
    out, report = common_subexpression_elimination(main, [before_update, after_update])
    assert _types(out).count("sum") == _types(main).count("sum")

    def body(x):
        return [F.dropout(x, 0.5) + F.dropout(x, 0.5)]
    main, _, fetch = _program(body)
    out, report = common_subexpression_elimination(main, fetch)
    assert _types(out).count("dropout") == 2 and not report.details["merged"]


def test_cse_keeps_a_fetched_repeat():
    def body(x):
        return [paddle.exp(x), paddle.exp(x)]
    main, _, fetch = _program(body)
    out, _ = common_subexpression_elimination(main, fetch)
    assert _types(out).count("exp") == 2
    out, _ = common_subexpression_elimination(main, fetch[:1])   # the first may stand for the second
    assert _types(out).count("exp") == 1
    out, _ = common_subexpression_elimination(main, fetch[1:])   # the fetched repeat keeps its name
    assert _types(out).count("exp") == 2


# ---- algebraic identities ----------------------------------------------------------------------
def test_algebraic_removes_identities_and_fetched_one_becomes_assign():
    case = CASES["identities"]()
    out, report = algebraic_simplification(case.main, case.fetch)
    kinds = sorted(r["type"] for r in report.details["rewritten"])
    assert kinds == ["add", "cast", "divide", "multiply", "multiply", "multiply", "reshape", "scale", "subtract"]
    ops = [op for op in out.global_block().ops if op.type not in ("fill_constant",)]
    assert [op.type for op in ops] == ["tanh", "exp", "assign"]
    assert ops[1].inputs["x"] == ops[0].outputs["out"]     # exp reads tanh's result directly
    assert ops[2].outputs["out"] == [case.fetch[0].name]


def test_algebraic_leaves_broadcasting_and_other_constants():
    def body(x):
        ones = paddle.ones([2, 1, 3], "float32")  # x * ones broadcasts: not an identity
        return [x * ones, x * 2.0, x + 1.0, paddle.reshape(x, [3, -1]), paddle.cast(x, "float64")]
    main, _, fetch = _program(body)
    out, report = algebraic_simplification(main, fetch)
    assert not report.details["rewritten"] and _types(out) == _types(main)
