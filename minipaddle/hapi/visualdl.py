"""VisualDL callback: training scalars as JSON lines, for notebooks and the debugger to plot.

VisualDL(log_dir) writes VisualDL-style scalars as JSON lines to `<log_dir>/scalars.jsonl`, one record a
line, flushed as written so a notebook or the debugger can plot a run while it trains:

    {"tag": "train/loss", "step": 12, "value": 0.4312, "wall_time": 1718000000.25}
    {"tag": "eval/acc", "step": 0, "value": 0.91, "wall_time": 1718000003.5}

Tags are `<mode>/<name>` (mode: train or eval). Train steps count batches from the start of fit;
eval steps count epochs. A new VisualDL callback starts the file afresh. `read_scalars(log_dir)`
reads it back as {tag: (steps, values)}.
"""
from __future__ import annotations

import json
import os
import time

from .callback_base import Callback, _scalar

__all__ = ["VisualDL", "read_scalars"]


class VisualDL(Callback):
    """Logs train (per batch) and eval (per epoch) scalars to `<log_dir>/scalars.jsonl` (see the module doc)."""

    def __init__(self, log_dir: str) -> None:
        super().__init__()
        self.log_dir = log_dir
        self.epochs = None
        self.steps = None
        self.epoch = 0
        self.train_step = 0
        self._file = None
        self._started = False   # the first open truncates, later ones append

    @property
    def path(self) -> str:
        return os.path.join(self.log_dir, "scalars.jsonl")

    def _write(self, tag: str, step: int, value: float) -> None:
        if self._file is None:
            os.makedirs(self.log_dir, exist_ok=True)
            self._file = open(self.path, "a" if self._started else "w", encoding="utf-8")
            self._started = True
        record = {"tag": tag, "step": int(step), "value": float(value), "wall_time": time.time()}
        self._file.write(json.dumps(record) + "\n")
        self._file.flush()

    def _close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def _updates(self, logs: dict, mode: str, step: int) -> None:
        for k in getattr(self, f"{mode}_metrics", []):
            value = _scalar(logs.get(k))
            if value is not None:
                self._write(f"{mode}/{k}", step, value)

    def on_train_begin(self, logs=None):
        self.epochs = self.params.get("epochs")
        self.train_metrics = self.params.get("metrics") or []
        self._is_fit = True
        self.train_step = 0

    def on_epoch_begin(self, epoch=None, logs=None):
        self.steps = self.params.get("steps")
        self.epoch = epoch

    def on_train_batch_end(self, step, logs=None):
        self.train_step += 1
        self._updates(logs or {}, "train", self.train_step)

    def on_eval_begin(self, logs=None):
        logs = logs or {}
        self.eval_steps = logs.get("steps")
        self.eval_metrics = logs.get("metrics", [])

    def on_eval_end(self, logs=None):
        self._updates(logs or {}, "eval", self.epoch)
        if not getattr(self, "_is_fit", False):
            self._close()

    def on_train_end(self, logs=None):
        self._is_fit = False
        self._close()


def read_scalars(log_dir: str) -> dict[str, tuple[list[int], list[float]]]:
    """Read `<log_dir>/scalars.jsonl` back: {tag: (steps, values)}, in file order."""
    out: dict[str, tuple[list[int], list[float]]] = {}
    with open(os.path.join(log_dir, "scalars.jsonl"), encoding="utf-8") as f:
        for line in f:
            if line.strip():
                record = json.loads(line)
                steps, values = out.setdefault(record["tag"], ([], []))
                steps.append(record["step"])
                values.append(record["value"])
    return out
