"""CUDA kernel tests: on a GPU when there is one, else under numba's CUDA simulator.

numba reads NUMBA_ENABLE_CUDASIM once, when it is first imported, and the simulator would make the
rest of the suite believe a GPU is present. So this folder runs as its own pytest process:

    pytest tests/device/cuda                          # simulator here; the GPU where one is present
    NUMBA_ENABLE_CUDASIM=0 pytest tests/device/cuda   # insist on the GPU

The simulator is switched on here only when nothing set the variable, numba is not imported yet, no
NVIDIA device is present, and pytest was asked for this folder alone. Otherwise, without the simulator
or a GPU, every test here is skipped with the reason.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def _asked_for_this_folder_only() -> bool:
    paths = [a.split("::")[0] for a in sys.argv[1:] if not a.startswith("-")]
    paths = [Path(p).resolve() for p in paths if os.path.exists(p)]
    return bool(paths) and all(p == HERE or HERE in p.parents for p in paths)


def _nvidia_device_present() -> bool:
    return os.path.exists("/dev/nvidiactl") or os.path.exists("/dev/nvidia0")


if ("NUMBA_ENABLE_CUDASIM" not in os.environ and "numba" not in sys.modules
        and not _nvidia_device_present() and _asked_for_this_folder_only()):
    os.environ["NUMBA_ENABLE_CUDASIM"] = "1"


if "NUMBA_ENABLE_CUDASIM" in os.environ and os.environ["NUMBA_ENABLE_CUDASIM"] not in ("", "0"):
    # The simulator runs each GPU thread as a Python thread and meets every syncthreads() at a barrier;
    # with CPython's default 5 ms GIL switch interval a barrier of 32 threads costs a good part of a
    # second on 2 cores. Switching threads more often makes the folder ~40x faster.
    sys.setswitchinterval(1e-5)

    def _thread_safe_shared_arrays() -> None:
        """The simulator allocates a block's shared array when the first thread reaches the line,
        unlocked: with threads switching this often, two threads may each allocate one and compute
        on different tiles. The same allocation (keyed by the calling line, as numba's), under a lock."""
        import threading

        import numpy as np
        from numba.core import types
        from numba.cuda.simulator import kernelapi
        from numba.np import numpy_support
        dynamic = kernelapi.FakeCUDAShared.array
        lock = threading.Lock()

        def array(self, shape, dtype):
            if shape == 0:  # dynamic shared memory: one buffer, no allocation to race on
                return dynamic(self, shape, dtype)
            if isinstance(dtype, types.Type):
                dtype = numpy_support.as_dtype(dtype)
            frame = sys._getframe(1)
            caller = (frame.f_code.co_filename, frame.f_lineno)
            with lock:
                res = self._allocations.get(caller)
                if res is None:
                    res = self._allocations[caller] = np.empty(shape, dtype)
            return res
        kernelapi.FakeCUDAShared.array = array

    def _thread_safe_module_swap() -> None:
        """Each simulated call of a device function walks the function's module globals to swap
        `cuda` for the fake module. A thread's first RuntimeWarning in that module (x / 0 in a
        primitive) adds `__warningregistry__` to the same dict meanwhile, and the walk fails with
        "dictionary changed size during iteration". Walk an atomic copy instead."""
        from contextlib import contextmanager

        from numba.cuda.simulator import kernel

        @contextmanager
        def swapped_cuda_module(fn, fake_cuda_module):
            from numba import cuda
            fn_globs = fn.__globals__
            orig = {k: v for k, v in dict(fn_globs).items() if v is cuda}
            fn_globs.update(dict.fromkeys(orig, fake_cuda_module))
            try:
                yield
            finally:
                fn_globs.update(orig)
        kernel.swapped_cuda_module = swapped_cuda_module

    _thread_safe_shared_arrays()
    _thread_safe_module_swap()


def _why_not_runnable() -> str | None:
    import numba
    if numba.config.ENABLE_CUDASIM:
        return None
    from numba import cuda
    if cuda.is_available():
        return None
    return ("no GPU and no CUDA simulator in this process: run `pytest tests/device/cuda` on its own "
            "(it turns the simulator on), or set NUMBA_ENABLE_CUDASIM=1 before numba is imported")


def pytest_collection_modifyitems(config, items):
    reason = _why_not_runnable()
    if reason is None:
        return
    skip = pytest.mark.skip(reason=reason)
    for item in items:
        if HERE in Path(str(item.fspath)).resolve().parents:
            item.add_marker(skip)


def pytest_report_header(config):
    import numba
    return f"CUDA kernels run on: {'the numba CUDA simulator' if numba.config.ENABLE_CUDASIM else 'the GPU'}"
