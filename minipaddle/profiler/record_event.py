"""RecordEvent: name a span of your own code so the profiler shows it (UserDefined table, python lane).

    with paddle.profiler.RecordEvent("augment"):
        batch = augment(batch)

    ev = paddle.profiler.RecordEvent("eval"); ev.begin(); ...; ev.end()

With no profiler recording, begin/end do nothing but check one module attribute.
"""
from __future__ import annotations

import time
from enum import Enum

__all__ = ["RecordEvent", "TracerEventType"]


class TracerEventType(Enum):
    """The kinds of span Paddle's profiler knows (the ones minipaddle produces are used here)."""
    Operator = 0
    Dataloader = 1
    ProfileStep = 2
    CudaRuntime = 3
    Kernel = 4
    Memcpy = 5
    Memset = 6
    UserDefined = 7
    OperatorInner = 8
    Forward = 9
    Backward = 10
    Optimization = 11
    Communication = 12
    PythonOp = 13
    PythonUserDefined = 14


# The Collector (collector.py) of the profiler that is recording now, or None. Set by Profiler.
active = None


class RecordEvent:
    """A named span, recorded by the profiler that is recording when `begin()` runs."""

    def __init__(self, name: str, event_type: TracerEventType = TracerEventType.PythonUserDefined) -> None:
        self.name = str(name)
        self.event_type = event_type
        self._collector = None
        self._start = 0

    def begin(self) -> None:
        collector = active
        if collector is None:
            return
        self._collector = collector
        self._start = time.perf_counter_ns()

    def end(self) -> None:
        collector, self._collector = self._collector, None
        if collector is not None:  # (begin() found no profiler, or end() came twice: nothing to record)
            collector.add_user_event(self.name, self.event_type, self._start, time.perf_counter_ns())

    def __enter__(self) -> "RecordEvent":
        self.begin()
        return self

    def __exit__(self, *exc_info) -> bool:
        self.end()
        return False
