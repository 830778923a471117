"""paddle.device.cuda: NVIDIA GPUs as numba.cuda sees them (none, on a machine without one)."""
from __future__ import annotations

from ..framework.place import cuda_available

__all__ = ["device_count", "synchronize", "empty_cache"]


def device_count() -> int:
    """How many CUDA GPUs numba.cuda sees (0 without a GPU or without numba.cuda)."""
    if not cuda_available():
        return 0
    from numba import cuda
    return len(cuda.gpus)


def synchronize(device=None) -> None:
    """Wait for queued GPU work; minipaddle's ops finish before they return, so there is none."""
    return None


def empty_cache() -> None:
    """Give cached GPU memory back; minipaddle keeps no GPU cache, so this does nothing."""
    return None
