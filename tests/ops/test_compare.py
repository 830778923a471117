"""Comparison and logic ops: forward vs numpy on drawn broadcast shapes, dtypes and layouts,
operators, NaN/Inf predicates, any/all, allclose, no gradients, and every error a user can hit."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument

from .opcheck import arrays, assert_forward, broadcast_pair, shapes

FEW = settings(max_examples=20, deadline=None)

COMPARISONS = {
    "equal": np.equal, "not_equal": np.not_equal, "less_than": np.less, "less_equal": np.less_equal,
    "greater_than": np.greater, "greater_equal": np.greater_equal,
}
LOGICAL = {"logical_and": np.logical_and, "logical_or": np.logical_or, "logical_xor": np.logical_xor}
OPERATORS = {  # Tensor operator -> numpy function on bool arrays
    "__eq__": np.equal, "__ne__": np.not_equal, "__lt__": np.less, "__le__": np.less_equal,
    "__gt__": np.greater, "__ge__": np.greater_equal, "__and__": np.logical_and,
    "__or__": np.logical_or, "__xor__": np.logical_xor,
}


def wrap(a: np.ndarray) -> paddle.Tensor:
    """A tensor over `a` itself, keeping its (maybe non-contiguous) layout; to_tensor would copy."""
    return paddle.Tensor._wrap(np.asarray(a))  # asarray: opcheck.arrays gives a numpy scalar for 0-D bool


def draw_with_ties(data, shape, dtype):
    """Values on a coarse grid so that equal elements (ties) are common."""
    a = data.draw(arrays(shape, dtype, -2, 2))
    if a.dtype.kind == "f":
        a[...] = np.round(a * 2) / 2  # writes through a view too, keeping its layout
    return a


# ---- comparisons ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(COMPARISONS))
@FEW
@given(data=st.data())
def test_comparison_matches_numpy_on_broadcast_shapes(name, data):
    sx, sy = data.draw(broadcast_pair())
    dtype = data.draw(st.sampled_from(["float32", "float64", "int32", "int64", "bool"]))
    x, y = draw_with_ties(data, sx, dtype), draw_with_ties(data, sy, dtype)
    out = getattr(paddle, name)(wrap(x), wrap(y))
    assert_forward(out, COMPARISONS[name](x, y))


@pytest.mark.parametrize("name", sorted(COMPARISONS))
def test_comparison_with_a_python_scalar_on_either_side(name):
    x = np.array([[-1.0, 0.5], [2.0, 0.5]], np.float32)
    ref = COMPARISONS[name]
    assert_forward(getattr(paddle, name)(paddle.to_tensor(x), 0.5), ref(x, np.float32(0.5)))
    assert_forward(getattr(paddle, name)(0.5, paddle.to_tensor(x)), ref(np.float32(0.5), x))


def test_int_and_float_operands_compare_after_promotion():
    i = paddle.to_tensor([1, 2, 3])
    assert (i == 2.0).numpy().tolist() == [False, True, False]
    assert (i < 2.5).numpy().tolist() == [True, True, False]
    assert paddle.equal(i, paddle.to_tensor(2.0)).numpy().tolist() == [False, True, False]  # 0-D: a scalar


def test_int_and_float_tensors_do_not_compare_as_in_paddle():
    i = paddle.to_tensor([1, 2, 3])
    with pytest.raises(TypeError, match="equal: x has dtype int64 and y has dtype float32"):
        paddle.equal(i, paddle.to_tensor([1.0, 2.5, 3.0]))


def test_comparison_operators_on_float_tensors():
    x = paddle.to_tensor([1.0, 2.0, 3.0])
    y = paddle.to_tensor([3.0, 2.0, 1.0])
    assert (x == y).numpy().tolist() == [False, True, False]
    assert (x != y).numpy().tolist() == [True, False, True]
    assert (x < y).numpy().tolist() == [True, False, False]
    assert (x <= y).numpy().tolist() == [True, True, False]
    assert (x > y).numpy().tolist() == [False, False, True]
    assert (x >= y).numpy().tolist() == [False, True, True]
    assert (2 < x).numpy().tolist() == [False, False, True]  # reflected: x > 2


def test_nan_compares_unequal_to_everything():
    x = paddle.to_tensor([np.nan, 1.0])
    same = paddle.to_tensor([np.nan, 1.0])
    assert (x == same).numpy().tolist() == [False, True]
    assert (x != same).numpy().tolist() == [True, False]
    assert (x < np.inf).numpy().tolist() == [False, True]


# ---- logic ---------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(LOGICAL))
@FEW
@given(data=st.data())
def test_logical_ops_treat_nonzero_as_true(name, data):
    sx, sy = data.draw(broadcast_pair())
    dtype = data.draw(st.sampled_from(["bool", "int32", "int64", "float32", "float64"]))
    x, y = draw_with_ties(data, sx, dtype), draw_with_ties(data, sy, dtype)
    out = getattr(paddle, name)(wrap(x), wrap(y))
    assert_forward(out, LOGICAL[name](x, y))


@FEW
@given(data=st.data())
def test_logical_not_matches_numpy(data):
    dtype = data.draw(st.sampled_from(["bool", "int64", "float32"]))
    x = draw_with_ties(data, data.draw(shapes()), dtype)
    assert_forward(paddle.logical_not(wrap(x)), np.logical_not(x))


@pytest.mark.parametrize("dunder", sorted(OPERATORS))
@FEW
@given(data=st.data())
def test_operators_on_bool_tensors(dunder, data):
    sx, sy = data.draw(broadcast_pair())
    x, y = data.draw(arrays(sx, "bool")), data.draw(arrays(sy, "bool"))
    assert_forward(getattr(wrap(x), dunder)(wrap(y)), OPERATORS[dunder](x, y))


def test_invert_of_a_bool_tensor_is_logical_not():
    x = paddle.to_tensor([True, False])
    assert (~x).numpy().tolist() == [False, True]
    assert (~x).dtype == paddle.bool


def test_operators_on_int_tensors_are_bitwise_as_in_paddle():
    x = paddle.to_tensor([1, 2, 3])
    y = paddle.to_tensor([3, 2, 1])
    assert (x & y).numpy().tolist() == [1, 2, 1]
    assert (x | y).numpy().tolist() == [3, 2, 3]
    assert (~x).numpy().tolist() == [-2, -3, -4]


# ---- NaN / Inf predicates ------------------------------------------------------------------
@pytest.mark.parametrize("name, ref", [("isnan", np.isnan), ("isinf", np.isinf), ("isfinite", np.isfinite)])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_nan_inf_predicates_on_floats(name, ref, dtype):
    x = np.array([[0.0, np.nan, np.inf], [-np.inf, -1.5, 3.0]], dtype)
    assert_forward(getattr(paddle, name)(paddle.to_tensor(x)), ref(x))
    assert_forward(getattr(paddle, name)(wrap(x.T)), ref(x.T))  # non-contiguous
    assert_forward(getattr(paddle, name)(paddle.to_tensor(np.zeros((0, 2), dtype))), np.zeros((0, 2), bool))


@pytest.mark.parametrize("dtype", ["int32", "int64", "bool"])
def test_ints_and_bools_are_never_nan_or_inf(dtype):
    x = paddle.to_tensor(np.array([[0, 1], [1, 0]], dtype))
    assert not paddle.isnan(x).numpy().any()
    assert not paddle.isinf(x).numpy().any()
    assert paddle.isfinite(x).numpy().all()
    assert paddle.isfinite(x).shape == [2, 2]


# ---- any / all ------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["any", "all"])
@FEW
@given(data=st.data())
def test_any_all_match_numpy_over_drawn_axes(name, data):
    shape = data.draw(shapes(min_dims=0, max_dims=4))
    dtype = data.draw(st.sampled_from(["bool", "int64", "float32"]))
    x = data.draw(arrays(shape, dtype, 0, 1))
    ndim = len(shape)
    axis = None  # 0-D with an axis: see test_any_all_of_a_0d_tensor_over_axis_0
    if ndim:
        axis = data.draw(st.one_of(st.none(), st.integers(-ndim, ndim - 1),
                                   st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim, unique=True)))
    keepdim = data.draw(st.booleans())
    out = getattr(paddle, name)(wrap(x), axis=axis, keepdim=keepdim)
    np_axis = tuple(axis) if isinstance(axis, list) else axis
    expected = getattr(np, name)(x, axis=np_axis, keepdims=keepdim)
    assert_forward(out, np.asarray(expected))


@pytest.mark.parametrize("name", ["any", "all"])
def test_any_all_of_a_0d_tensor_over_axis_0(name):
    x = paddle.to_tensor(True)
    assert getattr(paddle, name)(x, axis=0).numpy().tolist() is True
    assert getattr(paddle, name)(x, axis=-1).shape == []


def test_any_all_of_empty_tensors():
    e = paddle.to_tensor(np.zeros((0, 3), bool))
    assert paddle.any(e).item() is False
    assert paddle.all(e).item() is True
    assert paddle.all(e, axis=0).numpy().tolist() == [True, True, True]


def test_any_all_are_tensor_methods():
    x = paddle.to_tensor([[True, False], [True, True]])
    assert x.all(axis=1).numpy().tolist() == [False, True]
    assert x.any(axis=0).numpy().tolist() == [True, True]


# ---- allclose, isclose, equal_all -----------------------------------------------------------
@FEW
@given(data=st.data())
def test_allclose_and_isclose_match_numpy(data):
    sx, sy = data.draw(broadcast_pair(min_side=1))
    x = data.draw(arrays(sx, "float64"))
    y = data.draw(arrays(sy, "float64"))
    noise = data.draw(st.sampled_from([0.0, 1e-9, 1e-6, 1e-3]))
    close = x + noise  # a tensor whose distance to x is `noise`
    rtol = data.draw(st.sampled_from([1e-5, 1e-8]))
    atol = data.draw(st.sampled_from([1e-8, 1e-5]))
    assert paddle.allclose(wrap(x), wrap(close), rtol=rtol, atol=atol).item() == \
        np.allclose(x, close, rtol=rtol, atol=atol)
    assert_forward(paddle.isclose(wrap(x), wrap(y), rtol=rtol, atol=atol), np.isclose(x, y, rtol=rtol, atol=atol))


def test_allclose_equal_nan():
    x = paddle.to_tensor([1.0, np.nan])
    assert paddle.allclose(x, x).item() is False
    assert paddle.allclose(x, x, equal_nan=True).item() is True
    assert paddle.isclose(x, x, equal_nan=True).numpy().tolist() == [True, True]
    assert paddle.allclose(x, x).dtype == paddle.bool and paddle.allclose(x, x).shape == []


def test_equal_all_needs_equal_shapes_and_values():
    a = paddle.to_tensor([1, 2, 3])
    assert paddle.equal_all(a, paddle.to_tensor([1, 2, 3])).item() is True
    assert paddle.equal_all(a, paddle.to_tensor([1, 2, 4])).item() is False
    assert paddle.equal_all(a, paddle.to_tensor([[1, 2, 3]])).item() is False  # no broadcasting
    assert paddle.equal_all(a, paddle.to_tensor([1, 2])).item() is False


# ---- no gradients ----------------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda x: x > 0, lambda x: paddle.equal(x, x), lambda x: paddle.logical_and(x, x),
    lambda x: paddle.logical_not(x), lambda x: paddle.isnan(x), lambda x: paddle.isfinite(x),
    lambda x: paddle.any(x > 0), lambda x: paddle.all(x > 0, axis=0), lambda x: paddle.allclose(x, x),
    lambda x: paddle.isclose(x, x), lambda x: paddle.equal_all(x, x),
])
def test_outputs_are_bool_with_stop_gradient_and_no_graph(call):
    x = paddle.to_tensor([[-1.0, 2.0], [0.5, 0.0]], stop_gradient=False)
    out = call(x)
    assert out.dtype == paddle.bool
    assert out.stop_gradient and out.grad_fn is None
    with pytest.raises(InvalidArgument, match="stop_gradient=True, so there is no graph"):
        paddle.grad([out], [x])


def test_a_mask_routes_gradient_only_through_the_float_path():
    x = paddle.to_tensor([-1.0, 2.0, 3.0], stop_gradient=False)
    mask = (x > 0).astype("float32")
    (x * mask).sum().backward()
    assert x.grad.numpy().tolist() == [0.0, 1.0, 1.0]  # d/dx (x * mask) = mask; the mask itself adds nothing


# ---- errors ----------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(COMPARISONS) + sorted(LOGICAL))
def test_mismatched_shapes_name_the_op(name):
    with pytest.raises(InvalidArgument) as e:
        getattr(paddle, name)(paddle.ones([2, 3]), paddle.ones([4]))
    msg = str(e.value)
    assert msg.startswith(f"InvalidArgument: {name}:") and "[2, 3]" in msg and "[4]" in msg


@pytest.mark.parametrize("name", ["allclose", "isclose"])
def test_allclose_mismatched_shapes_name_the_op(name):
    with pytest.raises(InvalidArgument, match=f"{name}: shapes"):
        getattr(paddle, name)(paddle.ones([2, 3]), paddle.ones([4]))


@pytest.mark.parametrize("call, message", [
    (lambda x: paddle.less_than(x, "1"), "less_than: argument 'y' got str, expected a Tensor"),
    (lambda x: paddle.equal([1.0], x), "equal: argument 'x' got list, expected a Tensor"),
    (lambda x: paddle.logical_and(x, [True]), "logical_and: argument 'y' got list, expected a Tensor"),
    (lambda x: paddle.logical_not(1), "logical_not: argument 'x' got int, expected a Tensor"),
    (lambda x: paddle.isnan([1.0]), "isnan: argument 'x' got list, expected a Tensor"),
    (lambda x: paddle.any(x, axis=2), "any: axis 2 is out of range for a 2-D tensor"),
    (lambda x: paddle.all(x, axis=-3), "all: axis -3 is out of range for a 2-D tensor"),
    (lambda x: paddle.all(x, axis=[0, -2]), r"all: axis \[0, -2\] names the same axis twice"),
    (lambda x: paddle.any(x, axis=1.0), "any: axis must be None, an int or a list of ints, got float"),
])
def test_bad_arguments_are_rejected_naming_the_op(call, message):
    with pytest.raises(InvalidArgument, match=message):
        call(paddle.ones([2, 3]))


@pytest.mark.parametrize("name, ref", [("bitwise_and", np.bitwise_and), ("bitwise_or", np.bitwise_or),
                                       ("bitwise_xor", np.bitwise_xor)])
@pytest.mark.parametrize("dtype", ["bool", "int32", "int64"])
def test_bitwise_ops_match_numpy_and_broadcast(name, ref, dtype):
    rng = np.random.default_rng(3)
    x = rng.integers(-8, 8, (2, 3)).astype(dtype)
    y = rng.integers(-8, 8, (3,)).astype(dtype)
    out = getattr(paddle, name)(paddle.to_tensor(x), paddle.to_tensor(y))
    assert_forward(out, ref(x, y))
    assert out.stop_gradient


def test_bitwise_not_and_float_inputs_are_refused():
    assert paddle.bitwise_not(paddle.to_tensor([0, 5])).numpy().tolist() == [-1, -6]
    assert paddle.bitwise_not(paddle.to_tensor([True, False])).numpy().tolist() == [False, True]
    with pytest.raises(InvalidArgument, match="bitwise_and: argument 'x' has dtype float32"):
        paddle.bitwise_and(paddle.to_tensor([1.0]), paddle.to_tensor([1.0]))
    with pytest.raises(InvalidArgument, match="bitwise_not: argument 'x' has dtype float32"):
        ~paddle.to_tensor([1.0])
