"""paddle.static.InputSpec: shapes (None -> -1), dtypes, from_tensor/from_numpy, batch/unbatch, eq/hash."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.static import InputSpec


def test_shape_none_becomes_minus_one_and_repr_is_paddles():
    spec = InputSpec([None, 784], "float32", "x")
    assert spec.shape == (-1, 784)
    assert spec.dtype == paddle.float32
    assert repr(spec) == "InputSpec(shape=(-1, 784), dtype=paddle.float32, name=x, stop_gradient=False)"
    label = InputSpec([None, 1], "int64", "label", stop_gradient=True)
    assert repr(label) == "InputSpec(shape=(-1, 1), dtype=paddle.int64, name=label, stop_gradient=True)"
    assert InputSpec((2, 3), np.float64).dtype == paddle.float64


def test_from_tensor_and_from_numpy():
    x = paddle.ones([2, 3], dtype="float64")
    spec = InputSpec.from_tensor(x, name="x")
    assert (spec.shape, spec.dtype, spec.name) == ((2, 3), paddle.float64, "x")
    assert InputSpec.from_tensor(x).name == x.name  # no name given: the tensor's own
    a = np.zeros([4, 1], np.int32)
    spec = InputSpec.from_numpy(a, name="ids")
    assert (spec.shape, spec.dtype, spec.name) == ((4, 1), paddle.int32, "ids")
    with pytest.raises(ValueError, match="expected a Tensor"):
        InputSpec.from_tensor(a)
    with pytest.raises(ValueError, match="expected a numpy.ndarray"):
        InputSpec.from_numpy([1, 2])


def test_batch_and_unbatch_change_the_spec_in_place():
    spec = InputSpec([784], "float32", "x")
    assert spec.batch(16) is spec and spec.shape == (16, 784)
    assert spec.unbatch() is spec and spec.shape == (784,)
    assert InputSpec([3]).batch([None]).shape == (-1, 3)
    with pytest.raises(ValueError, match="exactly one"):
        InputSpec([3]).batch([2, 3])
    with pytest.raises(ValueError, match="should be an int"):
        InputSpec([3]).batch(2.5)
    with pytest.raises(ValueError, match="no batch dim"):
        InputSpec([]).unbatch()


def test_eq_compares_all_fields_and_hash_ignores_the_name():
    a = InputSpec([None, 4], "float32", "x")
    assert a == InputSpec([-1, 4], paddle.float32, "x")
    assert a != InputSpec([-1, 4], "float32", "y")
    assert a != InputSpec([-1, 4], "float64", "x")
    assert a != InputSpec([-1, 4], "float32", "x", stop_gradient=True)
    assert a != (-1, 4)
    assert hash(a) == hash(InputSpec([None, 4], "float32", "y"))  # same Program for a renamed input
    assert len({a, InputSpec([None, 4], "float32", "x")}) == 1


def test_bad_shapes_and_dtypes_raise_clearly():
    with pytest.raises(ValueError, match=r"shape\[1\] should be an int or None, got str"):
        InputSpec([None, "4"])
    with pytest.raises(ValueError, match="shape must be a list or tuple"):
        InputSpec(4)
    with pytest.raises(ValueError, match=r"shape\[0\] is -3"):
        InputSpec([-3])
    with pytest.raises(ValueError, match="expected one of"):
        InputSpec([2], "complex1024")
    with pytest.raises(ValueError, match="name must be a str"):
        InputSpec([2], "float32", 5)
