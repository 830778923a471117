"""Layer buffers (batch norm's running statistics) in @to_static programs and jit.save / jit.load:
bound by reference at each call, updated in place after a training call, saved and fine-tuned as buffers."""
from __future__ import annotations

import json

import numpy as np

import minipaddle as paddle
import minipaddle.nn.functional as F
from minipaddle import nn
from minipaddle.jit import io as jit_io
from minipaddle.jit.program_translator import StaticFunction
from minipaddle.framework.static import builder
from minipaddle.static import InputSpec

SPEC = [InputSpec([None, 6], "float32", "x")]


def _net():
    paddle.seed(5)
    return nn.Sequential(nn.Linear(6, 8), nn.BatchNorm1D(8, momentum=0.7), nn.ReLU(), nn.Linear(8, 3))


def _batches(steps: int = 4, seed: int = 7):
    rng = np.random.default_rng(seed)
    xs = (rng.standard_normal((steps, 10, 6)) * 2 + 1).astype(np.float32)
    ys = rng.integers(0, 3, (steps, 10)).astype(np.int64)
    return [(paddle.to_tensor(x), paddle.to_tensor(y)) for x, y in zip(xs, ys)]


def _train(net, batches, lr: float = 0.1) -> list[float]:
    opt = paddle.optimizer.SGD(lr, parameters=net.parameters())
    losses = []
    for x, y in batches:
        loss = F.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    return losses


def _stats(net) -> list[np.ndarray]:
    """The batch norm's running statistics (parameters that are never trained, as in Paddle)."""
    return [p.numpy().copy() for p in net.parameters() if p.stop_gradient]


def test_converted_training_matches_eager_losses_and_running_stats():
    """(to the rounding of the optimized Program's kernels: the run_program op runs it after the passes)"""
    eager, conv = _net(), paddle.jit.to_static(_net())
    batches = _batches()
    np.testing.assert_allclose(_train(conv, batches), _train(eager, batches), rtol=1e-6)
    for a, b in zip(_stats(conv), _stats(eager)):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    assert not np.allclose(_stats(conv)[0], 0.0)
    with paddle.no_grad():   # the Executor path updates them too
        conv(batches[0][0])
        eager(batches[0][0])
    for a, b in zip(_stats(conv), _stats(eager)):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    assert len(conv.forward.program_cache) == 1   # bound by reference: no rebuild as they change


def test_buffers_are_bound_by_reference_and_eval_uses_the_updated_stats():
    eager, conv = _net(), paddle.jit.to_static(_net())
    batches = _batches()
    _train(eager, batches)
    _train(conv, batches)
    eager.eval()
    conv.eval()
    x = batches[1][0]
    np.testing.assert_allclose(conv(x).numpy(), eager(x).numpy(), rtol=1e-6, atol=1e-7)
    concrete = conv.forward.concrete_program
    bn = conv[1]
    assert concrete.buffers == {bn._mean.name: bn._mean, bn._variance.name: bn._variance}
    var = concrete.main_program.global_block().var(bn._mean.name)
    assert var.persistable and not var.is_parameter
    before = _stats(conv)
    bn._mean.set_value(bn._mean.numpy() + 1.0)     # a later change is seen: nothing was frozen in
    eager[1]._mean.set_value(eager[1]._mean.numpy() + 1.0)
    np.testing.assert_allclose(conv(x).numpy(), eager(x).numpy(), rtol=1e-6, atol=1e-7)
    conv(x)
    np.testing.assert_array_equal(_stats(conv)[1], before[1])   # eval calls leave them alone


def test_jit_save_of_a_converted_model_lists_the_buffers_and_load_fine_tunes_them(tmp_path):
    conv = paddle.jit.to_static(_net(), input_spec=SPEC)
    eager = _net()
    batches = _batches()
    _train(conv, batches[:2])
    _train(eager, batches[:2])
    paddle.jit.save(conv, str(tmp_path / "bn"))
    info = json.dumps(json.loads((tmp_path / "bn.json").read_text())["jit"])
    # as in Paddle, the running statistics are parameters that are never trained
    assert '"1._mean", "kind": "parameter", "trainable": false' in info
    loaded = paddle.jit.load(str(tmp_path / "bn"))
    assert sorted(n for n, p in loaded.named_parameters() if p.stop_gradient) == ["1._mean", "1._variance"]
    np.testing.assert_allclose(loaded.state_dict()["1._mean"].numpy(), eager[1]._mean.numpy(), rtol=1e-6)
    assert "batch_norm_update" in [op.type for op in loaded.program().global_block().ops]
    np.testing.assert_allclose(_train(loaded, batches[2:]), _train(eager, batches[2:]), rtol=1e-6)
    np.testing.assert_allclose(loaded.state_dict()["1._variance"].numpy(), eager[1]._variance.numpy(), rtol=1e-6)
    loaded.eval()
    eager.eval()
    assert "batch_norm_update" not in [op.type for op in loaded.program().global_block().ops]
    np.testing.assert_allclose(loaded(batches[0][0]).numpy(), eager(batches[0][0]).numpy(), rtol=1e-5, atol=1e-6)


