"""numba's device allocations through minipaddle's caching pool (framework/device_memory.py).

numba lets a program replace how it allocates device memory (its External Memory Management plugin
interface): every `cuda.device_array`, every kernel output, goes through the plugin's `memalloc`.
`PoolingMemoryManager` is numba's own manager with one change: `memalloc` takes a block from the
pool, and the pointer it returns carries a finalizer that hands the block back to the pool (instead
of to cuMemFree) when numba drops the last array or view on it. A block numba allocated for the pool
is freed by numba when the pool drops it (`empty_cache`).

`install()` must run before the first CUDA context is made; `framework/gpu.py` calls it when the GPU
is first used and `FLAGS_allocator_strategy` is "auto_growth" (the default). numba's simulator has
no device memory and no plugin interface, so there the pool stays off.
"""
from __future__ import annotations

import functools
import weakref

from numba import cuda
from numba.cuda.cudadrv.driver import CudaAPIError, MemoryPointer, NumbaCUDAMemoryManager

from ... import device_memory

CUDA_ERROR_OUT_OF_MEMORY = 2


def _out_of_memory(exc: BaseException) -> bool:
    try:  # the code is an int, or an IntEnum under NVIDIA's bindings
        return isinstance(exc, CudaAPIError) and int(exc.code) == CUDA_ERROR_OUT_OF_MEMORY
    except (TypeError, ValueError):
        return False


class PoolingMemoryManager(NumbaCUDAMemoryManager):
    """numba's memory manager, with device allocations served from `device_memory.POOL`."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.pool = device_memory.BlockPool(self._raw_alloc, _out_of_memory)
        if self.context is not None:  # numba makes one manager without a context to check the plugin
            device_memory.POOLS[self.context.device.id] = self.pool

    def _raw_alloc(self, size: int):
        return NumbaCUDAMemoryManager.memalloc(self, size)

    def memalloc(self, size: int):
        block_size, block = self.pool.allocate(size)
        # the finalizer keeps `block` (numba's owning pointer) alive until the pool drops it
        return MemoryPointer(weakref.proxy(self.context), block.device_pointer, block_size,
                             finalizer=functools.partial(self.pool.release, block_size, block))

    def reset(self) -> None:
        self.pool.empty_cache()
        super().reset()


def install() -> None:
    """Serve numba's device allocations from the pool (before the first CUDA context)."""
    cuda.set_memory_manager(PoolingMemoryManager)
