"""append_backward / gradients: grad ops from the eager rules give eager's gradients (static training
through optimizer.minimize: tests/optimizer/test_static_minimize.py)."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
import minipaddle.nn.functional as F
from minipaddle import static
from minipaddle.framework.errors import InvalidArgument, Unimplemented

RNG = np.random.default_rng(7)


def _static_grads(model_fn, arrays: dict, shapes: dict, wrt: list[str]):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        vs = {n: static.data(n, shapes[n], str(a.dtype)) for n, a in arrays.items()}
        for n in wrt:
            vs[n].stop_gradient = False
        out = model_fn(**vs)
        grads = static.gradients([out], [vs[n] for n in wrt])
    exe = static.Executor()
    exe.run(startup)
    return main, exe.run(main, feed=arrays, fetch_list=[out] + grads)


def _eager_grads(model_fn, arrays: dict, wrt: list[str]):
    ts = {n: paddle.to_tensor(a, stop_gradient=n not in wrt) for n, a in arrays.items()}
    out = model_fn(**ts)
    return [out.numpy()] + [g.numpy() for g in paddle.grad([out], [ts[n] for n in wrt])]


def _broadcast_and_reuse(x, b):
    h = paddle.tanh(x * b + b)       # b broadcast over rows and used twice
    return paddle.sum(h * h) + paddle.mean(paddle.exp(x))


def _softmax_concat(x, b):
    s = F.softmax(paddle.concat([x, x * 2.0], axis=1), axis=-1)
    return paddle.sum(paddle.maximum(s, b.sum() * 0.01) ** 2)


@pytest.mark.parametrize("model_fn", [_broadcast_and_reuse, _softmax_concat])
@pytest.mark.parametrize("batch", [None, 3])
def test_gradients_equal_eager_paddle_grad(model_fn, batch):
    arrays = {"x": RNG.standard_normal((3, 4)), "b": RNG.standard_normal((4,))}
    shapes = {"x": [batch, 4], "b": [4]}
    _, static_vals = _static_grads(model_fn, arrays, shapes, ["x", "b"])
    eager_vals = _eager_grads(model_fn, arrays, ["x", "b"])
    for s, e in zip(static_vals, eager_vals):
        np.testing.assert_allclose(s, e, rtol=1e-10, atol=1e-12)


def test_append_backward_names_param_grads_and_matches_eager():
    paddle.seed(0)
    net = paddle.nn.Sequential(paddle.nn.Linear(4, 8), paddle.nn.Sigmoid(), paddle.nn.Linear(8, 3))
    xs = RNG.random((5, 4)).astype(np.float32)
    ys = RNG.integers(0, 3, (5,)).astype(np.int64)
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x, y = static.data("x", [None, 4], "float32"), static.data("y", [None], "int64")
        loss = F.cross_entropy(net(x), y)
        params_grads = static.append_backward(loss)
    assert [g.name for _, g in params_grads] == [f"{p.name}@GRAD" for p, _ in params_grads]
    assert {p.name for p, _ in params_grads} == {p.name for p in net.parameters()}
    exe = static.Executor()
    exe.run(startup)
    values = exe.run(main, feed={"x": xs, "y": ys}, fetch_list=[g for _, g in params_grads])
    F.cross_entropy(net(paddle.to_tensor(xs)), paddle.to_tensor(ys)).backward()
    eager = {p.name: p.grad.numpy() for p in net.parameters()}
    for (p, _), v in zip(params_grads, values):
        np.testing.assert_allclose(v, eager[p.name], rtol=1e-5, atol=1e-7)


def test_no_grad_set_and_parameter_list():
    main = static.Program()
    with static.program_guard(main):
        x = static.data("x", [2, 2], "float64")
        w = static.create_parameter([2, 2], "float64", name="w")
        v = static.create_parameter([2, 2], "float64", name="v")
        h = paddle.matmul(x, w)
        loss = paddle.sum(h * v)
        pg = static.append_backward(loss, parameter_list=["v"], no_grad_set={h.name})
    assert [p.name for p, _ in pg] == ["v"]
    assert all(op.outputs.get("out") != ["w@GRAD"] for op in main.global_block().ops)


def test_double_grad_through_symbolic_grad_ops():
    def cube(x):
        return paddle.sum(x * x * x)
    main = static.Program()
    with static.program_guard(main):
        x = static.data("x", [3], "float64")
        x.stop_gradient = False
        (g,) = static.gradients([cube(x)], [x])
        (gg,) = static.gradients([paddle.sum(g)], [x])
    xs = np.array([1.0, -2.0, 0.5])
    g_val, gg_val = static.Executor().run(main, feed={"x": xs}, fetch_list=[g, gg])
    np.testing.assert_allclose(g_val, 3 * xs ** 2)
    np.testing.assert_allclose(gg_val, 6 * xs)


def test_backward_errors():
    with pytest.raises(InvalidArgument, match="static Variable"):
        static.append_backward(paddle.to_tensor(1.0))
    main = static.Program()
    with static.program_guard(main):
        x = static.data("x", [None, 3], "float64")
        x.stop_gradient = False
        loss = paddle.mean(x * x)  # mean's rule needs the batch size: a run-time backward_rule op
        (g,) = static.gradients([loss], [x])
        (gg,) = static.gradients([paddle.sum(paddle.mean(g * g * g))], [x])  # its grad: backward_rule_grad
        with pytest.raises(Unimplemented, match="backward_rule_grad"):
            static.gradients([paddle.sum(gg)], [x])


def _rule_heavy(x):
    return paddle.mean(paddle.tanh(x) * x) + paddle.mean(F.softmax(x, axis=-1) ** 2)


def test_double_grad_through_run_time_backward_rules_equals_eager():
    main = static.Program()
    with static.program_guard(main):
        x = static.data("x", [None, 3], "float64")
        x.stop_gradient = False
        (g,) = static.gradients([_rule_heavy(x)], [x])
        (gg,) = static.gradients([paddle.sum(g * g)], [x])
    types = [op.type for op in main.global_block().ops]
    assert "backward_rule" in types and "backward_rule_grad" in types
    xs = RNG.standard_normal((4, 3))
    g_val, gg_val = static.Executor().run(main, feed={"x": xs}, fetch_list=[g, gg])
    t = paddle.to_tensor(xs, stop_gradient=False)
    (eg,) = paddle.grad([_rule_heavy(t)], [t], create_graph=True)
    (egg,) = paddle.grad([paddle.sum(eg * eg)], [t])
    np.testing.assert_allclose(g_val, eg.numpy(), rtol=1e-10)
    np.testing.assert_allclose(gg_val, egg.numpy(), rtol=1e-10)
