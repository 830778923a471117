"""Callbacks (Paddle's `paddle.callbacks`): code that `Model.fit/evaluate/predict` call at fixed points.

The Callback base class and the order fit calls its hooks in: hapi/callback_base.py.

VisualDL(log_dir) logs scalars to `<log_dir>/scalars.jsonl` for plotting: see hapi/visualdl.py.
"""
from __future__ import annotations

import os
import time
import warnings

import numpy as np

from ..framework.errors import invalid_argument
from .callback_base import Callback, _scalar
from .progressbar import ProgressBar
from .visualdl import VisualDL, read_scalars

__all__ = ["Callback", "ProgBarLogger", "ModelCheckpoint", "EarlyStopping", "LRScheduler", "VisualDL",
           "ReduceLROnPlateau", "read_scalars"]


class CallbackList:
    """Fans each event out to every callback, in order."""

    def __init__(self, callbacks=None) -> None:
        self.callbacks = list(callbacks or [])

    def __iter__(self):
        return iter(self.callbacks)

    def set_model(self, model) -> None:
        for c in self.callbacks:
            c.set_model(model)

    def set_params(self, params: dict) -> None:
        for c in self.callbacks:
            c.set_params(params)

    def _call(self, name: str, *args) -> None:
        for c in self.callbacks:
            getattr(c, name)(*args)

    def on_begin(self, mode: str, logs=None) -> None:
        self._call(f"on_{mode}_begin", logs)

    def on_end(self, mode: str, logs=None) -> None:
        self._call(f"on_{mode}_end", logs)

    def on_epoch_begin(self, epoch: int, logs=None) -> None:
        self._call("on_epoch_begin", epoch, logs)

    def on_epoch_end(self, epoch: int, logs=None) -> None:
        self._call("on_epoch_end", epoch, logs)

    def on_batch_begin(self, mode: str, step: int, logs=None) -> None:
        self._call(f"on_{mode}_batch_begin", step, logs)

    def on_batch_end(self, mode: str, step: int, logs=None) -> None:
        self._call(f"on_{mode}_batch_end", step, logs)


def config_callbacks(callbacks=None, model=None, batch_size=None, epochs=None, steps=None, log_freq: int = 2,
                     verbose: int = 2, save_freq: int = 1, save_dir=None, metrics=None, mode: str = "train"):
    """The CallbackList fit/evaluate/predict use: the user's callbacks plus a ProgBarLogger (when verbose),
    a ModelCheckpoint and an LRScheduler unless the user gave their own."""
    cbks = callbacks or []
    cbks = list(cbks) if isinstance(cbks, (list, tuple)) else [cbks]
    for c in cbks:
        if not isinstance(c, Callback):
            raise invalid_argument("callbacks", f"got {type(c).__name__}, expected paddle.callbacks.Callback "
                                                "instances.")
    if verbose and not any(isinstance(c, ProgBarLogger) for c in cbks):
        cbks = [ProgBarLogger(log_freq, verbose=verbose)] + cbks
    if not any(isinstance(c, ModelCheckpoint) for c in cbks):
        cbks = cbks + [ModelCheckpoint(save_freq, save_dir)]
    for c in cbks:
        if isinstance(c, EarlyStopping):
            c.save_dir = save_dir
    if not any(isinstance(c, LRScheduler) for c in cbks):
        cbks = cbks + [LRScheduler()]
    cbk_list = CallbackList(cbks)
    cbk_list.set_model(model)
    params = {"batch_size": batch_size, "epochs": epochs, "steps": steps, "verbose": verbose,
              "metrics": (metrics or []) if mode != "test" else []}
    cbk_list.set_params(params)
    return cbk_list


