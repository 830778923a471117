"""The GEMM epilogue (passes/epilogue.py): a linear whose result only fusable elementwise ops read becomes
a matmul and a bias add that joins their fused loop; anything else keeps its linear."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
import minipaddle.nn.functional as F
from minipaddle import static
from minipaddle.framework.static.passes import apply_passes, fuse_elementwise

from .programs import CASES, Case, run_case


def _types(program):
    return [op.type for op in program.global_block().ops]


def test_relu_of_a_linear_is_the_product_then_one_loop():
    case = CASES["mlp_train"]()
    before = case.main.global_block().ops
    out, report = fuse_elementwise(case.main, case.fetch)
    ops = out.global_block().ops
    assert _types(out)[:2] == ["matmul", "fused_elementwise"]
    first = ops[1]
    assert first.attrs["expression"].startswith("t0 = add(x0, x1); t1 = relu(t0)")
    assert first.attrs["input_kinds"] == ["a", "r"] and first.inputs["X"][1].endswith(".b_0")
    assert first.output_names() == [before[1].output_names()[0]]      # relu's result, as before
    assert report.details["epilogues"][0] == before[0].output_names()[0]  # (the loss's subtract takes the other)
    kept = sum(r["type"] == "matmul" for r in report.added)   # (the 16-wide output layer's product is in its loop)
    assert kept == 1 and "1 linear bias add(s) moved into the loop" in report.summary
    # the report names ops as the pass found them: the linear is gone, the product is new
    assert {"index": 0, "type": "linear"}.items() <= next(r for r in report.removed if r["index"] == 0).items()
    assert any(r["type"] == "matmul" and ops[r["index"]].type == "matmul" for r in report.added)
    for ref in report.removed:
        assert before[ref["index"]].type == ref["type"]
    for a, b in zip(run_case(case, case.main), run_case(case, out)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def _program(body, x_shape=(None, 4)) -> Case:
    paddle.seed(3)
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", list(x_shape), "float32")
        fetch = body(x)

    def feed(rng):
        return {"x": rng.standard_normal([3 if d is None else d for d in x_shape]).astype(np.float32)}
    return Case(main, startup, fetch, feed)


CASES_KEPT = {
    # the linear's result is fetched: the loop would have to store it anyway
    "fetched": lambda x: [h := paddle.nn.Linear(4, 6)(x), F.relu(h)],
    # a matmul reads it too
    "matmul_reader": lambda x: [F.relu(h := paddle.nn.Linear(4, 4)(x)) + paddle.matmul(h, paddle.ones([4, 4]))],
    # the reader is no elementwise op
    "softmax_reader": lambda x: [F.softmax(paddle.nn.Linear(4, 6)(x), axis=-1)],
}


@pytest.mark.parametrize("name", CASES_KEPT)
def test_a_linear_whose_result_is_needed_whole_stays_a_linear(name):
    case = _program(CASES_KEPT[name])
    out, report = fuse_elementwise(case.main, case.fetch)
    assert "linear" in _types(out) and report.details["epilogues"] == []
    for a, b in zip(run_case(case, case.main), run_case(case, out)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_a_linear_on_three_dim_inputs_keeps_its_one_gemm():
    case = _program(lambda x: [F.relu(paddle.nn.Linear(4, 6)(x)) * 2.0], x_shape=(None, 5, 4))
    out, report = fuse_elementwise(case.main, case.fetch)
    assert "linear" in _types(out) and not report.details["epilogues"]


def test_no_split_when_groups_of_two_do_not_fuse():
    case = CASES["mlp_train"]()
    out, report = fuse_elementwise(case.main, case.fetch, min_ops=3)
    assert "matmul" not in _types(out)[:1] and not report.details["epilogues"]


def test_the_default_passes_train_as_the_unoptimized_program():
    case = CASES["mlp_train"]()
    out, _ = apply_passes(case.main, fetch_list=case.fetch)
    assert _types(out)[:2] == ["matmul", "fused_elementwise"]
    for a, b in zip(run_case(case, case.main), run_case(case, out)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
