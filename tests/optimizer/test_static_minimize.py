"""optimizer.minimize in static mode (optimizer/static_minimize.py): static training gives eager
training's losses, with clip and weight decay too; the update ops follow an LR scheduler."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
import minipaddle.nn.functional as F
from minipaddle import static
from minipaddle.framework.static import builder, executor
from minipaddle.framework.static.program import Program


@pytest.fixture(autouse=True)
def fresh_static_state():
    builder._main_program, builder._startup_program = Program(), Program()
    executor._global_scope = executor.Scope()
    yield
    paddle.disable_static()


def _train(opt_factory, static_mode: bool, steps: int = 5, clip=None, decay=None):
    paddle.seed(11)
    net = paddle.nn.Sequential(paddle.nn.Linear(6, 16), paddle.nn.ReLU(), paddle.nn.Linear(16, 4))
    data = np.random.default_rng(3)
    xs = data.standard_normal((steps, 8, 6)).astype(np.float32)
    ys = data.integers(0, 4, (steps, 8)).astype(np.int64)
    opt = opt_factory(net.parameters(), clip, decay)
    if not static_mode:
        losses = []
        for x, y in zip(xs, ys):
            loss = F.cross_entropy(net(paddle.to_tensor(x)), paddle.to_tensor(y))
            loss.backward()
            opt.step()
            opt.clear_grad()
            losses.append(float(loss))
        return losses
    paddle.enable_static()
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x, y = static.data("x", [None, 6], "float32"), static.data("y", [None], "int64")
        loss = F.cross_entropy(net(x), y)
        opt.minimize(loss)
    paddle.disable_static()
    exe = static.Executor(paddle.CPUPlace())
    exe.run(startup)
    return [float(exe.run(main, feed={"x": a, "y": b}, fetch_list=[loss])[0]) for a, b in zip(xs, ys)]


OPTIMIZERS = {
    "sgd": lambda ps, clip, decay: paddle.optimizer.SGD(0.1, parameters=ps, grad_clip=clip, weight_decay=decay),
    "adam": lambda ps, clip, decay: paddle.optimizer.Adam(0.01, parameters=ps, grad_clip=clip, weight_decay=decay),
    "momentum": lambda ps, clip, decay: paddle.optimizer.Momentum(0.05, parameters=ps, grad_clip=clip,
                                                                  weight_decay=decay),
}


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_static_training_equals_eager_training(name):
    eager = _train(OPTIMIZERS[name], static_mode=False)
    static_losses = _train(OPTIMIZERS[name], static_mode=True)
    assert eager[-1] < eager[0]
    np.testing.assert_array_equal(static_losses, eager)


def test_static_training_with_clip_and_weight_decay_equals_eager():
    def make(ps, clip, decay):
        return paddle.optimizer.SGD(0.1, parameters=ps, grad_clip=clip, weight_decay=decay)
    clip = paddle.nn.ClipGradByGlobalNorm(0.5)
    eager = _train(make, False, clip=clip, decay=paddle.regularizer.L2Decay(0.01))
    static_losses = _train(make, True, clip=clip, decay=paddle.regularizer.L2Decay(0.01))
    np.testing.assert_allclose(static_losses, eager, rtol=1e-6)


def test_minimize_appends_update_ops_and_lr_scheduler_drives_them():
    paddle.seed(0)
    sched = paddle.optimizer.lr.StepDecay(0.1, step_size=1, gamma=0.5)
    layer = paddle.nn.Linear(2, 1)
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 2], "float32")
        loss = paddle.mean(layer(x))
        opt = paddle.optimizer.SGD(sched, parameters=layer.parameters())
        ops, params_grads = opt.minimize(loss)
    assert [op.type for op in ops if op.role == "optimize"] == ["sgd", "sgd"]
    exe = static.Executor()
    exe.run(startup)
    feed = {"x": np.ones((4, 2), np.float32)}
    b0 = np.asarray(static.global_scope().find_var(layer.bias.name).get_tensor()).copy()
    exe.run(main, feed=feed)
    b1 = np.asarray(static.global_scope().find_var(layer.bias.name).get_tensor()).copy()
    sched.step()
    exe.run(main, feed=feed)
    b2 = np.asarray(static.global_scope().find_var(layer.bias.name).get_tensor()).copy()
    np.testing.assert_allclose(b1 - b0, [-0.1], rtol=1e-6)   # d mean / d bias = 1
    np.testing.assert_allclose(b2 - b1, [-0.05], rtol=1e-6)