class ProgBarLogger(Callback):
    """Shows progress and logs: verbose=0 silent, 1 a progress bar, 2 a line every log_freq steps,
    3 that line plus reader/batch time and samples per second."""

    def __init__(self, log_freq: int = 1, verbose: int = 2) -> None:
        super().__init__()
        if not isinstance(log_freq, int) or log_freq < 1:
            raise invalid_argument("ProgBarLogger", f"log_freq must be a positive int, got {log_freq!r}.")
        self.epochs = None
        self.steps = None
        self.verbose = verbose
        self.log_freq = log_freq

    def _is_print(self) -> bool:
        return bool(self.verbose)

    def _new_timer(self) -> dict:
        return {"data_time": 0.0, "batch_time": 0.0, "count": 0, "samples": 0, "batch_start_time": time.time()}

    def on_train_begin(self, logs=None):
        self.epochs = self.params.get("epochs")
        self.train_metrics = self.params.get("metrics") or []
        self._train_timer = self._new_timer()
        if self._is_print():
            print("The loss value printed in the log is the current step, and the metric is the average value of "
                  "previous steps.")

    def on_epoch_begin(self, epoch=None, logs=None):
        self.steps = self.params.get("steps")
        self.epoch = epoch
        self.train_step = 0
        if self.epochs and self._is_print():
            print(f"Epoch {epoch + 1}/{self.epochs}")
        self.train_progbar = ProgressBar(num=self.steps, verbose=self.verbose)
        self._train_timer["batch_start_time"] = time.time()

    def _updates(self, logs: dict, mode: str) -> None:
        metrics = getattr(self, f"{mode}_metrics")
        values = [(k, logs[k]) for k in metrics if k in logs]
        timer = getattr(self, f"_{mode}_timer", None)
        if self.verbose == 3 and timer is not None:
            cnt = timer["count"] or 1
            spent = timer["data_time"] + timer["batch_time"]
            values.append(("avg_reader_cost", f"{timer['data_time'] / cnt:.5f} sec"))
            values.append(("avg_batch_cost", f"{timer['batch_time'] / cnt:.5f} sec"))
            values.append(("ips", f"{(timer['samples'] or 1) / spent if spent else 0.0:.5f} samples/sec"))
            timer.update(count=0, samples=0, data_time=0.0, batch_time=0.0)
        getattr(self, f"{mode}_progbar").update(getattr(self, f"{mode}_step"), values)

    def _batch_begin(self, timer: dict) -> None:
        timer["batch_data_end_time"] = time.time()
        timer["data_time"] += timer["batch_data_end_time"] - timer["batch_start_time"]

    def _batch_end(self, timer: dict, logs) -> None:
        timer["batch_time"] += time.time() - timer.get("batch_data_end_time", timer["batch_start_time"])
        timer["count"] += 1
        timer["samples"] += (logs or {}).get("batch_size", 1)
        timer["batch_start_time"] = time.time()

    def on_train_batch_begin(self, step, logs=None):
        self._batch_begin(self._train_timer)

    def on_train_batch_end(self, step, logs=None):
        self.train_step += 1
        self._batch_end(self._train_timer, logs)
        if self._is_print() and self.train_step % self.log_freq == 0:
            if self.steps is None or self.train_step < self.steps:
                self._updates(logs or {}, "train")

    def on_epoch_end(self, epoch, logs=None):
        if self._is_print() and self.steps is not None:
            self._updates(logs or {}, "train")

    def _mode_begin(self, mode: str, logs) -> None:
        logs = logs or {}
        setattr(self, f"{mode}_steps", logs.get("steps"))
        setattr(self, f"{mode}_metrics", logs.get("metrics", []))
        setattr(self, f"{mode}_step", 0)
        setattr(self, f"{mode}ed_samples", 0)
        setattr(self, f"_{mode}_timer", self._new_timer())
        setattr(self, f"{mode}_progbar", ProgressBar(num=logs.get("steps"), verbose=self.verbose))
        if self._is_print():
            print(f"{mode.capitalize()} begin...")

    def _mode_batch_end(self, mode: str, logs) -> None:
        logs = logs or {}
        step = getattr(self, f"{mode}_step") + 1
        setattr(self, f"{mode}_step", step)
        setattr(self, f"{mode}ed_samples", getattr(self, f"{mode}ed_samples") + logs.get("batch_size", 1))
        self._batch_end(getattr(self, f"_{mode}_timer"), logs)
        total = getattr(self, f"{mode}_steps")
        if self._is_print() and step % self.log_freq == 0 and (total is None or step < total):
            self._updates(logs, mode)

    def _mode_end(self, mode: str, logs) -> None:
        if self._is_print() and getattr(self, f"{mode}_steps") is not None:
            self._updates(logs or {}, mode)
            print(f"{mode.capitalize()} samples: {getattr(self, f'{mode}ed_samples')}")

    def on_eval_begin(self, logs=None):
        self._mode_begin("eval", logs)

    def on_eval_batch_begin(self, step, logs=None):
        self._batch_begin(self._eval_timer)

    def on_eval_batch_end(self, step, logs=None):
        self._mode_batch_end("eval", logs)

    def on_eval_end(self, logs=None):
        self._mode_end("eval", logs)

    def on_predict_begin(self, logs=None):
        self._mode_begin("predict", logs)
        self.predict_metrics = []

    def on_predict_batch_begin(self, step, logs=None):
        self._batch_begin(self._predict_timer)

    def on_predict_batch_end(self, step, logs=None):
        self._mode_batch_end("predict", logs)

    def on_predict_end(self, logs=None):
        self._mode_end("predict", logs)


