"""Callback, the base class of every training callback, and the order `Model.fit` calls its hooks in.

The order of calls during `fit` (what a recording callback sees):

    on_train_begin
      on_epoch_begin(0)
        on_train_batch_begin(0) on_train_batch_end(0) ... (one pair per batch)
      on_epoch_end(0, logs)
      on_eval_begin  on_eval_batch_begin(0) on_eval_batch_end(0) ...  on_eval_end(logs)   (every eval_freq)
      on_epoch_begin(1) ...
    on_train_end

`logs` is a dict: 'loss' (a list, one value per loss: the current batch's in training, the mean so far
in eval), each metric's name (the running value over the epoch so far), 'step' and 'batch_size'.

Its own module so that the callbacks (hapi/callbacks.py) and VisualDL (hapi/visualdl.py) both build on
it without importing each other.
"""
from __future__ import annotations

import numbers

import numpy as np

__all__ = ["Callback"]


class Callback:
    """Base class; override the hooks you need. `self.model` is the paddle.Model, `self.params` holds
    'epochs', 'steps', 'verbose', 'metrics' (the names in logs) and 'batch_size'."""

    def __init__(self) -> None:
        self.model = None
        self.params: dict = {}

    def set_params(self, params: dict) -> None:
        self.params = params

    def set_model(self, model) -> None:
        self.model = model

    def on_train_begin(self, logs=None): pass
    def on_train_end(self, logs=None): pass
    def on_eval_begin(self, logs=None): pass
    def on_eval_end(self, logs=None): pass
    def on_predict_begin(self, logs=None): pass
    def on_predict_end(self, logs=None): pass
    def on_epoch_begin(self, epoch, logs=None): pass
    def on_epoch_end(self, epoch, logs=None): pass
    def on_train_batch_begin(self, step, logs=None): pass
    def on_train_batch_end(self, step, logs=None): pass
    def on_eval_batch_begin(self, step, logs=None): pass
    def on_eval_batch_end(self, step, logs=None): pass
    def on_predict_batch_begin(self, step, logs=None): pass
    def on_predict_batch_end(self, step, logs=None): pass


def _scalar(value):
    """A logged value as one number: the first of a list (Paddle logs 'loss' as [value]); None if not numeric."""
    if isinstance(value, (list, tuple)):
        value = value[0] if value else None
    if isinstance(value, np.ndarray) and value.size == 1:
        value = value.item()
    return value if isinstance(value, numbers.Number) else None
