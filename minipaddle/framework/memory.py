"""How much memory an op's output needs, and the clear error when the machine does not have it.

numpy's own answer to `paddle.zeros([100000, 100000, 100])` is a bare MemoryError (or, when the
kernel lets the allocation through, the out-of-memory killer later). infer_meta already knows every
output's shape and dtype, so the op can say what it needs before anything is allocated:

    ResourceExhausted: zeros: the output needs 3.64 TiB (4000000000000 bytes): shape [100000, 100000, 100],
    float32; this machine has 21.9 GiB of memory available.

`check_output(op, shape, dtype)` is called where outputs are made from a shape the user gave
(creation ops); `dispatch` turns a MemoryError raised by any kernel into the same message
(`out_of_memory`), so the eager path pays nothing until an allocation fails.
"""
from __future__ import annotations

import math
import os

import numpy as np

from .errors import ResourceExhausted, resource_exhausted

# Below this many bytes an output is not checked against the machine (reading the available memory
# costs ~10 us; small outputs cannot exhaust it).
CHECK_ABOVE_BYTES = 1 << 30


def available_bytes() -> int | None:
    """Memory the machine can still give (MemAvailable), or None where it cannot be read."""
    try:
        import psutil  # optional: the most portable answer
        return int(psutil.virtual_memory().available)
    except Exception:  # noqa: BLE001 - not installed, or no answer on this platform
        pass
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def format_bytes(n: int) -> str:
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if value < 1024 or unit == "PiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.2f} {unit}"
        value /= 1024
    return f"{n} B"


def nbytes(shape, dtype) -> int:
    return math.prod(int(d) for d in shape) * np.dtype(dtype).itemsize


def _error(op: str, needed: int, what: str, available: int | None) -> ResourceExhausted:
    have = ("" if available is None else
            f"; this machine has {format_bytes(available)} ({available} bytes) of memory available")
    return resource_exhausted(op, f"the output needs {format_bytes(needed)} ({needed} bytes): {what}{have}.",
                              hint="use a smaller shape or batch, or a smaller dtype (float32 instead of float64).")


def check_output(op: str, shape: tuple[int, ...], dtype: np.dtype) -> None:
    """Raise ResourceExhausted when an output of `shape` (Python ints) and `dtype` cannot fit in the
    memory available. Cheap for the usual small output: one product, one comparison."""
    needed = math.prod(shape) * dtype.itemsize
    if needed <= CHECK_ABOVE_BYTES:
        return
    available = available_bytes()
    if available is not None and needed > available:
        raise _error(op, needed, f"shape {list(shape)}, {np.dtype(dtype)}", available)


def out_of_memory(op: str, metas) -> ResourceExhausted:
    """The error for a kernel of `op` that raised MemoryError: what its outputs (`metas`, from infer_meta) need."""
    outputs = [metas] if hasattr(metas, "shape") else list(metas or ())
    shapes = [m for m in outputs if hasattr(m, "shape") and -1 not in tuple(m.shape)]
    needed = sum(nbytes(m.shape, m.dtype) for m in shapes)
    what = ", ".join(f"shape {list(m.shape)}, {np.dtype(m.dtype)}" for m in shapes) or "its outputs"
    return _error(op, needed, what, available_bytes())