class ModelCheckpoint(Callback):
    """Saves `<save_dir>/<epoch>.pdparams/.pdopt` every `save_freq` epochs and `<save_dir>/final` at the end."""

    def __init__(self, save_freq: int = 1, save_dir: str | None = None) -> None:
        super().__init__()
        if not isinstance(save_freq, int) or save_freq < 1:
            raise invalid_argument("ModelCheckpoint", f"save_freq must be a positive int, got {save_freq!r}.")
        self.save_freq = save_freq
        self.save_dir = save_dir

    def _is_save(self) -> bool:
        return bool(self.model is not None and self.save_dir)

    def on_epoch_begin(self, epoch=None, logs=None):
        self.epoch = epoch

    def on_epoch_end(self, epoch, logs=None):
        if self._is_save() and epoch % self.save_freq == 0:
            path = os.path.join(self.save_dir, str(epoch))
            print(f"save checkpoint at {os.path.abspath(path)}")
            self.model.save(path)

    def on_train_end(self, logs=None):
        if self._is_save():
            path = os.path.join(self.save_dir, "final")
            print(f"save checkpoint at {os.path.abspath(path)}")
            self.model.save(path)


class EarlyStopping(Callback):
    """Stops fit when `monitor` (a loss or metric name in the eval logs) stops improving.

    mode 'min' / 'max' / 'auto' (max if the name contains 'acc'); an improvement must beat the best by
    more than min_delta; training stops once `patience` evals in a row did not improve. With
    save_best_model and fit's save_dir, the best weights go to `<save_dir>/best_model`.
    """

    def __init__(self, monitor: str = "loss", mode: str = "auto", patience: int = 0, verbose: int = 1,
                 min_delta: float = 0, baseline: float | None = None, save_best_model: bool = True) -> None:
        super().__init__()
        self.monitor = monitor
        self.patience = patience
        self.verbose = verbose
        self.baseline = baseline
        self.min_delta = abs(min_delta)
        self.wait_epoch = 0
        self.best_weights = None
        self.stopped_epoch = 0
        self.save_best_model = save_best_model
        self.save_dir = None   # set by config_callbacks from fit's save_dir
        if mode not in ("auto", "min", "max"):
            warnings.warn(f"EarlyStopping mode {mode} is unknown, fallback to auto mode.", stacklevel=2)
            mode = "auto"
        if mode == "min" or (mode == "auto" and "acc" not in monitor):
            self.monitor_op = np.less
            self.min_delta *= -1
        else:
            self.monitor_op = np.greater

    def on_train_begin(self, logs=None):
        self.wait_epoch = 0
        self.stopped_epoch = 0
        if self.baseline is not None:
            self.best_value = self.baseline
        else:
            self.best_value = np.inf if self.monitor_op == np.less else -np.inf
            self.best_weights = None

    def on_eval_end(self, logs=None):
        if logs is None or self.monitor not in logs:
            warnings.warn(f"Monitor of EarlyStopping should be loss or metric name; {self.monitor!r} is not in "
                          f"the eval logs ({sorted(logs or {})}).", stacklevel=2)
            return
        current = _scalar(logs[self.monitor])
        if current is None:
            return
        if self.monitor_op(current - self.min_delta, self.best_value):
            self.best_value = current
            self.wait_epoch = 0
            if self.save_best_model and self.save_dir is not None:
                self.model.save(os.path.join(self.save_dir, "best_model"))
        else:
            self.wait_epoch += 1
        if self.wait_epoch > self.patience:
            self.model.stop_training = True
            if self.verbose > 0:
                print(f"Epoch {self.stopped_epoch + 1}: Early stopping.")
                if self.save_best_model and self.save_dir is not None:
                    best = os.path.abspath(os.path.join(self.save_dir, "best_model"))
                    print(f"Best checkpoint has been saved at {best}")
        self.stopped_epoch += 1


