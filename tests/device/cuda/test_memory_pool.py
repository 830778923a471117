"""The caching pool on a real GPU: numba's allocations go through it (kernels/cuda/memory_pool.py).

numba's simulator has no device memory and no allocator plugin, so the pool is off there: these tests
run where tools/gpu_check.sh runs tests/device/cuda on a GPU, and are skipped (not passed) under the
simulator. The pool's bookkeeping itself is tested on every machine in tests/framework/test_device_memory.py.
"""
from __future__ import annotations

import gc

import numba
import numpy as np
import pytest

import minipaddle as paddle

on_simulator = bool(numba.config.ENABLE_CUDASIM)


def test_under_the_simulator_there_is_no_pool_and_the_counters_say_zero():
    if not on_simulator:
        pytest.skip("a real GPU: the pool is on (the tests below)")
    paddle.set_device("gpu")
    try:
        x = paddle.ones([256])
        assert paddle.device.cuda.memory_allocated() == 0 and paddle.device.cuda.memory_stats() == {}
        assert float(x.sum()) == 256.0
    finally:
        paddle.set_device("cpu")


@pytest.mark.skipif(on_simulator, reason="the simulator has no device memory to pool")
def test_memory_allocated_follows_tensors_and_freed_blocks_are_reused():
    paddle.set_device("gpu")
    try:
        gc.collect()
        before = paddle.device.cuda.memory_allocated()
        x = paddle.ones([1 << 18], dtype="float32")  # 1 MiB
        assert paddle.device.cuda.memory_allocated() - before >= 1 << 20
        stats = paddle.device.cuda.memory_stats()
        del x
        gc.collect()
        assert paddle.device.cuda.memory_allocated() == before
        y = paddle.ones([1 << 18], dtype="float32")
        assert paddle.device.cuda.memory_stats()["hits"] > stats["hits"]  # the freed block came back
        assert paddle.device.cuda.max_memory_allocated() >= before + (1 << 20)
        assert paddle.device.cuda.memory_reserved() >= paddle.device.cuda.memory_allocated()
        del y
        gc.collect()
        paddle.device.cuda.empty_cache()
        assert paddle.device.cuda.memory_reserved() == paddle.device.cuda.memory_allocated()
    finally:
        paddle.set_device("cpu")


@pytest.mark.skipif(on_simulator, reason="the simulator has no device memory to pool")
def test_tensors_held_across_training_steps_keep_their_values():
    paddle.set_device("gpu")
    try:
        paddle.seed(0)
        net = paddle.nn.Sequential(paddle.nn.Linear(64, 64), paddle.nn.ReLU(), paddle.nn.Linear(64, 8))
        opt = paddle.optimizer.Adam(parameters=net.parameters())
        held = []
        for _ in range(20):
            loss = net(paddle.randn([32, 64])).mean()
            loss.backward()
            opt.step()
            opt.clear_grad()
            held.append((loss, float(loss)))
            gc.collect()
        for loss, value in held:
            assert float(loss) == value
        assert paddle.device.cuda.memory_stats()["hit_rate"] > 0.5
        assert np.isfinite(net[0].weight.numpy()).all()
    finally:
        paddle.set_device("cpu")
