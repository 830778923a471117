"""LiveTrace: time-throttled re-rendering through one display id, tested with a fake clock and display."""
from __future__ import annotations

import json

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework import instrument
from minipaddle.framework.errors import InvalidArgument
from minipaddle.notebook.display import MIME_TYPE
from minipaddle.notebook.live import RENDER_SHARE, LiveTrace


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class FakeHandle:
    def __init__(self, clock: FakeClock, cost: float = 0.0) -> None:
        self.clock, self.cost = clock, cost
        self.updates: list[dict] = []
        self.metadata: list[dict] = []
        self.fail = False

    def update(self, bundle: dict, raw: bool = False, metadata: dict | None = None) -> None:
        assert raw
        if self.fail:
            raise RuntimeError("front end went away")
        self.clock.now += self.cost  # rendering takes this long
        self.updates.append(bundle)
        self.metadata.append(metadata or {})


class FakeDisplay:
    """Stands in for IPython.display.display(..., display_id=True)."""

    def __init__(self, clock: FakeClock, cost: float = 0.0) -> None:
        self.handle = FakeHandle(clock, cost)
        self.shown: list[dict] = []

    def __call__(self, bundle: dict, raw: bool = False, display_id=None):
        assert raw and display_id is True
        self.shown.append(bundle)
        return self.handle


def op_steps(n: int, clock: FakeClock, dt: float, x=None) -> None:
    """n ops (each several instrument events with a recorder on), the clock moving dt before each."""
    x = paddle.to_tensor(np.ones(4, "float32")) if x is None else x
    for _ in range(n):
        clock.now += dt
        x = x * 1.0


@pytest.fixture
def clock():
    return FakeClock()


def test_updates_follow_the_clock_not_the_ops(clock):
    screen = FakeDisplay(clock)
    rec = paddle.debug.record()
    with rec, LiveTrace(rec, interval=0.25, clock=clock, display=screen) as live:
        assert screen.shown[0]["text/plain"] == "minipaddle trace: recording..."
        op_steps(500, clock, 0.0)  # a frozen clock: no update however many ops run
        assert live.updates == 0
        op_steps(10, clock, 0.1)   # t = 0.1 .. 1.0: updates at 0.3, 0.6, 0.9 (0.25 s apart at least)
        assert live.updates == 3
        ops_seen = [int(b["text/plain"].split(": ")[1].split(" ops")[0]) for b in screen.handle.updates]
        assert ops_seen == [503, 506, 509]  # each shows the trace as it was then: the graph grows
    assert live.updates == 4  # the final update, with everything
    # while the loop runs the front end is told so (it then follows the newest step); the final one is plain
    assert screen.handle.metadata == [{MIME_TYPE: {"live": True}}] * 3 + [{}]
    final = screen.handle.updates[-1]
    assert json.loads(final[MIME_TYPE])["graph"]["forward"]["nodes"][-1]["step"] == 509
    assert live._on_event not in instrument.subscribers


def test_an_expensive_render_stretches_the_pause_after_it(clock):
    screen = FakeDisplay(clock, cost=0.5)  # each render costs 0.5 s of wall time
    rec = paddle.debug.record()
    with rec:
        live = LiveTrace(rec, interval=0.25, clock=clock, display=screen).start()
        op_steps(40, clock, 0.1)  # 4 s of ops
        live.stop()
    pause = 0.5 / RENDER_SHARE
    # first render at 0.3, ends at 0.8; the next may start only `pause` later, and so on
    assert live.updates - 1 == int((4.0 - 0.3 + 0.5) // (0.5 + pause)) + 1 == 2
    assert live.updates * 0.5 <= RENDER_SHARE * clock.now + 0.5


def test_the_first_nan_is_shown_right_away(clock):
    screen = FakeDisplay(clock)
    rec = paddle.debug.record()
    with rec, LiveTrace(rec, interval=10.0, clock=clock, display=screen) as live:
        x = paddle.to_tensor(np.array([1.0, -1.0], "float32"))
        y = paddle.log(x)  # NaN: the recorder reports it while handling the op; the update follows that op
        assert live.updates == 1 and "first: log" in screen.handle.updates[0]["text/plain"]
        y * 2.0
        y + 1.0
        assert live.updates == 1  # later NaNs do not bypass the throttle


def test_live_updates_leave_out_a_big_document_until_the_end(clock):
    screen = FakeDisplay(clock)
    rec = paddle.debug.record()
    with rec, LiveTrace(rec, interval=0.1, json_max_bytes=0, clock=clock, display=screen):
        op_steps(3, clock, 0.2)
    *live_updates, final = screen.handle.updates
    assert live_updates and all(MIME_TYPE not in b for b in live_updates)
    assert MIME_TYPE in final and "text/html" in final
    screen = FakeDisplay(clock)
    with rec, LiveTrace(rec, interval=0.1, clock=clock, display=screen):
        op_steps(3, clock, 0.2)
    assert all(MIME_TYPE in b for b in screen.handle.updates)


def test_an_unchanged_trace_is_not_sent_again(clock):
    screen = FakeDisplay(clock)
    rec = paddle.debug.record()
    with rec, LiveTrace(rec, clock=clock, display=screen) as live:
        op_steps(1, clock, 0.0)
        live.refresh()
        live.refresh()
        assert live.updates == 1


def test_a_failing_display_never_breaks_the_loop(clock):
    screen = FakeDisplay(clock)
    screen.handle.fail = True
    rec = paddle.debug.record()
    with rec, LiveTrace(rec, interval=0.1, clock=clock, display=screen) as live:
        op_steps(10, clock, 0.1)
        assert live.error == "RuntimeError: front end went away" and live.updates == 0
    assert len(rec.trace.nodes) == 10


def test_a_trace_getter_works_as_source(clock):
    screen = FakeDisplay(clock)
    rec = paddle.debug.record()
    with rec, LiveTrace(lambda: rec.trace, interval=0.1, clock=clock, display=screen) as live:
        op_steps(2, clock, 0.2)
    assert live.updates == 3


def test_bad_arguments_are_clear_errors():
    with pytest.raises(InvalidArgument, match="interval=0, expected a number of seconds > 0"):
        LiveTrace(paddle.debug.record(), interval=0)
    with pytest.raises(InvalidArgument, match="got a int as source"):
        LiveTrace(3)