def _scheduler_of(model):
    optimizer = getattr(model, "_optimizer", None) if model is not None else None
    lr = getattr(optimizer, "_learning_rate", None)
    from ..optimizer.lr import LRScheduler as Scheduler
    return lr if isinstance(lr, Scheduler) else None


class LRScheduler(Callback):
    """Steps the optimizer's learning-rate scheduler after every batch (by_step) or every epoch (by_epoch)."""

    def __init__(self, by_step: bool = True, by_epoch: bool = False) -> None:
        super().__init__()
        if by_step and by_epoch:
            raise invalid_argument("LRScheduler", "by_step option is mutually exclusive with by_epoch.")
        self.by_step = by_step
        self.by_epoch = by_epoch

    def on_epoch_end(self, epoch, logs=None):
        if self.by_epoch:
            scheduler = _scheduler_of(self.model)
            if scheduler is not None:
                scheduler.step()

    def on_train_batch_end(self, step, logs=None):
        if self.by_step:
            scheduler = _scheduler_of(self.model)
            if scheduler is not None:
                scheduler.step()


class ReduceLROnPlateau(Callback):
    """Multiplies a float learning rate by `factor` when `monitor` has not improved for `patience` evals."""

    def __init__(self, monitor: str = "loss", factor: float = 0.1, patience: int = 10, verbose: int = 1,
                 mode: str = "auto", min_delta: float = 1e-4, cooldown: int = 0, min_lr: float = 0) -> None:
        super().__init__()
        if factor >= 1.0:
            raise invalid_argument("ReduceLROnPlateau", f"factor must be < 1.0, got {factor}.")
        if mode not in ("auto", "min", "max"):
            warnings.warn(f"Learning rate reduction mode {mode} is unknown, fallback to auto mode.", stacklevel=2)
            mode = "auto"
        self.monitor, self.factor, self.patience, self.verbose = monitor, factor, patience, verbose
        self.mode, self.min_delta, self.cooldown, self.min_lr = mode, min_delta, cooldown, min_lr
        self.epoch = 0
        self._reset()

    def _reset(self) -> None:
        self.minimize = self.mode == "min" or (self.mode == "auto" and "acc" not in self.monitor)
        self.best = np.inf if self.minimize else -np.inf
        self.cooldown_counter = 0
        self.wait = 0

    def _improved(self, current: float) -> bool:
        if self.minimize:
            return current < self.best - self.min_delta
        return current > self.best + self.min_delta

    def on_train_begin(self, logs=None):
        self._reset()

    def on_eval_end(self, logs=None):
        if logs is None or self.monitor not in logs:
            warnings.warn("Monitor of ReduceLROnPlateau should be loss or metric name.", stacklevel=2)
            return
        optimizer = self.model._optimizer
        if type(getattr(optimizer, "_learning_rate", None)) is not float:
            warnings.warn("ReduceLROnPlateau needs a float learning rate, not an LRScheduler.", stacklevel=2)
            return
        current = _scalar(logs[self.monitor])
        if current is None:
            return
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if self._improved(current):
            self.best = current
            self.wait = 0
        elif self.cooldown_counter <= 0:
            self.wait += 1
            old_lr = optimizer.get_lr()
            if self.wait >= self.patience and old_lr > np.float32(self.min_lr):
                new_lr = max(old_lr * self.factor, self.min_lr)
                optimizer.set_lr(new_lr)
                if self.verbose > 0:
                    print(f"Epoch {self.epoch + 1}: ReduceLROnPlateau reducing learning rate to {new_lr}.")
                self.cooldown_counter = self.cooldown
                self.wait = 0
        self.epoch += 1

