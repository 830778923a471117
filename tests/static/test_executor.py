"""Executor: startup + main runs, feeds and fetches, and the errors for bad feeds and fetches."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
import minipaddle.nn.functional as F
from minipaddle import static
from minipaddle.framework.errors import InvalidArgument, NotFound, PreconditionNotMet


@pytest.fixture
def net():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 4], "float32")
        layer = paddle.nn.Linear(4, 3)
        y = F.relu(layer(x))
        z = paddle.sum(y, axis=1)
    exe = static.Executor(paddle.CPUPlace())
    exe.run(startup)
    return main, x, y, z, layer, exe


def test_run_matches_numpy_and_fetches_by_var_or_name(net):
    main, x, y, z, layer, exe = net
    xs = np.random.default_rng(1).standard_normal((5, 4)).astype(np.float32)
    scope = static.global_scope()  # a layer built in static mode has its values in the scope (startup ran)
    w, b = (np.asarray(scope.find_var(p.name).get_tensor()) for p in (layer.weight, layer.bias))
    ref = np.maximum(xs @ w + b, 0)
    out_y, out_z = exe.run(main, feed={"x": xs}, fetch_list=[y, z.name])
    np.testing.assert_allclose(out_y, ref, rtol=1e-6)
    np.testing.assert_allclose(out_z, ref.sum(1), rtol=1e-5)
    (t,) = exe.run(main, feed={"x": xs[:2]}, fetch_list=[y], return_numpy=False)
    assert isinstance(t, paddle.Tensor) and t.shape == [2, 3]


def test_feed_errors(net):
    main, x, y, z, layer, exe = net
    with pytest.raises(InvalidArgument, match="dtype float64, expected float32"):
        exe.run(main, feed={"x": np.zeros((2, 4))}, fetch_list=[y])
    with pytest.raises(InvalidArgument, match=r"shape \[2, 5\], expected \[-1, 4\]"):
        exe.run(main, feed={"x": np.zeros((2, 5), np.float32)}, fetch_list=[y])
    with pytest.raises(InvalidArgument, match="'x' was not fed"):
        exe.run(main, feed={}, fetch_list=[y])
    with pytest.raises(NotFound, match="feed variable 'nope'"):
        exe.run(main, feed={"nope": np.zeros(1)}, fetch_list=[y])


def test_fetch_unknown_var(net):
    main, x, y, z, layer, exe = net
    with pytest.raises(NotFound, match="fetch variable 'missing'"):
        exe.run(main, feed={"x": np.zeros((1, 4), np.float32)}, fetch_list=["missing"])


def test_startup_not_run_is_a_clear_error():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 2], "float32")
        y = paddle.nn.Linear(2, 2)(x)
    with pytest.raises(PreconditionNotMet, match="run the startup program"):
        static.Executor().run(main, feed={"x": np.zeros((1, 2), np.float32)}, fetch_list=[y], scope=static.Scope())


def test_runtime_error_names_the_op_and_its_line():
    main = static.Program()
    with static.program_guard(main):
        a = static.data("a", [None, 3], "float32")
        b = static.data("b", [None, 3], "float32")
        c = a + b
    with pytest.raises(InvalidArgument, match=r"cannot be broadcast.*running static op 'add' built at .*test_executor"):
        static.Executor().run(main, feed={"a": np.zeros((2, 3), np.float32), "b": np.zeros((4, 3), np.float32)},
                              fetch_list=[c])


def test_scope_holds_parameters(net):
    main, x, y, z, layer, exe = net
    value = np.asarray(static.global_scope().find_var(layer.weight.name).get_tensor())
    limit = np.sqrt(6.0 / (4 + 3))  # drawn by the startup program's uniform_random (XavierUniform)
    assert value.shape == (4, 3) and value.dtype == np.float32 and 0 < np.abs(value).max() <= limit
    scope = static.global_scope()
    scope.var(layer.bias.name).get_tensor().set(np.full(3, 100.0, np.float32), paddle.CPUPlace())
    (out,) = exe.run(main, feed={"x": np.zeros((1, 4), np.float32)}, fetch_list=[y])
    np.testing.assert_array_equal(out, np.full((1, 3), 100.0, np.float32))


def test_initializer_ops_in_startup_program():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 8], "float32")
        out = static.nn.fc(x, 300, activation="tanh")
    types = [op.type for op in startup.global_block().ops]
    assert types == ["uniform_random", "fill_constant"]
    scope = static.Scope()
    static.Executor().run(startup, scope=scope)
    w = np.asarray(scope.find_var("fc_0.w_0").get_tensor()) if scope.find_var("fc_0.w_0") else \
        np.asarray(scope.find_var(main.all_parameters()[0].name).get_tensor())
    limit = np.sqrt(6.0 / (8 + 300))
    assert w.shape == (8, 300) and np.abs(w).max() <= limit and np.abs(w).max() > 0.9 * limit
    (o,) = static.Executor().run(main, feed={"x": np.ones((2, 8), np.float32)}, fetch_list=[out], scope=scope)
    np.testing.assert_allclose(o, np.tanh(np.ones((2, 8), np.float32) @ w), rtol=1e-5)


def test_temporaries_are_dropped_after_their_last_use_but_fetches_and_parameters_stay():
    import numpy as np
    from minipaddle import static
    paddle.enable_static()
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 3], "float32")
        h = static.nn.fc(x, 4)
        mid = h * 2.0
        out = (mid + 1.0).sum()
    exe = static.Executor(paddle.CPUPlace())
    exe.run(startup)
    seen = []
    original = exe.run_block

    def spy(block, env, check_inputs=False, release=None, **options):
        result = original(block, env, check_inputs, release, **options)
        seen.append(set(result))
        return result
    exe.run_block = spy
    feed = {"x": np.ones((2, 3), "float32")}
    (value, h_value) = exe.run(main, feed=feed, fetch_list=[out, h])
    assert np.isfinite(value) and h_value.shape == (2, 4)
    left = seen[-1]
    assert mid.name not in left and out.name in left and h.name in left
    assert all(p.name in left for p in main.all_parameters())
    (again,) = exe.run(main, feed=feed, fetch_list=[out])   # a second run with another fetch list
    assert again == value
