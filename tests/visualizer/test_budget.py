"""max_bytes bounds what a recording costs: the recorder's own memory and building its document
together stay under 1.5x the budget (measured with tracemalloc on a real training loop that overflows
the budget many times over)."""
from __future__ import annotations

import gc
import tracemalloc

import numpy as np

import minipaddle as paddle
import minipaddle.nn.functional as F
from minipaddle import nn


def test_recording_and_building_the_document_stay_within_one_and_a_half_budgets():
    paddle.seed(0)
    x = paddle.to_tensor(np.random.default_rng(0).standard_normal((64, 64)).astype("float32"))
    y = paddle.to_tensor(np.arange(64) % 4)
    net = nn.Sequential(*[m for _ in range(6) for m in (nn.Linear(64, 64), nn.Tanh())], nn.Linear(64, 4))
    opt = paddle.optimizer.Adam(parameters=net.parameters())

    def step():
        loss = F.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()

    step()  # kernels compiled, optimizer state made: not the recorder's
    gc.collect()
    budget = 4 << 20  # small budgets feel the fixed overheads most
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        with paddle.debug.record(max_bytes=budget, values="small") as rec:
            for _ in range(60):
                step()
        gc.collect()
        doc = rec.trace.to_dict()
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    assert doc["recording"]["dropped_steps"] > 1000  # the budget really was overflowed
    assert doc["iterations"]  # and what is left is a whole run of iterations
    assert peak <= 1.5 * budget, f"recording + building peaked at {peak / budget:.2f}x max_bytes"
