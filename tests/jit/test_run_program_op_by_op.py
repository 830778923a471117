"""run_program: a forward Program run in dygraph -- forward equals Executor.run, gradients equal the
eager model's (and central differences), through cond and while sub-blocks."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle import nn, static
from minipaddle.jit.run_program import run_program
from tests.ops.opcheck import check_double_grad, check_grad


def build(fn, specs):
    """(main, startup, out) with `fn` called on static.data variables named by `specs`."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        xs = [static.data(name, shape, dtype) for name, shape, dtype in specs]
        out = fn(*xs)
    return main, startup, out


def executor_run(main, startup, feed, out):
    exe, scope = static.Executor(), static.Scope()
    with static.scope_guard(scope):
        exe.run(startup)
        return exe.run(main, feed=feed, fetch_list=[out])[0]


def params_of(layer):
    return {p.name: p for p in layer.parameters()}


def eager_grads(layer, fn, x):
    layer.clear_gradients()
    x = paddle.to_tensor(x, stop_gradient=False)
    fn(x).sum().backward()
    return x.grad.numpy(), [p.grad.numpy().copy() for p in layer.parameters()]


def program_grads(layer, main, out, x):
    layer.clear_gradients()
    x = paddle.to_tensor(x, stop_gradient=False)
    y, = run_program(main, ["x"], [x], [out.name], params_of(layer))
    y.sum().backward()
    return x.grad.numpy(), [p.grad.numpy().copy() for p in layer.parameters()]


def assert_same_grads(a, b):
    np.testing.assert_allclose(a[0], b[0], rtol=1e-5, atol=1e-6)
    for ga, gb in zip(a[1], b[1]):
        np.testing.assert_allclose(ga, gb, rtol=1e-5, atol=1e-6)


def test_mlp_forward_equals_executor_and_grads_reach_inputs_and_parameters():
    paddle.seed(1)
    mlp = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    main, startup, out = build(mlp, [("x", [None, 4], "float32")])
    x = np.random.default_rng(0).standard_normal((5, 4)).astype("float32")
    expected = executor_run(main, startup, {"x": x}, out)
    y, = run_program(main, ["x"], [paddle.to_tensor(x, stop_gradient=False)], [out.name], params_of(mlp))
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(y.numpy(), mlp(paddle.to_tensor(x)).numpy(), rtol=1e-6)
    assert not y.stop_gradient
    assert_same_grads(program_grads(mlp, main, out, x), eager_grads(mlp, mlp, x))


def test_gradients_accumulate_into_the_layers_parameters():
    lin = nn.Linear(3, 2)
    main, _, out = build(lin, [("x", [None, 3], "float32")])
    x = paddle.ones([2, 3])
    for _ in range(2):
        run_program(main, ["x"], [x], [out.name], params_of(lin))[0].sum().backward()
    np.testing.assert_allclose(lin.bias.grad.numpy(), [4.0, 4.0])  # two steps of d(sum)/db = batch size 2


def test_no_grad_runs_the_executor_path_and_records_nothing():
    lin = nn.Linear(3, 2)
    main, startup, out = build(lambda x: paddle.tanh(lin(x)), [("x", [None, 3], "float32")])
    x = np.arange(6, dtype="float32").reshape(2, 3)
    with paddle.no_grad():
        y, = run_program(main, ["x"], [paddle.to_tensor(x)], [out.name], params_of(lin))
    assert y.stop_gradient and y._node is None
    np.testing.assert_allclose(y.numpy(), executor_run(main, startup, {"x": x}, out), rtol=1e-6)


def cond_model(lin):
    def f(x):
        h = lin(x)
        return static.nn.cond(paddle.sum(x) > 0, lambda: paddle.tanh(h) * 2.0, lambda: h * h - 1.0)
    return f


@pytest.mark.parametrize("sign", [1.0, -1.0])  # one input per branch
def test_cond_forward_and_grads_match_eager_on_both_branches(sign):
    paddle.seed(2)
    lin = nn.Linear(4, 3)
    f = cond_model(lin)
    main, startup, out = build(f, [("x", [None, 4], "float32")])
    assert [op.type for op in main.global_block().ops].count("cond") == 1
    x = sign * np.abs(np.random.default_rng(1).standard_normal((2, 4))).astype("float32")
    np.testing.assert_allclose(run_program(main, ["x"], [paddle.to_tensor(x)], [out.name], params_of(lin))[0].numpy(),
                               executor_run(main, startup, {"x": x}, out), rtol=1e-6)
    assert_same_grads(program_grads(lin, main, out, x), eager_grads(lin, f, x))


def while_model(lin, n):
    def f(x):
        i = paddle.zeros([1], "int64")
        _, h = static.nn.while_loop(lambda i, h: i < n, lambda i, h: [i + 1, paddle.tanh(h) * 1.5], [i, lin(x)])
        return h
    return f


@pytest.mark.parametrize("trips", [0, 3])
def test_while_forward_and_grads_match_eager(trips):
    paddle.seed(3)
    lin = nn.Linear(4, 3)
    holder = {}

    def f(x, n):
        holder["n"] = n
        return while_model(lin, n)(x)
    main, startup, out = build(f, [("x", [None, 4], "float32"), ("n", [1], "int64")])
    assert any(op.type == "while" for op in main.global_block().ops)
    x = np.random.default_rng(2).standard_normal((2, 4)).astype("float32")
    n = np.array([trips], "int64")
    got, = run_program(main, ["x", "n"], [paddle.to_tensor(x), paddle.to_tensor(n)], [out.name], params_of(lin))
    exe, scope = static.Executor(), static.Scope()
    with static.scope_guard(scope):
        exe.run(startup)
        expected, = exe.run(main, feed={"x": x, "n": n}, fetch_list=[out])
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-6)
    eager = while_model(lin, paddle.to_tensor(n))
    lin.clear_gradients()
    xt = paddle.to_tensor(x, stop_gradient=False)
    y, = run_program(main, ["x", "n"], [xt, paddle.to_tensor(n)], [out.name], params_of(lin))
    y.sum().backward()
    mine = (xt.grad.numpy(), [p.grad.numpy().copy() for p in lin.parameters()])
    assert_same_grads(mine, eager_grads(lin, eager, x))


