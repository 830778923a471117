"""Per-thread modes: what an op call reads about *how* to run, kept separately for each thread.

    from minipaddle.framework.thread_modes import modes
    modes.grad_enabled     # False inside `paddle.no_grad()`, optimizer.step() and a plain backward
    modes.static_builder   # set while this thread builds a static Program (enable_static, program_guard)
    modes.layer_stack      # the nn.Layers whose forward runs in this thread, innermost last

PyTorch keeps grad mode per thread, and Paddle keeps its dygraph/static switch per thread: one thread
may train while another runs inference under `no_grad`, and two threads may each train their own
model. So these live on one `threading.local` object. A thread starts with the class defaults below
(grad on, eager, no layer running) -- also a thread started inside a `no_grad` block, as in PyTorch.
A mode added later (autocast, for one) belongs here too. The dispatch path reads these modes only
after a process-wide count says some thread has switched one (see below); benchmarks/op_overhead.py
measures that path.

What stays process-wide, and why (an audit of the framework's module globals):
  * instrument.subscribers / update_subscribers -- `paddle.debug.record()` and the profiler hear every
    thread, as a profiler of the whole process should (a recording made while two threads run holds
    both threads' ops, each under its own thread's layer path); events carry live objects, not modes.
  * the default main and startup Programs (framework/static/builder.py) -- Paddle's are process-wide,
    so a Program built in one thread can be run in another; `program_guard` and `op_role` are
    per-thread (static/builder.py keeps them in its own thread-local).
  * the op registry, kernel choices (`OpDef._chosen`, registry._preferred, kernel_hook) and the
    autotuner's table -- caches of facts about kernels, the same for every thread.
  * paddle.seed's generator (creation._rng), the default dtype (dtype._default_float), the current
    place (place._current) and the global Scope -- process settings in Paddle too, set once at the
    top of a script; counters for names (tensor._names, node.sequence) only need to be unique.
  * amp.debugging's tensor checker and the profiler's hooks -- process-wide switches, like the
    subscribers they install.
  * `paddle.utils.unique_name.guard()` (parameter._counters) -- Paddle's name generator is one per
    process too; a guard in one thread restarts the names other threads draw while it is open.
"""
from __future__ import annotations

import itertools
import threading

# The threads whose grad mode is off / that are building a Program right now (a key per thread). A
# thread-local read costs ~50 ns and a module global ~10 ns, so dispatch tests these sets first and
# looks at its own thread's mode only when some thread has switched one: a script with one thread and no
# `no_grad` pays nothing for threads. set.add and set.discard are atomic under the GIL, so no lock;
# `_ThreadExit` takes a thread out of both when the thread ends with a mode still switched on.
threads_without_grad: set[int] = set()
threads_building: set[int] = set()
_keys = itertools.count()


class _ThreadExit:
    """Lives in one thread's ThreadModes; freed when the thread ends, it takes the thread out of the sets."""

    def __init__(self, key: int) -> None:
        self.key = key

    def __del__(self) -> None:
        threads_without_grad.discard(self.key)
        threads_building.discard(self.key)


class ThreadModes(threading.local):
    """The calling thread's modes. Class attributes are the defaults every new thread starts with."""

    _grad_enabled: bool = True
    _static_builder = None  # build_op (framework/static/builder.py) while this thread builds a Program

    def __init__(self) -> None:
        # Called once in each thread, on its first read: a mutable default must be the thread's own.
        self.layer_stack: list[list] = []
        self._key = next(_keys)
        self._exit = _ThreadExit(self._key)

    @property
    def grad_enabled(self) -> bool:
        return self._grad_enabled

    @grad_enabled.setter
    def grad_enabled(self, value: bool) -> None:
        if value:
            self._grad_enabled = True
            threads_without_grad.discard(self._key)
        else:
            threads_without_grad.add(self._key)
            self._grad_enabled = False

    @property
    def static_builder(self):
        return self._static_builder

    @static_builder.setter
    def static_builder(self, builder) -> None:
        if builder is None:
            self._static_builder = None
            threads_building.discard(self._key)
        else:
            threads_building.add(self._key)
            self._static_builder = builder


modes = ThreadModes()
