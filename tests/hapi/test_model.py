"""paddle.Model: fit really trains, evaluate/predict shapes, the *_batch API, save/load, errors."""
from __future__ import annotations

import os

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument, PreconditionNotMet, Unimplemented
from minipaddle.hapi import callbacks
from tests.hapi.conftest import blob_dataset, blobs, mlp, prepared_model


def test_quick_start_in_ten_lines(capsys):
    train_ds, test_ds = blob_dataset(256, seed=0), blob_dataset(128, seed=1)
    paddle.seed(0)
    net = paddle.nn.Sequential(paddle.nn.Linear(4, 16), paddle.nn.ReLU(), paddle.nn.Linear(16, 2))
    model = paddle.Model(net)
    model.prepare(paddle.optimizer.Adam(parameters=model.parameters()), paddle.nn.CrossEntropyLoss(),
                  paddle.metric.Accuracy())
    model.fit(train_ds, epochs=2, batch_size=64, verbose=1)
    result = model.evaluate(test_ds)
    out = capsys.readouterr().out
    assert "Epoch 1/2" in out and "Epoch 2/2" in out and "step 4/4" in out and "loss:" in out and "acc:" in out
    assert "Eval begin..." in out and "Eval samples: 128" in out
    assert set(result) == {"loss", "acc"} and isinstance(result["loss"], list) and 0 <= result["acc"] <= 1


def test_fit_lowers_the_loss_and_learns(dataset):
    model = prepared_model(lr=0.05)
    before = model.evaluate(dataset, batch_size=32, verbose=0)
    model.fit(dataset, epochs=5, batch_size=16, verbose=0)
    after = model.evaluate(dataset, batch_size=32, verbose=0)
    assert after["loss"][0] < 0.5 * before["loss"][0]
    assert after["acc"] > 0.9


def test_fit_accepts_a_dataloader_and_a_plain_iterable_of_batches(dataset):
    model = prepared_model(lr=0.05)
    loader = paddle.io.DataLoader(dataset, batch_size=32, shuffle=True)
    model.fit(loader, epochs=3, verbose=0)
    x, y = blobs(64, seed=3)
    batches = [(x[i:i + 16], y[i:i + 16]) for i in range(0, 64, 16)]   # numpy, as a custom reader yields
    model.fit(batches, epochs=2, verbose=0)
    assert model.evaluate(batches, verbose=0)["acc"] > 0.85


def test_evaluate_loss_is_the_batch_size_weighted_mean(dataset):
    model = prepared_model()
    result = model.evaluate(dataset, batch_size=50, verbose=0)   # batches of 50, 50, 28
    x, y = blobs()
    expected = 0.0
    for lo in range(0, 128, 50):
        losses, _ = model.eval_batch([x[lo:lo + 50]], [y[lo:lo + 50]])
        expected += float(losses[0]) * len(x[lo:lo + 50])
    assert result["loss"][0] == pytest.approx(expected / 128, rel=1e-5)
    logits = model.predict_batch([x])[0]
    assert result["acc"] == pytest.approx(np.mean(logits.argmax(1) == y[:, 0]))


