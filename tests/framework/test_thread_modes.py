"""Per-thread modes: grad mode, static mode and the layer stack belong to the thread that set them.

The probes of issue 16: two threads training their own models, training beside a `no_grad`
inference thread, and a thread started inside `no_grad` (it starts with the defaults, as in PyTorch).
The switch interval is shortened so the threads interleave between almost every op.
"""
from __future__ import annotations

import gc
import sys
import threading

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework import thread_modes
from minipaddle.framework.thread_modes import modes

STEPS = 60


@pytest.fixture(autouse=True)
def interleave_often():
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(before)


def _data(seed: int):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((16, 4)).astype("float32")
    y = (x @ rng.standard_normal((4, 1))).astype("float32")
    return paddle.to_tensor(x), paddle.to_tensor(y)


def _make_model(seed: int):
    rng = np.random.default_rng(seed)
    model = paddle.nn.Sequential(paddle.nn.Linear(4, 8), paddle.nn.Tanh(), paddle.nn.Linear(8, 1))
    for p in model.parameters():  # deterministic weights without touching the shared paddle.seed
        p.set_value(rng.standard_normal(p.shape).astype("float32") * 0.3)
    return model


def _train(seed: int, steps: int = STEPS) -> list[float]:
    model = _make_model(seed)
    opt = paddle.optimizer.SGD(learning_rate=0.05, parameters=model.parameters())
    x, y = _data(seed)
    losses = []
    for _ in range(steps):
        loss = paddle.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    return losses


def _run_threads(*targets) -> list:
    """Run each target in its own thread; return their results (an exception is re-raised here)."""
    results: list = [None] * len(targets)
    start = threading.Barrier(len(targets))

    def runner(i, fn):
        start.wait()
        try:
            results[i] = ("ok", fn())
        except BaseException as error:  # noqa: BLE001 - handed back to the test
            results[i] = ("error", error)

    threads = [threading.Thread(target=runner, args=(i, fn)) for i, fn in enumerate(targets)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    for status, value in results:
        if status == "error":
            raise value
    return [value for _, value in results]


def test_two_threads_train_their_own_models_as_they_would_alone():
    expected = [_train(1), _train(2)]
    got = _run_threads(lambda: _train(1), lambda: _train(2))
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-6)
    np.testing.assert_allclose(got[1], expected[1], rtol=1e-6)
    assert got[0][-1] < got[0][0] and got[1][-1] < got[1][0]


def test_training_beside_a_no_grad_inference_thread_records_every_step():
    expected = _train(3)
    stop = threading.Event()
    seen_grad_mode = []

    def infer():
        model = _make_model(4)
        x, _ = _data(4)
        calls = 0
        with paddle.no_grad():
            while not stop.is_set() or calls < 50:
                out = model(x)
                assert out.stop_gradient  # this thread's no_grad holds however the other thread switches
                seen_grad_mode.append(paddle.is_grad_enabled())
                calls += 1
        return calls

    def train():
        try:
            return _train(3)
        finally:
            stop.set()

    losses, calls = _run_threads(train, infer)
    np.testing.assert_allclose(losses, expected, rtol=1e-6)
    assert calls >= 50 and not any(seen_grad_mode)
    assert paddle.is_grad_enabled()


def test_a_thread_started_inside_no_grad_starts_with_the_defaults():
    seen = {}

    def child():
        seen["grad"] = paddle.is_grad_enabled()
        seen["static"] = paddle.in_dynamic_mode(), paddle.static.in_static_mode()
        seen["layers"] = list(modes.layer_stack)
        w = paddle.to_tensor([2.0], stop_gradient=False)
        (w * w).sum().backward()
        seen["grad_value"] = w.grad.numpy()

    class Outer(paddle.nn.Layer):
        def forward(self):
            with paddle.no_grad():
                thread = threading.Thread(target=child)
                thread.start()
                thread.join()
            return modes.layer_stack[-1][0]

    assert Outer()() is not None
    assert seen["grad"] is True
    assert seen["static"] == (True, False)
    assert seen["layers"] == []
    np.testing.assert_allclose(seen["grad_value"], [4.0])


def test_static_mode_in_one_thread_leaves_another_thread_eager():
    paddle.enable_static()
    try:
        seen = {}

        def child():
            seen["dynamic"] = paddle.in_dynamic_mode()
            seen["value"] = float((paddle.to_tensor([3.0]) * 2).numpy()[0])  # runs eagerly, not into a Program

        thread = threading.Thread(target=child)
        thread.start()
        thread.join()
        assert paddle.static.in_static_mode()
    finally:
        paddle.disable_static()
    assert seen == {"dynamic": True, "value": 6.0}


def test_set_grad_enabled_in_a_thread_does_not_leak_to_others():
    before = (set(thread_modes.threads_without_grad), dict(thread_modes.threads_building))
    seen = []

    def child():
        paddle.set_grad_enabled(False)  # called plainly: this thread's mode until it ends
        paddle.enable_static()
        seen.append((paddle.is_grad_enabled(), paddle.in_dynamic_mode()))
        assert thread_modes.threads_without_grad and thread_modes.threads_building

    thread = threading.Thread(target=child)
    thread.start()
    thread.join()
    del thread
    gc.collect()
    assert seen == [(False, False)] and paddle.is_grad_enabled() and paddle.in_dynamic_mode()
    # the ended thread left both sets: the eager path is back to its one-global check
    assert (thread_modes.threads_without_grad, thread_modes.threads_building) == before
    assert thread_modes.grad_enabled() and thread_modes.static_builder() is None
