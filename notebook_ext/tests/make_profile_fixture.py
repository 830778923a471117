"""Writes the profile fixture the profile view's unit tests read (profile_view.test.ts).

Run: .venv/bin/python notebook_ext/tests/make_profile_fixture.py

profile.json: three SGD steps of an MLP 4 -> 8 -> 3 under paddle.profiler.Profiler (FLOPs and memory on),
inside a recorder so the trace document carries the graph the spans' node ids (n1, n2, ...) point into.
"""
import json

import numpy as np

import minipaddle as paddle
import minipaddle.nn.functional as F
from make_fixtures import MLP, OUT  # the trace fixtures' model (this script runs from its own folder)
from minipaddle.profiler import Profiler


def profiled_training(steps: int = 3) -> dict:
    paddle.seed(0)
    model = MLP()
    rng = np.random.default_rng(0)
    x = paddle.to_tensor(rng.standard_normal((16, 4)).astype("float32"))
    y = paddle.to_tensor(rng.integers(0, 3, 16))
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
    with paddle.debug.record(values="none") as rec, Profiler(with_flops=True, profile_memory=True) as prof:
        for _ in range(steps):
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            opt.clear_grad()
            prof.step(16)
    return prof.result.trace_document(rec)


if __name__ == "__main__":
    OUT.mkdir(exist_ok=True)
    (OUT / "profile.json").write_text(json.dumps(profiled_training()), encoding="utf-8")
