"""paddle.profiler.Profiler: time every op, phase and step of a training loop, then print Paddle's tables.

    import minipaddle as paddle
    from minipaddle import profiler

    prof = profiler.Profiler(scheduler=(2, 5), on_trace_ready=profiler.export_chrome_tracing("./log"))
    prof.start()
    for batch in loader:
        train_step(batch)
        prof.step()            # steps 2, 3, 4 are recorded; a Chrome trace is written after step 4
    prof.stop()
    prof.summary(sorted_by=profiler.SortedKeys.CPUTotal, op_detail=True, time_unit="ms")

While recording, a Collector (collector.py) listens on the instrument bus; outside the scheduler's
window nothing listens, so the closed steps run at full speed. `timer_only=True` records no ops at
all: only each step's batch_cost, reader_cost (time in DataLoader) and ips.
"""
from __future__ import annotations

import time
from enum import Enum
from typing import Callable, Iterable

from ..framework.errors import invalid_argument, precondition_not_met
from . import loop_phases
from .collector import Collector
from .scheduler import RECORDING, ProfilerState, always_record, scheduler_from_range
from .summary import SortedKeys, build_tables, tables_html, tables_text

__all__ = ["Profiler", "ProfilerTarget", "ProfileResult"]

_running: list = []  # the started Profiler (one at a time: they would share the loop phases and the bus)


class ProfilerTarget(Enum):
    """Devices to profile. minipaddle runs ops on the CPU; GPU is accepted and profiled as CPU work."""
    CPU = 0
    GPU = 1
    XPU = 2
    CUSTOM_DEVICE = 3


class ProfileResult:
    """One recorded window: its tables, its Chrome trace, its `profile` section (and MIME bundle)."""

    def __init__(self, collector: Collector, *, record_shapes: bool, profile_memory: bool, with_flops: bool) -> None:
        self.collector = collector
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_flops = with_flops

    def tables(self, sorted_by=SortedKeys.CPUTotal, op_detail: bool = True, time_unit: str = "ms", views=None,
               max_rows: int | None = None) -> list:
        return build_tables(self, sorted_by, op_detail, time_unit, views, max_rows)

    def summary_text(self, **kwargs) -> str:
        return tables_text(self.tables(**kwargs))

    def summary_html(self, **kwargs) -> str:
        return tables_html(self.tables(**kwargs))

    def chrome_trace(self) -> dict:
        from .chrome_trace import chrome_trace
        return chrome_trace(self)

    def profile_section(self) -> dict:
        from .section import profile_section
        return profile_section(self)

    def trace_document(self, recorder=None) -> dict:
        """A trace document holding this profile: the recorder's (graph and all) if given, else an empty one."""
        if recorder is not None:
            doc = dict(recorder.trace.to_dict())
        else:
            from ..visualizer.builder import TraceBuilder
            doc = TraceBuilder(values="none").build()
        doc["profile"] = self.profile_section()
        return doc

    def export(self, path: str, format: str = "json") -> str:  # noqa: A002 - Paddle's argument name
        if format != "json":
            raise invalid_argument("Profiler.export", f"format={format!r}: minipaddle writes 'json' (Chrome trace).")
        from .chrome_trace import write_chrome_trace
        return write_chrome_trace(self, path)

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        from ..notebook.display import MIME_TYPE
        return {"text/plain": self.summary_text(), "text/html": self.summary_html(),
                MIME_TYPE: self.trace_document()}

    def __repr__(self) -> str:
        c = self.collector
        return f"<ProfileResult {len(c.steps)} steps, {len(c.ops)} ops, {len(c.backward)} backward nodes>"


