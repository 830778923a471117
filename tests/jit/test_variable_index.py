"""x[i] with a Variable i (a loop counter) or Variable slice bounds: a getitem_dynamic op, in plain static
programs and in converted code, with gradients (double grad too) and clear errors."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle import static
from minipaddle.framework.dispatch import dispatch
from minipaddle.framework.ops.index_dynamic import GETITEM_DYNAMIC
from tests.ops.opcheck import check_double_grad, check_grad

XV = np.arange(24, dtype=np.float64).reshape(4, 6) / 7.0 - 1.0


def _run(build, feed: dict):
    """Build `build(x, i)` in a fresh program; return the fetched outputs and x's gradient of their sum."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [4, 6], "float64")
        x.stop_gradient = False
        i = static.data("i", list(feed["i"].shape), feed["i"].dtype)
        out = build(x, i)
        loss = (out * out).sum()
        gx, = static.gradients([loss], [x])
    got, grad = static.Executor().run(main, feed={"x": XV, **feed}, fetch_list=[out, gx])
    return got, grad, main


def _eager(build_np, i: int):
    x = paddle.to_tensor(XV, stop_gradient=False)
    out = build_np(x, i)
    (out * out).sum().backward()
    return out.numpy(), x.grad.numpy()


CASES = {
    "int": (lambda x, i: x[i], lambda x, i: x[i]),
    "negative": (lambda x, i: x[i], lambda x, i: x[i]),
    "column": (lambda x, i: x[:, i], lambda x, i: x[:, i]),
    "ellipsis": (lambda x, i: x[..., i], lambda x, i: x[..., i]),
    "slice": (lambda x, i: x[i:i + 2, 1:], lambda x, i: x[i:i + 2, 1:]),
    "open_slice": (lambda x, i: x[None, :, i:], lambda x, i: x[None, :, i:]),
    "step": (lambda x, i: x[1, i::2], lambda x, i: x[1, i::2]),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("dtype,shape", [("int64", ()), ("int32", (1,))])
def test_plain_static_values_and_gradients_match_eager(name, dtype, shape):
    build, build_np = CASES[name]
    i = -3 if name == "negative" else 1
    got, grad, main = _run(build, {"i": np.full(shape, i, dtype)})
    want, want_grad = _eager(build_np, i)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_allclose(grad, want_grad, rtol=1e-12)
    types = [op.type for op in main.global_block().ops]
    assert "getitem_dynamic" in types and "getitem_dynamic_grad" in types and "gather" not in types


def test_an_index_out_of_range_at_run_time_is_a_clear_error():
    with pytest.raises(IndexError, match="out of range"):
        _run(lambda x, i: x[i], {"i": np.array(4, np.int64)})


@pytest.mark.parametrize("index,match", [
    (lambda x, v: x[v.astype("float32")], "float32"),
    (lambda x, v: x[v:v + 1:v], "step cannot be a Variable"),
    (lambda x, v: x[paddle.concat([v.reshape([1]), v.reshape([1])])], "one int"),
    (lambda x, v: x[v, [0, 1]], "cannot be combined"),
    (lambda x, v: x[v, 0, 1], "too many indices"),
])
def test_unsupported_variable_indices_say_what_to_do(index, match):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [4, 6], "float64")
        v = static.data("v", [], "int64")
        with pytest.raises(paddle.errors.InvalidArgument, match=match):
            index(x, v)


def test_the_op_eagerly_gradients_and_double_gradients():
    values = np.array([2, -1], np.int64)
    attrs = {"index": (("$0", "$1", None), "$0")}

    def api(x):
        return dispatch(GETITEM_DYNAMIC, (x, paddle.to_tensor(values)), attrs)

    x = np.random.default_rng(0).standard_normal((5, 4, 3))
    np.testing.assert_array_equal(api(paddle.to_tensor(x)).numpy(), x[2:-1, 2])
    check_grad(api, [x])
    check_double_grad(lambda t: api(t) * api(t), [x])


def test_converted_loops_index_by_the_counter_with_gradients():
    def fn(x, n):
        total = x[0] * 0
        for i in range(n):
            total = total + x[i] * (i + 1) + x[i:i + 2].sum(axis=0)
        return total

    sf = paddle.jit.to_static(fn)
    n = paddle.to_tensor(3)
    x1 = paddle.to_tensor(XV, stop_gradient=False)
    x2 = paddle.to_tensor(XV, stop_gradient=False)
    got, want = sf(x1, n), fn(x2, n)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)
    got.sum().backward()
    want.sum().backward()
    np.testing.assert_allclose(x1.grad.numpy(), x2.grad.numpy(), rtol=1e-12)
    program = sf.concrete_program.main_program
    types = [op.type for block in program.blocks for op in block.ops]
    assert "while" in types and "getitem_dynamic" in types and "gather" not in types
