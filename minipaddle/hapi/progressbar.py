"""ProgressBar: the `step 3/10 [=====>....] - loss: 0.4312 - acc: 0.8125 - ETA: 2s - 14ms/step` line.

Where it draws (verbose=1):
  - a terminal: one line rewritten in place with `\\r`;
  - a Jupyter notebook: an HTML progress bar with the values beside it, in one output area
    updated in place (kept in the saved notebook);
  - anything else (a log file, a pipe, a captured stream): one full line per update.
verbose=2 (and 3) always write one plain line per update, as Paddle does.
"""
from __future__ import annotations

import html
import sys
import time

import numpy as np

__all__ = ["ProgressBar"]


def _in_notebook() -> bool:
    if "ipykernel" not in sys.modules:
        return False
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and hasattr(shell, "kernel")


def format_value(v) -> str:
    """Paddle's rule: floats with 4 decimals, tiny ones in scientific notation."""
    if isinstance(v, np.ndarray) and v.size == 1:
        v = v.item()
    if isinstance(v, (float, np.floating)):
        return f"{v:.4f}" if abs(v) > 1e-3 else f"{v:.4e}"
    return str(v)


def format_values(values) -> str:
    info = ""
    for k, val in values:
        val = val if isinstance(val, (list, tuple)) else [val]
        info += f" - {k}: " + " ".join(format_value(v) for v in val)
    return info


def format_rate(seconds_per_unit: float, unit: str) -> str:
    if seconds_per_unit >= 1 or seconds_per_unit == 0:
        return f" - {seconds_per_unit:.0f}s/{unit}"
    if seconds_per_unit >= 1e-3:
        return f" - {seconds_per_unit * 1e3:.0f}ms/{unit}"
    return f" - {seconds_per_unit * 1e6:.0f}us/{unit}"


def format_eta(eta: float) -> str:
    if eta > 3600:
        return f"{int(eta // 3600)}:{int(eta % 3600 // 60):02d}:{int(eta % 60):02d}"
    if eta > 60:
        return f"{int(eta // 60)}:{int(eta % 60):02d}"
    return f"{int(eta)}s"


class ProgressBar:
    """A progress display for `num` steps (None: unknown length). `update(step, [(name, value), ...])`."""

    def __init__(self, num: int | None = None, width: int = 30, verbose: int = 1, start: bool = True,
                 file=None, name: str = "step") -> None:
        if num is not None and (not isinstance(num, int) or num <= 0):
            raise TypeError("num should be None or integer (> 0)")
        self._num = num
        self._width = width
        self._verbose = verbose
        self.file = file if file is not None else sys.stdout
        self.name = name
        self._start = time.time() if start else None
        self._last_width = 0
        self._display = None
        isatty = getattr(self.file, "isatty", None)
        self._terminal = bool(isatty and isatty())
        self._notebook = not self._terminal and self.file is sys.stdout and _in_notebook()

    def start(self) -> None:
        self._start = time.time()

    def _counter(self, current: int) -> str:
        if self._num is None:
            return f"{self.name} {current:3d}"
        digits = len(str(self._num))
        return f"{self.name} {current:{digits}d}/{self._num}"

    def _bar(self, current: int) -> str:
        if self._num is None:
            return self._counter(current)
        filled = int(self._width * min(current / self._num, 1.0))
        bar = ""
        if filled > 0:
            bar = "=" * (filled - 1) + (">" if current < self._num else "=")
        return f"{self._counter(current)} [{bar}{'.' * (self._width - filled)}]"

    def _tail(self, current: int, values, per_step: float) -> str:
        info = format_values(values)
        if self._verbose == 1 and self._num is not None and current < self._num:
            info += f" - ETA: {format_eta(per_step * (self._num - current))}"
        return info + format_rate(per_step, self.name)

    def update(self, current_num: int, values=()) -> None:
        """Show progress after `current_num` steps with `values` (a list of (name, value) pairs)."""
        if self._start is None:
            self._start = time.time()
        per_step = (time.time() - self._start) / current_num if current_num else 0.0
        if self._verbose == 1:
            self._draw(current_num, values, per_step)
        elif self._verbose in (2, 3):
            self.file.write(self._counter(current_num) + self._tail(current_num, values, per_step) + "\n")
            self.file.flush()

    def _draw(self, current: int, values, per_step: float) -> None:
        done = self._num is not None and current >= self._num
        if self._notebook and self._draw_notebook(current, values, per_step):
            return
        line = self._bar(current) + self._tail(current, values, per_step)
        if self._terminal:
            pad = " " * max(self._last_width - len(line), 0)
            self.file.write("\r" + line + pad + ("\n" if done or self._num is None else ""))
        else:
            self.file.write(line + "\n")
        self._last_width = len(line)
        self.file.flush()

    def _draw_notebook(self, current: int, values, per_step: float) -> bool:
        """Draw in a notebook; False when no display machinery works (then the text path runs)."""
        try:
            if self._display is None:
                self._display = _NotebookBar(self._num)
            self._display.show(current, self._counter(current) + self._tail(current, values, per_step))
            return True
        except Exception:  # a broken display must never stop training
            self._notebook = False
            return False


class _NotebookBar:
    """An HTML <progress> bar and the text line, in one notebook output updated in place.

    Why not an ipywidget: a display update is stored in the notebook itself, so a saved notebook,
    or one run headless (make demo), shows the final bar and numbers; a widget shows a placeholder.
    """

    def __init__(self, num: int | None) -> None:
        from IPython.display import DisplayHandle
        self._num = num
        self._handle = DisplayHandle()
        self._shown = False

    def show(self, current: int, text: str) -> None:
        bar = (f'<progress value="{min(current, self._num)}" max="{self._num}" style="width: 240px; '
               'vertical-align: middle"></progress> ') if self._num else ""
        bundle = {"text/plain": text, "text/html": f"{bar}<code>{html.escape(text)}</code>"}
        if self._shown:
            self._handle.update(bundle, raw=True)
        else:
            self._handle.display(bundle, raw=True)
            self._shown = True
