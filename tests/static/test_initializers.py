"""nn layers built in static mode put their initializers into the startup program as ops
(uniform_random, gaussian_random, truncated_gaussian_random, fill_constant); `paddle.seed` and
`program.random_seed` make the startup run deterministic; layers made in dygraph keep their values."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle import static
from minipaddle.nn import initializer as I


def _build(seed_program: int = 0):
    main, startup = static.Program(), static.Program()
    startup.random_seed = seed_program
    with static.program_guard(main, startup):
        x = static.data("x", [None, 6], "float32")
        net = paddle.nn.Sequential(
            paddle.nn.Linear(6, 32), paddle.nn.Tanh(),
            paddle.nn.Linear(32, 32, weight_attr=paddle.ParamAttr(initializer=I.TruncatedNormal(0.0, 0.5))),
            paddle.nn.Linear(32, 3, weight_attr=paddle.ParamAttr(initializer=I.Normal(1.0, 0.1)),
                             bias_attr=paddle.ParamAttr(initializer=I.Constant(0.25))))
        y = net(x)
    return main, startup, net, y


def _startup_values(startup, names):
    scope = static.Scope()
    static.Executor().run(startup, scope=scope)
    return {n: np.asarray(scope.find_var(n).get_tensor()).copy() for n in names}


def test_layers_built_in_static_mode_initialize_by_ops():
    main, startup, net, y = _build()
    ops = {op.outputs["out"][0]: op for op in startup.global_block().ops}
    w0, b0, w1, b1, w2, b2 = (p.name for p in net.parameters())
    assert [op.type for op in startup.global_block().ops] == [
        "uniform_random", "fill_constant", "truncated_gaussian_random", "fill_constant", "gaussian_random",
        "fill_constant"]
    assert "assign_value" not in str(startup)
    limit = np.sqrt(6.0 / (6 + 32))  # XavierUniform
    assert ops[w0].attrs["min"] == pytest.approx(-limit) and ops[w0].attrs["max"] == pytest.approx(limit)
    values = _startup_values(startup, [w0, b0, w1, b1, w2, b2])
    assert np.abs(values[w0]).max() <= limit and values[w0].std() > 0.3 * limit
    assert np.abs(values[w1]).max() <= 1.0 and 0.3 < values[w1].std() < 0.5  # truncated at 2 std
    assert abs(values[w2].mean() - 1.0) < 0.05 and values[w2].dtype == np.float32
    np.testing.assert_array_equal(values[b2], np.full(3, 0.25, np.float32))
    (out,) = static.Executor().run(main, feed={"x": np.ones((2, 6), np.float32)}, fetch_list=[y],
                                   scope=_scope_with(values))
    want = (np.tanh(np.ones((2, 6)) @ values[w0] + values[b0]) @ values[w1] + values[b1]) @ values[w2] + values[b2]
    np.testing.assert_allclose(out, want, rtol=1e-4)


def test_static_startup_after_paddle_seed_draws_what_eager_layers_draw():
    paddle.seed(42)
    _, startup, net, _ = _build()
    static_values = list(_startup_values(startup, [p.name for p in net.parameters()]).values())
    paddle.disable_static()
    paddle.seed(42)
    eager = paddle.nn.Sequential(
        paddle.nn.Linear(6, 32), paddle.nn.Tanh(),
        paddle.nn.Linear(32, 32, weight_attr=paddle.ParamAttr(initializer=I.TruncatedNormal(0.0, 0.5))),
        paddle.nn.Linear(32, 3, weight_attr=paddle.ParamAttr(initializer=I.Normal(1.0, 0.1)),
                         bias_attr=paddle.ParamAttr(initializer=I.Constant(0.25))))
    for s, p in zip(static_values, eager.parameters()):
        np.testing.assert_array_equal(s, p.numpy())


def _scope_with(values: dict) -> static.Scope:
    scope = static.Scope()
    for n, v in values.items():
        scope.var(n).get_tensor().set(v)
    return scope


def test_paddle_seed_makes_startup_deterministic():
    _, startup, net, _ = _build()
    names = [p.name for p in net.parameters()]
    paddle.seed(123)
    a = _startup_values(startup, names)
    b = _startup_values(startup, names)
    paddle.seed(123)
    c = _startup_values(startup, names)
    assert not np.array_equal(a[names[0]], b[names[0]])
    for n in names:
        np.testing.assert_array_equal(a[n], c[n])


def test_program_random_seed_makes_startup_deterministic_and_params_distinct():
    main, startup, net, _ = _build(seed_program=9)
    names = [p.name for p in net.parameters()]
    a = _startup_values(startup, names)
    paddle.seed(1)  # the global generator does not matter once the program has a seed
    b = _startup_values(startup, names)
    for n in names:
        np.testing.assert_array_equal(a[n], b[n])
    with static.program_guard(static.Program(), startup2 := static.Program()):
        startup2.random_seed = 9
        l1, l2 = paddle.nn.Linear(4, 4), paddle.nn.Linear(4, 4)
        l1(static.data("x", [1, 4], "float32"))
        l2(static.data("z", [1, 4], "float32"))
    v = _startup_values(startup2, [l1.weight.name, l2.weight.name])
    assert not np.array_equal(v[l1.weight.name], v[l2.weight.name])


def test_layer_made_in_dygraph_keeps_its_values_under_program_guard():
    layer = paddle.nn.Linear(3, 2)
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        layer(static.data("x", [None, 3], "float32"))
        late = paddle.nn.Linear(3, 3)
        late.weight.set_value(np.eye(3, dtype=np.float32) * 2.0)  # set after it was made: its values count
        late(static.data("z", [None, 3], "float32"))
    types = {op.outputs["out"][0]: op.type for op in startup.global_block().ops}
    assert types[layer.weight.name] == "assign_value" and types[late.weight.name] == "assign_value"
    assert types[late.bias.name] == "fill_constant"
    values = _startup_values(startup, [layer.weight.name, layer.bias.name, late.weight.name])
    np.testing.assert_array_equal(values[layer.weight.name], layer.weight.numpy())
    np.testing.assert_array_equal(values[late.weight.name], np.eye(3) * 2.0)


def test_static_create_parameter_with_truncated_normal():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        w = static.create_parameter([50, 40], "float64", name="w_tn",
                                    attr=paddle.ParamAttr(initializer=I.TruncatedNormal(1.0, 2.0, a=-1.0, b=1.0)))
    assert startup.global_block().ops[0].type == "truncated_gaussian_random"
    values = _startup_values(startup, [w.name])[w.name]
    assert values.min() >= -1.0 and values.max() <= 3.0 and values.dtype == np.float64
