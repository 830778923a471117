"""paddle.debug: record what a piece of code does, for the step-through debugger.

    with paddle.debug.record(values="small") as rec:
        loss = model(x).mean()
        loss.backward()
        opt.step()
    rec.trace                   # the trace document (minipaddle.visualizer.Trace)
    rec.trace.save("step.json")

Every op, grad node, backward step, tensor hook and optimizer update inside the `with`
becomes a step of the trace; tensors are kept as summaries (and values, for small ones).
Recording stops when the block exits, also when it raises.
"""
from __future__ import annotations

from .framework import instrument
from .framework.errors import invalid_argument, precondition_not_met

__all__ = ["Recorder", "record"]

_VALUES = ("small", "none", "all")


class Recorder:
    """Subscribes a TraceBuilder to the instrument bus between `start()` and `stop()` (or a `with`)."""

    def __init__(self, *, max_bytes: int, values: str, backward: bool, max_steps: int,
                 values_max_numel: int) -> None:
        self._settings = {"max_bytes": max_bytes, "values": values, "backward": backward, "max_steps": max_steps,
                          "values_max_numel": values_max_numel}
        self._builder = None
        self._unsubscribe = None
        self._trace = None
        self._trace_version = -1

    @property
    def recording(self) -> bool:
        return self._unsubscribe is not None

    def start(self) -> "Recorder":
        if self.recording:
            raise precondition_not_met("debug.record", "this recorder is already recording.")
        from .visualizer.builder import TraceBuilder
        self._builder = TraceBuilder(**self._settings)
        self._trace = None
        self._unsubscribe = instrument.subscribe(self._builder.on_event, kinds=TraceBuilder.KINDS)
        return self

    def stop(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def __enter__(self) -> "Recorder":
        return self.start()

    def __exit__(self, *exc_info) -> bool:
        self.stop()
        return False  # an exception in the block goes on; the trace up to it stays readable

    @property
    def trace(self):
        """The trace so far (while recording: a snapshot, rebuilt when something new happened)."""
        from .visualizer.trace import Trace
        if self._builder is None:
            raise precondition_not_met("debug.record", "nothing was recorded yet.",
                                       hint="use `with paddle.debug.record() as rec:` first.")
        if self._trace is None or self._trace_version != self._builder.version:
            document = self._builder.build()
            self._trace = Trace(document, texts=self._builder.cache if self._builder.cache.on else None)
            self._trace_version = self._builder.version
        return self._trace

    def __repr__(self) -> str:
        state = "recording" if self.recording else "stopped"
        steps = 0 if self._builder is None else self._builder.next_step
        return f"<Recorder {state}, {steps} steps>"


def record(max_bytes: int = 64 << 20, values: str = "small", backward: bool = True, max_steps: int = 10_000,
           values_max_numel: int = 64) -> Recorder:
    """Record the ops, gradients and updates run inside a `with` block into a trace document.

    Args:
        max_bytes: the memory recording and building its document may take together (the peak stays
            under 1.5x it: the recorder holds 0.7 of it, building the document needs about as much
            again). Values stop being kept first (they may use half), then the oldest steps are
            dropped (noted in the trace's `recording.dropped_steps`).
        values: "small" keeps the values of tensors with at most `values_max_numel` elements,
            "none" keeps summaries only, "all" keeps every tensor's values the budget allows.
        backward: also record the backward pass node by node.
        max_steps: the ring buffer's length: older steps are dropped beyond it, except those of the
            newest complete training iteration (a deep model's forward pass survives its backward).
        values_max_numel: what "small" means.
    """
    api = "debug.record"
    if values not in _VALUES:
        raise invalid_argument(api, f"values={values!r}, expected one of {', '.join(map(repr, _VALUES))}.")
    for name, value, least in (("max_bytes", max_bytes, 1024), ("max_steps", max_steps, 1),
                               ("values_max_numel", values_max_numel, 0)):
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise invalid_argument(api, f"{name}={value!r}, expected an integer >= {least}.")
    if not isinstance(backward, bool):
        raise invalid_argument(api, f"backward={backward!r}, expected True or False.")
    return Recorder(max_bytes=max_bytes, values=values, backward=backward, max_steps=max_steps,
                    values_max_numel=values_max_numel)
