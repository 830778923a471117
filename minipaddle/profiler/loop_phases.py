"""The training loop's phases: optimizer steps and batch loads, heard on the event bus.

While a Profiler is started, `install()` subscribes to the bus's loop kinds (OptimizerStepBegin/End,
DataLoaderNextBegin/End): an optimizer step becomes the Optimization phase and a batch load the
Dataloader phase of the recording window, and a batch's load time adds to the step's reader_cost
(also in timer_only mode, where no window records ops). These kinds alone leave the bus's
`subscribers` empty, so ops keep their fast path while only steps are timed.
Installing is reference-counted; with no profiler started nothing listens.
"""
from __future__ import annotations

from ..framework import instrument
from . import record_event

# Time spent loading batches since the Profiler last read it (reader_cost, also in timer_only mode).
reader_ns = 0
_installed = 0
_unsubscribe = None
_PHASES = {"optimizer_step_begin": "optimization", "optimizer_step_end": "optimization",
           "dataloader_next_begin": "dataloader", "dataloader_next_end": "dataloader"}


def on_event(e: instrument.Event) -> None:
    """Open the phase at a begin event; at an end event close it, as a span named for what ran."""
    global reader_ns
    collector = record_event.active
    phase = _PHASES[e.kind]
    if e.kind.endswith("_begin"):
        if collector is not None:
            collector.enter_phase(phase)
        return
    if phase == "dataloader" and not e.exhausted:
        reader_ns += e.end_ns - e.start_ns
    if collector is not None:
        if phase == "optimization":
            name = f"{type(e.optimizer).__name__}.step"
        else:
            name = None if e.exhausted else "Dataloader"  # the end of an epoch is no batch
        collector.leave_phase(phase, name, e.start_ns, e.end_ns)


def install() -> None:
    global _installed, _unsubscribe
    _installed += 1
    if _installed == 1:
        _unsubscribe = instrument.subscribe(on_event, kinds=tuple(_PHASES))


def uninstall() -> None:
    global _installed, _unsubscribe
    if _installed == 0:
        return
    _installed -= 1
    if _installed == 0:
        _unsubscribe()
        _unsubscribe = None


def take_reader_ns() -> int:
    """The batch loading time since the last call (and reset it)."""
    global reader_ns
    value, reader_ns = reader_ns, 0
    return value
