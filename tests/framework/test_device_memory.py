"""The GPU memory pool's bookkeeping (framework/device_memory.py), the numba plugin around it, and
what paddle.device.cuda and the profiler show of it.

The pool is pure Python, so it is tested here with host buffers standing in for device blocks; the
stand-in hands a block back exactly as numba does on the GPU, from a finalizer that runs once the last
array on it is gone.
"""
from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework import device_memory
from minipaddle.framework.device_memory import BlockPool, size_class
from minipaddle.framework.errors import Unavailable


class HostBlocks:
    """raw_alloc for the pool: numpy byte buffers, counted."""

    def __init__(self):
        self.made = 0

    def __call__(self, size: int):
        self.made += 1
        return np.zeros(size, np.uint8)


class Pointer:
    """numba's MemoryPointer in miniature: every array and view on the block holds it."""


class DeviceArray:
    """A device array in miniature: views share the pointer, as numba's DeviceNDArray views do."""

    def __init__(self, pointer: Pointer, values: np.ndarray):
        self.pointer, self.values = pointer, values

    def __getitem__(self, index):
        return DeviceArray(self.pointer, self.values[index])


def array_from(pool: BlockPool, shape, dtype=np.float32) -> DeviceArray:
    """An array on a pooled block; its pointer's finalizer hands the block back, as on the GPU."""
    nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
    size, block = pool.allocate(nbytes)
    pointer = Pointer()
    weakref.finalize(pointer, pool.release, size, block)
    return DeviceArray(pointer, block[:nbytes].view(dtype).reshape(shape))


def test_size_classes_round_small_requests_to_512_bytes_and_large_ones_to_128_kib():
    assert [size_class(n) for n in (1, 512, 513, 1 << 20)] == [512, 512, 1024, 1 << 20]
    assert size_class((1 << 20) + 1) == (1 << 20) + (1 << 17)


def test_a_released_block_is_reused_by_the_next_request_of_its_class_and_counted():
    raw = HostBlocks()
    pool = BlockPool(raw)
    size, block = pool.allocate(1000)
    assert (size, pool.allocated, pool.reserved, pool.misses) == (1024, 1024, 1024, 1)
    pool.release(size, block)
    assert (pool.allocated, pool.reserved, pool.cached_bytes()) == (0, 1024, 1024)
    again_size, again = pool.allocate(600)
    assert again is block and again_size == 1024 and raw.made == 1
    other_size, other = pool.allocate(3000)  # another class: a new block
    assert other is not block and raw.made == 2
    assert pool.stats()["hit_rate"] == pytest.approx(1 / 3)
    assert (pool.peak_allocated, pool.peak_reserved) == (1024 + 3072, 1024 + 3072)
    pool.release(other_size, other)
    pool.release(again_size, again)
    pool.empty_cache()
    assert (pool.reserved, pool.cached_bytes(), pool.allocated) == (0, 0, 0)
    pool.reset_peaks()
    assert pool.peak_allocated == 0


def test_the_pool_never_hands_out_a_block_still_in_use_across_training_like_steps():
    pool = BlockPool(HostBlocks())
    kept = []
    rng = np.random.default_rng(0)
    for step in range(20):
        temporaries = [array_from(pool, (int(rng.integers(1, 300)),)) for _ in range(5)]
        for i, t in enumerate(temporaries):
            t.values[...] = step * 100 + i
        keep = temporaries[step % 5]
        view = keep[1:]  # a view alone must keep the block out of the pool
        kept.append((step * 100 + step % 5, view))
        del temporaries, keep, t
        gc.collect()
    for value, view in kept:
        assert np.all(view.values == value)
    assert pool.hits > 0  # blocks were reused, just never those still held


def test_an_allocation_that_finds_the_device_full_empties_the_cache_and_tries_again():
    class Full(Exception):
        pass
    made = []

    def raw(size):
        if made and sum(made) + size > 2048 and not freed:
            raise Full()
        made.append(size)
        return bytearray(size)
    freed = []
    pool = BlockPool(raw, out_of_memory=lambda exc: isinstance(exc, Full))
    pool.release(*pool.allocate(2048))
    original_empty = pool.empty_cache

    def empty():
        freed.append(True)
        original_empty()
    pool.empty_cache = empty
    size, _ = pool.allocate(4096)
    assert size == 4096 and freed and pool.reserved == 4096


def test_the_numba_plugin_passes_numbas_interface_check_without_a_gpu():
    from numba.cuda.cudadrv import driver

    from minipaddle.framework.kernels.cuda import memory_pool
    before = driver._memory_manager
    try:
        memory_pool.install()
        assert driver._memory_manager is memory_pool.PoolingMemoryManager
    finally:
        driver._memory_manager = before
    assert memory_pool._out_of_memory(driver.CudaAPIError(2, "out of memory"))
    assert not memory_pool._out_of_memory(driver.CudaAPIError(700, "illegal address"))


def test_memory_functions_without_a_gpu_say_so():
    with pytest.raises(Unavailable, match="memory_allocated: no CUDA GPU is available here"):
        paddle.device.cuda.memory_allocated()
    paddle.device.cuda.empty_cache()  # nothing cached: nothing to do, no error


def test_the_profiler_memory_summary_shows_the_gpu_pool(monkeypatch, capsys):
    pool = BlockPool(HostBlocks())
    pool.release(*pool.allocate(4096))  # before the window: a miss not counted in it
    monkeypatch.setitem(device_memory.POOLS, 0, pool)
    with paddle.profiler.Profiler(profile_memory=True) as prof:
        size, block = pool.allocate(4000)  # a hit inside the window
        (paddle.ones([4, 4]) * 2).sum()
    prof.summary()
    text = capsys.readouterr().out
    device = prof.result.profile_section()["memory"]["device"]["0"]
    assert (device["hits"], device["misses"], device["allocated"], device["reserved"]) == (1, 0, 4096, 4096)
    assert "GPU 0 memory (pool)" in text and "1 (100%)" in text


def test_a_numba_without_the_plugin_interface_leaves_the_pool_off_with_a_warning(monkeypatch):
    from minipaddle.framework import gpu
    from minipaddle.framework.kernels.cuda import memory_pool

    def refuse():
        raise RuntimeError("EMM Plugin interface has version 2 - version 1 required")
    monkeypatch.setattr(memory_pool, "install", refuse)
    monkeypatch.setattr("numba.config.ENABLE_CUDASIM", 0)
    with pytest.warns(RuntimeWarning, match="the GPU memory pool is off .*version 2"):
        gpu._install_pool()
