"""What the debugger sees of a GPU op: the kernels it launched (grid, block) and its time on the device.

A GPU op returns as soon as its kernels are queued, so the host's clock says little about it.
While the debugger records, `_dispatch_traced` (dispatch.py) wraps each GPU op in a `DeviceTiming`:

    timing = DeviceTiming()            # a CUDA event is recorded on the stream; launches are noted
    result = run_kernel(...)           # each launch(kernel, grid, block, ...) appends to timing.launches
    device_time_ns = timing.stop()     # a second event, wait for it, the time between the two

Every kernel of kernels/cuda starts through `launch()` (kernels/cuda/launch.py), which appends
(kernel, grid, block) to this thread's `launch_log.launches` -- a list only while a traced op runs,
else None, so that untraced code pays one attribute read per launch.

Under numba's CUDA simulator the events carry no time (kernels run on the host, one Python thread
per GPU thread), so there the device time is the host time between the two events.

Importing this module imports no numba: it reaches numba.cuda through gpu.cuda(), once a GPU op runs.
"""
from __future__ import annotations

import threading
import time
from typing import NamedTuple

from . import gpu


class _LaunchLog(threading.local):
    launches: list | None = None  # the running traced op's (kernel, grid, block); None: nobody is looking


launch_log = _LaunchLog()


class Launch(NamedTuple):
    """One kernel launch as the trace shows it: `matmul_tiled_kernel` on grid (1, 1, 1) x block (16, 16, 1)."""
    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]


def dim3(dims) -> tuple[int, int, int]:
    """A launch dimension as CUDA's dim3: 4 -> (4, 1, 1), (2, 3) -> (2, 3, 1)."""
    if isinstance(dims, (tuple, list)):
        values = [int(d) for d in dims]
    else:
        values = [int(dims)]
    return tuple(values + [1] * (3 - len(values)))[:3]


def kernel_name(kernel) -> str:
    """The name a CUDA kernel was written under ("matmul_tiled_kernel", or "gelu_float32" for a
    kernel made from a template by launch.specialize)."""
    fn = getattr(kernel, "py_func", kernel)
    return getattr(fn, "__name__", type(kernel).__name__)


def _simulated() -> bool:
    import numba  # (loaded already: gpu.cuda() imported numba.cuda)
    return bool(numba.config.ENABLE_CUDASIM)


class DeviceTiming:
    """The device side of one traced GPU op: its launches and the time between two CUDA events.

    Nested timings (a kernel that runs another op's kernel) each see their own launches: the outer
    list is put back when the inner one stops.
    """
    __slots__ = ("_start", "_end", "_host_start", "_outer", "launches")

    def __init__(self) -> None:
        cuda = gpu.cuda()
        self._outer = launch_log.launches
        self.launches: list = []
        launch_log.launches = self.launches
        self._start = cuda.event()
        self._end = cuda.event()
        self._host_start = time.perf_counter_ns()
        self._start.record()

    def stop(self) -> int:
        """Wait for the op's kernels to finish; its time on the device in nanoseconds."""
        launch_log.launches = self._outer
        self._end.record()
        self._end.synchronize()
        if _simulated():
            return time.perf_counter_ns() - self._host_start
        return round(self._start.elapsed_time(self._end) * 1e6)  # elapsed_time is in milliseconds

    def abandon(self) -> None:
        """The op raised: stop noting launches, measure nothing."""
        launch_log.launches = self._outer

    def launch_records(self) -> list[Launch]:
        return [Launch(kernel_name(kernel), dim3(grid), dim3(block)) for kernel, grid, block in self.launches]
