"""static.nn.case and static.nn.switch_case: the first true pred / the matching index picks the
branch, defaults as Paddle's (the last pair, the largest index), gradients as eager, clear errors."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle import static
from minipaddle.framework.errors import InvalidArgument, InvalidType


def _piecewise(x, w):
    s = paddle.sum(x)
    return static.nn.case([(s < -1.0, lambda: x * w * w), (s < 1.0, lambda: paddle.tanh(x * w))],
                          default=lambda: x - w)


def _run_static(fn, feed: dict, wrt: list[str]):
    main = static.Program()
    with static.program_guard(main):
        vs = {n: static.data(n, list(a.shape), str(a.dtype)) for n, a in feed.items()}
        for n in wrt:
            vs[n].stop_gradient = False
        out = paddle.sum(fn(**vs))
        grads = static.gradients([out], [vs[n] for n in wrt])
    return main, static.Executor().run(main, feed=feed, fetch_list=[out] + grads)


@pytest.mark.parametrize("shift", [-3.0, 0.0, 3.0])        # each branch in turn
def test_case_picks_the_first_true_pred_and_its_gradients_equal_eager(shift):
    x = (np.linspace(-1, 1, 6) + shift / 6).astype("float64")
    w = np.full(6, 0.7)
    main, got = _run_static(_piecewise, {"x": x, "w": w}, ["x", "w"])
    assert [op.type for op in main.global_block().ops].count("cond") == 1   # nested: one cond at the top
    tx, tw = paddle.to_tensor(x, stop_gradient=False), paddle.to_tensor(w, stop_gradient=False)
    eager = paddle.sum(_piecewise(tx, tw))
    want = [eager.numpy()] + [g.numpy() for g in paddle.grad([eager], [tx, tw])]
    for g, e in zip(got, want):
        np.testing.assert_allclose(g, e, rtol=1e-12)


def test_case_without_default_falls_back_to_the_last_pair():
    main = static.Program()
    with static.program_guard(main):
        x = static.data("x", [1], "float32")
        out = static.nn.case([(x > 10.0, lambda: x * 0.0), (x > 100.0, lambda: x + 1.0)])
    (got,) = static.Executor().run(main, feed={"x": np.array([2.0], "float32")}, fetch_list=[out])
    np.testing.assert_allclose(got, [3.0])            # no pred is true: the last pair's fn


@pytest.mark.parametrize("index, expected", [(0, 1.0), (3, 4.0), (5, 6.0), (7, -1.0)])
def test_switch_case_picks_the_matching_index_else_the_default(index, expected):
    main = static.Program()
    with static.program_guard(main):
        i = static.data("i", [1], "int32")
        x = static.data("x", [2], "float32")
        out = static.nn.switch_case(i, {0: lambda: x + 0.0, 3: lambda: x * 4.0, 5: lambda: x * 6.0},
                                    default=lambda: -x)
    (got,) = static.Executor().run(main, feed={"i": np.array([index], "int32"), "x": np.ones(2, "float32")},
                                   fetch_list=[out])
    np.testing.assert_allclose(got, [expected] * 2)


def test_switch_case_with_a_list_of_fns_and_no_default_uses_the_largest_index():
    fns = [lambda: paddle.full([1], 10.0), lambda: paddle.full([1], 11.0), lambda: paddle.full([1], 12.0)]
    main = static.Program()
    with static.program_guard(main):
        i = static.data("i", [1], "int64")
        out = static.nn.switch_case(i, fns)
    exe = static.Executor()
    assert [float(exe.run(main, feed={"i": np.array([k])}, fetch_list=[out])[0][0]) for k in (0, 1, 2, 9)] == [
        10.0, 11.0, 12.0, 12.0]


def test_eagerly_both_run_the_chosen_fn():
    x = paddle.to_tensor([1.0, 2.0])
    assert static.nn.case([(paddle.sum(x) > 5, lambda: x * 0), (paddle.sum(x) > 2, lambda: x * 2)],
                          default=lambda: x).numpy().tolist() == [2.0, 4.0]
    i = paddle.to_tensor([2], dtype="int32")
    assert static.nn.switch_case(i, [(1, lambda: x), (2, lambda: x * 3)]).numpy().tolist() == [3.0, 6.0]


def test_clear_errors_for_bad_arguments():
    x = paddle.to_tensor([1.0])
    with pytest.raises(InvalidType, match="pred_fn_pairs must be a non-empty list"):
        static.nn.case(lambda: x)
    with pytest.raises(InvalidType, match=r"pred_fn_pairs\[0\] must be a 2-tuple"):
        static.nn.case([[x > 0, lambda: x]])
    with pytest.raises(InvalidType, match=r"pred_fn_pairs\[0\]'s pred must be a bool Tensor, got a float32 Tensor"):
        static.nn.case([(x, lambda: x)])
    with pytest.raises(InvalidType, match="fn must be callable"):
        static.nn.case([(x > 0, x)])
    with pytest.raises(InvalidType, match="default must be callable"):
        static.nn.case([(x > 0, lambda: x)], default=x)
    i = paddle.to_tensor([1])
    with pytest.raises(InvalidType, match="branch_index must be an int32, int64 or uint8 Tensor, got a float32"):
        static.nn.switch_case(x, [lambda: x])
    with pytest.raises(InvalidType, match="branch_index must be .* got int"):
        static.nn.switch_case(1, [lambda: x])
    with pytest.raises(InvalidArgument, match="index 1 appears more than once"):
        static.nn.switch_case(i, [(1, lambda: x), (1, lambda: x)])
    with pytest.raises(InvalidType, match="an index of branch_fns must be an int, got str"):
        static.nn.switch_case(i, {"a": lambda: x})
    with pytest.raises(InvalidType, match="branch_fns must be a non-empty dict"):
        static.nn.switch_case(i, lambda: x)
