"""Tensor summaries against numpy, JSON-safe numbers and attributes, and the schema file itself."""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from minipaddle.visualizer import load_schema, summarize
from minipaddle.visualizer.summary import (BINS, HIST_SAMPLE, SMALL, jsonable, same_values, summary_to_json,
                                          values_to_json)


def _reference(a: np.ndarray) -> dict:
    x = np.asarray(a, dtype=np.float64).reshape(-1)
    finite = x[np.isfinite(x)]
    return {"numel": x.size, "nan": int(np.isnan(x).sum()), "inf": int(np.isinf(x).sum()), "finite": finite}


@settings(max_examples=60, deadline=None)
@given(hnp.arrays(st.sampled_from([np.float32, np.float64]), hnp.array_shapes(min_dims=0, max_dims=3, max_side=6),
                  elements=st.one_of(st.floats(-1e3, 1e3, width=32), st.sampled_from([np.nan, np.inf, -np.inf]))))
def test_summary_matches_numpy_on_drawn_arrays(a):
    s = summarize(a)
    ref = _reference(a)
    assert (s.numel, s.nan_count, s.inf_count) == (ref["numel"], ref["nan"], ref["inf"])
    finite = ref["finite"]
    if finite.size == 0:
        assert s.min is None and s.mean is None and s.hist is None
        return
    assert (s.min, s.max) == (finite.min(), finite.max())
    assert s.mean == pytest.approx(finite.mean(), rel=1e-9, abs=1e-9)
    assert s.std == pytest.approx(finite.std(), rel=1e-7, abs=1e-7)
    assert s.hist.sum() == finite.size and s.hist_stride == 1
    if finite.max() > finite.min():
        expected, _ = np.histogram(finite, BINS, (finite.min(), finite.max()))
        assert np.abs(s.hist - expected).sum() <= 2  # a value on a bin edge may round either way


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [SMALL + 1, HIST_SAMPLE * 3 + 5])
def test_big_tensors_take_the_fast_path_with_exact_statistics(n, dtype):
    rng = np.random.default_rng(1)
    a = (rng.standard_normal(n) * 3 + 100).astype(dtype)
    s = summarize(a)
    x = a.astype(np.float64)
    assert (s.min, s.max, s.nan_count, s.inf_count) == (x.min(), x.max(), 0, 0)
    assert s.mean == pytest.approx(x.mean(), rel=1e-12) and s.std == pytest.approx(x.std(), rel=1e-9)
    stride = -(-n // HIST_SAMPLE)
    assert s.hist_stride == stride and s.hist.sum() == len(range(0, n, stride))
    expected, _ = np.histogram(x[::stride], BINS, (x.min(), x.max()))
    assert np.abs(s.hist - expected).sum() <= 2
    a[n // 2] = np.nan  # one NaN anywhere: the careful path, every value counted
    s = summarize(a)
    assert (s.nan_count, s.hist_stride, s.hist.sum()) == (1, 1, n - 1)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("bad", [np.inf, -np.inf, np.nan, "-nan"])
def test_one_pass_finds_any_non_finite_value(dtype, bad):
    # min and max come from the values' bits read as integers: every NaN (either sign) and +-Inf must
    # still show up, anywhere, and send the tensor down the careful path that counts them
    n = SMALL * 3
    for where in (0, n // 2, n - 1):
        a = np.linspace(-5, 5, n).astype(dtype)
        if bad == "-nan":
            a[where] = -np.nan
            assert np.signbit(a[where])
        else:
            a[where] = bad
        s = summarize(a)
        finite = np.delete(a, where).astype(np.float64)
        is_nan = bad == "-nan" or np.isnan(bad)
        assert (s.nan_count, s.inf_count) == ((1, 0) if is_nan else (0, 1))
        assert (s.min, s.max) == (finite.min(), finite.max()) and s.mean == pytest.approx(finite.mean(), abs=1e-12)
        assert s.hist_stride == 1 and s.hist.sum() == n - 1


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_one_pass_statistics_keep_their_digits(dtype):
    n = SMALL * 4
    rng = np.random.default_rng(2)
    offset = (rng.standard_normal(n) * 1e-3 + 1e4).astype(dtype)  # std 1e-7 of the mean: a cancelling sum
    spiky = np.zeros(n, dtype)
    spiky[::64] = 1e6  # every value the shift is taken from is an outlier
    signed = np.array([-0.0, 0.0] * (n // 2), dtype)
    for a in (offset, spiky, signed, -offset):
        s, x = summarize(a), a.astype(np.float64)
        assert (s.min, s.max) == (x.min(), x.max())
        assert s.mean == pytest.approx(x.mean(), rel=1e-12) and s.std == pytest.approx(x.std(), rel=1e-7, abs=1e-300)
    assert summarize(signed).std == 0.0


def test_same_values_compares_bits():
    a = np.random.default_rng(3).standard_normal((40, 50)).astype(np.float32)
    b = a.copy()
    assert same_values(a, b) and same_values(a, a)
    b[17, 3] = np.nextafter(b[17, 3], np.float32(10))  # one ulp
    assert not same_values(a, b)
    assert not same_values(a, a.astype(np.float64)) and not same_values(a, a[:, :10])
    nan = np.full(2000, np.nan)
    assert same_values(nan, nan.copy())  # the same bits: one summary fits both
    assert not same_values(np.zeros(2000), np.full(2000, -0.0))  # equal numbers, not the same state
    assert same_values(a.T, b.T.copy()) is False and same_values(a.T, a.T.copy())  # non-contiguous
    assert same_values(a.astype(np.float16), a.astype(np.float16))
    assert same_values(np.arange(5000), np.arange(5000)) and not same_values(np.arange(5), np.arange(5) + 1)


def test_summaries_of_other_dtypes_layouts_and_edge_cases():
    m = np.arange(12, dtype=np.float32).reshape(3, 4)
    assert summarize(m.T).mean == summarize(m).mean == 5.5  # non-contiguous
    assert summarize(m[:, ::2]).max == 10.0
    s = summarize(np.array([True, False, True]))
    assert (s.min, s.max, s.mean) == (0.0, 1.0, pytest.approx(2 / 3))
    assert summarize(np.array([3, -4], np.int64)).min == -4.0
    assert summarize(np.array([1.5, np.inf], np.float16)).inf_count == 1
    assert summarize(np.array(7.0)).numel == 1
    empty = summarize(np.zeros((0, 3)))
    assert (empty.numel, empty.min, empty.hist) == (0, None, None)
    flat = summarize(np.full(5000, 1000.0, np.float32))  # constant: std exactly 0, one full bin
    assert flat.std == 0.0 and flat.hist[-1] == flat.hist.sum() == len(range(0, 5000, flat.hist_stride))
    huge = summary_to_json(summarize(np.full(3000, 1e308)))  # sums taken around the midrange: no overflow
    assert (huge["max"], huge["mean"], huge["std"]) == (1e308, 1e308, 0.0)
    wide = summary_to_json(summarize(np.tile([-1e308, 1e308], 1500)))  # squares overflow: still strict JSON
    assert (wide["mean"], wide["std"]) == (0.0, "Infinity") and json.dumps(wide, allow_nan=False)
    j = summary_to_json(summarize(np.array([np.nan, np.nan])))
    assert j == {"numel": 2, "min": None, "max": None, "mean": None, "std": None, "nan_count": 2, "inf_count": 0,
                 "histogram": None}


def test_values_and_attrs_become_strict_json():
    assert values_to_json(np.array([[1.0, np.nan], [np.inf, -np.inf]]), True) == [1.0, "NaN", "Infinity", "-Infinity"]
    assert values_to_json(np.array([True, False]), False) == [1, 0]
    f32 = np.array([0.1, 1 / 3, 3.4e38, 1e-45, -0.0], np.float32)
    short = values_to_json(f32, False)
    assert short[0] == 0.1 and json.dumps(short[:2]) == "[0.1, 0.33333334]"  # not 0.10000000149011612
    np.testing.assert_array_equal(np.array(short, np.float32), f32)  # and read back bit for bit
    assert values_to_json(np.array([0.1], np.float16), False) == [0.1]
    many = np.random.default_rng(0).standard_normal(5000).astype(np.float32)  # many values: 9 digits, still exact
    np.testing.assert_array_equal(np.array(values_to_json(many, False), np.float32), many)
    attrs = {"axis": (0, np.int64(1)), "dtype": np.dtype("float32"), "scale": float("inf"), "keep": None,
             "index": slice(1, None, 2), "obj": object(), "arr": np.array([1.5, np.nan])}
    out = jsonable(attrs)
    json.dumps(out, allow_nan=False)
    assert out["axis"] == [0, 1] and out["dtype"] == "float32" and out["scale"] == "Infinity"
    assert out["index"] == "slice(1, None, 2)" and out["obj"].startswith("<object object")
    assert out["arr"] == [1.5, "NaN"] and out["keep"] is None
    assert len(jsonable("x" * 1000)) == 1000 and len(jsonable(list(range(1000)))) == 64


def test_the_schema_is_a_valid_draft_2020_12_schema():
    import jsonschema
    schema = load_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["properties"]["schema_version"]["pattern"] == "^1\\.[0-9]+$"
    for reserved in ("programs", "pass_diffs", "profile", "extensions"):
        assert reserved in schema["required"]


def test_importing_the_visualizer_does_not_load_numba():
    code = "import sys, minipaddle.visualizer, minipaddle.debug; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


@pytest.mark.parametrize("op, values, fraction", [
    ("tanh", [-0.99, -0.5, 0.0, 0.5, 0.98, 0.96], 2 / 6),
    ("sigmoid", [0.01, 0.02, 0.5, 0.98, 0.9], 3 / 5),
    ("relu", [0.0, 0.0, 0.0, 1.5], 3 / 4)])
def test_saturation_counts_the_flat_region_of_an_activation(op, values, fraction):
    from minipaddle.visualizer.summary import saturation
    for dtype in ("float32", "float64"):
        assert saturation(op, np.array(values, dtype)) == pytest.approx(fraction)
    assert saturation(op, np.zeros(0, "float32")) is None


def test_saturation_of_a_big_output_is_that_of_the_histograms_sample():
    from minipaddle.visualizer.summary import HIST_SAMPLE, saturation
    y = np.maximum(np.random.default_rng(0).standard_normal(10 * HIST_SAMPLE + 3), 0).astype("float32")
    assert saturation("relu", y) == pytest.approx(np.mean(y == 0), abs=0.02)
    assert saturation("relu", y) == np.mean(y[::11] == 0)


def test_statistics_are_written_to_four_significant_digits_with_min_and_max_rounded_outward():
    from minipaddle.visualizer.summary import summarize, summary_to_json
    x = np.array([-0.30606988, 0.12345678, 0.30588087], "float32")
    s = summary_to_json(summarize(x))
    assert (s["min"], s["max"]) == (-0.3061, 0.3059) and s["histogram"]["min"] == s["min"]
    assert s["mean"] == float(f"{x.astype(np.float64).mean():.4g}")
    big = summary_to_json(summarize(np.array([1.23456, 9.9996], "float64")))
    assert (big["min"], big["max"]) == (1.234, 10.0)  # outward: every value stays inside [min, max]
    one = summary_to_json(summarize(np.array([0.12562269], "float32")))
    assert one["min"] == one["max"] == 0.1256
