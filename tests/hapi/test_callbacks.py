"""paddle.callbacks: the order of hooks, logs, EarlyStopping, ModelCheckpoint, LRScheduler, VisualDL, logging."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.hapi.callbacks import (Callback, EarlyStopping, LRScheduler, ModelCheckpoint, ProgBarLogger,
                                       ReduceLROnPlateau, VisualDL, read_scalars)
from tests.hapi.conftest import blob_dataset, mlp, prepared_model


class Recorder(Callback):
    """Records every hook call as a short string."""

    def __init__(self):
        super().__init__()
        self.calls: list[str] = []
        self.logs: dict[str, dict] = {}

    def __getattribute__(self, name):
        if name.startswith("on_"):
            def record(*args):
                step = [a for a in args if isinstance(a, int)]
                self.calls.append(name[3:] + (f"({step[0]})" if step else ""))
                logs = args[-1] if args and isinstance(args[-1], dict) else None
                if logs is not None:
                    self.logs[name] = dict(logs)
            return record
        return super().__getattribute__(name)


def test_fit_calls_the_hooks_in_paddles_order():
    rec = Recorder()
    model = prepared_model()
    model.fit(blob_dataset(8), blob_dataset(4, seed=1), batch_size=4, epochs=2, verbose=0, callbacks=[rec])
    epoch = ["epoch_begin(0)", "train_batch_begin(0)", "train_batch_end(0)", "train_batch_begin(1)",
             "train_batch_end(1)", "epoch_end(0)", "eval_begin", "eval_batch_begin(0)", "eval_batch_end(0)",
             "eval_end"]
    assert rec.calls == ["train_begin"] + epoch + [c.replace("(0)", "(1)") if c.startswith("epoch") else c
                                                   for c in epoch] + ["train_end"]
    assert rec.params == {"batch_size": 4, "epochs": 2, "steps": 2, "verbose": 0, "metrics": ["loss", "acc"]}
    batch_logs = rec.logs["on_train_batch_end"]
    assert set(batch_logs) == {"loss", "acc", "step", "batch_size"} and batch_logs["batch_size"] == 4
    assert isinstance(batch_logs["loss"], list) and len(batch_logs["loss"]) == 1
    assert set(rec.logs["on_eval_end"]) == {"loss", "acc", "step", "batch_size"}


def test_eval_freq_and_evaluate_predict_hooks():
    rec = Recorder()
    model = prepared_model()
    model.fit(blob_dataset(4), blob_dataset(4), batch_size=4, epochs=3, eval_freq=2, verbose=0, callbacks=[rec])
    assert rec.calls.count("eval_begin") == 2          # after epochs 0 and 2
    rec.calls.clear()
    model.evaluate(blob_dataset(4), batch_size=2, verbose=0, callbacks=rec)
    assert rec.calls == ["eval_begin", "eval_batch_begin(0)", "eval_batch_end(0)", "eval_batch_begin(1)",
                         "eval_batch_end(1)", "eval_end"]
    rec.calls.clear()
    model.predict(blob_dataset(2), batch_size=2, verbose=0, callbacks=[rec])
    assert rec.calls == ["predict_begin", "predict_batch_begin(0)", "predict_batch_end(0)", "predict_end"]


def test_a_non_callback_is_refused():
    with pytest.raises(ValueError, match="expected paddle.callbacks.Callback"):
        prepared_model().fit(blob_dataset(4), verbose=0, callbacks=[print])


# ---- EarlyStopping --------------------------------------------------------------------
def test_early_stopping_stops_after_patience_and_saves_the_best(tmp_path, capsys):
    model = prepared_model(lr=0.0)        # nothing changes, so the eval loss never improves after epoch 0
    rec = Recorder()
    stop = EarlyStopping(monitor="loss", patience=1)
    model.fit(blob_dataset(8), blob_dataset(8), batch_size=8, epochs=10, verbose=0, save_dir=str(tmp_path),
              callbacks=[stop, rec])
    assert [c for c in rec.calls if c.startswith("epoch_begin")] == ["epoch_begin(0)", "epoch_begin(1)",
                                                                       "epoch_begin(2)"]
    assert model.stop_training and stop.wait_epoch == 2
    assert "Epoch 3: Early stopping." in capsys.readouterr().out
    assert os.path.exists(tmp_path / "best_model.pdparams")


def test_early_stopping_modes_min_delta_and_baseline():
    model = prepared_model(lr=0.05)
    keeps_going = EarlyStopping(monitor="acc", mode="auto", patience=0, min_delta=0.0, verbose=0,
                                save_best_model=False)
    assert keeps_going.monitor_op is np.greater
    never_good_enough = EarlyStopping(monitor="loss", patience=0, baseline=-1.0, verbose=0)   # loss > -1 always
    ds = blob_dataset(64)
    model.fit(ds, ds, batch_size=16, epochs=4, verbose=0, callbacks=[never_good_enough])
    assert never_good_enough.stopped_epoch == 1          # stopped at the first eval
    tiny_gain = EarlyStopping(monitor="loss", mode="min", patience=0, min_delta=10.0, verbose=0)
    model.fit(ds, ds, batch_size=16, epochs=4, verbose=0, callbacks=[tiny_gain])
    assert tiny_gain.stopped_epoch == 2   # epoch 0 improves on inf; epoch 1 cannot improve by 10


def test_early_stopping_warns_without_eval_data():
    with pytest.warns(UserWarning, match="EarlyStopping needs validation data"):
        prepared_model().fit(blob_dataset(4), verbose=0, callbacks=[EarlyStopping()])


# ---- ModelCheckpoint ------------------------------------------------------------------
def test_model_checkpoint_files(tmp_path, capsys):
    model = prepared_model()
    model.fit(blob_dataset(8), batch_size=4, epochs=3, verbose=0, save_dir=str(tmp_path / "ck"), save_freq=2)
    assert sorted(os.listdir(tmp_path / "ck")) == ["0.pdopt", "0.pdparams", "2.pdopt", "2.pdparams",
                                                   "final.pdopt", "final.pdparams"]
    assert "save checkpoint at" in capsys.readouterr().out
    restored = prepared_model()
    restored.load(str(tmp_path / "ck" / "final"))
    for a, b in zip(model.parameters(), restored.parameters()):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_no_save_dir_no_files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    prepared_model().fit(blob_dataset(4), verbose=0, callbacks=[ModelCheckpoint(save_freq=1)])
    assert os.listdir(tmp_path) == []


# ---- learning rate --------------------------------------------------------------------
def _scheduled_model():
    paddle.seed(0)
    sched = paddle.optimizer.lr.StepDecay(learning_rate=0.1, step_size=1, gamma=0.5)
    model = paddle.Model(mlp())
    model.prepare(paddle.optimizer.SGD(learning_rate=sched, parameters=model.parameters()),
                  paddle.nn.CrossEntropyLoss())
    return model, sched


def test_lr_scheduler_steps_by_batch_by_default_or_by_epoch():
    model, sched = _scheduled_model()
    model.fit(blob_dataset(12), batch_size=4, epochs=2, verbose=0)           # 6 batches
    assert sched.last_epoch == 6 and sched() == pytest.approx(0.1 * 0.5 ** 6)
    model, sched = _scheduled_model()
    model.fit(blob_dataset(12), batch_size=4, epochs=2, verbose=0, callbacks=[LRScheduler(by_step=False,
                                                                                           by_epoch=True)])
    assert sched.last_epoch == 2
    with pytest.raises(ValueError, match="mutually exclusive"):
        LRScheduler(by_step=True, by_epoch=True)


def test_reduce_lr_on_plateau():
    model = prepared_model(lr=1e-9)   # a flat loss: a plateau from the second eval on
    opt = model._optimizer
    cb = ReduceLROnPlateau(monitor="loss", factor=0.5, patience=1, verbose=0)
    model.fit(blob_dataset(8), blob_dataset(8), batch_size=8, epochs=3, verbose=0, callbacks=[cb])
    assert opt.get_lr() == pytest.approx(1e-9 * 0.5 * 0.5)
    with pytest.raises(ValueError, match="factor must be < 1.0"):
        ReduceLROnPlateau(factor=1.5)


# ---- VisualDL -------------------------------------------------------------------------
def test_visualdl_writes_json_lines_scalars(tmp_path):
    log_dir = tmp_path / "vdl"
    model = prepared_model()
    model.fit(blob_dataset(8), blob_dataset(8), batch_size=4, epochs=2, verbose=0,
              callbacks=[VisualDL(str(log_dir))])
    lines = (log_dir / "scalars.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines]
    assert all(set(r) == {"tag", "step", "value", "wall_time"} for r in records)
    scalars = read_scalars(str(log_dir))
    assert sorted(scalars) == ["eval/acc", "eval/loss", "train/acc", "train/loss"]
    assert scalars["train/loss"][0] == [1, 2, 3, 4]          # batches since the start of fit
    assert scalars["eval/loss"][0] == [0, 1]                 # epochs
    assert all(isinstance(v, float) for v in scalars["train/acc"][1])
    # a new callback starts the file afresh
    model.fit(blob_dataset(4), batch_size=4, epochs=1, verbose=0, callbacks=[VisualDL(str(log_dir))])
    assert read_scalars(str(log_dir))["train/loss"][0] == [1]


# ---- ProgBarLogger --------------------------------------------------------------------
def test_progbar_verbose_levels(capsys):
    model = prepared_model()
    ds = blob_dataset(16)
    model.fit(ds, batch_size=4, epochs=1, verbose=0)
    assert capsys.readouterr().out == ""
    model.fit(ds, batch_size=4, epochs=1, verbose=2, log_freq=2)
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == "Epoch 1/1"
    assert lines[2].startswith("step 2/4 - loss: ") and " - acc: " in lines[2] and lines[2].endswith("/step")
    assert lines[3].startswith("step 4/4 - loss: ")
    model.fit(ds, batch_size=4, epochs=1, verbose=1, log_freq=1)
    out = capsys.readouterr().out
    assert "step 4/4 [==============================]" in out and "ETA:" in out
    model.fit(ds, batch_size=8, epochs=1, verbose=3, log_freq=1)
    out = capsys.readouterr().out
    assert "avg_reader_cost:" in out and "avg_batch_cost:" in out and "samples/sec" in out


def test_progbar_logger_given_by_the_user_replaces_the_default(capsys):
    model = prepared_model()
    model.fit(blob_dataset(8), batch_size=4, verbose=2, callbacks=[ProgBarLogger(log_freq=1, verbose=0)])
    assert capsys.readouterr().out == ""
    with pytest.raises(ValueError, match="log_freq must be a positive int"):
        ProgBarLogger(log_freq=0)