def test_jit_save_of_a_plain_model_trains_its_loaded_buffers(tmp_path):
    net, eager = _net(), _net()
    jit_io.save(net, str(tmp_path / "plain"), input_spec=SPEC)
    loaded = jit_io.load(str(tmp_path / "plain"))
    batches = _batches(3, seed=1)
    np.testing.assert_allclose(_train(loaded, batches), _train(eager, batches), rtol=1e-6)
    np.testing.assert_allclose(loaded.state_dict()["1._mean"].numpy(), eager[1]._mean.numpy(), rtol=1e-6,
                               atol=1e-7)
    np.testing.assert_array_equal(net[1]._mean.numpy(), np.zeros(8, np.float32))   # the original is untouched


def test_the_builder_tells_lift_listeners_instead_of_being_patched():
    original = (builder.lift_parameter, builder.as_variable)
    seen = []

    class Probe(nn.Layer):
        def __init__(self):
            super().__init__()
            self.bn = nn.BatchNorm1D(2)
            self.w = paddle.to_tensor([2.0, 3.0], stop_gradient=False)   # not a Parameter: lifted as it needs grad

        def forward(self, x):
            seen.append((builder.lift_parameter, builder.as_variable))
            return self.bn(x) * self.w

    probe = Probe()
    static_fn = paddle.jit.to_static(probe).forward
    assert isinstance(static_fn, StaticFunction)
    x = paddle.to_tensor(np.arange(8, dtype=np.float32).reshape(4, 2))
    probe(x).sum().backward()
    assert seen == [original]
    assert builder._build.lift_listeners == []   # (this thread's listeners)
    names = {t.name for t in static_fn.concrete_program.parameters}
    assert probe.w.name in names and probe.bn.weight.name in names
    assert set(static_fn.concrete_program.buffers) == {probe.bn._mean.name, probe.bn._variance.name}
    np.testing.assert_allclose(probe.w.grad.numpy(), [0.0, 0.0], atol=1e-5)   # sum of a normalized column
    np.testing.assert_allclose(probe.bn._mean.numpy(), 0.1 * np.array([3.0, 4.0]), rtol=1e-6)


def test_listen_lifts_reports_parameters_and_buffers_in_plain_static_mode():
    got = []
    bn = nn.BatchNorm1D(3)
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup), builder.listen_lifts(lambda t, v: got.append((t, v.name))):
        bn(paddle.static.data("x", [None, 3], "float32"))
    tensors = {id(t) for t, _ in got}
    assert {id(bn.weight), id(bn.bias), id(bn._mean), id(bn._variance)} <= tensors
    assert all(t.name == n for t, n in got)
    assert builder._build.lift_listeners == []   # (this thread's listeners)


def test_jit_save_of_a_function_keeps_a_closure_layers_buffers_as_buffers(tmp_path):
    bn = nn.BatchNorm1D(3)
    bn.eval()

    @paddle.jit.to_static(input_spec=[InputSpec([None, 3], "float32", "x")])
    def f(x):
        return bn(x) * 2

    bn._mean.set_value(np.array([1.0, 2.0, 3.0], np.float32))
    x = paddle.to_tensor(np.arange(12, dtype=np.float32).reshape(4, 3))
    want = f(x).numpy()
    paddle.jit.save(f, str(tmp_path / "f"))
    loaded = paddle.jit.load(str(tmp_path / "f")).eval()
    np.testing.assert_allclose(loaded(x).numpy(), want, rtol=1e-6)
    assert sorted(n for n, _ in loaded.named_buffers()) == sorted([bn._mean.name, bn._variance.name])
    assert sorted(n for n, _ in loaded.named_parameters()) == sorted([bn.weight.name, bn.bias.name])
