"""default_collate_fn / default_convert_fn: Paddle's batching rules for every kind of sample field."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument
from minipaddle.io import default_collate_fn, default_convert_fn


def test_python_numbers_become_int64_float32_bool():
    ints, floats, flags = default_collate_fn([(1, 0.5, True), (2, 1.5, False)])
    assert ints.dtype == paddle.int64 and ints.numpy().tolist() == [1, 2]
    assert floats.dtype == paddle.float32 and floats.numpy().tolist() == [0.5, 1.5]
    assert flags.dtype == paddle.bool and flags.numpy().tolist() == [True, False]


def test_mixed_ints_and_floats_in_one_field_are_not_truncated():
    out = default_collate_fn([1, 2.5])
    assert out.dtype == paddle.float32 and out.numpy().tolist() == [1.0, 2.5]


def test_numpy_scalars_and_arrays_keep_their_dtype_and_gain_a_batch_dim():
    a = np.arange(6, dtype=np.float64).reshape(2, 3)
    out = default_collate_fn([a, a + 1, a + 2])
    assert out.shape == [3, 2, 3] and out.dtype == paddle.float64
    np.testing.assert_array_equal(out.numpy()[2], a + 2)
    scal = default_collate_fn([np.int32(4), np.int32(5)])
    assert scal.dtype == paddle.int32


def test_tensors_are_stacked():
    out = default_collate_fn([paddle.to_tensor([1.0, 2.0]), paddle.to_tensor([3.0, 4.0])])
    assert isinstance(out, paddle.Tensor) and out.numpy().tolist() == [[1, 2], [3, 4]]


def test_structure_is_kept_dicts_and_nested_tuples_lists_of_strings():
    batch = [{"x": np.zeros(2, np.float32), "meta": ("a", 1)}, {"x": np.ones(2, np.float32), "meta": ("b", 2)}]
    out = default_collate_fn(batch)
    assert set(out) == {"x", "meta"}
    assert out["x"].shape == [2, 2]
    names, ids = out["meta"]
    assert names == ["a", "b"] and ids.numpy().tolist() == [1, 2]


def test_collate_errors_name_the_problem():
    with pytest.raises(InvalidArgument, match="different numbers of fields"):
        default_collate_fn([(1, 2), (3,)])
    with pytest.raises(InvalidArgument, match=r"different shapes \[\(2,\), \(3,\)\]"):
        default_collate_fn([np.zeros(2), np.zeros(3)])
    with pytest.raises(InvalidArgument, match="cannot batch samples of type object"):
        default_collate_fn([object(), object()])
    with pytest.raises(InvalidArgument, match="non-empty list"):
        default_collate_fn([])


def test_default_convert_fn_adds_no_batch_dim_and_copies():
    a = np.arange(3, dtype=np.float32)
    x, n = default_convert_fn((a, 7))
    assert x.shape == [3] and n.shape == [] and n.dtype == paddle.int64
    x.numpy()[0] = 100
    assert a[0] == 0  # the sample's storage is not shared
