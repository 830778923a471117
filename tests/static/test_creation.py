"""Creation in a Program with an unknown (-1) batch dim: zeros_like / ones_like / full_like build
`fill_any_like`, paddle.shape builds `shape`, and full/zeros/ones take a shape Variable -- all sized
by what is fed at run time."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle import static
from minipaddle.framework.creation import shape as paddle_shape
from minipaddle.framework.errors import InvalidArgument


def _run(main, feed, fetch):
    return static.Executor().run(main, feed=feed, fetch_list=fetch)


def test_like_ops_follow_the_fed_batch_size():
    main = static.Program()
    with static.program_guard(main):
        x = static.data("x", [None, 3], "float32")
        z, o = paddle.zeros_like(x), paddle.ones_like(x, dtype="int64")
        f, e = paddle.full_like(x, 2.5), paddle.empty_like(x)
        y = x * o.astype("float32") + z + f
    assert [op.type for op in main.global_block().ops][:4] == ["fill_any_like"] * 4
    assert z.shape == [-1, 3] and o.dtype == paddle.int64
    for batch in (1, 5):
        xs = np.arange(batch * 3, dtype=np.float32).reshape(batch, 3)
        zv, ov, fv, ev, yv = _run(main, {"x": xs}, [z, o, f, e, y])
        np.testing.assert_array_equal(zv, np.zeros((batch, 3), np.float32))
        assert ov.dtype == np.int64 and ov.shape == (batch, 3) and (ov == 1).all()
        np.testing.assert_array_equal(fv, np.full((batch, 3), 2.5, np.float32))
        assert ev.shape == (batch, 3)
        np.testing.assert_array_equal(yv, xs + 2.5)


def test_shape_op_and_full_with_a_run_time_shape():
    main = static.Program()
    with static.program_guard(main):
        x = static.data("x", [None, 3], "float32")
        s = paddle_shape(x)
        rows = paddle.full([s[0], 4], 7.0)             # ShapeTensorList: one dim from a Variable
        same = paddle.zeros(s, "float64")             # ShapeTensor: the whole shape
        ones = paddle.ones([2, s[1]], "int32")
    assert s.shape == [2] and s.dtype == paddle.int32
    assert rows.shape == [-1, 4] and same.shape == [-1, -1] and ones.shape == [2, -1]
    sv, rv, zv, ov = _run(main, {"x": np.zeros((6, 3), np.float32)}, [s, rows, same, ones])
    np.testing.assert_array_equal(sv, [6, 3])
    np.testing.assert_array_equal(rv, np.full((6, 4), 7.0, np.float32))
    assert zv.shape == (6, 3) and zv.dtype == np.float64 and not zv.any()
    assert ov.shape == (2, 3) and ov.dtype == np.int32 and (ov == 1).all()


def test_like_of_a_fully_known_shape_stays_a_constant():
    main = static.Program()
    with static.program_guard(main):
        x = static.data("x", [2, 3], "float32")
        z = paddle.full_like(x, 4.0) + x
    assert "fill_any_like" not in [op.type for op in main.global_block().ops]
    (zv,) = _run(main, {"x": np.ones((2, 3), np.float32)}, [z])
    np.testing.assert_array_equal(zv, np.full((2, 3), 5.0, np.float32))


def test_eager_shape_and_likes_are_unchanged():
    x = paddle.to_tensor(np.ones((2, 3), np.float32))
    np.testing.assert_array_equal(paddle_shape(x).numpy(), [2, 3])
    np.testing.assert_array_equal(paddle.full_like(x, 3).numpy(), np.full((2, 3), 3.0, np.float32))
    assert paddle.zeros_like(x).dtype == paddle.float32


def test_passes_do_not_fold_run_time_shapes():
    main = static.Program()
    with static.program_guard(main):
        x = static.data("x", [None, 2], "float32")
        out = paddle.full([paddle_shape(x)[0], 2], 1.0) * 3.0 + paddle.zeros_like(x)
    optimized, _ = static.passes.apply_passes(main, fetch_list=[out])
    for batch in (1, 4):
        feed = {"x": np.ones((batch, 2), np.float32)}
        np.testing.assert_array_equal(_run(optimized, feed, [out])[0], np.full((batch, 2), 3.0, np.float32))


def test_creation_errors_in_a_program():
    main = static.Program()
    with static.program_guard(main):
        x = static.data("x", [None, 3], "float32")
        with pytest.raises(InvalidArgument, match=r"non-negative ints.*Hint: in a static Program.*zeros_like"):
            paddle.zeros(x.shape)
        with pytest.raises(InvalidArgument, match="1-D int vector"):
            paddle.full(x, 1.0)
        with pytest.raises(InvalidArgument, match="must hold one int"):
            paddle.full([x, 2], 1.0)


def test_numel_of_a_variable_with_a_batch_dim_is_computed_when_the_program_runs():
    paddle.enable_static()
    try:
        main = paddle.static.Program()
        with paddle.static.program_guard(main):
            x = paddle.static.data("x", [None, 3], "float32")
            n, m = x.numel(), paddle.numel(x)
        out = paddle.static.Executor().run(main, feed={"x": np.ones((4, 3), np.float32)}, fetch_list=[n, m])
        assert [int(v) for v in out] == [12, 12] and out[0].dtype == np.int64
    finally:
        paddle.disable_static()