def test_predict_lists_per_output_and_stacks(dataset):
    class TwoHeads(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = paddle.nn.Linear(4, 3)

        def forward(self, x):
            h = self.fc(x)
            return h, h.sum(axis=1, keepdim=True)

    model = paddle.Model(TwoHeads())
    out = model.predict(dataset, batch_size=50, verbose=0)
    assert len(out) == 2 and [a.shape for a in out[0]] == [(50, 3), (50, 3), (28, 3)]
    stacked = model.predict(dataset, batch_size=50, stack_outputs=True, verbose=0)
    assert stacked[0].shape == (128, 3) and stacked[1].shape == (128, 1)
    np.testing.assert_allclose(stacked[1][:, 0], stacked[0].sum(axis=1), rtol=1e-5)


def test_batch_api_returns_numpy_lists_as_paddle():
    model = prepared_model()
    x, y = blobs(8)
    losses, metrics = model.train_batch([x], [y])
    assert isinstance(losses, list) and isinstance(losses[0], np.ndarray) and losses[0].size == 1
    assert isinstance(metrics, list) and 0.0 <= metrics[0] <= 1.0
    losses, metrics = model.eval_batch([paddle.to_tensor(x)], [paddle.to_tensor(y)])
    assert isinstance(losses[0], np.ndarray)
    preds = model.predict_batch([x])
    assert isinstance(preds, list) and preds[0].shape == (8, 2)
    assert not model.network.training and model.mode == "test"

    no_metrics = paddle.Model(mlp())
    no_metrics.prepare(paddle.optimizer.SGD(parameters=no_metrics.parameters()), paddle.nn.CrossEntropyLoss())
    out = no_metrics.train_batch([x], [y])
    assert isinstance(out, list) and len(out) == 1


def test_train_batch_update_false_accumulates_grads_without_stepping():
    model = prepared_model()
    x, y = blobs(8)
    w = model.parameters()[0]
    before = w.numpy().copy()
    model.train_batch([x], [y], update=False)
    np.testing.assert_array_equal(w.numpy(), before)
    g1 = w.grad.numpy().copy()
    model.train_batch([x], [y], update=False)
    np.testing.assert_allclose(w.grad.numpy(), 2 * g1, rtol=1e-5)
    model.train_batch([x], [y])
    assert not np.array_equal(w.numpy(), before)


def test_accumulate_grad_batches_steps_every_k_and_at_the_end(dataset):
    model = prepared_model()
    steps = []
    real_step = model._optimizer.step
    model._optimizer.step = lambda: (steps.append(1), real_step())
    model.fit(dataset, batch_size=26, epochs=1, verbose=0, accumulate_grad_batches=2)   # 5 batches
    assert len(steps) == 3          # after batches 2, 4 and the last one


def test_num_iters_caps_training_steps(dataset):
    model = prepared_model()
    seen = []

    class Count(callbacks.Callback):
        def on_train_batch_end(self, step, logs=None):
            seen.append(step)

    model.fit(dataset, batch_size=32, epochs=10, verbose=0, num_iters=6, callbacks=[Count()])
    assert seen == [0, 1, 2, 3, 0, 1]


def test_multiple_losses_are_summed_and_reported_each(dataset):
    def two_losses(logits, label):
        ce = paddle.nn.functional.cross_entropy(logits, label)
        return [ce, 0.0 * logits.sum()]

    paddle.seed(0)
    model = paddle.Model(mlp())
    model.prepare(paddle.optimizer.Adam(parameters=model.parameters()), two_losses)
    result = model.evaluate(dataset, batch_size=64, verbose=0)
    assert len(result["loss"]) == 2 and result["loss"][1] == 0.0


# ---- save / load ----------------------------------------------------------------------
def test_save_writes_pdparams_and_pdopt_and_load_restores_both(tmp_path, dataset):
    model = prepared_model()
    model.fit(dataset, batch_size=32, verbose=0)
    prefix = str(tmp_path / "ckpt" / "mlp")
    model.save(prefix)
    assert sorted(os.listdir(tmp_path / "ckpt")) == ["mlp.pdopt", "mlp.pdparams"]

    other = prepared_model()
    x, _ = blobs(8)
    assert not np.allclose(other.predict_batch([x])[0], model.predict_batch([x])[0])
    other.load(prefix + ".pdparams")          # the suffix is optional
    np.testing.assert_array_equal(other.predict_batch([x])[0], model.predict_batch([x])[0])
    # The accumulators follow the parameters although the rebuilt layers have other unique names.
    saved, restored = model._optimizer.state_dict(), other._optimizer.state_dict()
    assert len(saved) == len(restored) == 16
    assert all(key.startswith(tuple(p.name for p in other.parameters())) for key in restored)
    for a, b in zip(saved.values(), restored.values()):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_load_reports_mismatches_or_skips_them(tmp_path):
    model = prepared_model()
    model.save(str(tmp_path / "m"))
    paddle.seed(1)
    wider = paddle.Model(paddle.nn.Sequential(paddle.nn.Linear(4, 8), paddle.nn.ReLU(), paddle.nn.Linear(8, 2)))
    with pytest.raises(InvalidArgument, match=r"receives a shape \[4, 16\], but the expected shape is \[4, 8\]"):
        wider.load(str(tmp_path / "m"))
    with pytest.warns(UserWarning) as record:
        wider.load(str(tmp_path / "m"), skip_mismatch=True)
    skipped = sorted(str(w.message).split(". ")[0] for w in record)
    assert skipped == ["Skip loading for 0.bias", "Skip loading for 0.weight", "Skip loading for 2.weight"]
    np.testing.assert_array_equal(wider.network[2].bias.numpy(), model.network[2].bias.numpy())  # this one fit
    with pytest.raises(InvalidArgument, match="no parameters file"):
        model.load(str(tmp_path / "nothing"))


def test_reset_optimizer_keeps_the_fresh_optimizer_state(tmp_path, dataset):
    model = prepared_model()
    model.fit(dataset, batch_size=64, verbose=0)
    model.save(str(tmp_path / "m"))
    fresh = prepared_model()
    fresh.load(str(tmp_path / "m"), reset_optimizer=True)
    assert fresh._optimizer.state_dict() == {}


def test_save_for_inference_writes_a_model_every_reader_runs(tmp_path, dataset):
    paddle.seed(0)
    spec = paddle.static.InputSpec([None, 4], "float32", "x")
    model = paddle.Model(mlp(), inputs=[spec])
    model.prepare(paddle.optimizer.Adam(learning_rate=0.05, parameters=model.parameters()),
                  paddle.nn.CrossEntropyLoss())
    model.fit(dataset, batch_size=32, verbose=0)
    model.network.train()
    model.save(str(tmp_path / "inference" / "mlp"), training=False)
    assert model.network.training                                # its mode is left as it was
    assert sorted(os.listdir(tmp_path / "inference")) == ["mlp.json", "mlp.pdiparams"]
    x, _ = blobs(8)
    expected = model.predict_batch([x])[0]
    loaded = paddle.jit.load(str(tmp_path / "inference" / "mlp")).eval()
    np.testing.assert_allclose(loaded(paddle.to_tensor(x)).numpy(), expected, rtol=1e-6)
    exe = paddle.static.Executor()
    program, feeds, fetches = paddle.static.load_inference_model(str(tmp_path / "inference" / "mlp"), exe)
    assert feeds == ["x"]
    np.testing.assert_allclose(exe.run(program, feed={"x": x}, fetch_list=fetches)[0], expected, rtol=1e-6)
    loaded.train()                                               # and it fine-tunes
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=loaded.parameters())
    paddle.nn.functional.cross_entropy(loaded(paddle.to_tensor(x)), paddle.zeros([8], "int64")).backward()
    opt.step()
    assert not np.allclose(loaded(paddle.to_tensor(x)).numpy(), expected)


