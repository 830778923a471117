"""Per-thread modes: what an op call reads about *how* to run, kept separately for each thread.

    from minipaddle.framework.thread_modes import modes
    modes.grad_enabled     # False inside `paddle.no_grad()`, optimizer.step() and a plain backward
    modes.static_builder   # set while this thread builds a static Program (enable_static, program_guard)
    modes.layer_stack      # the nn.Layers whose forward runs in this thread, innermost last

PyTorch keeps grad mode per thread, and Paddle keeps its dygraph/static switch per thread: one thread
may train while another runs inference under `no_grad`, and two threads may each train their own
model. A thread starts with the defaults (grad on, eager, no layer running) -- also a thread started
inside a `no_grad` block, as in PyTorch. A mode added later (autocast, for one) belongs here too.
The layer stack lives on a `threading.local`; grad-off and static mode are kept as sets of thread
ids, which dispatch reads more cheaply (see below; benchmarks/op_overhead.py measures that path).

What stays process-wide, and why (an audit of the framework's module globals):
  * instrument.subscribers / listeners -- `paddle.debug.record()` and the profiler hear every
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

import threading
from threading import get_ident

# Grad mode off and static mode on are kept as *which threads* have them: a set of thread ids and a
# dict {thread id: builder}. Dispatch tests them first -- one module-global truthiness check while no
# thread has switched anything, which is every forward pass of a one-thread script -- and only then
# asks whether the calling thread is among them (`get_ident() in ...`, a C call and a set lookup,
# about ten times cheaper than reading a threading.local). set.add / dict assignment and their
# removal are atomic under the GIL: no lock. A thread that ends with a mode still switched leaves
# them through `_ThreadExit`, so a new thread that gets the same id starts with the defaults.
threads_without_grad: set[int] = set()
threads_building: dict[int, object] = {}   # thread id -> build_op (framework/static/builder.py)
_watched: set[int] = set()                 # threads that have a _ThreadExit


class _ThreadExit:
    """Lives in one thread's ThreadModes; freed when the thread ends, it takes the thread's id out."""

    def __init__(self, ident: int) -> None:
        self.ident = ident
        # held here: at interpreter exit the module's globals may be gone before this runs
        self.registries = (threads_without_grad, threads_building, _watched)

    def __del__(self) -> None:
        without_grad, building, watched = self.registries
        without_grad.discard(self.ident)
        building.pop(self.ident, None)
        watched.discard(self.ident)


def _watch_exit(ident: int) -> None:
    if ident not in _watched:
        modes._exit = _ThreadExit(ident)
        _watched.add(ident)


def set_grad(enabled: bool) -> None:
    """Switch the calling thread's grad mode (what no_grad, backward and optimizer.step do)."""
    ident = get_ident()
    if enabled:
        threads_without_grad.discard(ident)
    else:
        _watch_exit(ident)
        threads_without_grad.add(ident)


def grad_enabled() -> bool:
    """The calling thread's grad mode."""
    return not threads_without_grad or get_ident() not in threads_without_grad


def set_static_builder(builder) -> None:
    """Start (`build_op`) or stop (None) building a Program in the calling thread."""
    ident = get_ident()
    if builder is None:
        threads_building.pop(ident, None)
    else:
        _watch_exit(ident)
        threads_building[ident] = builder


def static_builder():
    """The calling thread's Program builder, or None in eager mode."""
    return threads_building.get(get_ident()) if threads_building else None


class ThreadModes(threading.local):
    """The calling thread's modes, as attributes. A new thread starts with grad on, eager, no layer."""

    def __init__(self) -> None:
        # Called once in each thread, on its first use: a mutable default must be the thread's own.
        self.layer_stack: list[list] = []
        self._exit: _ThreadExit | None = None  # made when the thread first switches a mode

    @property
    def grad_enabled(self) -> bool:
        return grad_enabled()

    @grad_enabled.setter
    def grad_enabled(self, value: bool) -> None:
        set_grad(bool(value))

    @property
    def static_builder(self):
        return static_builder()

    @static_builder.setter
    def static_builder(self, builder) -> None:
        set_static_builder(builder)


modes = ThreadModes()


