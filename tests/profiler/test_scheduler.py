"""make_scheduler and the (start, end) tuple: which steps are closed, ready, recorded."""
from __future__ import annotations

import pytest

from minipaddle.framework.errors import InvalidArgument
from minipaddle.profiler import ProfilerState, make_scheduler
from minipaddle.profiler.scheduler import scheduler_from_range

C, R, REC, RAR = ProfilerState.CLOSED, ProfilerState.READY, ProfilerState.RECORD, ProfilerState.RECORD_AND_RETURN


def test_cycle_closed_ready_record_then_return():
    sched = make_scheduler(closed=1, ready=1, record=3, repeat=0)
    assert [sched(i) for i in range(10)] == [C, R, REC, REC, RAR, C, R, REC, REC, RAR]


def test_repeat_and_skip_first():
    sched = make_scheduler(closed=0, ready=1, record=2, repeat=2, skip_first=2)
    assert [sched(i) for i in range(10)] == [C, C, R, REC, RAR, R, REC, RAR, C, C]


def test_one_record_step_is_record_and_return():
    sched = make_scheduler(closed=2, ready=0, record=1)
    assert [sched(i) for i in range(6)] == [C, C, RAR, C, C, RAR]


def test_tuple_records_start_to_end_once():
    sched = scheduler_from_range(2, 5)
    assert [sched(i) for i in range(8)] == [C, R, REC, REC, RAR, C, C, C]
    sched0 = scheduler_from_range(0, 2)
    assert [sched0(i) for i in range(4)] == [REC, RAR, C, C]


@pytest.mark.parametrize("kwargs, message", [
    ({"closed": -1, "ready": 0, "record": 1}, "closed=-1"),
    ({"closed": 0, "ready": 0, "record": 0}, "record=0"),
    ({"closed": 0, "ready": 0, "record": 1.5}, "record=1.5"),
    ({"closed": 0, "ready": 0, "record": 1, "repeat": True}, "repeat=True"),
])
def test_bad_counts_are_named(kwargs, message):
    with pytest.raises(InvalidArgument, match=message):
        make_scheduler(**kwargs)


def test_bad_ranges():
    with pytest.raises(InvalidArgument, match="end must be greater than start"):
        scheduler_from_range(3, 3)
    with pytest.raises(InvalidArgument, match="start must be an integer >= 0"):
        scheduler_from_range(-1, 3)