def test_grads_through_cond_and_while_match_central_differences():
    def f(x, w, n):
        h = paddle.matmul(x, w)
        h = static.nn.cond(paddle.mean(h) > 0, lambda: paddle.sin(h), lambda: h * 3.0)
        i = paddle.zeros([1], "int64")
        _, h = static.nn.while_loop(lambda i, h: i < n, lambda i, h: [i + 1, paddle.tanh(h) + h * 0.5], [i, h])
        return h
    main, _, out = build(f, [("x", [None, 3], "float64"), ("w", [3, 2], "float64"), ("n", [1], "int64")])
    n = paddle.to_tensor(np.array([2], "int64"))
    rng = np.random.default_rng(4)
    for x in (np.abs(rng.standard_normal((2, 3))), -np.abs(rng.standard_normal((2, 3)))):
        w = np.abs(rng.standard_normal((3, 2)))
        check_grad(lambda x, w: run_program(main, ["x", "w", "n"], [x, w, n], [out.name], {})[0], [x, w])


def test_double_grad_through_a_cond_matches_central_differences():
    def f(x, w):
        h = paddle.matmul(x, w)
        return static.nn.cond(paddle.mean(x) > 0, lambda: paddle.tanh(h) * h, lambda: h * h * h)
    main, _, out = build(f, [("x", [None, 3], "float64"), ("w", [3, 2], "float64")])
    rng = np.random.default_rng(5)
    for x in (np.abs(rng.standard_normal((2, 3))), -np.abs(rng.standard_normal((2, 3)))):
        check_double_grad(lambda x, w: run_program(main, ["x", "w"], [x, w], [out.name], {})[0],
                          [x, rng.standard_normal((3, 2))])


def test_a_program_and_its_run_plans_are_freed_together():
    import gc
    import weakref
    lin = nn.Linear(3, 2)
    main, _, out = build(lin, [("x", [None, 3], "float32")])
    x = paddle.ones([2, 3])
    run_program(main, ["x"], [x], [out.name], params_of(lin))[0].sum().backward()
    with paddle.no_grad():
        run_program(main, ["x"], [x], [out.name], params_of(lin))
    ref = weakref.ref(main)
    del main, out
    gc.collect()
    assert ref() is None


def test_bad_calls_raise_clear_errors():
    lin = nn.Linear(3, 2)
    main, _, out = build(lin, [("x", [None, 3], "float32")])
    x = paddle.ones([2, 3])
    with pytest.raises(ValueError, match="input 'x' has dtype float64, expected float32"):
        run_program(main, ["x"], [paddle.ones([2, 3], "float64")], [out.name], params_of(lin))
    with pytest.raises(ValueError, match=r"input 'x' has shape \[2, 4\], expected \[-1, 3\]"):
        run_program(main, ["x"], [paddle.ones([2, 4])], [out.name], params_of(lin))
    with pytest.raises(RuntimeError, match="persistable variables .* have no value in params"):
        run_program(main, ["x"], [x], [out.name], {})
    with pytest.raises(ValueError, match="data variables \\['x'\\] are read but not fed"):
        run_program(main, [], [], [out.name], params_of(lin))
    with pytest.raises(KeyError, match="fetch 'nope' is not a variable"):
        run_program(main, ["x"], [x], ["nope"], params_of(lin))
    with pytest.raises(ValueError, match="expected a Tensor"):
        run_program(main, ["x"], [np.ones((2, 3), "float32")], [out.name], params_of(lin))


def test_a_program_with_backward_ops_is_refused():
    lin = nn.Linear(3, 2)
    main, _, out = build(lambda x: paddle.mean(lin(x)), [("x", [None, 3], "float32")])
    with static.program_guard(main):
        static.append_backward(out)
    x = paddle.ones([2, 3])
    x.stop_gradient = False
    with pytest.raises(NotImplementedError, match="forward programs only"):
        run_program(main, ["x"], [x], [out.name], params_of(lin))


def test_run_time_shaped_constants_carry_gradients_through_a_converted_layer():
    """zeros_like / paddle.shape of a -1 batch become fill_any_like / shape ops: run_program runs them
    as constants on the fed shape, and the gradient still reaches the layer's weight."""
    class Net(nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)

        def forward(self, x):
            return self.fc(x) + paddle.zeros_like(x) + paddle.shape(x)[0].astype("float32")

    net = Net()
    x = np.random.default_rng(0).standard_normal((3, 4)).astype("float32")
    eager = net(paddle.to_tensor(x))
    eager.sum().backward()
    want = net.fc.weight.grad.numpy().copy()
    net.clear_gradients()
    f = paddle.jit.to_static(net, input_spec=[static.InputSpec([None, 4], "float32")])
    out = f(paddle.to_tensor(x))
    types = [op.type for op in f.forward.concrete_program.main_program.global_block().ops]
    assert "fill_any_like" in types and "shape" in types
    np.testing.assert_allclose(out.numpy(), eager.numpy(), rtol=1e-6)
    out.sum().backward()
    np.testing.assert_allclose(net.fc.weight.grad.numpy(), want, rtol=1e-6)
