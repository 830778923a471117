"""paddle.device.cuda: NVIDIA GPUs as numba.cuda sees them (none, on a machine without one)."""
from __future__ import annotations

from ..framework import device_memory, gpu
from ..framework.errors import invalid_argument, unavailable

__all__ = ["device_count", "synchronize", "empty_cache", "current_device", "memory_allocated",
           "max_memory_allocated", "memory_reserved", "max_memory_reserved", "reset_max_memory_allocated",
           "reset_max_memory_reserved", "memory_stats"]


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
    """Give the GPU memory the pool keeps for reuse back to the driver (arrays in use stay)."""
    for pool in device_memory.POOLS.values():
        pool.empty_cache()


def _pool(api: str, device) -> "device_memory.BlockPool | None":
    """The pool of `device` (None, an id, "gpu:1" or a CUDAPlace); None under the simulator or with the pool off."""
    if not gpu.available():
        raise unavailable(api, "no CUDA GPU is available here, so there is no GPU memory to count.",
                          hint="paddle.device.is_compiled_with_cuda() says whether a GPU is there.")
    if device is None:
        device_id = gpu.current_device_id()
    elif isinstance(device, int) and not isinstance(device, bool):
        device_id = device
    elif isinstance(device, str) and device.startswith("gpu"):
        device_id = int(device.partition(":")[2] or 0)
    elif hasattr(device, "get_device_id"):
        device_id = device.get_device_id()
    else:
        raise invalid_argument(api, f"device got {device!r}, expected None, a GPU id, 'gpu:N' or a CUDAPlace.")
    return device_memory.pool(device_id)


def memory_allocated(device=None) -> int:
    """Bytes of GPU memory held by tensors now (rounded to the pool's block sizes).

    0 where no pool serves the GPU: numba's simulator, or FLAGS_allocator_strategy='naive_best_fit'."""
    pool = _pool("memory_allocated", device)
    return 0 if pool is None else pool.allocated


def max_memory_allocated(device=None) -> int:
    """The most bytes tensors held at once since the start (or the last reset_max_memory_allocated)."""
    pool = _pool("max_memory_allocated", device)
    return 0 if pool is None else pool.peak_allocated


def memory_reserved(device=None) -> int:
    """Bytes taken from the driver: what tensors hold plus what the pool keeps for reuse."""
    pool = _pool("memory_reserved", device)
    return 0 if pool is None else pool.reserved


def max_memory_reserved(device=None) -> int:
    """The most bytes taken from the driver at once."""
    pool = _pool("max_memory_reserved", device)
    return 0 if pool is None else pool.peak_reserved


def reset_max_memory_allocated(device=None) -> None:
    """Start max_memory_allocated (and max_memory_reserved) again from what is held now."""
    pool = _pool("reset_max_memory_allocated", device)
    if pool is not None:
        pool.reset_peaks()


reset_max_memory_reserved = reset_max_memory_allocated


def memory_stats(device=None) -> dict:
    """The pool's numbers: allocated, reserved, their peaks, cached bytes, hits, misses and the hit rate."""
    pool = _pool("memory_stats", device)
    return {} if pool is None else pool.stats()
