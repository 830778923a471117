"""The event bus every layer of minipaddle reports to (the recorder issue fills it out).

Subscribers are callables `fn(event: dict)`. The dispatch path checks `subscribers`
once per op call; with none registered that one truthiness check is all the
debugger costs when it is off.
"""
from __future__ import annotations

from typing import Callable

subscribers: list[Callable[[dict], None]] = []


def subscribe(fn: Callable[[dict], None]) -> Callable[[], None]:
    """Register `fn`; returns a function that unregisters it."""
    subscribers.append(fn)

    def unsubscribe() -> None:
        if fn in subscribers:
            subscribers.remove(fn)
    return unsubscribe


def emit(event: dict) -> None:
    for fn in list(subscribers):
        fn(event)


# Paths of the layers being called, innermost last ("MLP", "MLP.fc1"); nn.Layer.__call__ pushes
# and pops, so an op can say which layer it ran under.
layer_stack: list[str] = []


def current_layer() -> str | None:
    return layer_stack[-1] if layer_stack else None
