"""Sorting ops: sort, argsort, topk, take_along_axis, put_along_axis -- forward vs numpy and
PyTorch, stability, gradients, double grads, errors."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument, Unimplemented

from .opcheck import arrays, assert_forward, check_double_grad, check_grad, shapes, torch_or_skip


def t(a, **kw):
    return paddle.to_tensor(a, **kw)


def descending_stable(x, axis):
    """Reference: descending order, equal values in their original order."""
    keys = np.flip(x, axis)
    order = np.flip(np.argsort(keys, axis=axis, kind="stable"), axis)
    return x.shape[axis] - 1 - order


# ---- sort / argsort --------------------------------------------------------------------------------
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_sort_and_argsort_match_numpy_stably(data):
    shape = data.draw(shapes(max_dims=3))
    axis = data.draw(st.integers(-max(len(shape), 1), max(len(shape), 1) - 1))
    dtype = data.draw(st.sampled_from(["float32", "float64", "int32", "int64", "bool"]))
    x = data.draw(arrays(shape, dtype, -2, 2))   # a narrow range: plenty of ties
    descending = data.draw(st.booleans())
    if x.ndim == 0:
        assert_forward(paddle.sort(t(x), axis=axis), x)
        assert_forward(paddle.argsort(t(x), axis=axis), np.array(0))
        return
    order = descending_stable(x, axis) if descending else np.argsort(x, axis=axis, kind="stable")
    assert_forward(paddle.argsort(t(x), axis=axis, descending=descending), order.astype(np.int64))
    assert_forward(paddle.sort(t(x), axis=axis, descending=descending), np.take_along_axis(x, order, axis))


def test_argsort_is_stable_and_matches_torch():
    torch = torch_or_skip()
    x = np.array([[2.0, 1.0, 2.0, 1.0, 3.0, 2.0], [0.0, 0.0, 1.0, 0.0, 1.0, -1.0]], np.float32)
    for descending in (False, True):
        expected = torch.sort(torch.tensor(x), dim=1, descending=descending, stable=True)
        np.testing.assert_array_equal(paddle.argsort(t(x), descending=descending).numpy(),
                                      expected.indices.numpy())
        np.testing.assert_array_equal(t(x).sort(descending=descending).numpy(), expected.values.numpy())


def test_sort_puts_nan_last_ascending_and_first_descending():
    x = t([1.0, float("nan"), -1.0])
    assert np.isnan(paddle.sort(x).numpy()[2])
    assert np.isnan(paddle.sort(x, descending=True).numpy()[0])


@pytest.mark.parametrize("axis, descending", [(-1, False), (0, True), (1, True)])
def test_sort_grad(axis, descending):
    x = np.random.default_rng(0).permutation(24).reshape(2, 3, 4) / 7.0  # distinct values: no ties
    check_grad(lambda a: paddle.sort(a, axis=axis, descending=descending), [x])
    check_double_grad(lambda a: paddle.sort(a, axis=axis, descending=descending) ** 2, [x])


def test_argsort_has_no_gradient():
    x = t([3.0, 1.0], stop_gradient=False)
    out = paddle.argsort(x)
    assert out.dtype == paddle.int64 and out.stop_gradient


def test_sort_errors():
    with pytest.raises(InvalidArgument, match="sort: axis 2 is out of range for a 2-D tensor"):
        paddle.sort(t(np.zeros((2, 3))), axis=2)
    with pytest.raises(InvalidArgument, match="argsort: axis must be an int"):
        paddle.argsort(t(np.zeros(3)), axis=0.5)


# ---- topk --------------------------------------------------------------------------------------------
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_topk_matches_a_full_sort(data):
    shape = data.draw(shapes(min_dims=1, max_dims=3, min_side=1))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    n = shape[axis]
    size = int(np.prod(shape))
    dtype = data.draw(st.sampled_from(["float32", "float64", "int64"]))
    x = np.random.default_rng(data.draw(st.integers(0, 999))).permutation(size).reshape(shape).astype(dtype)
    k = data.draw(st.integers(1, n))
    largest = data.draw(st.booleans())
    values, indices = paddle.topk(t(x), k, axis=axis, largest=largest)
    order = np.argsort(-x if largest else x, axis=axis, kind="stable")
    want = np.take(order, np.arange(k), axis=axis)
    assert_forward(indices, want.astype(np.int64))
    assert_forward(values, np.take_along_axis(x, want, axis))
    unsorted_values, _ = paddle.topk(t(x), k, axis=axis, largest=largest, sorted=False)
    np.testing.assert_array_equal(np.sort(unsorted_values.numpy(), axis=axis), np.sort(values.numpy(), axis=axis))


def test_topk_matches_torch_and_defaults_to_last_axis():
    torch = torch_or_skip()
    x = np.random.default_rng(1).permutation(20).reshape(4, 5).astype(np.float32)
    values, indices = paddle.topk(t(x), 3)
    expected = torch.topk(torch.tensor(x), 3)
    np.testing.assert_array_equal(values.numpy(), expected.values.numpy())
    np.testing.assert_array_equal(indices.numpy(), expected.indices.numpy())
    assert paddle.topk(t(x), t(2), axis=0)[0].shape == [2, 5]
    v0, i0 = paddle.topk(t(2.5), 1)
    assert v0.shape == [] and float(v0) == 2.5 and int(i0) == 0


def test_topk_grad_flows_to_the_selected_entries():
    x = np.random.default_rng(2).permutation(12).reshape(3, 4) / 5.0
    check_grad(lambda a: paddle.topk(a, 2, axis=1), [x], out_index=0)
    check_grad(lambda a: paddle.topk(a, 2, axis=0, largest=False), [x], out_index=0)
    check_double_grad(lambda a: paddle.topk(a * a, 3)[0], [x])
    xt = t([1.0, 5.0, 3.0], stop_gradient=False)
    values, indices = xt.topk(2)
    assert indices.stop_gradient and not values.stop_gradient
    values.sum().backward()
    assert xt.grad.numpy().tolist() == [0.0, 1.0, 1.0]


def test_topk_errors():
    x = t(np.zeros((2, 3)))
    with pytest.raises(InvalidArgument, match="topk: k=4 is out of range for axis 1 of size 3"):
        paddle.topk(x, 4)
    with pytest.raises(InvalidArgument, match="topk: k=0 is out of range"):
        paddle.topk(x, 0)
    with pytest.raises(InvalidArgument, match="topk: k got float"):
        paddle.topk(x, 1.5)


# ---- take_along_axis / put_along_axis ---------------------------------------------------------------
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_take_along_axis_matches_numpy(data):
    shape = data.draw(shapes(min_dims=1, max_dims=3, min_side=1))
    axis = data.draw(st.integers(0, len(shape) - 1))
    x = data.draw(arrays(shape, "float32"))
    idx_shape = tuple(data.draw(st.integers(0, 3)) if d == axis else data.draw(st.sampled_from([1, n]))
                      for d, n in enumerate(shape))
    rng = np.random.default_rng(data.draw(st.integers(0, 999)))
    idx = rng.integers(-shape[axis], shape[axis], idx_shape)
    full = list(shape)  # indices broadcast to x's shape on every axis but `axis`
    full[axis] = idx_shape[axis]
    expected = np.take_along_axis(x, np.broadcast_to(idx, full), axis)
    assert_forward(paddle.take_along_axis(t(x), t(idx), axis), expected)


def test_take_along_axis_without_broadcast_is_torch_gather():
    torch = torch_or_skip()
    x = np.arange(20.0).reshape(4, 5)
    idx = np.array([[0, 4], [3, 3]])
    got = paddle.take_along_axis(t(x), t(idx), 1, broadcast=False)
    np.testing.assert_array_equal(got.numpy(), torch.gather(torch.tensor(x), 1, torch.tensor(idx)).numpy())


@pytest.mark.parametrize("idx, broadcast", [([[0, 3, 0]], True), ([[1, 1], [2, 0]], False)])
def test_take_along_axis_grads(idx, broadcast):
    x = np.random.default_rng(3).uniform(-2, 2, (3, 4))
    idx = t(idx)
    check_grad(lambda a: paddle.take_along_axis(a, idx, 1, broadcast=broadcast), [x])
    check_double_grad(lambda a: paddle.take_along_axis(a, idx, 1, broadcast=broadcast) ** 2, [x])


def test_put_along_axis_as_in_paddle_docs():
    x = t([[10, 30, 20], [60, 40, 50]])
    assert paddle.put_along_axis(x, t([[0]]), 99, 0).numpy().tolist() == [[99, 99, 99], [60, 40, 50]]
    index = t(np.zeros((2, 2), np.int32))
    value = t([[1, 2], [3, 4]])
    out = paddle.put_along_axis(x, index, value, 0, "add", True, False)
    assert out.numpy().tolist() == [[14, 36, 20], [60, 40, 50]]
    assert paddle.put_along_axis(x, index, value, 0, "add", False, False).numpy().tolist() == \
        [[4, 6, 20], [60, 40, 50]]
    assert paddle.put_along_axis(x, t([[1]]), 2, 1, "mul").numpy().tolist() == [[10, 60, 20], [60, 80, 50]]


@pytest.mark.parametrize("reduce, include_self", [("assign", True), ("add", True), ("add", False)])
def test_put_along_axis_grads(reduce, include_self):
    rng = np.random.default_rng(4)
    x, values = rng.uniform(-2, 2, (3, 4)), rng.uniform(-2, 2, (3, 1))
    idx = t([[2], [0], [3]])
    fn = lambda a, v: paddle.put_along_axis(a, idx, v, 1, reduce, include_self, False)
    check_grad(fn, [x, values])
    check_double_grad(lambda a, v: fn(a, v) * a, [x, values])


def test_along_axis_errors():
    x = t(np.zeros((2, 3)))
    with pytest.raises(IndexError, match="take_along_axis: index 3 is out of range for axis 1 of size 3"):
        paddle.take_along_axis(x, t([[3]]), 1)
    with pytest.raises(InvalidArgument, match="take_along_axis: indices has 1 dims but arr has 2"):
        paddle.take_along_axis(x, t([0]), 1)
    with pytest.raises(InvalidArgument, match=r"take_along_axis: indices of shape \[3, 1\] cannot be broadcast"):
        paddle.take_along_axis(x, t([[0], [0], [0]]), 1)
    with pytest.raises(InvalidArgument, match=r"take_along_axis: indices has shape \[3, 1\], larger than"):
        paddle.take_along_axis(x, t([[0], [0], [0]]), 1, broadcast=False)
    with pytest.raises(InvalidArgument, match="take_along_axis: argument 'indices' has dtype float32"):
        paddle.take_along_axis(x, t([[0.0]]), 1)
    with pytest.raises(Unimplemented, match="put_along_axis: reduce='amax' is not supported"):
        paddle.put_along_axis(x, t([[0]]), 1.0, 1, reduce="amax")
    with pytest.raises(InvalidArgument, match=r"put_along_axis: values of shape \[2\] cannot be broadcast"):
        paddle.put_along_axis(x, t([[0]]), t([1.0, 2.0]), 1, broadcast=False)
    with pytest.raises(InvalidArgument, match="put_along_axis: values got str"):
        paddle.put_along_axis(x, t([[0]]), "a", 1)
    y = t(np.ones((2, 3)), stop_gradient=False)
    out = paddle.put_along_axis(y, t([[0]]), 2.0, 1, reduce="mul")
    with pytest.raises(Unimplemented, match="put_along_axis: the gradient of reduce='mul'"):
        out.sum().backward()


def test_infer_meta_works_without_values_as_in_a_static_program():
    from minipaddle.framework.ops import sorting as S
    from minipaddle.framework.registry import MetaTensor
    f32, i64 = np.dtype("float32"), np.dtype("int64")
    x = MetaTensor((-1, 5), f32)
    assert S.topk_meta(x, k=2, axis=1) == (((-1, 2), f32), ((-1, 2), i64))
    assert S.topk_meta(MetaTensor((3, -1), f32), k=9, axis=1)[0].shape == (3, 9)  # size unknown: no check
    assert S.sort_meta(x, axis=0)[1] == ((-1, 5), i64)
    assert S.take_along_axis_meta(x, MetaTensor((1, 3), i64), axis=1).shape == (-1, 3)
    assert S.put_along_axis_meta(x, MetaTensor((-1, 2), i64), MetaTensor((), f32), axis=1).shape == (-1, 5)