class Profiler:
    """Paddle's Profiler: `start()`/`step()`/`stop()` or a `with` block; `summary()` prints the tables."""

    def __init__(self, *, targets: Iterable[ProfilerTarget] | None = None, scheduler=None,
                 on_trace_ready: Callable | None = None, record_shapes: bool = False, profile_memory: bool = False,
                 timer_only: bool = False, with_flops: bool = False) -> None:
        api = "Profiler"
        targets = [ProfilerTarget.CPU] if targets is None else list(targets)
        if not all(isinstance(t, ProfilerTarget) for t in targets):
            raise invalid_argument(api, f"targets={targets!r}, expected ProfilerTarget members.")
        if scheduler is None:
            scheduler = always_record
        elif isinstance(scheduler, (tuple, list)):
            if len(scheduler) != 2:
                raise invalid_argument(api, f"scheduler={scheduler!r}: a tuple must be (start_step, end_step).")
            scheduler = scheduler_from_range(*scheduler)
        elif not callable(scheduler):
            raise invalid_argument(api, f"scheduler={scheduler!r}, expected None, a (start, end) tuple or "
                                        "a function step -> ProfilerState (make_scheduler).")
        if on_trace_ready is not None and not callable(on_trace_ready):
            raise invalid_argument(api, f"on_trace_ready={on_trace_ready!r}, expected a function of the profiler.")
        for name, value in (("record_shapes", record_shapes), ("profile_memory", profile_memory),
                            ("timer_only", timer_only), ("with_flops", with_flops)):
            if not isinstance(value, bool):
                raise invalid_argument(api, f"{name}={value!r}, expected True or False.")
        self.targets = targets
        self.scheduler = scheduler
        self.on_trace_ready = on_trace_ready
        self.record_shapes, self.profile_memory = record_shapes, profile_memory
        self.timer_only, self.with_flops = timer_only, with_flops
        self.step_num = 0
        self.current_state = self._state_at(0)
        self.result: ProfileResult | None = None
        self.timings: list = []    # per step: (reader_ns, batch_ns, num_samples)
        self._info_from = 0        # step_info() averages the steps since its last call
        self._collector: Collector | None = None
        self._step_start = 0
        self._started = False

    def _state_at(self, step: int) -> ProfilerState:
        state = self.scheduler(step)
        if not isinstance(state, ProfilerState):
            raise invalid_argument("Profiler", f"the scheduler returned {state!r} for step {step}, "
                                               "expected a ProfilerState.")
        return state

    # ---- the window --------------------------------------------------------------------------
    def _open(self) -> None:
        self._collector = Collector(record_shapes=self.record_shapes, profile_memory=self.profile_memory,
                                    with_flops=self.with_flops)
        self._collector.start()

    def _close(self) -> None:
        collector, self._collector = self._collector, None
        collector.stop()
        self.result = ProfileResult(collector, record_shapes=self.record_shapes, profile_memory=self.profile_memory,
                                    with_flops=self.with_flops)
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)

    # ---- start / step / stop -----------------------------------------------------------------
    def start(self) -> "Profiler":
        if self._started:
            raise precondition_not_met("Profiler.start", "this profiler is already started.")
        if _running:
            raise precondition_not_met("Profiler.start", "another Profiler is running.",
                                       hint="stop it first (profilers do not nest).")
        _running.append(self)
        self._started = True
        loop_phases.install()
        loop_phases.take_reader_ns()
        if not self.timer_only and self.current_state in RECORDING:
            self._open()
        self._step_start = time.perf_counter_ns()
        return self

    def step(self, num_samples: int | None = None) -> None:
        """End the current step (ProfileStep#n); `num_samples` (the batch size) gives ips in samples/s."""
        if not self._started:
            raise precondition_not_met("Profiler.step", "the profiler is not started.", hint="call prof.start() first.")
        now = time.perf_counter_ns()
        self.timings.append((loop_phases.take_reader_ns(), now - self._step_start, num_samples))
        if self._collector is not None:
            self._collector.steps.append((self.step_num, self._step_start, now, num_samples))
        prev = self.current_state
        self.step_num += 1
        self.current_state = self._state_at(self.step_num)
        if self._collector is not None and (prev == ProfilerState.RECORD_AND_RETURN
                                            or self.current_state not in RECORDING):
            self._close()
        if not self.timer_only and self._collector is None and self.current_state in RECORDING:
            self._open()
        self._step_start = time.perf_counter_ns()

    def stop(self) -> None:
        """End recording; a window still open becomes the result (and goes to on_trace_ready)."""
        if not self._started:
            return
        now = time.perf_counter_ns()
        try:
            c = self._collector
            if c is not None:
                if _has_work_since(c, self._step_start):  # (the step after the last step() call, if it ran anything)
                    c.steps.append((self.step_num, self._step_start, now, None))
                self._close()
        finally:
            self._started = False
            loop_phases.uninstall()
            _running.remove(self)

    def __enter__(self) -> "Profiler":
        return self.start()

    def __exit__(self, *exc_info) -> bool:
        self.stop()
        return False

    # ---- reading the results -----------------------------------------------------------------
    def summary(self, sorted_by: SortedKeys = SortedKeys.CPUTotal, op_detail: bool = True, thread_sep: bool = False,
                time_unit: str = "ms", views=None) -> None:
        """Print the tables of the last recorded window (timer_only: the step timer's table)."""
        if self.timer_only:
            print(self.timer_summary())
            return
        if self.result is None:
            raise precondition_not_met("Profiler.summary", "nothing was recorded yet.",
                                       hint="stop the profiler (or let its scheduler close a window) first.")
        print(self.result.summary_text(sorted_by=sorted_by, op_detail=op_detail, time_unit=time_unit, views=views))

    def export(self, path: str = "", format: str = "json") -> str:  # noqa: A002 - Paddle's argument name
        """Write the last window as Chrome trace JSON."""
        if self.result is None:
            raise precondition_not_met("Profiler.export", "nothing was recorded yet.")
        return self.result.export(path, format)

    def step_info(self, unit: str | None = None) -> str:
        """'reader_cost: ... s batch_cost: ... s ips: ... steps/s' averaged over the steps since the last call."""
        steps = self.timings[self._info_from:]
        self._info_from = len(self.timings)
        if not steps:
            return "reader_cost: 0.00000 s batch_cost: 0.00000 s ips: 0.000 steps/s"
        reader = sum(r for r, _, _ in steps) / len(steps) / 1e9
        batch = sum(b for _, b, _ in steps) / len(steps) / 1e9
        samples = [n for _, _, n in steps]
        if all(n is not None for n in samples):
            ips, what = sum(samples) / len(steps) / batch if batch else 0.0, unit or "samples"
        else:
            ips, what = (1 / batch if batch else 0.0), "steps"
        return f"reader_cost: {reader:.5f} s batch_cost: {batch:.5f} s ips: {ips:.3f} {what}/s"

    def timer_summary(self) -> str:
        """Paddle's Perf Summary: avg / max / min of reader_cost, batch_cost and ips over all steps."""
        from .timer import perf_summary
        return perf_summary(self.timings)


def _has_work_since(c: Collector, start: int) -> bool:
    return any(x[2] >= start for x in c.ops[-1:]) or any(b[1] >= start for b in c.backward[-1:]) or \
        any(u[2] >= start for u in c.user_events[-1:]) or any(p[2] >= start for p in c.phase_spans[-1:])
