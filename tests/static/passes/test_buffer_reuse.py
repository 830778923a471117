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
    assert d["applied_by_executor"] is True and optimized._buffer_plan is d
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


# ---- the Executor follows the plan ---------------------------------------------------------------
def _chain():
    main = static.Program()
    with static.program_guard(main):
        x = static.data("x", [None, 512], "float32")
        a = x * 2.0
        b = a + x
        c = b * b        # a is dead once b ran: c writes into a's buffer
        d = c - x        # b's buffer
        out = paddle.sum(d * d + c)
    return main, (a, b, c, d), out


def test_executor_writes_planned_outputs_into_the_same_array():
    from minipaddle.framework import instrument
    main, (a, b, c, d), out = _chain()
    planned, report = buffer_reuse(main, [out], batch_size=64)
    assert report.details["alias"][c.name] == a.name and report.details["applied_by_executor"] is True
    xs = np.random.default_rng(0).standard_normal((64, 512)).astype(np.float32)
    exe = static.Executor()
    (want,) = exe.run(main, feed={"x": xs}, fetch_list=[out])
    ids: dict = {}  # ids, not the arrays: holding an array would (rightly) keep the pool from reusing it

    def note(e):
        if e.kind == "executor_op":
            ids.update({n: id(v) for n, v in e.outputs.items()})
    unsubscribe = instrument.subscribe(note)
    try:
        runs = []
        for _ in range(2):
            (got,) = exe.run(planned, feed={"x": xs}, fetch_list=[out])
            assert ids[c.name] == ids[a.name] and ids[d.name] == ids[b.name]  # one array, two variables
            runs.append(dict(ids))
    finally:
        unsubscribe()
    np.testing.assert_allclose(got, want, rtol=1e-6)
    pool = exe._buffer_pool(planned)
    assert runs[0][a.name] == runs[1][a.name] == id(pool.buffers[a.name])  # the same array, run after run
    assert pool.reused >= 5 + 2 and pool.allocated <= 3


def test_reuse_lowers_the_peak_memory_of_a_run():
    import tracemalloc
    main, _, out = _chain()
    planned, _ = buffer_reuse(main, [out], batch_size=256)
    xs = np.random.default_rng(1).standard_normal((256, 512)).astype(np.float32)
    exe = static.Executor()

    def peak(program) -> int:
        exe.run(program, feed={"x": xs}, fetch_list=[out])       # warm: buffers exist from here on
        tracemalloc.start()
        try:
            exe.run(program, feed={"x": xs}, fetch_list=[out])
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    plain, reused = peak(main), peak(planned)
    one_buffer = xs.nbytes
    assert plain >= 2 * one_buffer and reused < one_buffer // 4   # no temporary allocated in a warm run


def test_a_buffer_someone_still_holds_is_not_overwritten():
    main, (a, b, c, d), out = _chain()
    planned, _ = buffer_reuse(main, [out], batch_size=8)
    xs = np.ones((8, 512), np.float32)
    exe = static.Executor()
    exe.run(planned, feed={"x": xs}, fetch_list=[out])
    pool = exe._buffer_pool(planned)
    held = pool.buffers[a.name]                 # a caller keeping a reference to a pooled array
    snapshot = held.copy()
    (got,) = exe.run(planned, feed={"x": xs * 3}, fetch_list=[out])
    np.testing.assert_array_equal(held, snapshot)
    np.testing.assert_allclose(got, exe.run(main, feed={"x": xs * 3}, fetch_list=[out])[0], rtol=1e-6)


def test_fused_training_program_follows_the_plan_and_trains_the_same():
    case = CASES["gelu_mlp_train"]()
    optimized, report = apply_passes(case.main, case.fetch, passes=BuildStrategy(batch_size=6))
    assert any(op.type == "fused_elementwise" for op in optimized.global_block().ops)
    from .programs import run_case
    for e, g in zip(run_case(case, case.main), run_case(case, optimized)):
        np.testing.assert_allclose(g, e, rtol=2e-5, atol=1e-6)
