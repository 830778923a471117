"""The parallel elementwise candidates (kernels/cpu/elementwise_parallel.py) and the serial numba matmul.

A candidate must compute what the default computes (bitwise what the serial numba loop of the same
primitive computes; within a few ulp of numpy's ufunc), never be the default, and be chosen by the
autotuner only where it measured faster: small and large arrays fall in different shape classes.
"""
from __future__ import annotations

import os

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework import autotune, instrument
from minipaddle.framework.kernels.cpu import elementwise_parallel as EP
from minipaddle.framework.kernels.cpu.elementwise import FLOAT_BINARY, FLOAT_UNARY
from minipaddle.framework.ops import activation
from minipaddle.framework.ops import primitives as P
from minipaddle.framework.registry import OPS, KernelKey, select_kernel

BINARY = ["add", "subtract", "multiply", "divide", "maximum", "minimum", "elementwise_pow"]
UNARY = ["exp", "log", "tanh", "sqrt"]
ACTIVATIONS = ["relu", "sigmoid", "gelu"]
BIG = EP.MIN_PARALLEL_SIZE + 4465  # above the threshold: the prange loop runs


def _kernels(name: str, dtype: str = "float32") -> dict:
    return {k.name: k.fn for k in OPS[name].kernels[KernelKey("cpu", np.dtype(dtype))]}


@pytest.fixture
def activations_registered():
    """register_parallel_candidates() for the test, then the activations' kernel lists as they were."""
    saved = {(n, key): list(bucket) for n in ACTIVATIONS for key, bucket in OPS[n].kernels.items()}
    activation.register_parallel_candidates()
    yield
    for (n, key), bucket in saved.items():
        OPS[n].kernels[key][:] = bucket
        OPS[n]._chosen.clear()


@pytest.fixture
def tuning(tmp_path):
    autotune.reset()
    paddle.incubate.autotune.set_config({"kernel": {"enable": True, "tuning_range": [0, 10], "cache_dir": None}})
    events = []
    unsubscribe = instrument.subscribe(events.append, kinds=("autotune",))
    yield events
    unsubscribe()
    autotune.reset()


def _inputs(name: str, dtype: str, n: int = BIG, rng=None):
    """Values every op accepts, with NaN, +-Inf, zeros and (for log/sqrt/pow) negatives mixed in."""
    rng = rng or np.random.default_rng(0)
    x = rng.uniform(-3, 3, n).astype(dtype)
    y = rng.uniform(-3, 3, n).astype(dtype)
    specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0], dtype)
    x[:6], y[6:12] = specials, specials
    x[12:18], y[12:18] = specials, 0.0  # x / 0, 0 ** 0, inf - inf ...
    return (x, y) if name in BINARY else (x,)


# ---- registration --------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", BINARY + UNARY)
def test_the_parallel_kernel_is_registered_last_and_never_the_default(name, dtype):
    key = KernelKey("cpu", np.dtype(dtype))
    bucket = OPS[name].kernels[key]
    assert bucket[-1].name == "numba_parallel" and bucket[-1].priority < min(k.priority for k in bucket[:-1])
    assert select_kernel(OPS[name], key).name != "numba_parallel"


def test_activation_candidates_register_below_the_defaults(activations_registered):
    for name in ACTIVATIONS:
        key = KernelKey("cpu", np.dtype("float32"))
        assert OPS[name].kernels[key][-1].name == "numba_parallel"
        assert select_kernel(OPS[name], key).name == {"relu": "numba", "sigmoid": "numpy", "gelu": "numba"}[name]


# ---- same results --------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", BINARY + UNARY)
def test_same_results_as_the_serial_loop_and_numpy(name, dtype):
    args = _inputs(name, dtype)
    kernels = _kernels(name, dtype)
    with np.errstate(all="ignore"):
        ours, reference = kernels["numba_parallel"](*args), kernels["numpy"](*args)
    assert ours.dtype == np.dtype(dtype) and ours.shape == args[0].shape
    if "numba" in kernels:  # the same primitive, the same machine code per element: bitwise equal
        np.testing.assert_array_equal(ours, kernels["numba"](*args))
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(reference))  # NaN where numpy has NaN ...
    np.testing.assert_array_equal(ours[np.isinf(reference)], reference[np.isinf(reference)])  # ... and the Infs
    np.testing.assert_array_max_ulp(ours, reference, maxulp=4)


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_activations_match_their_default(name, activations_registered):
    x = _inputs(name, "float32")[0]
    kernels = _kernels(name)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(kernels["numba_parallel"](x), kernels["numba"](x))
        if name == "gelu":
            np.testing.assert_array_equal(kernels["numba_parallel"](x, approximate=True),
                                          kernels["numba"](x, approximate=True))
        else:
            np.testing.assert_array_max_ulp(kernels["numba_parallel"](x), kernels["numpy"](x), maxulp=4)


