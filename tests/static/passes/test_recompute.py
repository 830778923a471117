"""Recomputation inside the fusion pass: the backward computes cheap forward values again (products and
sums of values it keeps anyway) instead of the forward storing them; results unchanged."""
from __future__ import annotations

import numpy as np

import minipaddle as paddle
from minipaddle import static
from minipaddle.framework.static.passes import fuse_elementwise
from minipaddle.framework.static.passes.recompute import SUFFIX

from .programs import Case, _build, _xy, run_case


def gelu_tanh_train() -> Case:
    """One Linear, GELU by its tanh formula (four cheap products of h the backward reads), a Linear, SGD."""
    def body(x, y, main):
        h = paddle.nn.Linear(4, 16)(x)
        g = 0.5 * h * (1.0 + paddle.tanh(0.7978845608 * (h + 0.044715 * h * h * h)))
        loss = paddle.mean((paddle.nn.Linear(16, 1)(g) - y) ** 2)
        paddle.optimizer.SGD(learning_rate=0.05).minimize(loss)
        return [loss]
    return Case(*_build(body), _xy(), steps=3)


def _fused(program, role: str):
    return [op for op in program.global_block().ops if op.type == "fused_elementwise" and op.role == role]


def test_the_backward_recomputes_the_cheap_products_and_the_forward_stores_two_arrays():
    case = gelu_tanh_train()
    out, report = fuse_elementwise(case.main, case.fetch)
    forward = _fused(out, "forward")[0]                             # the GELU's (the loss's comes next)
    # the tanh (a transcendental op: kept) and the GELU's value (a matmul reads it: written out anyway)
    assert [n.split(".")[0] for n in forward.outputs["Out"]] == ["tanh", "multiply"]
    backward = _fused(out, "backward")
    reads = {n for op in backward for n in op.inputs["X"]}
    assert forward.outputs["Out"][0] in reads                      # the tanh is read back
    assert not any(SUFFIX in n for n in reads)                      # recomputed values stay in registers
    assert not any(SUFFIX in n for op in out.global_block().ops for n in op.output_names())
    recomputed = report.details["recomputed"]
    assert {"multiply.tmp_2", "add.tmp_12"} <= set(recomputed), recomputed   # 0.5*h and 1 + tanh among them
    assert f"recomputes {len(recomputed)} cheap forward value(s)" in report.summary


def test_recomputation_changes_no_result():
    case = gelu_tanh_train()
    fused_program, _ = fuse_elementwise(case.main, case.fetch)
    for got, want in zip(run_case(case, fused_program), run_case(case, case.main)):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_a_value_a_matmul_reads_in_backward_is_not_recomputed():
    def body(x, y, main):
        h = paddle.nn.Linear(4, 8)(x)
        g = h * 2.0 + 1.0                 # cheap, but the next Linear's weight gradient reads it
        loss = paddle.mean(paddle.nn.Linear(8, 1)(g) ** 2)
        static.append_backward(loss)
        return [loss]
    main, _, fetch = _build(body)
    _, report = fuse_elementwise(main, fetch)
    assert report.details["recomputed"] == []


def test_a_forward_only_program_recomputes_nothing():
    from .programs import CASES
    case = CASES["gelu_forward"]()
    _, report = fuse_elementwise(case.main, case.fetch)
    assert report.details["recomputed"] == []
