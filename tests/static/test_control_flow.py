"""static.nn.cond and while_loop: real ops with sub-blocks in a Program, plain Python when eager."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle import static
from minipaddle.framework.errors import InvalidArgument


def _branchy(x):
    return static.nn.cond(paddle.sum(x) > 0, lambda: x * 2.0, lambda: x - 1.0)


def _count_to(limit):
    i = paddle.full([], 0, "int64")
    s = paddle.full([], 0.0, "float32")
    return static.nn.while_loop(lambda i, s: i < limit, lambda i, s: [i + 1, s + paddle.cast(i, "float32")], [i, s])


def test_cond_builds_sub_blocks_and_runs_the_taken_branch():
    main = static.Program()
    with static.program_guard(main):
        x = static.data("x", [None, 2], "float32")
        out = _branchy(x)
    op = main.global_block().ops[-1]
    assert op.type == "cond" and len(op.sub_blocks) == 2 and main.num_blocks == 3
    assert main.block(op.sub_blocks[0]).parent_idx == 0 and "x" in op.inputs["Input"]
    exe = static.Executor()
    pos, neg = np.ones((3, 2), np.float32), -np.ones((3, 2), np.float32)
    np.testing.assert_array_equal(exe.run(main, feed={"x": pos}, fetch_list=[out])[0], pos * 2)
    np.testing.assert_array_equal(exe.run(main, feed={"x": neg}, fetch_list=[out])[0], neg - 1)
    assert "block 1 (parent 0)" in str(main)


def test_cond_eager_is_plain_python():
    x = paddle.to_tensor([1.0, 2.0])
    np.testing.assert_array_equal(_branchy(x).numpy(), [2.0, 4.0])
    np.testing.assert_array_equal(_branchy(-x).numpy(), [-2.0, -3.0])


def test_cond_branch_mismatch_is_an_error():
    main = static.Program()
    with static.program_guard(main):
        x = static.data("x", [2], "float32")
        with pytest.raises(InvalidArgument, match="same structure"):
            static.nn.cond(paddle.sum(x) > 0, lambda: x, lambda: (x, x))
        with pytest.raises(InvalidArgument, match="bool Variable"):
            static.nn.cond(paddle.sum(x), lambda: x, lambda: x)


def test_while_loop_static_and_eager_agree():
    main = static.Program()
    with static.program_guard(main):
        limit = static.data("limit", [], "int64")
        i, s = _count_to(limit)
    assert [op.type for op in main.global_block().ops][-1] == "while"
    i_val, s_val = static.Executor().run(main, feed={"limit": np.array(5)}, fetch_list=[i, s])
    assert int(i_val) == 5 and float(s_val) == 10.0
    ei, es = _count_to(paddle.to_tensor(5))
    assert int(ei) == 5 and float(es) == 10.0


def test_while_loop_body_must_keep_the_loop_vars():
    main = static.Program()
    with static.program_guard(main):
        i = paddle.full([], 0, "int64")
        with pytest.raises(InvalidArgument, match="body returned 2 values for 1"):
            static.nn.while_loop(lambda i: i < 3, lambda i: [i, i], [i])


def test_nested_cond_inside_while():
    main = static.Program()
    with static.program_guard(main):
        x = static.data("x", [], "float32")
        (out,) = static.nn.while_loop(
            lambda v: v < 100.0,
            lambda v: [static.nn.cond(v > 10.0, lambda: v * 3.0, lambda: v + 4.0)], [x])
    (val,) = static.Executor().run(main, feed={"x": np.array(1.0, np.float32)}, fetch_list=[out])
    v = 1.0
    while v < 100.0:
        v = v * 3.0 if v > 10.0 else v + 4.0
    assert float(val) == v
