"""batch_norm in static Programs: training updates the running statistics in the scope (batch_norm_update
writes them into the persistable buffers), gradients and minimize still work, clone(for_test=True) uses them."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
import minipaddle.nn.functional as F
from minipaddle import static


def _net():
    paddle.seed(5)
    return paddle.nn.Sequential(paddle.nn.Linear(6, 8), paddle.nn.BatchNorm1D(8, momentum=0.8), paddle.nn.ReLU(),
                                paddle.nn.Linear(8, 3))


def _data(steps: int = 4):
    rng = np.random.default_rng(7)
    xs = (rng.standard_normal((steps, 10, 6)) * 2 + 1).astype(np.float32)
    ys = rng.integers(0, 3, (steps, 10)).astype(np.int64)
    return xs, ys


def _eager(steps: int = 4):
    net, (xs, ys) = _net(), _data(steps)
    opt = paddle.optimizer.SGD(0.1, parameters=net.parameters())
    losses = []
    for x, y in zip(xs, ys):
        loss = F.cross_entropy(net(paddle.to_tensor(x)), paddle.to_tensor(y))
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    return net, losses


def _static_program(net, with_optimizer: bool = True):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x, y = static.data("x", [None, 6], "float32"), static.data("y", [None], "int64")
        logits = net(x)
        loss = F.cross_entropy(logits, y)
        if with_optimizer:
            paddle.optimizer.SGD(0.1, parameters=net.parameters()).minimize(loss)
    return main, startup, logits, loss


def test_static_training_matches_eager_losses_and_running_stats():
    eager_net, eager_losses = _eager()
    net = _net()
    bn = net[1]
    main, startup, _, loss = _static_program(net)
    assert [op.type for op in main.global_block().ops].count("batch_norm_update") == 1
    mean_var = main.global_block().var(bn._mean.name)
    assert mean_var.persistable and not mean_var.is_parameter and mean_var.stop_gradient
    exe = static.Executor()
    exe.run(startup)
    xs, ys = _data()
    losses = [float(exe.run(main, feed={"x": a, "y": b}, fetch_list=[loss])[0]) for a, b in zip(xs, ys)]
    np.testing.assert_allclose(losses, eager_losses, rtol=1e-6)
    scope = static.global_scope()
    for buf, eager_buf in ((bn._mean, eager_net[1]._mean), (bn._variance, eager_net[1]._variance)):
        got = np.asarray(scope.find_var(buf.name).get_tensor())
        np.testing.assert_allclose(got, eager_buf.numpy(), rtol=1e-6, atol=1e-7)
        assert not np.allclose(got, buf.numpy())   # the layer's own buffers are not touched by the Executor


def test_clone_for_test_uses_the_running_stats_and_leaves_them_alone():
    net = _net()
    main, startup, logits, loss = _static_program(net)
    test_prog = main.clone(for_test=True)
    bn_ops = [op for op in test_prog.global_block().ops if op.type.startswith("batch_norm")]
    assert [op.attrs["is_test"] for op in bn_ops] == [True, True]
    exe = static.Executor()
    exe.run(startup)
    xs, ys = _data()
    for a, b in zip(xs, ys):
        exe.run(main, feed={"x": a, "y": b})
    scope = static.global_scope()
    mean = np.asarray(scope.find_var(net[1]._mean.name).get_tensor()).copy()
    var = np.asarray(scope.find_var(net[1]._variance.name).get_tensor()).copy()
    got, = exe.run(test_prog, feed={"x": xs[0], "y": ys[0]}, fetch_list=[logits])
    np.testing.assert_array_equal(np.asarray(scope.find_var(net[1]._mean.name).get_tensor()), mean)
    # the same net in eager eval mode with those statistics and the trained weights
    for p in net.parameters():
        p.set_value(np.asarray(scope.find_var(p.name).get_tensor()))
    net[1]._mean.set_value(mean)
    net[1]._variance.set_value(var)
    net.eval()
    np.testing.assert_allclose(got, net(paddle.to_tensor(xs[0])).numpy(), rtol=1e-5, atol=1e-6)


def test_gradients_through_a_training_batch_norm_match_eager():
    rng = np.random.default_rng(1)
    xv = rng.standard_normal((5, 3, 2)).astype(np.float64)
    w = paddle.to_tensor(rng.standard_normal(3), stop_gradient=False)
    mean, var = paddle.zeros([3], "float64"), paddle.ones([3], "float64")
    x = paddle.to_tensor(xv, stop_gradient=False)
    out = F.batch_norm(x, mean, var, weight=w, training=True)
    (out * out * paddle.arange(3, dtype="float64").reshape([1, 3, 1])).sum().backward()
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        xs = static.data("x", [5, 3, 2], "float64")
        xs.stop_gradient = False
        ws = static.create_parameter([3], "float64", name="w")
        mean2, var2 = paddle.zeros([3], "float64"), paddle.ones([3], "float64")
        o = F.batch_norm(xs, mean2, var2, weight=ws, training=True)
        loss = (o * o * paddle.arange(3, dtype="float64").reshape([1, 3, 1])).sum()
        gx, gw = static.gradients([loss], [xs, ws])
    exe = static.Executor()
    exe.run(startup)
    static.global_scope().var("w").get_tensor().set(w.numpy())
    got_x, got_w, new_mean = exe.run(main, feed={"x": xv}, fetch_list=[gx, gw, mean2.name])
    np.testing.assert_allclose(got_x, x.grad.numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(got_w, w.grad.numpy(), rtol=1e-9)
    np.testing.assert_allclose(new_mean, mean.numpy(), rtol=1e-12)


def test_eval_mode_builds_no_update_and_reads_the_buffers():
    net = _net()
    net.eval()
    main, startup, logits, _ = _static_program(net, with_optimizer=False)
    types = [op.type for op in main.global_block().ops]
    assert "batch_norm_update" not in types
    assert main.global_block().var(net[1]._variance.name).persistable


def test_update_of_a_non_persistable_running_mean_is_a_clear_error():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [4, 3], "float32")
        m = x.mean(axis=0)   # a temporary, not state
        with pytest.raises(paddle.errors.InvalidArgument, match="persistable"):
            F.batch_norm(x, m, paddle.ones([3]), training=True)


def test_batch_norm_update_checks_shapes():
    from minipaddle.framework.ops.norm import BATCH_NORM_UPDATE
    from minipaddle.framework.dispatch import dispatch
    with pytest.raises(paddle.errors.InvalidArgument, match="saved_mean"):
        dispatch(BATCH_NORM_UPDATE, (paddle.zeros([3]), paddle.ones([3]), paddle.zeros([4]), paddle.ones([3])),
                 {"momentum": 0.9})


def test_optimizing_passes_keep_the_statistics_update():
    net = _net()
    main, startup, _, loss = _static_program(net)
    optimized, _ = static.passes.apply_passes(main, fetch_list=[loss])
    assert "batch_norm_update" in [op.type for op in optimized.global_block().ops]
    exe = static.Executor()
    exe.run(startup)
    xs, ys = _data(2)
    scope = static.global_scope()
    for a, b in zip(xs, ys):
        exe.run(optimized, feed={"x": a, "y": b}, fetch_list=[loss])
    optimized_mean = np.asarray(scope.find_var(net[1]._mean.name).get_tensor()).copy()
    eager_net, _ = _eager(2)
    np.testing.assert_allclose(optimized_mean, eager_net[1]._mean.numpy(), rtol=1e-6, atol=1e-7)


def test_a_training_batch_norm_inside_a_branch_is_refused_clearly():
    bn = paddle.nn.BatchNorm1D(3)

    def fn(x):
        if x.sum() > 0:
            return bn(x)
        return x * 2

    x = paddle.to_tensor(np.arange(12, dtype=np.float32).reshape(4, 3))
    with pytest.raises(paddle.errors.Unimplemented, match="inside a control-flow branch"):
        paddle.jit.to_static(fn)(x)
    np.testing.assert_array_equal(bn._mean.numpy(), np.zeros(3, np.float32))
    bn.eval()   # in eval mode the statistics are only read: fine in a branch
    np.testing.assert_allclose(paddle.jit.to_static(fn)(x).numpy(), bn(x).numpy(), rtol=1e-6)


def test_save_inference_model_of_a_training_program_uses_the_trained_statistics(tmp_path):
    net = _net()
    main, startup, logits, loss = _static_program(net)
    exe = static.Executor()
    exe.run(startup)
    xs, ys = _data()
    for a, b in zip(xs, ys):
        exe.run(main, feed={"x": a, "y": b})
    want, = exe.run(main.clone(for_test=True), feed={"x": xs[0], "y": ys[0]}, fetch_list=[logits])
    static.save_inference_model(str(tmp_path / "bn"), [main.global_block().var("x")], [logits], exe, program=main)
    with static.scope_guard(static.Scope()):
        program, feeds, fetches = static.load_inference_model(str(tmp_path / "bn"), exe)
        assert "batch_norm_update" not in [op.type for op in program.global_block().ops]
        got, = exe.run(program, feed={feeds[0]: xs[0]}, fetch_list=fetches)
    np.testing.assert_allclose(got, want, rtol=1e-6)
