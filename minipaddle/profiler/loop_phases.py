"""Phase spans the event bus does not report: Optimizer.step and DataLoader batches.

The bus tells the profiler about ops and backward passes, but not when an optimizer step or a
batch load starts and ends. While a Profiler is started, `install()` wraps `Optimizer.step` and the
DataLoader iterators' `__next__` (class attributes, restored by `uninstall()`), so their time becomes
the Optimization and Dataloader phases, and a batch's load time becomes the step's reader_cost.
Wrapping is reference-counted; with no profiler started the original methods are back in place.
(An "optimizer_step" / "dataloader_next" event on the bus would make this module unnecessary.)
"""
from __future__ import annotations

import functools
import time

from . import record_event

# Time spent loading batches since the Profiler last read it (reader_cost, also in timer_only mode).
reader_ns = 0
_installed = 0
_originals: list = []   # (class, attribute, original function)


def _targets() -> list:
    from ..io.dataloader import _MultiWorkerIter, _SingleProcessIter
    from ..optimizer.optimizer import Optimizer
    return [(Optimizer, "step", "optimization"), (_SingleProcessIter, "__next__", "dataloader"),
            (_MultiWorkerIter, "__next__", "dataloader")]


def _wrap(fn, phase: str, label: str):
    @functools.wraps(fn)
    def timed(self, *args, **kwargs):
        global reader_ns
        collector = record_event.active
        if collector is not None:
            collector.enter_phase(phase)
        start = time.perf_counter_ns()
        try:
            result = fn(self, *args, **kwargs)
        except StopIteration:  # the end of an epoch is no batch
            if collector is not None:
                collector.leave_phase(phase, None, start, start)
            raise
        end = time.perf_counter_ns()
        if phase == "dataloader":
            reader_ns += end - start
        if collector is not None:
            name = f"{type(self).__name__}.step" if phase == "optimization" else label
            collector.leave_phase(phase, name, start, end)
        return result
    timed.__wrapped_by_profiler__ = True
    return timed


def install() -> None:
    global _installed
    _installed += 1
    if _installed > 1:
        return
    for cls, attr, phase in _targets():
        fn = cls.__dict__[attr]
        _originals.append((cls, attr, fn))
        setattr(cls, attr, _wrap(fn, phase, "Dataloader"))


def uninstall() -> None:
    global _installed
    if _installed == 0:
        return
    _installed -= 1
    if _installed == 0:
        while _originals:
            cls, attr, fn = _originals.pop()
            setattr(cls, attr, fn)


def take_reader_ns() -> int:
    """The batch loading time since the last call (and reset it)."""
    global reader_ns
    value, reader_ns = reader_ns, 0
    return value