def test_save_for_inference_without_inputs_uses_the_shapes_of_a_batch_it_ran(tmp_path, dataset):
    model = prepared_model()
    with pytest.raises(PreconditionNotMet, match="needs the input shapes"):
        model.save(str(tmp_path / "m"), training=False)
    assert not os.path.exists(tmp_path / "m.json")
    model.fit(dataset, batch_size=32, epochs=1, verbose=0)
    model.save(str(tmp_path / "m"), training=False)
    x, _ = blobs(5)                                              # another batch size than training's
    loaded = paddle.jit.load(str(tmp_path / "m")).eval()
    np.testing.assert_allclose(loaded(paddle.to_tensor(x)).numpy(), model.predict_batch([x])[0], rtol=1e-6)
    with pytest.raises(InvalidArgument, match="should end with a file prefix"):
        prepared_model().save(str(tmp_path) + os.sep)
    with pytest.raises(InvalidArgument, match="should end with a file prefix"):
        model.save(str(tmp_path) + os.sep, training=False)


# ---- errors ---------------------------------------------------------------------------
def test_clear_errors_for_misuse(dataset):
    with pytest.raises(InvalidArgument, match="network must be a paddle.nn.Layer"):
        paddle.Model(lambda x: x)
    model = paddle.Model(mlp())
    with pytest.raises(PreconditionNotMet, match="no optimizer"):
        model.fit(dataset)
    with pytest.raises(PreconditionNotMet, match="nothing to evaluate"):
        model.evaluate(dataset)
    with pytest.raises(InvalidArgument, match="is not a subclass of paddle.metric.Metric"):
        model.prepare(metrics=["acc"])
    with pytest.raises(InvalidArgument, match="'loss' must be a paddle.nn.Layer or a callable"):
        model.prepare(loss="cross_entropy")
    with pytest.raises(Unimplemented, match="mixed precision"):
        model.prepare(amp_configs="O1")
    model = prepared_model()
    with pytest.raises(InvalidArgument, match="train_data must be given"):
        model.fit()
    with pytest.raises(InvalidArgument, match="must be a paddle.io.Dataset or a DataLoader"):
        model.fit(np.zeros((4, 4)))
    with pytest.raises(InvalidArgument, match="epochs must be an int >= 1"):
        model.fit(dataset, epochs=0)


def test_summary_from_input_specs():
    class Spec:
        def __init__(self, shape):
            self.shape, self.dtype, self.name = shape, "float32", "x"

    model = paddle.Model(mlp(), inputs=[Spec([None, 4])])
    assert model.summary() == {"total_params": 4 * 16 + 16 + 16 * 2 + 2, "trainable_params": 114}
    with pytest.raises(InvalidArgument, match="input_size is needed"):
        paddle.Model(mlp()).summary()
    assert paddle.Model(mlp()).summary((2, 4))["total_params"] == 114