# ---- CPU thread pools: numba's and OpenBLAS's, one policy ----------------------------------------
# Two thread pools share the cores: numba's (OpenMP, for `prange` loops) and OpenBLAS's (numpy's
# matrix products; OMP_NUM_THREADS / OPENBLAS_NUM_THREADS size it). Each spin-waits for more work
# after a call by default, and on a machine with few cores a pool spinning while the other works
# halves or worse the speed of both (measured on 2 cores: a 128x784 @ 784x256 product right after a
# parallel loop took 11.7 ms instead of 0.32 ms). The policy every CPU kernel follows:
#   1. numba's threads sleep as soon as a loop ends (OMP_WAIT_POLICY=PASSIVE, unless the user set
#      it), so OpenBLAS finds the cores free;
#   2. BLAS is never called from inside a parallel loop: a kernel runs its numba loop (im2col,
#      col2im, pooling), then its BLAS products -- the two pools take turns, never nest;
#   3. a loop over less than PARALLEL_MIN_BYTES of memory runs on one thread: waking the pool costs
#      more than the loop (`cpu_threads_for`);
#   4. threaded kernels are never the default, only candidates the autotuner times: on a machine
#      whose cores other processes also use, a second thread often waits more than it works
#      (measured on the shared 2-core machine: LeNet's pooling and conv kernels ran 10-40% slower
#      threaded). conv2d and its input gradient call BLAS once per image, below the size at which
#      OpenBLAS starts its threads, so its pool stays asleep through them too.
PARALLEL_MIN_BYTES = 1 << 19   # 512 KiB: LeNet's first pooling (1.2 MB) splits, its second (0.4 MB) not


def prepare_numba_threads() -> None:
    """Call before numba's first parallel loop runs (kernel modules do it on import)."""
    import os
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def cpu_threads_for(nbytes: int) -> int:
    """How many threads a numba loop over `nbytes` of memory should use (1 means the serial loop)."""
    if nbytes < PARALLEL_MIN_BYTES:
        return 1
    import numba
    return numba.get_num_threads()


# ---- CPU memory: freed large arrays keep their pages --------------------------------------------
# glibc serves an allocation above its mmap threshold with fresh pages from the kernel, which zeroes
# each 4 KiB page on first touch, and returns them when the array is freed (the threshold starts at
# 128 KiB and adapts up to 32 MiB, but trimming the heap's top gives pages back again). A training step
# allocates and frees the same large arrays every step (im2col columns, padded copies, gradients), so
# it paid those page faults every step: ResNet-18 at batch 32, one thread, 133 -> 114 ms a step with
# the pages kept (medians of alternated processes). So large arrays come from the heap (the mmap
# threshold at glibc's maximum, 32 MiB) and up to KEEP_FREED_BYTES of freed memory stays mapped for
# the next step instead of going back to the kernel at once.
LARGE_ARRAY_HEAP_BYTES = 32 << 20
KEEP_FREED_BYTES = 256 << 20
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters
_malloc_prepared: list[bool] = []


def keep_freed_pages() -> bool:
    """Once per process (kernel modules call it on import): set glibc's malloc to keep freed large
    arrays' pages. Returns whether it did; not on other C libraries, nor when the user set
    MALLOC_MMAP_THRESHOLD_ or MALLOC_TRIM_THRESHOLD_ (their choice stands)."""
    import os
    if _malloc_prepared:
        return _malloc_prepared[0]
    done = False
    chosen = any(name in os.environ for name in ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_"))
    mallopt = None if chosen else _glibc_function("mallopt")
    if mallopt is not None:
        done = bool(mallopt(_M_MMAP_THRESHOLD, LARGE_ARRAY_HEAP_BYTES) and mallopt(_M_TRIM_THRESHOLD, KEEP_FREED_BYTES))
    _malloc_prepared.append(done)
    return done


def _glibc_function(name: str):
    """glibc's function `name` through ctypes, or None (another C library, or a glibc without it)."""
    import platform
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return None
    import ctypes
    try:
        return getattr(ctypes.CDLL(None), name)
    except (OSError, AttributeError):
        return None


def host_memory_counters() -> dict:
    """This process's page faults so far (each a 4 KiB page the kernel had to hand over and zero:
    memory that was not reused), the bytes malloc holds free for reuse (glibc's mallinfo2; None
    elsewhere), and whether keep_freed_pages is on. The profiler reads it at both ends of a window."""
    import resource
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    return {"page_faults": int(faults), "page_bytes": resource.getpagesize(),
            "heap_free_bytes": _heap_free_bytes(), "keeps_freed_pages": bool(_malloc_prepared and _malloc_prepared[0])}


def _heap_free_bytes() -> int | None:
    mallinfo2 = _glibc_function("mallinfo2")  # (glibc 2.33 and later)
    if mallinfo2 is None:
        return None
    import ctypes

    class MallInfo2(ctypes.Structure):
        _fields_ = [(name, ctypes.c_size_t) for name in
                    ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
                     "fordblks", "keepcost")]
    mallinfo2.restype = MallInfo2
    return int(mallinfo2().fordblks)
