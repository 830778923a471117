"""Live view of a recording: the notebook output refreshes while a traced training loop runs.

    rec = paddle.debug.record(values="none")
    with rec, LiveTrace(rec, interval=0.3):
        for epoch in range(10):
            train_one_epoch()          # the display under the cell updates a few times a second

`LiveTrace` listens on the instrument bus like the recorder does, but it never works per event:
each event only compares the clock with the time of the next allowed update. An update rebuilds
the trace's MIME bundle and replaces the output in place through a display id (`display(...,
display_id=True)` then `handle.update(...)`). Rendering a big trace takes time, so the pause after
an update grows with its cost: rendering stays a small share of the loop's time.

What an update costs: the recorder keeps what it built of the states and steps that did not change
(from its second build on) and the JSON text of each, so a rebuild encodes only what is new; while
live, the bundle leaves out the graph picture (the final update draws it). A 50-iteration MLP trace
(2,800 steps, 3.3 MB of JSON) updates in about 70 ms (benchmarks/notebook_size.py).
"""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from ..framework import instrument

__all__ = ["LiveTrace"]

RENDER_SHARE = 0.25  # updates may take at most about this share of the wall time
LIVE_MAX_ROWS = 50   # rows per table while live: the front end receives every update whole


class LiveTrace:
    """Throttled re-rendering of a trace into one notebook output.

    Args:
        source: a Recorder (`paddle.debug.record()`, its `.trace` is read) or a function returning a Trace.
        interval: least seconds between two updates.
        json_max_bytes: live updates carry the trace document (for the JupyterLab extension) while the
            recording's size (its byte budget's count, about 3x the JSON) is under this; the final update
            always carries it.
        clock, display: injectable for tests (defaults: time.monotonic and IPython.display.display).
    """

    def __init__(self, source, interval: float = 0.3, *, json_max_bytes: int = 32 << 20,
                 clock: Callable[[], float] = time.monotonic, display: Callable | None = None) -> None:
        from ..framework.errors import invalid_argument
        if not (isinstance(interval, (int, float)) and interval > 0):
            raise invalid_argument("LiveTrace", f"interval={interval!r}, expected a number of seconds > 0.")
        if not (hasattr(type(source), "trace") or callable(source)):
            raise invalid_argument("LiveTrace", f"got a {type(source).__name__} as source, expected a Recorder "
                                                "or a function returning a Trace.")
        self._get_trace = (lambda: source.trace) if hasattr(type(source), "trace") else source
        self.interval = float(interval)
        self.json_max_bytes = json_max_bytes
        self._clock = clock
        self._display = display
        self.handle = None
        self.updates = 0          # how many times the output was re-rendered
        self.error: str | None = None
        self._unsubscribe = None
        self._next = 0.0
        self._busy = False
        self._urgent = False
        self._last_trace = None

    # ---- lifecycle ------------------------------------------------------------------------
    def start(self) -> "LiveTrace":
        """Show a placeholder output and start listening."""
        from ..framework import instrument
        display = self._display
        if display is None:
            from IPython.display import display
        self.handle = display({"text/plain": "minipaddle trace: recording...",
                               "text/html": "<p><b>minipaddle trace</b>: recording...</p>"},
                              raw=True, display_id=True)
        self._next = self._clock() + self.interval
        self._unsubscribe = instrument.subscribe(self._on_event)
        return self

    def stop(self, final: bool = True) -> None:
        """Stop listening; with `final`, render the whole trace (document included) one last time."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if final:
            self.refresh(final=True)

    def __enter__(self) -> "LiveTrace":
        return self.start()

    def __exit__(self, *exc_info) -> bool:
        self.stop()
        return False

    # ---- updates --------------------------------------------------------------------------
    def _on_event(self, event: instrument.Event) -> None:
        if self._busy:
            return
        if event.kind == "nan_inf" and event.first:
            # show the first NaN/Inf now-ish: at the next event (the op event that found it, which reaches us
            # after the recorder has finished with it), not here, while the recorder is mid-way through it
            self._urgent = True
            return
        if self._urgent or self._clock() >= self._next:
            self.refresh()

    def refresh(self, final: bool = False) -> None:
        """Re-render now (throttling aside). A failure is kept in `error`, never raised into the loop."""
        if self.handle is None or self._busy or (self.error is not None and not final):
            return
        from .display import MIME_TYPE, trace_bundle
        self._busy = True
        self._urgent = False
        started = self._clock()
        try:
            trace = self._get_trace()
            if trace is not self._last_trace or final:  # a Recorder hands back the same Trace when unchanged
                small = trace.to_dict()["recording"]["bytes_used"] <= self.json_max_bytes
                # while live: plain JSON, no picture (the cheapest update); the final one is what gets saved
                # metadata tells the front end the loop is still running: it shows the newest step
                metadata = {} if final else {MIME_TYPE: {"live": True}}
                self.handle.update(trace_bundle(trace, include_json=final or small, max_rows=LIVE_MAX_ROWS,
                                                picture=final, compress=None if final else False), raw=True,
                                   metadata=metadata)
                self._last_trace = trace
                self.updates += 1
        except Exception as exc:  # the debugger must never break the program it watches
            self.error = f"{type(exc).__name__}: {exc}"
        finally:
            done = self._clock()
            self._next = done + max(self.interval, (done - started) / RENDER_SHARE)
            self._busy = False
