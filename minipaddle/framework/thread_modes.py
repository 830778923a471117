"""Per-thread modes: what an op call reads about *how* to run, kept separately for each thread.

    from minipaddle.framework.thread_modes import modes
    modes.grad_enabled     # False inside `paddle.no_grad()`, optimizer.step() and a plain backward
    modes.static_builder   # set while this thread builds a static Program (enable_static, program_guard)
    modes.layer_stack      # the nn.Layers whose forward runs in this thread, innermost last

PyTorch keeps grad mode per thread, and Paddle keeps its dygraph/static switch per thread: one thread
may train while another runs inference under `no_grad`, and two threads may each train their own
model. So these live on one `threading.local` object. A thread starts with the class defaults below
(grad on, eager, no layer running) -- also a thread started inside a `no_grad` block, as in PyTorch.
The dispatch path reads `modes` once or twice per op call; a thread-local read costs a few tens of
nanoseconds, measured in benchmarks/op_overhead.py.

What stays process-wide, and why (an audit of the framework's module globals):
  * instrument.subscribers / update_subscribers -- a recorder or profiler hears every thread, as a
    profiler of the whole process should; events carry live objects, not the thread's modes.
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
"""
from __future__ import annotations

import threading

# How many threads have grad mode off / are building a Program right now. A thread-local read costs
# ~50 ns and a module global ~10 ns, so dispatch reads these counts first and looks at its own thread's
# mode only when some thread has switched: a script with one thread and no `no_grad` pays nothing for
# threads. The counts are kept by the setters below (under a lock) and by `_ThreadExit` when a thread
# ends with a mode still switched on.
threads_without_grad = 0
threads_building = 0
_count_lock = threading.Lock()


def _count(grad_off: int = 0, building: int = 0) -> None:
    global threads_without_grad, threads_building
    with _count_lock:
        threads_without_grad += grad_off
        threads_building += building


class _ThreadExit:
    """Lives in one thread's ThreadModes; freed when the thread ends, it takes back that thread's counts."""

    def __init__(self) -> None:
        self.grad_off = 0
        self.building = 0

    def __del__(self) -> None:
        if self.grad_off or self.building:
            _count(-self.grad_off, -self.building)


class ThreadModes(threading.local):
    """The calling thread's modes. Class attributes are the defaults every new thread starts with."""

    _grad_enabled: bool = True
    _static_builder = None  # build_op (framework/static/builder.py) while this thread builds a Program

    def __init__(self) -> None:
        # Called once in each thread, on its first read: a mutable default must be the thread's own.
        self.layer_stack: list[list] = []
        self._exit = _ThreadExit()

    @property
    def grad_enabled(self) -> bool:
        return self._grad_enabled

    @grad_enabled.setter
    def grad_enabled(self, value: bool) -> None:
        value = bool(value)
        if value != self._grad_enabled:
            off = -1 if value else 1
            _count(grad_off=off)
            self._exit.grad_off += off
            self._grad_enabled = value

    @property
    def static_builder(self):
        return self._static_builder

    @static_builder.setter
    def static_builder(self, builder) -> None:
        change = (builder is not None) - (self._static_builder is not None)
        if change:
            _count(building=change)
            self._exit.building += change
        self._static_builder = builder


modes = ThreadModes()
