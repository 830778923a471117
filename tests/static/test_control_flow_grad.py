"""Backward through static.nn.cond and static.nn.while_loop: cond_grad / while_grad with grad
sub-blocks give the gradients eager autograd gives for the same Python function, including loops
whose trip count depends on the data, nested control flow and optimizer.minimize."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
import minipaddle.nn.functional as F
from minipaddle import static
from minipaddle.framework.errors import Unimplemented

RNG = np.random.default_rng(5)


def _check_against_eager(fn, arrays: dict, shapes: dict, wrt: list[str]):
    """fn(**vars) -> scalar; static gradients of it equal eager paddle.grad, value and grads."""
    main = static.Program()
    with static.program_guard(main):
        vs = {n: static.data(n, shapes[n], str(a.dtype)) for n, a in arrays.items()}
        for n in wrt:
            vs[n].stop_gradient = False
        out = fn(**vs)
        grads = static.gradients([out], [vs[n] for n in wrt])
    got = static.Executor().run(main, feed=arrays, fetch_list=[out] + grads)
    ts = {n: paddle.to_tensor(a, stop_gradient=n not in wrt) for n, a in arrays.items()}
    e_out = fn(**ts)
    e_grads = paddle.grad([e_out], [ts[n] for n in wrt], allow_unused=True)
    want = [e_out.numpy()] + [np.zeros_like(arrays[n]) if g is None else g.numpy() for n, g in zip(wrt, e_grads)]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)
    return main


def _branches(x, w):
    h = x * w
    y = static.nn.cond(paddle.sum(h) > 0, lambda: paddle.tanh(h) * w, lambda: h * h - x)
    z = static.nn.cond(paddle.mean(x) > 0, lambda: x, lambda: w * 2.0)  # a branch returning an outer var
    return paddle.sum(y * z)


@pytest.mark.parametrize("sign", [1.0, -1.0])
@pytest.mark.parametrize("batch", [None, 3])
def test_cond_gradients_equal_eager_on_both_branches(sign, batch):
    arrays = {"x": sign * np.abs(RNG.standard_normal((3, 4))), "w": np.abs(RNG.standard_normal(4))}
    main = _check_against_eager(_branches, arrays, {"x": [batch, 4], "w": [4]}, ["x", "w"])
    types = [op.type for op in main.global_block().ops]
    assert types.count("cond_grad") == 2
    grad_op = next(op for op in main.global_block().ops if op.type == "cond_grad")
    assert len(grad_op.sub_blocks) == 2 and all(main.block(i).parent_idx == 0 for i in grad_op.sub_blocks)


def _until_big(x, w):
    """Repeat s = tanh(s * w) + s * 1.5 until |s| sums past 20: the trip count depends on the data."""
    def body(i, s):
        return [i + 1, paddle.tanh(s * w) + s * 1.5]
    i0 = paddle.full([], 0, "int64")
    i, s = static.nn.while_loop(lambda i, s: paddle.sum(paddle.abs(s)) < 20.0, body, [i0, x])
    return paddle.sum(s * s) + paddle.cast(i, "float64")


@pytest.mark.parametrize("scale", [0.2, 1.0, 30.0])  # many trips, a few, none
def test_while_gradients_equal_eager_for_a_data_dependent_trip_count(scale):
    arrays = {"x": scale * RNG.standard_normal((2, 3)), "w": np.abs(RNG.standard_normal(3))}
    main = _check_against_eager(_until_big, arrays, {"x": [None, 3], "w": [3]}, ["x", "w"])
    assert "while_grad" in [op.type for op in main.global_block().ops]
    test_prog = main.clone(for_test=True)  # inference keeps no step scopes
    assert not any(op.attrs.get("save_step_scopes") for op in test_prog.global_block().ops)


def _accumulate(x, w, n):
    """s starts as a constant (stop_gradient) but picks up w: the gradient is carried through s."""
    s = paddle.zeros([3], "float64")
    _, s = static.nn.while_loop(lambda k, s: k < n, lambda k, s: [k + 1, s * 0.5 + paddle.sin(x * w + s)],
                                [paddle.full([], 0, "int64"), s])
    return paddle.sum(s * x)


@pytest.mark.parametrize("n", [0, 1, 4])
def test_while_carries_gradients_through_a_constant_init(n):
    arrays = {"x": RNG.standard_normal(3), "w": RNG.standard_normal(3), "n": np.array(n)}
    _check_against_eager(_accumulate, arrays, {"x": [3], "w": [3], "n": []}, ["x", "w"])


def _nested(x, w):
    def body(v):
        return [static.nn.cond(paddle.sum(v) > 2.0, lambda: v * 1.3 + w * 0.1,
                                       lambda: paddle.exp(v * w) * 0.3 + v)]
    (v,) = static.nn.while_loop(lambda v: paddle.sum(v) < 8.0, body, [x])
    u = static.nn.cond(paddle.sum(v) > 9.0, lambda: static.nn.while_loop(
        lambda t: paddle.sum(t) < 20.0, lambda t: [t * 1.5 + w], [v])[0], lambda: v * v)
    return paddle.sum(u * w)


@pytest.mark.parametrize("start", [0.1, 1.0, 2.5])
def test_nested_cond_in_while_and_while_in_cond(start):
    arrays = {"x": np.full(2, start) + 0.1 * RNG.standard_normal(2), "w": 1.0 + 0.2 * RNG.standard_normal(2)}
    _check_against_eager(_nested, arrays, {"x": [2], "w": [2]}, ["x", "w"])


def _unrolled_rnn(net, x, steps):
    h = paddle.zeros([x.shape[0] if x.shape[0] > 0 else 4, 5], "float32")
    _, h = static.nn.while_loop(lambda k, h: k < steps, lambda k, h: [k + 1, paddle.tanh(net(h) + x)],
                                [paddle.full([], 0, "int64"), h])
    return h


def test_minimize_trains_through_a_while_loop_like_eager():
    paddle.seed(3)
    net = paddle.nn.Linear(5, 5)
    head = paddle.nn.Linear(5, 2)
    data = np.random.default_rng(1)
    xs = data.standard_normal((4, 4, 5)).astype(np.float32)
    ys = data.integers(0, 2, (4, 4)).astype(np.int64)
    trips = [2, 0, 3, 1]
    init = {p.name: p.numpy().copy() for p in net.parameters() + head.parameters()}
    opt = paddle.optimizer.SGD(0.1, parameters=net.parameters() + head.parameters())
    eager = []
    for x, y, n in zip(xs, ys, trips):
        loss = F.cross_entropy(head(_unrolled_rnn(net, paddle.to_tensor(x), paddle.to_tensor(n))), paddle.to_tensor(y))
        loss.backward()
        opt.step()
        opt.clear_grad()
        eager.append(float(loss))
    for p in net.parameters() + head.parameters():
        p.set_value(init[p.name])
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x, y = static.data("x", [4, 5], "float32"), static.data("y", [4], "int64")
        steps = static.data("steps", [], "int64")
        loss = F.cross_entropy(head(_unrolled_rnn(net, x, steps)), y)
        paddle.optimizer.SGD(0.1, parameters=net.parameters() + head.parameters()).minimize(loss)
    exe = static.Executor()
    exe.run(startup)
    got = [float(exe.run(main, feed={"x": x, "y": y, "steps": np.array(n)}, fetch_list=[loss])[0])
           for x, y, n in zip(xs, ys, trips)]
    np.testing.assert_allclose(got, eager, rtol=1e-5)
    assert eager[0] != eager[-1]


def test_double_grad_through_control_flow_is_a_clear_error():
    main = static.Program()
    with static.program_guard(main):
        x = static.data("x", [3], "float64")
        x.stop_gradient = False
        y = static.nn.cond(paddle.sum(x) > 0, lambda: x * x * x, lambda: x * 2.0)
        (g,) = static.gradients([paddle.sum(y)], [x])
        with pytest.raises(Unimplemented, match="cond_grad"):
            static.gradients([paddle.sum(g)], [x])


def test_forward_run_without_backward_keeps_no_scopes():
    main = static.Program()
    with static.program_guard(main):
        x = static.data("x", [3], "float64")
        (v,) = static.nn.while_loop(lambda v: paddle.sum(v) < 10.0, lambda v: [v * 2.0], [x])
    op = main.global_block().ops[-1]
    assert "StepScopes" not in op.outputs and not op.attrs.get("save_step_scopes")
    (val,) = static.Executor().run(main, feed={"x": np.ones(3)}, fetch_list=[v])
    np.testing.assert_array_equal(val, np.full(3, 4.0))


def _batch_means(x, w):
    """Rules that need the batch size (run-time backward_rule ops) inside a branch and a loop body."""
    y = static.nn.cond(paddle.mean(x) > 0, lambda: paddle.mean(x * w, axis=0) * F.softmax(x, axis=-1).sum(0),
                       lambda: paddle.mean(paddle.tanh(x), axis=0))
    _, z = static.nn.while_loop(lambda i, z: i < 2, lambda i, z: [i + 1, paddle.mean(x * z, axis=0) + z],
                                [paddle.full([], 0, "int64"), y])
    return paddle.sum(z * w)


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_run_time_rules_inside_grad_blocks_with_an_unknown_batch(sign):
    arrays = {"x": sign * np.abs(RNG.standard_normal((3, 4))), "w": RNG.standard_normal(4)}
    main = _check_against_eager(_batch_means, arrays, {"x": [None, 4], "w": [4]}, ["x", "w"])
    grad_blocks = [main.block(i) for op in main.global_block().ops if op.type.endswith("_grad") for i in op.sub_blocks]
    assert any(op.type == "backward_rule" for b in grad_blocks for op in b.ops)
