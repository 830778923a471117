"""Kernel autotuning (framework/autotune.py) and paddle.incubate.autotune.set_config."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework import autotune, instrument, registry
from minipaddle.io import worker_tuning
from minipaddle.framework.errors import InvalidArgument
from minipaddle.framework.registry import OPS, KernelKey, MetaTensor, add_kernel, register_op

PROBE = "autotune_probe"


def _probe_meta(x):
    return MetaTensor(x.shape, x.dtype)


SLOW_CALLS = [0]


def _slow(x):
    SLOW_CALLS[0] += 1
    time.sleep(0.004)
    return x + 1


def _fast(x):
    time.sleep(0.0005)
    return x + 1


def _wrong(x):  # the fastest of all, but it computes something else
    return x + 2


if PROBE not in OPS:
    register_op(PROBE, inputs=("x",), infer_meta=_probe_meta)
    add_kernel(PROBE, "cpu", ("float32",), _slow, name="slow", priority=1)  # the default
    add_kernel(PROBE, "cpu", ("float32",), _fast, name="fast")


def probe(x):
    from minipaddle.framework.dispatch import dispatch
    return dispatch(OPS[PROBE], (x,))


@pytest.fixture(autouse=True)
def fresh(tmp_path):
    autotune.reset()
    yield tmp_path
    autotune.reset()


@pytest.fixture
def events():
    got = []
    unsubscribe = instrument.subscribe(got.append, kinds=("autotune",))
    yield got
    unsubscribe()


def _enable(tmp_path, tuning_range=(0, 10)):
    paddle.incubate.autotune.set_config({"kernel": {"enable": True, "tuning_range": list(tuning_range),
                                                    "cache_dir": str(tmp_path / "cache")}})


def _x(n=16):
    return paddle.to_tensor(np.arange(n, dtype=np.float32))


def test_tuning_picks_the_faster_candidate_and_runs_it_afterwards(fresh, events):
    _enable(fresh)
    out = probe(_x())
    np.testing.assert_array_equal(out.numpy(), np.arange(16) + 1)
    assert [e.winner for e in events] == ["fast"]
    times = {c["name"]: c["time_ns"] for c in events[0].candidates}
    assert times["fast"] < times["slow"]
    tuned = OPS[PROBE]._chosen[KernelKey("cpu", np.dtype("float32"))]
    assert isinstance(tuned, autotune.TunedKernel)
    before = SLOW_CALLS[0]
    for _ in range(5):
        probe(_x())
    assert SLOW_CALLS[0] == before  # the slow default no longer runs
    assert tuned.last == "fast" and len(events) == 1


def test_event_fields(fresh, events):
    _enable(fresh)
    probe(_x(16))
    e = events[0]
    assert e.op == PROBE and e.dtype == "float32" and e.shape_class == "16"
    assert e.key == f"{PROBE}|float32|16|{{}}" and e.shapes == [[16]]
    assert e.default == "slow" and e.source == "tuned" and e.step == 0
    assert {c["name"] for c in e.candidates} == {"slow", "fast"}
    assert all(isinstance(c["time_ns"], int) and c["time_ns"] > 0 for c in e.candidates)


def test_shape_classes_bucket_dims_by_powers_of_two(fresh, events):
    assert autotune.shape_class([(128, 784), (784, 256)]) == "128x512,512x256"
    assert autotune.shape_class([(1,), (), (0, 3)]) == "1,,0x2"
    _enable(fresh)
    probe(_x(100))
    probe(_x(127))   # same class as 100: 64 <= n < 128
    probe(_x(128))   # a new class
    assert [e.shape_class for e in events] == ["64", "128"]


def test_hits_and_misses_are_counted_like_algorithms_cache(fresh):
    _enable(fresh)
    probe(_x())       # miss: tuned now
    for _ in range(3):
        probe(_x())   # hits
    s = autotune.status()
    assert (s["hits"], s["misses"], s["cache_size"]) == (3, 1, 1)
    assert s["cache_hit_rate"] == pytest.approx(0.75)


def test_no_tuning_before_the_range_starts_then_steps_open_it(fresh, events):
    _enable(fresh, tuning_range=(1, 3))
    probe(_x())
    assert events == [] and autotune.status()["misses"] == 1  # step 0: the default kernel, untuned
    assert autotune.step() == 1
    probe(_x())
    assert [e.winner for e in events] == ["fast"]


def test_backward_ends_a_step_and_counting_stops_after_the_range(fresh):
    _enable(fresh, tuning_range=(0, 2))
    w = paddle.to_tensor(np.ones(4, np.float32), stop_gradient=False)
    assert autotune._on_event in instrument.subscribers
    for expected in (1, 2):
        (w * 2.0).sum().backward()
        assert autotune.status()["step_id"] == expected
    assert not autotune.status()["tuning"]
    assert autotune._on_event not in instrument.subscribers  # the op path is free again


def test_outside_the_range_misses_run_the_default(fresh, events):
    _enable(fresh, tuning_range=(0, 1))
    autotune.step()
    probe(_x())
    assert events == [] and OPS[PROBE]._chosen[KernelKey("cpu", np.dtype("float32"))].last == "slow"


def test_a_candidate_with_a_different_result_is_never_chosen(fresh, events):
    add_kernel(PROBE, "cpu", ("float32",), _wrong, name="wrong")
    try:
        _enable(fresh)
        out = probe(_x())
        np.testing.assert_array_equal(out.numpy(), np.arange(16) + 1)
        wrong = next(c for c in events[0].candidates if c["name"] == "wrong")
        assert wrong["time_ns"] is None and "differs" in wrong["error"]
        assert events[0].winner == "fast"
    finally:
        OPS[PROBE].kernels[KernelKey("cpu", np.dtype("float32"))][:] = [
            k for k in OPS[PROBE].kernels[KernelKey("cpu", np.dtype("float32"))] if k.name != "wrong"]
        OPS[PROBE]._chosen.clear()


def test_a_kernel_the_user_pinned_is_not_tuned(fresh, events):
    key = KernelKey("cpu", np.dtype("float32"))
    registry.set_preferred_kernel(PROBE, key, "slow")
    try:
        _enable(fresh)
        probe(_x())
        assert events == [] and OPS[PROBE]._chosen[key] is _slow
    finally:
        registry.set_preferred_kernel(PROBE, key, None)


def test_turning_tuning_off_restores_the_plain_kernels(fresh):
    _enable(fresh)
    probe(_x())
    paddle.incubate.autotune.set_config({"kernel": {"enable": False}})
    assert registry.kernel_hook is None
    probe(_x())
    assert OPS[PROBE]._chosen[KernelKey("cpu", np.dtype("float32"))] is _slow


def test_real_matmul_is_tuned_and_stays_correct(fresh, events):
    _enable(fresh)
    a = np.random.default_rng(0).standard_normal((32, 48)).astype(np.float32)
    b = np.random.default_rng(1).standard_normal((48, 16)).astype(np.float32)
    out = paddle.matmul(paddle.to_tensor(a), paddle.to_tensor(b), transpose_y=False)
    np.testing.assert_allclose(out.numpy(), a @ b, rtol=1e-5, atol=1e-5)
    (e,) = [e for e in events if e.op == "matmul"]
    assert {c["name"] for c in e.candidates} == {"blas", "numba"} and e.shape_class == "32x32,32x16"


_CHILD = """
import json, sys
import numpy as np
import minipaddle as paddle
from minipaddle.framework import instrument
got = []
instrument.subscribe(got.append, kinds=("autotune",))
paddle.incubate.autotune.set_config({"kernel": {"enable": True, "tuning_range": [0, 5], "cache_dir": sys.argv[1]}})
x = paddle.to_tensor(np.ones((8, 8), np.float32))
paddle.matmul(x, x)
print(json.dumps([[e.source, e.winner, e.key] for e in got]))
"""


def test_decisions_persist_so_the_next_process_starts_tuned(fresh):
    cache = str(fresh / "shared")

    def child():
        env = dict(os.environ, NUMBA_NUM_THREADS="1")
        done = subprocess.run([sys.executable, "-c", _CHILD, cache], capture_output=True, text=True, env=env,
                              timeout=120)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout.strip().splitlines()[-1])

    first = child()
    assert [s for s, _, _ in first] == ["tuned"]
    (path,) = [p for p in os.listdir(cache) if p.endswith(".json")]
    doc = json.loads(open(os.path.join(cache, path)).read())
    assert doc["version"] == 1 and doc["machine"] == autotune.machine_id()
    assert first[0][2] in doc["entries"] and doc["entries"][first[0][2]]["winner"] == first[0][1]
    second = child()
    assert second == [["cache", first[0][1], first[0][2]]]  # read from disk, nothing timed


def test_set_config_reads_a_json_file_and_none_enables_everything(fresh, tmp_path):
    path = tmp_path / "autotune.json"
    path.write_text(json.dumps({"kernel": {"enable": True, "tuning_range": [2, 4], "cache_dir": None},
                                "dataloader": {"enable": True, "tuning_steps": 7}}))
    paddle.incubate.autotune.set_config(str(path))
    s = autotune.status()
    assert s["kernel_enabled"] and s["tuning_range"] == [2, 4] and s["dataloader_enabled"]
    assert s["cache_file"] is None and autotune._status.tuning_steps == 7
    with pytest.warns(UserWarning, match="layout"):
        paddle.incubate.autotune.set_config()
    assert autotune.status()["kernel_enabled"] and autotune.status()["tuning_range"] == [1, 10]


@pytest.mark.parametrize("config, message", [
    ({"kernal": {"enable": True}}, "unknown section"),
    ({"kernel": {"enable": True, "tuning_range": [5, 1]}}, "tuning_range got [5, 1]"),
    ({"kernel": {"enable": "yes"}}, "kernel.enable got 'yes'"),
    ({"kernel": {"enable": True, "tuning_steps": 3}}, "unknown key"),
    ({"dataloader": {"enable": True, "tuning_steps": 0}}, "tuning_steps got 0"),
    (42, "expected a dict"),
    ("/nonexistent/autotune.json", "could not read the JSON config"),
])
def test_bad_configs_are_named(config, message):
    with pytest.raises(InvalidArgument, match=message.replace("[", r"\[").replace("]", r"\]")):
        paddle.incubate.autotune.set_config(config)


class _SlowDataset(paddle.io.Dataset):
    def __len__(self):
        return 24

    def __getitem__(self, i):
        time.sleep(0.004)  # "decoding": threads overlap it
        return np.float32(i)


def test_dataloader_tuning_picks_num_workers_by_throughput(events):
    loader = paddle.io.DataLoader(_SlowDataset(), batch_size=2, num_workers=0, worker_mode="thread")
    assert worker_tuning.tuned_num_workers(loader) == 0  # tuning off: the loader's own setting
    best = worker_tuning.tune_num_workers(loader, tuning_steps=6, candidates=[0, 4])
    assert best == 4
    (e,) = events
    assert e.op == "DataLoader" and e.winner == "num_workers=4"
    assert [c["name"] for c in e.candidates] == ["num_workers=0", "num_workers=4"]
    costs = [c["time_ns"] for c in e.candidates]
    assert costs[1] < 0.75 * costs[0]
    paddle.incubate.autotune.set_config({"dataloader": {"enable": True, "tuning_steps": 3}})
    assert worker_tuning.tuned_num_workers(loader) in (0, 1, 2, 4, 8, 16)


def test_a_trace_names_the_kernel_the_tuner_ran(fresh, events):
    _enable(fresh)
    a = paddle.to_tensor(np.random.default_rng(0).standard_normal((32, 48)).astype(np.float32))
    b = paddle.to_tensor(np.random.default_rng(1).standard_normal((48, 16)).astype(np.float32))
    paddle.matmul(a, b)  # tuned here
    with paddle.debug.record() as rec:
        paddle.matmul(a, b)
    (node,) = [n for n in rec.trace.nodes if n["op"] == "matmul"]
    (decision,) = [e for e in events if e.op == "matmul"]
    assert node["kernel"]["name"] == decision.winner and node["kernel"]["reason"] == "preferred"
    assert set(node["kernel"]["candidates"]) == {"blas", "numba"}


def test_each_static_executor_run_is_one_step(fresh):
    from minipaddle import static
    _enable(fresh, (0, 100))
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            out = paddle.matmul(static.data("a", [4, 4], "float32"), static.data("b", [4, 4], "float32"))
        exe = static.Executor(paddle.CPUPlace())
        before = autotune.status()["step_id"]
        feed = {"a": np.ones((4, 4), np.float32), "b": np.ones((4, 4), np.float32)}
        for _ in range(3):
            (value,) = exe.run(main, feed=feed, fetch_list=[out])
        assert autotune.status()["step_id"] == before + 3 and value[0, 0] == 4
    finally:
        paddle.disable_static()
