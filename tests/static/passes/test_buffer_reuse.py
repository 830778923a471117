"""Buffer reuse: the liveness plan shares memory only between temporaries whose lifetimes do not
overlap, never touches fetched / persistable / fed variables, and counts the bytes it saves."""
from __future__ import annotations

import numpy as np

import minipaddle as paddle
from minipaddle import static
from minipaddle.framework.static.passes import BuildStrategy, apply_passes, buffer_reuse
from minipaddle.framework.static.passes.common import readers, writers

from .programs import CASES


def test_a_chain_reuses_the_buffer_freed_two_ops_earlier():
    main = static.Program()
    with static.program_guard(main):
        x = static.data("x", [None, 4], "float32")
        a = paddle.exp(x)
        b = paddle.tanh(a)
        c = paddle.sin(b)       # a is dead once tanh ran: c takes its buffer
        out = paddle.cos(c)     # b is free now: out is fetched, so it keeps its own
    optimized, report = buffer_reuse(main, [out], batch_size=10)
    d = report.details
    assert d["alias"] == {c.name: a.name}
    assert d["temporaries"] == 3 and d["buffers"] == 2
    assert d["bytes_without_reuse"] == 3 * 10 * 4 * 4 and d["bytes_saved"] == 10 * 4 * 4
    assert d["applied_by_executor"] is False and optimized._buffer_plan is d
    assert [op.type for op in optimized.global_block().ops] == [op.type for op in main.global_block().ops]
    assert "1 of 3 temporaries reuse a buffer" in report.summary


def test_training_plan_never_overlaps_lifetimes_or_touches_protected_vars():
    case = CASES["gelu_mlp_train"]()
    optimized, report = apply_passes(case.main, case.fetch, passes=BuildStrategy(batch_size=32))
    d = report["buffer_reuse"].details
    assert d["alias"] and d["bytes_saved"] > 0 and d["batch_size"] == 32
    block = optimized.global_block()
    w, r = writers(block), readers(block)
    fetched = {v.name for v in case.fetch}
    by_buffer: dict[str, list[str]] = {}
    for name in d["alias"]:
        var = block.var(name)
        assert not var.persistable and not var.is_data and name not in fetched
        by_buffer.setdefault(d["alias"][name], [d["alias"][name]]).append(name)
    for names in by_buffer.values():
        spans = sorted((w[n][0], max(r.get(n, w[n]))) for n in names)
        assert all(prev_end < start for (_, prev_end), (start, _) in zip(spans, spans[1:]))
        metas = {(block.var(n)._data.shape, block.var(n)._data.dtype) for n in names}
        assert len(metas) == 1                              # same shape and dtype


def test_without_fetch_list_leaves_are_kept_and_no_var_is_shared_with_a_feed():
    case = CASES["mlp_forward"]()
    _, report = buffer_reuse(case.main)
    d = report.details
    assert case.fetch[0].name not in d["alias"] and "x" not in d["alias"]
    assert d["bytes_saved"] == d["bytes_without_reuse"] - d["bytes_with_reuse"] >= 0
    np.testing.assert_equal(d["batch_size"], 1)
