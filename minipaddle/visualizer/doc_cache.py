"""What a recorder's `build()` made of records that never change, kept for its next build.

A live view (notebook/live.py) rebuilds the trace document a few times a second while a training
loop runs. A tensor state never changes once recorded, nor does a step, so from a recorder's second
build on, its DocumentCache keeps each state's document object and the JSON text of each state and
step: the next build and `Trace.to_json` reuse them, and only what is new is encoded. A recording
built once (the usual case) keeps nothing.

What the cache holds counts against the recorder's byte budget (TraceBuilder.bytes_used, as
program.py's records do), and an entry goes when the ring buffer drops its state or step.
"""
from __future__ import annotations

import json

from .trace import state_json

STATE_OBJECT_BYTES = 1500  # one state's document object in memory (texts count by their length)


class DocumentCache:
    """Built states and JSON texts of one TraceBuilder (`builder.cache`)."""

    def __init__(self, builder) -> None:
        self.builder = builder
        self.builds = 0
        self.states: dict[str, dict] = {}        # sid -> the document's state object
        self.state_texts: dict[str, str] = {}    # sid -> its JSON text
        self.step_texts: dict[int, str] = {}     # step index -> its JSON text

    @property
    def on(self) -> bool:
        """Whether what is built is kept: from the second build on."""
        return self.builds > 1

    def state(self, sid: str, record: dict, data: tuple) -> dict:
        """The document's object of state `sid` (its record, and its (Summary, values)): the kept one,
        or made now (and kept when the cache is on)."""
        out = self.states.get(sid)
        if out is None:
            out = state_json(record, data)
            if self.builds > 1:
                self.states[sid] = out
                self.builder.bytes_used += STATE_OBJECT_BYTES
        return out

    # Trace.to_json asks for the text of the two big sections (see Trace's `texts`)
    def states_text(self, states: list) -> str:
        return "[" + ",".join([self._text(self.state_texts, s["id"], s) for s in states]) + "]"

    def steps_text(self, steps: list) -> str:
        return "[" + ",".join([self._text(self.step_texts, s["index"], s) for s in steps]) + "]"

    def _text(self, texts: dict, key, obj: dict) -> str:
        text = texts.get(key)
        if text is None:
            text = texts[key] = json.dumps(obj, separators=(",", ":"), allow_nan=False, ensure_ascii=False)
            self.builder.bytes_used += len(text)
        return text

    # the ring buffer dropped these
    def forget_state(self, sid: str) -> None:
        if self.states.pop(sid, None) is not None:
            self.builder.bytes_used -= STATE_OBJECT_BYTES
        text = self.state_texts.pop(sid, None)
        if text is not None:
            self.builder.bytes_used -= len(text)

    def forget_step(self, index: int) -> None:
        text = self.step_texts.pop(index, None)
        if text is not None:
            self.builder.bytes_used -= len(text)
