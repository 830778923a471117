"""Reductions: forward vs numpy on drawn shapes and axes, gradients, double grads, Paddle's
tie and zero rules, numerical stability, PyTorch, and every error path."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument

from .opcheck import arrays, assert_forward, check_double_grad, check_grad, shapes, torch_or_skip


def _logsumexp(x, axis=None, keepdims=False):
    m = np.max(x, axis=axis, keepdims=True, initial=-np.inf)
    out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axis)


# name -> (numpy reference(x, axis, keepdims), input range, must the reduced dims be non-empty?)
REDUCE = {
    "sum": (np.sum, (-3, 3), False),
    "mean": (np.mean, (-3, 3), False),
    "max": (np.max, (-3, 3), True),
    "min": (np.min, (-3, 3), True),
    "amax": (np.max, (-3, 3), True),
    "amin": (np.min, (-3, 3), True),
    "prod": (np.prod, (0.5, 1.5), False),
    "logsumexp": (_logsumexp, (-3, 3), True),
    "var": (lambda x, axis, keepdims: np.var(x, axis=axis, keepdims=keepdims, ddof=1), (-3, 3), True),
    "std": (lambda x, axis, keepdims: np.std(x, axis=axis, keepdims=keepdims, ddof=1), (-3, 3), True),
    "norm": (lambda x, axis, keepdims: np.sqrt(np.sum(x * x, axis=axis, keepdims=keepdims)), (-3, 3), False),
}
TWICE = ("mean", "prod", "logsumexp", "var", "std", "norm")


@st.composite
def shape_and_axis(draw, min_side=0):
    shape = draw(shapes(min_dims=0, max_dims=4, min_side=min_side, max_side=3))
    ndim = len(shape)
    kind = draw(st.sampled_from(["none", "int", "list"])) if ndim else "none"
    if kind == "none":
        return shape, None
    if kind == "int":
        return shape, draw(st.integers(-ndim, ndim - 1))
    return shape, draw(st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim, unique=True))


def _np_axis(axis):
    return tuple(axis) if isinstance(axis, list) else axis


# ---- forward -----------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(REDUCE))
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_reduction_forward_matches_numpy(name, data):
    ref, (lo, hi), nonempty = REDUCE[name]
    shape, axis = data.draw(shape_and_axis(min_side=2 if name in ("var", "std") else int(nonempty)))
    if name == "norm" and isinstance(axis, list):
        axis = axis[:1]  # two axes make a matrix norm (Paddle 3): tests/ops/test_matrix.py
    keepdim = data.draw(st.booleans())
    dtype = data.draw(st.sampled_from(["float32", "float64"]))
    x = data.draw(arrays(shape, dtype, lo, hi))
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # numpy warns on the mean of nothing; we don't
        expected = np.asarray(ref(x, axis=_np_axis(axis), keepdims=keepdim)).astype(dtype)
    out = getattr(paddle, name)(paddle.to_tensor(x), axis=axis, keepdim=keepdim)
    assert_forward(out, expected, rtol=1e-4 if dtype == "float32" else 1e-10, atol=1e-5)


@pytest.mark.parametrize("name", ["sum", "max", "min", "prod"])
def test_integer_reductions(name):
    x = np.array([[3, -1, 2], [4, 0, -5]], dtype="int32")
    out = getattr(paddle, name)(paddle.to_tensor(x), axis=1)
    ref = getattr(np, name)(x, axis=1)
    expected_dtype = "int64" if name == "sum" else "int32"  # Paddle widens only sum
    assert_forward(out, ref.astype(expected_dtype))


def test_sum_dtypes_follow_paddle():
    assert paddle.sum(paddle.to_tensor([True, True, False])).numpy() == 2
    assert paddle.sum(paddle.to_tensor([True, False])).dtype == paddle.int64
    assert paddle.sum(paddle.to_tensor([1, 2], dtype="int32")).dtype == paddle.int64
    assert paddle.sum(paddle.to_tensor([1.5, 2.0]), dtype="float64").dtype == paddle.float64
    assert paddle.sum(paddle.ones([2, 3]), axis=[]).shape == []  # [] means every axis


def test_zero_d_and_empty_inputs():
    s = paddle.to_tensor(2.5)
    for name in ("sum", "mean", "max", "prod", "logsumexp", "norm"):
        out = getattr(paddle, name)(s, axis=0)
        assert out.shape == [] and out.item() == pytest.approx(2.5), name
    e = paddle.zeros([0, 3])
    assert paddle.sum(e, axis=0).numpy().tolist() == [0.0, 0.0, 0.0]
    assert paddle.prod(e, axis=0).numpy().tolist() == [1.0, 1.0, 1.0]
    assert np.isnan(paddle.mean(e).item())
    assert paddle.logsumexp(e, axis=0).numpy().tolist() == [-np.inf] * 3


# ---- gradients ---------------------------------------------------------------------
AXES = [None, 1, [0, 2], -1]


@pytest.mark.parametrize("name", sorted(REDUCE))
@pytest.mark.parametrize("axis", AXES, ids=str)
def test_reduction_grad(name, axis):
    _, (lo, hi), _ = REDUCE[name]
    x = np.random.default_rng(0).uniform(lo, hi, (2, 3, 2))
    keepdim = axis == 1
    check_grad(getattr(paddle, name), [x], kwargs={"axis": axis, "keepdim": keepdim})


@pytest.mark.parametrize("name", TWICE)
def test_reduction_double_grad(name):
    _, (lo, hi), _ = REDUCE[name]
    x = np.random.default_rng(1).uniform(lo, hi, (2, 3))
    check_double_grad(getattr(paddle, name), [x], kwargs={"axis": 1})
    check_double_grad(getattr(paddle, name), [x])


def test_max_gives_every_tie_the_full_gradient_and_amax_shares_it():
    data = [[0.1, 0.9, 0.9, 0.9], [0.9, 0.9, 0.6, 0.7]]  # Paddle's documented example: 5 maxima
    x = paddle.to_tensor(data, dtype="float64", stop_gradient=False)
    paddle.max(x).backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0, 1, 1, 1], [1, 1, 0, 0]])
    x.clear_grad()
    paddle.amax(x).backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0, 0.2, 0.2, 0.2], [0.2, 0.2, 0, 0]])
    x.clear_grad()
    paddle.amin(x, axis=1).backward()
    np.testing.assert_allclose(x.grad.numpy(), [[1, 0, 0, 0], [0, 0, 1, 0]])


@pytest.mark.parametrize("values", [[2.0, 0.0, 3.0, 4.0], [0.0, 3.0, 0.0, 2.0], [1.5, -2.0, 3.0, 0.5]])
def test_prod_grad_is_exact_with_zeros(values):
    x = np.array(values).reshape(2, 2)
    check_grad(paddle.prod, [x])
    check_grad(paddle.prod, [x], kwargs={"axis": 1})
    t = paddle.to_tensor(np.array(values), stop_gradient=False)
    paddle.prod(t).backward()
    expected = [np.prod(np.delete(values, i)) for i in range(len(values))]
    np.testing.assert_allclose(t.grad.numpy(), expected)


# ---- argmax, argmin ----------------------------------------------------------------
@pytest.mark.parametrize("name", ["argmax", "argmin"])
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_arg_reductions_match_numpy(name, data):
    shape = data.draw(shapes(min_dims=0, max_dims=3, min_side=1, max_side=4))
    x = data.draw(arrays(shape, data.draw(st.sampled_from(["float32", "int64"])), -5, 5))
    keepdim = data.draw(st.booleans())
    axis = data.draw(st.none() | st.integers(-max(x.ndim, 1), max(x.ndim, 1) - 1))
    out = getattr(paddle, name)(paddle.to_tensor(x), axis=axis, keepdim=keepdim)
    np_axis = None if x.ndim == 0 else axis
    assert_forward(out, getattr(np, name)(x, axis=np_axis, keepdims=keepdim).astype("int64"))


def test_argmax_flattens_by_default_and_takes_dtype():
    x = paddle.to_tensor([[5, 8, 9, 5], [0, 0, 1, 7], [6, 9, 2, 4]])
    assert paddle.argmax(x).shape == [] and paddle.argmax(x).item() == 2
    assert paddle.argmax(x, axis=0, keepdim=True).numpy().tolist() == [[2, 2, 0, 1]]
    assert paddle.argmin(x, axis=-1, dtype="int32").dtype == paddle.int32
    assert x.argmax(axis=1).numpy().tolist() == [2, 3, 1]


def test_argmax_has_no_gradient():
    x = paddle.to_tensor([1.0, 3.0, 2.0], stop_gradient=False)
    assert paddle.argmax(x).stop_gradient


# ---- cumsum ------------------------------------------------------------------------
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_cumsum_matches_numpy(data):
    shape = data.draw(shapes(min_dims=0, max_dims=3, max_side=4))
    dtype = data.draw(st.sampled_from(["float32", "float64", "int32", "int64"]))
    x = data.draw(arrays(shape, dtype))
    axis = None if x.ndim == 0 else data.draw(st.none() | st.integers(-x.ndim, x.ndim - 1))
    out = paddle.cumsum(paddle.to_tensor(x), axis=axis)
    assert_forward(out, np.cumsum(x, axis=axis).astype(dtype), rtol=1e-5)


@pytest.mark.parametrize("axis", [None, 0, -1])
def test_cumsum_grad_is_a_reversed_cumsum(axis):
    x = np.random.default_rng(2).uniform(-1, 1, (3, 4))
    check_grad(paddle.cumsum, [x], kwargs={"axis": axis})
    t = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    paddle.cumsum(t).backward()
    assert t.grad.numpy().tolist() == [3.0, 2.0, 1.0]


def test_cumsum_dtype_casts_first():
    out = paddle.cumsum(paddle.to_tensor([1, 2, 3], dtype="int32"), dtype="float64")
    assert out.dtype == paddle.float64 and out.numpy().tolist() == [1.0, 3.0, 6.0]
    assert paddle.cumsum(paddle.to_tensor([1, 2], dtype="int32")).dtype == paddle.int32


# ---- stability and edge values ------------------------------------------------------
def test_logsumexp_does_not_overflow():
    x = paddle.to_tensor([[1000.0, 1000.0], [-1000.0, -1000.0]])
    np.testing.assert_allclose(paddle.logsumexp(x, axis=1).numpy(), [1000 + np.log(2), -1000 + np.log(2)])
    neg_inf = paddle.to_tensor([-np.inf, -np.inf])
    assert paddle.logsumexp(neg_inf).item() == -np.inf


def test_var_and_std_unbiased_flag():
    x = np.array([[1.0, 2.0, 4.0], [0.0, 0.0, 3.0]])
    t = paddle.to_tensor(x)
    np.testing.assert_allclose(paddle.var(t, axis=1, unbiased=False).numpy(), np.var(x, axis=1))
    np.testing.assert_allclose(paddle.std(t, unbiased=True).numpy(), np.std(x, ddof=1))
    assert np.isnan(paddle.var(paddle.to_tensor([3.0])).item())  # N - 1 = 0, as in Paddle
    check_grad(paddle.std, [x], kwargs={"axis": 0, "unbiased": False})


def test_std_of_a_constant_has_zero_gradient_not_nan():
    x = paddle.to_tensor([2.0, 2.0, 2.0], stop_gradient=False)
    paddle.std(x).backward()
    assert x.grad.numpy().tolist() == [0.0, 0.0, 0.0]


# ---- norm --------------------------------------------------------------------------
NORM_P = {"fro": 2, 1: 1, 2: 2, 3: 3, 0.5: 0.5, float("inf"): np.inf, float("-inf"): -np.inf, 0: 0}


@pytest.mark.parametrize("p", list(NORM_P), ids=str)
@pytest.mark.parametrize("axis", [None, 1, [0, 1, 2]], ids=str)
def test_norm_matches_numpy_vector_norm(p, axis):
    x = np.random.default_rng(3).uniform(-2, 2, (2, 3, 4))
    if isinstance(axis, list):  # a vector norm over all three axes (two axes: a matrix norm, tests/ops/test_matrix.py)
        if p == "fro":  # Paddle: 'fro' over a list of axes is the matrix norm, which takes two
            with pytest.raises(InvalidArgument, match="matrix_norm: axis got"):
                paddle.norm(paddle.to_tensor(x), p=p, axis=axis)
            return
        expected = np.linalg.norm(x.reshape(-1), ord=NORM_P[p])
    else:
        expected = np.linalg.norm(x.reshape(-1) if axis is None else x, ord=NORM_P[p], axis=axis)
    out = paddle.norm(paddle.to_tensor(x), p=p, axis=axis)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-10)
    if p != 0:
        check_grad(paddle.norm, [x], kwargs={"p": p, "axis": axis})


def test_norm_keepdim_and_double_grad():
    x = np.random.default_rng(4).uniform(-2, 2, (3, 4))
    assert paddle.norm(paddle.to_tensor(x), p=1, axis=-1, keepdim=True).shape == [3, 1]
    for p in (2, 3):
        check_double_grad(paddle.norm, [x], kwargs={"p": p, "axis": 1})


def test_norm_gradient_at_zero_is_zero_not_nan():
    x = paddle.zeros([3], dtype="float64")
    x.stop_gradient = False
    paddle.norm(x).backward()
    assert x.grad.numpy().tolist() == [0.0, 0.0, 0.0]


# ---- softmax, log_softmax ------------------------------------------------------------
def _softmax(x, axis):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_softmax_matches_numpy(name, data):
    shape = data.draw(shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    dtype = data.draw(st.sampled_from(["float32", "float64"]))
    x = data.draw(arrays(shape, dtype, -5, 5))
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    expected = _softmax(x, axis)
    if name == "log_softmax":
        expected = np.log(expected)
    out = getattr(paddle, name)(paddle.to_tensor(x), axis=axis)
    assert_forward(out, expected.astype(dtype), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_grads_and_double_grads(name):
    x = np.random.default_rng(5).uniform(-2, 2, (2, 3, 4))
    fn = getattr(paddle, name)
    check_grad(fn, [x])
    check_grad(fn, [x], kwargs={"axis": 1})
    check_double_grad(fn, [x[0]], kwargs={"axis": 0})


def test_softmax_is_stable_for_large_inputs_and_takes_dtype():
    x = paddle.to_tensor([[1000.0, 1000.0, -1000.0]])
    np.testing.assert_allclose(paddle.softmax(x).numpy(), [[0.5, 0.5, 0.0]])
    np.testing.assert_allclose(paddle.log_softmax(x).numpy(), [[-np.log(2), -np.log(2), -2000 - np.log(2)]],
                               rtol=1e-6)
    assert paddle.softmax(paddle.to_tensor([1.0, 2.0]), dtype="float64").dtype == paddle.float64
    assert paddle.softmax(paddle.to_tensor(3.0)).item() == 1.0


@pytest.mark.parametrize("kernel", ["numpy", "numba"])
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_rows_with_inf_or_nan_are_nan_as_in_paddle_and_torch(name, kernel):
    from minipaddle.framework.registry import KernelKey, get_op
    fn = {k.name: k.fn for k in get_op(name).kernels[KernelKey("cpu", np.dtype("float32"))]}[kernel]
    inf, nan = np.inf, np.nan
    x = np.array([[inf, 1.0, 2.0], [-inf, -inf, -inf], [nan, 1.0, 2.0], [-inf, 1.0, 2.0], [inf, inf, 0.0]],
                 np.float32)
    with np.errstate(all="raise"):  # no warning on the way either
        out = fn(x, axis=-1)
    assert np.isnan(out[[0, 1, 2, 4]]).all()
    finite = np.array([0.0, 1 / (1 + np.e), np.e / (1 + np.e)], np.float32)
    with np.errstate(divide="ignore"):
        expected = finite if name == "softmax" else np.log(finite)
    np.testing.assert_allclose(out[3], expected, rtol=1e-6)
    torch = torch_or_skip()
    reference = getattr(torch, name)(torch.from_numpy(x), -1).numpy()
    np.testing.assert_array_equal(np.isnan(out), np.isnan(reference))


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_numba_softmax_kernel_matches_numpy_kernel(name):
    from minipaddle.framework.registry import KernelKey, get_op
    x = np.random.default_rng(6).uniform(-4, 4, (3, 5, 7)).astype(np.float32)
    kernels = {k.name: k.fn for k in get_op(name).kernels[KernelKey("cpu", np.dtype("float32"))]}
    for axis in (2, 0):
        np.testing.assert_allclose(kernels["numba"](x, axis=axis), kernels["numpy"](x, axis=axis), rtol=1e-5)


# ---- against PyTorch ---------------------------------------------------------------
def test_reductions_match_torch():
    torch = torch_or_skip()
    x = np.random.default_rng(7).uniform(-2, 2, (3, 4, 5)).astype(np.float32)
    t, p = torch.tensor(x), paddle.to_tensor(x)
    pairs = [
        (paddle.logsumexp(p, axis=1), torch.logsumexp(t, dim=1)),
        (paddle.var(p, axis=[0, 2]), torch.var(t, dim=(0, 2))),
        (paddle.std(p, axis=-1, keepdim=True), torch.std(t, dim=-1, keepdim=True)),
        (paddle.norm(p, p=3, axis=2), torch.linalg.vector_norm(t, ord=3, dim=2)),
        (paddle.cumsum(p, axis=1), torch.cumsum(t, dim=1)),
        (paddle.softmax(p, axis=0), torch.softmax(t, dim=0)),
        (paddle.log_softmax(p), torch.log_softmax(t, dim=-1)),
        (paddle.prod(p, axis=2), torch.prod(t, dim=2)),
    ]
    for ours, theirs in pairs:
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-6)


# ---- errors ------------------------------------------------------------------------
def test_axis_errors_name_the_op():
    x = paddle.ones([2, 3])
    with pytest.raises(InvalidArgument, match=r"sum: axis 2 is out of range for a 2-D tensor"):
        paddle.sum(x, axis=2)
    with pytest.raises(InvalidArgument, match=r"mean: axis \[1, -1\] names the same axis twice"):
        paddle.mean(x, axis=[1, -1])
    with pytest.raises(InvalidArgument, match="max: axis must be None, an int or a list of ints, got str"):
        paddle.max(x, axis="0")
    with pytest.raises(InvalidArgument, match="argmax: axis -3 is out of range"):
        paddle.argmax(x, axis=-3)
    with pytest.raises(InvalidArgument, match="cumsum: axis 5 is out of range"):
        paddle.cumsum(x, axis=5)
    with pytest.raises(InvalidArgument, match="softmax: axis 2 is out of range"):
        paddle.softmax(x, axis=2)


def test_dtype_errors_name_the_op():
    ints = paddle.to_tensor([1, 2, 3])
    for name in ("mean", "logsumexp", "var", "std", "norm", "softmax", "log_softmax"):
        with pytest.raises(InvalidArgument, match=f"{name}: argument 'x' has dtype int64, expected a floating"):
            getattr(paddle, name)(ints)
    with pytest.raises(InvalidArgument, match="argmax: dtype must be int32 or int64, got float32"):
        paddle.argmax(ints, dtype="float32")
    with pytest.raises(InvalidArgument, match="cumsum: argument 'x' has dtype bool"):
        paddle.cumsum(paddle.to_tensor([True, False]))
    with pytest.raises(InvalidArgument, match="max: argument 'x' has dtype bool"):
        paddle.max(paddle.to_tensor([True, False]))
    with pytest.raises(InvalidArgument, match="argmin: argument 'x' has dtype bool"):
        paddle.argmin(paddle.to_tensor([True, False]))
    with pytest.raises(InvalidArgument, match="sum: argument 'x' got list, expected a Tensor"):
        paddle.sum([1.0, 2.0])


def test_reducing_an_empty_dim_without_identity_is_an_error():
    e = paddle.zeros([2, 0])
    with pytest.raises(InvalidArgument, match=r"max: cannot reduce over an empty dim of x with shape \[2, 0\]"):
        paddle.max(e, axis=1)
    with pytest.raises(InvalidArgument, match="argmin: cannot reduce over an empty dim"):
        paddle.argmin(e)
    assert paddle.max(e, axis=0).shape == [0]  # reducing the non-empty axis is fine


def test_norm_argument_errors():
    x = paddle.ones([2, 2, 2])
    with pytest.raises(InvalidArgument, match="matrix_norm: p got 3"):
        paddle.norm(x, p=3, axis=[0, 1])
    with pytest.raises(InvalidArgument, match="norm: p got 'l2'"):
        paddle.norm(x, p="l2")
    with pytest.raises(InvalidArgument, match="norm: p got list"):
        paddle.norm(x, p=[2])
    with pytest.raises(InvalidArgument, match="matrix_norm: axis got"):
        paddle.norm(x, p="nuc")


def test_reductions_are_tensor_methods():
    x = paddle.to_tensor([[1.0, 5.0], [3.0, 2.0]])
    assert x.sum().item() == 11.0
    assert x.mean(axis=0).numpy().tolist() == [2.0, 3.5]
    assert x.max(axis=1, keepdim=True).shape == [2, 1]
    assert x.argmin().item() == 0
    assert x.cumsum(axis=1).numpy().tolist() == [[1.0, 6.0], [3.0, 5.0]]
    assert x.norm(p=1).item() == 11.0
