"""StepRing: a recording's steps, oldest first, kept within a byte budget and a step count.

Every step (an op, a backward step, a hook, an optimizer update) holds the ids of the records it
made or used. When the ring is over its budget it drops its oldest step; a record no retained
step holds any more goes with it (`forget(record id)`), and `dropped_steps` says how many went.
Reference counts are kept only from the first drop on: most recordings never drop.

Two limits, two rules:
  * `hold_bytes` -- the memory bound, always enforced: the oldest step goes, whatever it is;
  * `max_steps`  -- never drops a step of the newest complete training iteration (nor of the one
    running): a model of 5,000 ops runs more than 10,000 steps an iteration, and the ring must not
    eat its forward pass. Without training (no backward, no update) it is a plain ring buffer.

The ring also tracks the training iterations (a forward op after a backward pass or an optimizer
update starts the next one): `iterations` holds [index, first step, loss] of each one still retained.
"""
from __future__ import annotations

from collections import deque
from typing import Callable

STEP_BYTES = 1500       # one step with its op node or update record, on average
ITERATION_BYTES = 120   # one training iteration's start and loss (iterations.py builds the rest)


class StepRing:
    """The steps of one recording and the bytes it holds (`bytes_used`, against `hold_bytes`)."""

    def __init__(self, hold_bytes: int, max_steps: int, forget: Callable[[str], None],
                 forget_step: Callable[[int], None]) -> None:
        self.hold_bytes = hold_bytes
        self.max_steps = max_steps
        self.bytes_used = 0                  # every record's estimated bytes, the steps' included
        self.steps: deque = deque()          # (step record, [ids it holds], bytes)
        self.next_step = 0
        self.dropped_steps = 0
        self.dropped_reasons: set[str] = set()
        # id -> number of retained steps holding it; counted from the first drop on (most never drop)
        self.refs: dict[str, int] | None = None
        self._forget = forget                # a record no step holds any more
        self._forget_step = forget_step      # a dropped step's index (the document cache forgets its texts)
        self.iterations: deque = deque([[0, 0, None]])
        self.iteration_done = False          # the current iteration ran backward or an update
        self.saw_training = False            # any backward pass or optimizer update at all

    # ---- training iterations ---------------------------------------------------------------
    def end_iteration(self) -> None:
        """A backward pass or an optimizer update: the next forward op starts a new iteration."""
        self.iteration_done = True
        self.saw_training = True

    def start_iteration(self, step: int) -> None:
        self.iterations.append([self.iterations[-1][0] + 1, step, None])
        self.bytes_used += ITERATION_BYTES
        self.iteration_done = False

    # ---- steps -----------------------------------------------------------------------------
    def push(self, step: dict, held: list) -> None:
        """Append `step` (holding the records `held`), then drop the oldest steps while over a limit."""
        refs = self.refs
        if refs is not None:
            for obj_id in held:
                refs[obj_id] = refs.get(obj_id, 0) + 1
        self.steps.append((step, held, STEP_BYTES))
        self.bytes_used += STEP_BYTES
        self.next_step += 1
        if self.bytes_used > self.hold_bytes or len(self.steps) > self.max_steps:
            keep_from = self.keep_from()
            while len(self.steps) > 1:
                over_bytes = self.bytes_used > self.hold_bytes  # the memory bound: always enforced
                over_steps = len(self.steps) > self.max_steps and self.steps[0][0]["index"] < keep_from
                if not (over_bytes or over_steps):
                    break
                self.dropped_reasons.add("max_bytes" if over_bytes else "max_steps")
                self.drop_oldest()

    def keep_from(self) -> int:
        """The first step `max_steps` may not drop: that of the newest complete training iteration (and so
        the one running too). Memory stays bounded by `hold_bytes`, which drops whatever it must."""
        if not self.saw_training:
            return self.next_step  # no iterations: a plain ring buffer
        iterations = self.iterations
        newest_complete = iterations[-2] if len(iterations) > 1 and not self.iteration_done else iterations[-1]
        return newest_complete[1]

    def drop_oldest(self) -> None:
        refs = self.refs
        if refs is None:  # the first drop: count what every retained step holds
            refs = self.refs = {}
            for _, step_held, _ in self.steps:
                for obj_id in step_held:
                    refs[obj_id] = refs.get(obj_id, 0) + 1
        step, held, nbytes = self.steps.popleft()
        self.dropped_steps += 1
        self.bytes_used -= nbytes
        self._forget_step(step["index"])
        iterations = self.iterations
        while len(iterations) > 1 and self.steps and iterations[1][1] <= self.steps[0][0]["index"]:
            iterations.popleft()  # all its steps are gone
            self.bytes_used -= ITERATION_BYTES
        for obj_id in held:
            count = refs[obj_id] - 1
            if count:
                refs[obj_id] = count
            else:
                del refs[obj_id]
                self._forget(obj_id)
