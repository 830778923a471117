"""When the profiler records: ProfilerState and make_scheduler, as in paddle.profiler.

A scheduler is a function `step -> ProfilerState`. The Profiler asks it after every `prof.step()`:

    CLOSED             nothing is recorded (no subscriber on the event bus: the step runs at full speed)
    READY              about to record (the recorder is prepared, nothing kept yet)
    RECORD             events are kept
    RECORD_AND_RETURN  the last step of a window: after it the window's result goes to on_trace_ready

    sched = make_scheduler(closed=1, ready=1, record=2, repeat=1)
    [sched(i).name for i in range(5)]   # CLOSED READY RECORD RECORD_AND_RETURN CLOSED
"""
from __future__ import annotations

from enum import Enum
from typing import Callable

from ..framework.errors import invalid_argument

__all__ = ["ProfilerState", "make_scheduler"]


class ProfilerState(Enum):
    """What the profiler does during one step (Paddle's names and values)."""
    CLOSED = 0
    READY = 1
    RECORD = 2
    RECORD_AND_RETURN = 3


RECORDING = (ProfilerState.RECORD, ProfilerState.RECORD_AND_RETURN)


def _check_count(name: str, value, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise invalid_argument("make_scheduler", f"{name}={value!r}, expected an integer >= {least}.")
    return value


def make_scheduler(*, closed: int, ready: int, record: int, repeat: int = 0,
                   skip_first: int = 0) -> Callable[[int], ProfilerState]:
    """A scheduler cycling closed -> ready -> record steps, `repeat` times (0: forever), after `skip_first`.

    The last record step of each cycle is RECORD_AND_RETURN: the window ends there.
    """
    for name, value, least in (("closed", closed, 0), ("ready", ready, 0), ("record", record, 1),
                               ("repeat", repeat, 0), ("skip_first", skip_first, 0)):
        _check_count(name, value, least)
    period = closed + ready + record

    def scheduler(step: int) -> ProfilerState:
        if step < skip_first:
            return ProfilerState.CLOSED
        step -= skip_first
        if repeat > 0 and step // period >= repeat:
            return ProfilerState.CLOSED
        pos = step % period
        if pos < closed:
            return ProfilerState.CLOSED
        if pos < closed + ready:
            return ProfilerState.READY
        return ProfilerState.RECORD if pos < period - 1 else ProfilerState.RECORD_AND_RETURN

    scheduler.__doc__ = f"make_scheduler(closed={closed}, ready={ready}, record={record}, repeat={repeat}, " \
                        f"skip_first={skip_first})"
    return scheduler


def scheduler_from_range(start: int, end: int) -> Callable[[int], ProfilerState]:
    """Paddle's `scheduler=(start, end)`: record steps start .. end-1, once."""
    for name, value in (("start", start), ("end", end)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise invalid_argument("Profiler", f"scheduler ({start!r}, {end!r}): {name} must be an integer >= 0.")
    if end <= start:
        raise invalid_argument("Profiler", f"scheduler ({start}, {end}): end must be greater than start.",
                               hint="(2, 5) records steps 2, 3 and 4.")
    return make_scheduler(closed=max(start - 1, 0), ready=1 if start > 0 else 0, record=end - start, repeat=1)


def always_record(step: int) -> ProfilerState:
    """The default scheduler: record every step until stop()."""
    return ProfilerState.RECORD
