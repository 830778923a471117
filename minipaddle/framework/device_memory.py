"""A caching pool for GPU memory, and the numbers `paddle.device.cuda.memory_allocated()` reads.

A training step allocates and frees the same sizes every step: activations, gradients, temporaries.
Asking the driver each time is slow (cuMemAlloc takes microseconds; cuMemFree waits for the device),
so freed blocks are kept by size class and handed to the next request of that class, as Paddle's
auto_growth allocator and PyTorch's caching allocator do:

    pool = BlockPool(raw_alloc)          # raw_alloc(nbytes) -> a handle that owns device memory
    size, block = pool.allocate(1000)    # 1024 bytes: a miss, raw_alloc is called
    pool.release(size, block)            # kept, not freed
    pool.allocate(900)                   # a hit: the same block again
    pool.empty_cache()                   # cached blocks dropped: their memory goes back to the driver

The pool never hands out a block that is still in use: a block comes back only through `release`,
which the GPU side (kernels/cuda/memory_pool.py) calls from the finalizer numba runs once the last
array or view on that memory is gone. This module holds no numba: it is pure bookkeeping, tested on
any machine.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Callable

SMALL_LIMIT = 1 << 20      # requests up to 1 MiB round up to 512 bytes ...
SMALL_STEP = 512
LARGE_STEP = 1 << 17       # ... larger ones to 128 KiB, so a slightly different size still finds a block


def size_class(nbytes: int) -> int:
    """The block size a request of `nbytes` gets (at least 512 bytes)."""
    step = SMALL_STEP if nbytes <= SMALL_LIMIT else LARGE_STEP
    return max(step, -(-nbytes // step) * step)


class BlockPool:
    """Device blocks by size class: `allocate` reuses a cached block or asks `raw_alloc`; `release` caches.

    `out_of_memory(exc)` says whether an exception from `raw_alloc` means the device is full; then the
    cache is emptied and the allocation tried once more before the error reaches the user.
    """

    def __init__(self, raw_alloc: Callable[[int], object],
                 out_of_memory: Callable[[BaseException], bool] = lambda exc: False) -> None:
        self._raw_alloc = raw_alloc
        self._out_of_memory = out_of_memory
        self._cached: dict[int, list] = defaultdict(list)
        self.allocated = 0          # bytes in blocks handed out and not yet released
        self.reserved = 0           # bytes held from the driver: handed out + cached
        self.peak_allocated = 0
        self.peak_reserved = 0
        self.hits = 0
        self.misses = 0

    def allocate(self, nbytes: int) -> tuple[int, object]:
        """(block size, block) for a request of `nbytes`."""
        size = size_class(nbytes)
        free = self._cached.get(size)
        if free:
            block = free.pop()
            self.hits += 1
        else:
            block = self._new_block(size)
            self.misses += 1
            self.reserved += size
            self.peak_reserved = max(self.peak_reserved, self.reserved)
        self.allocated += size
        self.peak_allocated = max(self.peak_allocated, self.allocated)
        return size, block

    def _new_block(self, size: int):
        try:
            return self._raw_alloc(size)
        except Exception as exc:
            if not self._out_of_memory(exc) or not self.cached_bytes():
                raise
        self.empty_cache()
        return self._raw_alloc(size)

    def release(self, size: int, block) -> None:
        """`block` (of `size` bytes) is no longer used by anyone: keep it for the next request of its class."""
        self.allocated -= size
        self._cached[size].append(block)

    def cached_bytes(self) -> int:
        return sum(size * len(blocks) for size, blocks in self._cached.items())

    def empty_cache(self) -> None:
        """Drop every cached block; their owners give the memory back to the driver."""
        self.reserved -= self.cached_bytes()
        self._cached.clear()

    def reset_peaks(self) -> None:
        self.peak_allocated = self.allocated
        self.peak_reserved = self.reserved

    def stats(self) -> dict:
        requests = self.hits + self.misses
        return {"allocated": self.allocated, "reserved": self.reserved, "peak_allocated": self.peak_allocated,
                "peak_reserved": self.peak_reserved, "cached": self.cached_bytes(), "hits": self.hits,
                "misses": self.misses, "hit_rate": self.hits / requests if requests else 0.0}


POOLS: dict[int, BlockPool] = {}   # GPU id -> its pool, filled by kernels/cuda/memory_pool.py


def pool(device_id: int = 0) -> BlockPool | None:
    """GPU `device_id`'s pool, or None when no pool serves it (no GPU, the simulator, or the pool off)."""
    return POOLS.get(device_id)