@pytest.mark.parametrize("xs, ys", [((300, 1), (1, 300)), ((BIG,), ()), ((2, 1, BIG // 2), (BIG // 2,))])
def test_broadcasting(xs, ys):
    rng = np.random.default_rng(1)
    x, y = rng.uniform(0.5, 2, xs).astype(np.float32), rng.uniform(0.5, 2, ys).astype(np.float32)
    for name in ("add", "divide", "elementwise_pow"):
        kernels = _kernels(name)
        out = kernels["numba_parallel"](x, y)
        assert out.shape == np.broadcast_shapes(xs, ys)
        np.testing.assert_array_max_ulp(out, kernels["numpy"](x, y), maxulp=1)


def test_non_contiguous_inputs():
    rng = np.random.default_rng(2)
    a = rng.uniform(0.5, 2, (400, 400)).astype(np.float64)
    x, y = a.T, a[:, ::-1].T  # transposed and reversed views: not C-contiguous
    assert not x.flags.c_contiguous and not y.flags.c_contiguous
    for name, args in (("multiply", (x, y)), ("exp", (x,)), ("sqrt", (a[::2, ::2].T,))):
        kernels = _kernels(name, "float64")
        np.testing.assert_array_equal(kernels["numba_parallel"](*args), kernels["numba"](*args))


def test_small_arrays_run_the_serial_loop_and_start_no_threads():
    kernel = EP.ParallelElementwiseKernel(P.multiply, FLOAT_BINARY)
    x = np.arange(1024, dtype=np.float32)
    np.testing.assert_array_equal(kernel(x, x), x * x)
    assert kernel._loops == {} and "aa" in kernel.serial._loops  # the prange loop was never built
    big = np.ones(EP.MIN_PARALLEL_SIZE, np.float32)
    np.testing.assert_array_equal(kernel(big, big), big)
    assert "aa" in kernel._loops
    assert kernel._loops["aa"].targetoptions["parallel"]


def test_a_parallel_loop_makes_openmp_threads_sleep_unless_the_user_chose(monkeypatch):
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    EP.ParallelElementwiseKernel(P.exp, FLOAT_UNARY)._loop("a")
    assert os.environ["OMP_WAIT_POLICY"] == "PASSIVE"
    monkeypatch.setenv("OMP_WAIT_POLICY", "ACTIVE")
    EP.ParallelElementwiseKernel(P.exp, FLOAT_UNARY)._loop("a")
    assert os.environ["OMP_WAIT_POLICY"] == "ACTIVE"


# ---- the tuner picks by measurement, per shape class -------------------------------------------
def _fake_timings(monkeypatch, parallel_wins_from: int):
    """Replace the stopwatch: the parallel kernel is fastest on arrays of at least `parallel_wins_from`."""
    def fake(records, arrays, attrs, wait=None):
        big = max(a.size for a in arrays) >= parallel_wins_from
        times = {"numpy": 1000, "numba": 1100, "numba_parallel": 300 if big else 4000}
        for r in records:
            r["time_ns"] = times[r["name"]]
            del r["fn"]
    monkeypatch.setattr(autotune, "_time_candidates", fake)


def test_the_tuner_picks_the_parallel_kernel_only_where_it_measured_faster(tuning, monkeypatch):
    _fake_timings(monkeypatch, parallel_wins_from=1 << 20)
    rng = np.random.default_rng(3)
    small = paddle.to_tensor(rng.standard_normal(1000).astype(np.float32))
    large = paddle.to_tensor(rng.standard_normal(1 << 20).astype(np.float32))
    out_small, out_large = paddle.add(small, small), paddle.add(large, large)
    np.testing.assert_array_equal(out_large.numpy(), large.numpy() * 2)
    assert [(e.shape_class, e.winner) for e in tuning] == [("512,512", "numpy"),
                                                                 ("1048576,1048576", "numba_parallel")]
    assert all("error" not in c for e in tuning for c in e.candidates)  # same results: all were timed
    np.testing.assert_array_equal(out_small.numpy(), small.numpy() * 2)
    tuned = OPS["add"]._chosen[KernelKey("cpu", np.dtype("float32"))]
    paddle.add(large, large)
    assert tuned.last == "numba_parallel"
    paddle.add(small, small)
    assert tuned.last == "numpy"


def test_a_tuned_parallel_kernel_keeps_gradients_right(tuning, monkeypatch):
    _fake_timings(monkeypatch, parallel_wins_from=1 << 16)
    x_np = np.random.default_rng(4).uniform(-2, 2, 1 << 16)
    x = paddle.to_tensor(x_np, stop_gradient=False)
    y = paddle.tanh(x)
    assert [e.winner for e in tuning if e.op == "tanh"] == ["numba_parallel"]
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 1 - np.tanh(x_np) ** 2, rtol=1e-12, atol=1e-12)


def test_gelu_with_its_attribute_is_tuned_per_class(tuning, monkeypatch, activations_registered):
    _fake_timings(monkeypatch, parallel_wins_from=1 << 16)
    x_np = np.random.default_rng(5).standard_normal(1 << 16).astype(np.float32)
    x = paddle.to_tensor(x_np)
    exact = paddle.nn.functional.gelu(x)
    approx = paddle.nn.functional.gelu(x, approximate=True)
    assert [e.winner for e in tuning if e.op == "gelu"] == ["numba_parallel", "numba_parallel"]
    kernels = _kernels("gelu")
    np.testing.assert_array_equal(exact.numpy(), kernels["numba"](x_np))
    np.testing.assert_array_equal(approx.numpy(), kernels["numba"](x_np, approximate=True))


# ---- matmul's numba candidate runs on one thread ------------------------------------------------
def test_the_tiled_matmul_is_single_threaded_and_right():
    from minipaddle.framework.kernels.cpu.matmul import matmul_blocked, matmul_numba
    assert not matmul_blocked.targetoptions.get("parallel", False)
    rng = np.random.default_rng(6)
    a, b = rng.standard_normal((3, 70, 130)), rng.standard_normal((130, 65))
    np.testing.assert_allclose(matmul_numba(a, b), a @ b, rtol=1e-10, atol=1e-10)
