"""paddle.device.cuda: NVIDIA GPUs as numba.cuda sees them (none, on a machine without one)."""
from __future__ import annotations

from ..framework import gpu

__all__ = ["device_count", "synchronize", "empty_cache", "current_device"]


def device_count() -> int:
    """How many CUDA GPUs numba.cuda sees (0 without a GPU or without numba.cuda)."""
    return gpu.device_count()


def current_device() -> int:
    """The id of the GPU new device arrays go to."""
    return gpu.current_device_id()


def synchronize(device=None) -> None:
    """Wait until every kernel launched so far has finished (kernel launches return at once)."""
    gpu.synchronize()


def empty_cache() -> None:
    """Give cached GPU memory back: numba frees device arrays when their tensors die; nothing is cached."""
    return None
