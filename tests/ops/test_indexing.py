"""Indexing ops: x[index], x[index] = value, gather/gather_nd/index_select/scatter, one_hot,
masked_fill/masked_select, nonzero -- forward vs numpy, gradients, double grads, errors."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument, PreconditionNotMet

from .opcheck import arrays, assert_forward, check_double_grad, check_grad, shapes, torch_or_skip


def t(a, **kw):
    return paddle.to_tensor(a, **kw)


@st.composite
def advanced_index(draw, shape):
    """A numpy index with at least one int array, mixed with ints, slices and None."""
    bshape = draw(st.sampled_from([(), (2,), (3,), (2, 1), (1, 3)]))
    items = []
    for n in shape:
        kind = draw(st.sampled_from(["array", "slice", "int", "none"] if n else ["slice"]))
        if kind == "array":
            items.append(draw(hnp.arrays(np.int64, bshape, elements=st.integers(-n, n - 1))))
        elif kind == "int":
            items.append(draw(st.integers(-n, n - 1)))
        elif kind == "none":
            items += [None, slice(None, None, -1)]
        else:
            items.append(slice(draw(st.integers(-n - 1, n)), None, draw(st.sampled_from([1, 2, -1]))))
    if not any(isinstance(i, np.ndarray) for i in items):
        items[-1] = np.array([shape[-1] - 1, 0]) if shape[-1] else np.zeros((0,), np.int64)
    return tuple(items)


# ---- getitem ------------------------------------------------------------------------------------
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_basic_indexing_matches_numpy_and_is_a_view(data):
    shape = data.draw(shapes(max_dims=4))
    x = data.draw(arrays(shape, "float32"))
    index = data.draw(hnp.basic_indices(shape, allow_newaxis=True))
    xt = t(x)
    out = xt[index]
    assert_forward(out, x[index])
    if out.size:
        assert np.shares_memory(out.numpy(), xt.numpy()) and out._base is xt


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_advanced_indexing_matches_numpy(data):
    shape = data.draw(shapes(min_dims=1, max_dims=3, min_side=1))
    x = data.draw(arrays(shape, "float64"))
    index = data.draw(advanced_index(shape))
    as_tensors = tuple(t(i) if isinstance(i, np.ndarray) and data.draw(st.booleans()) else i for i in index)
    assert_forward(t(x)[as_tensors], x[index])


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_python_bools_with_none_ellipsis_and_ints_match_numpy(data):
    """A Python bool is numpy's 0-D bool index: a new axis of size 1 (True) or 0 (False)."""
    shape = data.draw(shapes(min_dims=0, max_dims=3, min_side=1))
    x = data.draw(arrays(shape, "float64"))
    pool = [True, False, None, Ellipsis] + ([0, -1, slice(None, None, -1)] if shape else [])
    index = tuple(data.draw(st.lists(st.sampled_from(pool), min_size=1, max_size=4)))
    if sum(i is Ellipsis for i in index) > 1 or sum(isinstance(i, (int, slice)) and not isinstance(i, bool)
                                                      for i in index) > len(shape):
        return
    expected = x[index]
    out = t(x)[index]
    assert_forward(out, expected)
    if out.size:
        check_grad(lambda v: v[index], [x])


def test_setitem_with_python_bools():
    x = t(np.zeros((2, 3)))
    x[True] = 1.0
    x[False] = 5.0
    x[0, True] = t(np.full((1, 3), 2.0))
    np.testing.assert_array_equal(x.numpy(), [[2.0] * 3, [1.0] * 3])


def test_index_kinds():
    x = np.arange(24.0).reshape(2, 3, 4)
    xt = t(x)
    assert_forward(xt[[1, 0]], x[[1, 0]])                      # a list is one index array
    assert_forward(xt[t(1)], x[1])                             # a 0-D int tensor acts as an int
    assert_forward(xt[0, [[0], [2]], [1, 3]], x[0, [[0], [2]], [1, 3]])
    assert_forward(xt[[0, 1], :, [1, 2]], x[[0, 1], :, [1, 2]])  # separated arrays: dims go first
    assert_forward(xt[:, t([True, False, True])], x[:, [True, False, True]])
    assert_forward(xt[xt > 10], x[x > 10])
    assert_forward(xt[..., None, 1:3], x[..., None, 1:3])
    assert_forward(xt[t(0):t(2), -1], x[0:2, -1])              # Tensor slice bounds
    assert_forward(xt[[]], x[np.array([], np.int64)])
    assert_forward(t(5.0)[None], np.array(5.0, np.float32)[None])
    assert xt[0, 0, 0].shape == [] and float(xt[0, 0, 0]) == 0.0


def test_indexing_a_strided_view():
    x = np.arange(40.0).reshape(5, 8)
    v = t(x)[::2, 1::3]                  # a non-contiguous view
    assert_forward(v[[2, 0], ::-1], x[::2, 1::3][[2, 0], ::-1])
    assert_forward(v[1:, t([True, False, True])], x[::2, 1::3][1:, [True, False, True]])


def test_ints_and_bools_keep_their_dtype():
    i = t(np.arange(6).reshape(2, 3))
    assert i[1].dtype == paddle.int64 and i[1].numpy().tolist() == [3, 4, 5]
    b = t(np.array([True, False]))
    assert b[[1, 1, 0]].numpy().tolist() == [False, False, True]


@pytest.mark.parametrize("index", [
    (1, slice(None, None, -1)),
    (slice(None), [0, 2, 0]),            # a repeated index: its gradients add up
    ([1, 0, 1], slice(1, 3), [3, 0, 3]),
    (Ellipsis, None, 2),
])
def test_getitem_grad(index):
    x = np.random.default_rng(0).uniform(-2, 2, (2, 3, 4))
    check_grad(lambda a: a[index], [x])
    check_double_grad(lambda a: a[index] * a[index], [x])


def test_getitem_grad_with_a_bool_mask():
    x = np.random.default_rng(1).uniform(-2, 2, (3, 4))
    mask = t(x > 0)
    check_grad(lambda a: a[mask], [x])
    check_double_grad(lambda a: a[mask] * a[mask], [x])


def test_out_of_range_index_is_a_clear_index_error():
    x = t(np.zeros((2, 3)))
    with pytest.raises(IndexError, match=r"getitem: index 3 is out of range for axis 1 of size 3"):
        x[0, 3]
    with pytest.raises(InvalidArgument, match=r"getitem: index -3 is out of range for axis 0 of size 2"):
        x[[0, -3]]
    with pytest.raises(InvalidArgument, match=r"getitem: index 5 is out of range for axis 1"):
        x[t([[0]]), t([5])]
    assert len(list(x)) == 2  # iteration stops at the IndexError


@pytest.mark.parametrize("index, message", [
    ((0, 0, 0), "too many indices: x is 2-D but 3 dims are indexed"),
    ((Ellipsis, Ellipsis), "single Ellipsis"),
    (1.5, "index of type float is not supported"),
    ((False, [0, 1]), r"index arrays of shapes \[0\], \[2\] cannot be broadcast"),
    (slice(0, 2, 0), "slice step cannot be zero"),
    (np.array([0.5]), "index array has dtype float64"),
    (([0, 1], [0, 1, 2]), r"index arrays of shapes \[2\], \[3\] cannot be broadcast"),
    (np.ones((3, 3), bool), r"bool mask of shape \[3, 3\] does not match the indexed dims \[2, 3\]"),
    (slice(0.5, 2), "slice bounds must be ints"),
])
def test_getitem_rejects_bad_indices(index, message):
    with pytest.raises(InvalidArgument, match=message):
        t(np.zeros((2, 3)))[index]


# ---- setitem ------------------------------------------------------------------------------------
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_setitem_matches_numpy(data):
    shape = data.draw(shapes(min_dims=1, max_dims=3, min_side=1))
    x = data.draw(arrays(shape, "float64"))
    if data.draw(st.booleans()):
        index = data.draw(hnp.basic_indices(shape, allow_newaxis=True))
    else:
        index = data.draw(advanced_index(shape))
    region = x[index].shape
    value_shape = data.draw(st.sampled_from([(), region, region[1:]] + ([(1,) + region] if region else [])))
    value = data.draw(arrays(value_shape, "float64"))
    expected = x.copy()
    expected[index] = value
    xt = t(x)
    version = xt.inplace_version
    xt[index] = t(value) if data.draw(st.booleans()) else value
    assert_forward(xt, expected)
    assert xt.inplace_version >= version  # bumped once the tensor was saved for backward


def test_setitem_scalars_casts_and_views():
    x = t(np.zeros((2, 3), np.float32))
    x[0] = 1                        # an int scalar becomes float32
    x[:, 1] = t([5, 6])             # an int64 tensor is cast to x's dtype
    x[x > 5.5] = -1.0
    assert x.numpy().tolist() == [[1, 5, 1], [0, -1, 0]]
    row = x[1]                       # a view: writing into it writes into x
    row[2] = 7.0
    assert x.numpy()[1, 2] == 7.0
    assert x.dtype == paddle.float32


def _set(index):
    def f(x, v):
        y = x * 1.0                  # a non-leaf, so writing into it keeps its history
        y[index] = v
        return y
    return f


@pytest.mark.parametrize("index, value_shape", [
    ((0, slice(None)), (4,)),
    ((slice(None), [2, 0]), (3, 1)),  # a broadcast value: its gradient sums over the copies
    ((Ellipsis, 1), ()),
])
def test_setitem_grad_reaches_x_and_value(index, value_shape):
    rng = np.random.default_rng(2)
    x, v = rng.uniform(-2, 2, (3, 4)), rng.uniform(-2, 2, value_shape)
    check_grad(_set(index), [x, v])
    check_double_grad(lambda a, b: _set(index)(a, b) * a, [x, v])


def test_setitem_history_through_backward():
    x = t([1.0, 2.0, 3.0], stop_gradient=False)
    v = t(10.0, stop_gradient=False)
    y = x * 2
    y[1] = v * v
    y.sum().backward()
    assert x.grad.numpy().tolist() == [2.0, 0.0, 2.0]
    assert v.grad.numpy().tolist() == 20.0


def test_setitem_on_a_leaf_that_needs_grad_is_an_error():
    x = t([1.0, 2.0], stop_gradient=False)
    with pytest.raises(InvalidArgument, match="setitem"):   # Paddle's InvalidArgument (a ValueError)
        x[0] = 5.0
    with pytest.raises(PreconditionNotMet, match="setitem: .* is a view of a leaf tensor"):
        x[:][0] = 5.0
    with paddle.no_grad():
        x[0] = 5.0
    assert x.numpy().tolist() == [5.0, 2.0]


def test_setitem_after_save_for_backward_is_a_version_error():
    x = t([1.0, 2.0], stop_gradient=False)
    y = x * 2
    z = y * y
    y[0] = 5.0
    with pytest.raises(PreconditionNotMet, match="multiply"):
        z.sum().backward()


def test_setitem_rejects_bad_values():
    x = t(np.zeros((2, 3)))
    with pytest.raises(InvalidArgument, match=r"setitem: value of shape \[2\] cannot be broadcast to the "
                                              r"selected region of shape \[3\]"):
        x[0] = np.ones(2)
    with pytest.raises(InvalidArgument, match="setitem: value of type str is not supported"):
        x[0] = "a"
    with pytest.raises(IndexError, match="setitem: index 4 is out of range"):
        x[0, 4] = 1.0


# ---- gather, index_select, gather_nd ------------------------------------------------------------
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_gather_and_index_select_match_numpy(data):
    shape = data.draw(shapes(min_dims=1, max_dims=3, min_side=1))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    x = data.draw(arrays(shape, data.draw(st.sampled_from(["float32", "int64"]))))
    index_dtype = data.draw(st.sampled_from([np.int32, np.int64]))
    index_shape = data.draw(st.sampled_from([(), (0,), (3,)]))
    index = data.draw(hnp.arrays(index_dtype, index_shape, elements=st.integers(0, shape[axis] - 1)))
    assert_forward(paddle.gather(t(x), t(index), axis=axis), np.take(x, index, axis=axis))
    if index.ndim == 1:
        assert_forward(paddle.index_select(t(x), t(index), axis=axis), np.take(x, index, axis=axis))


def test_gather_defaults_to_axis_0_and_takes_a_tensor_axis():
    x = t([[1, 2], [3, 4], [5, 6]])
    assert paddle.gather(x, t([2, 0])).numpy().tolist() == [[5, 6], [1, 2]]
    assert paddle.gather(x, t([1]), axis=t(1)).numpy().tolist() == [[2], [4], [6]]
    assert x.index_select(t([1, 1]), axis=1).numpy().tolist() == [[2, 2], [4, 4], [6, 6]]


def test_gather_family_grads():
    x = np.random.default_rng(3).uniform(-2, 2, (3, 4))
    idx = t([2, 0, 2])
    for fn in (lambda a: paddle.gather(a, idx, axis=1), lambda a: paddle.index_select(a, idx, axis=0),
               lambda a: paddle.gather(a, t(1), axis=0)):
        check_grad(fn, [x])
        check_double_grad(lambda a, f=fn: f(a) * f(a), [x])
    nd = t([[[0, 1]], [[2, 3]], [[0, 1]]])
    check_grad(lambda a: paddle.gather_nd(a, nd), [x])
    check_double_grad(lambda a: paddle.gather_nd(a, nd) ** 2, [x])
    check_grad(lambda a: paddle.gather_nd(a, t([[1], [1]])), [x])


def test_gather_nd_matches_numpy():
    x = np.arange(24.0).reshape(2, 3, 4)
    index = np.array([[[1, 2], [0, 0]], [[1, 0], [0, 2]]])
    assert_forward(paddle.gather_nd(t(x), t(index)), x[index[..., 0], index[..., 1]])
    assert_forward(paddle.gather_nd(t(x), t(np.array([[1]]))), x[[1]])
    assert_forward(paddle.gather_nd(t(x), t(np.zeros((2, 0), np.int64))), np.stack([x, x]))


def test_index_select_matches_torch():
    torch = torch_or_skip()
    x = np.random.default_rng(4).uniform(-1, 1, (4, 5)).astype(np.float32)
    idx = np.array([3, 0, 3])
    expected = torch.index_select(torch.tensor(x), 1, torch.tensor(idx)).numpy()
    np.testing.assert_array_equal(paddle.index_select(t(x), t(idx), axis=1).numpy(), expected)


def test_gather_family_errors():
    x = t(np.zeros((3, 4)))
    with pytest.raises(IndexError, match="gather: index 3 is out of range for axis 0 of size 3"):
        paddle.gather(x, t([3]))
    with pytest.raises(InvalidArgument, match="gather: index -1 is out of range"):
        paddle.gather(x, t([-1]))
    with pytest.raises(InvalidArgument, match=r"gather: index has shape \[1, 1\], expected a 0-D or 1-D"):
        paddle.gather(x, t([[0]]))
    with pytest.raises(InvalidArgument, match="gather: argument 'index' has dtype float32"):
        paddle.gather(x, t([0.0]))
    with pytest.raises(InvalidArgument, match="gather: axis 2 is out of range"):
        paddle.gather(x, t([0]), axis=2)
    with pytest.raises(InvalidArgument, match="index_select: index has shape"):
        paddle.index_select(x, t(0))
    with pytest.raises(IndexError, match="index_select: index 4 is out of range for axis 1"):
        paddle.index_select(x, t([4]), axis=1)
    with pytest.raises(IndexError, match="gather_nd: index 4 is out of range for axis 1 of size 4"):
        paddle.gather_nd(x, t([[0, 4]]))
    with pytest.raises(InvalidArgument, match=r"gather_nd: index has shape \[1, 3\]"):
        paddle.gather_nd(x, t([[0, 0, 0]]))


# ---- scatter ------------------------------------------------------------------------------------
def test_scatter_overwrites_or_accumulates_as_paddle():
    x = t([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]])
    index = t([2, 1, 0, 1])
    updates = t([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0], [4.0, 4.0]])
    assert paddle.scatter(x, index, updates).numpy().tolist() == [[3, 3], [4, 4], [1, 1]]
    assert paddle.scatter(x, index, updates, overwrite=False).numpy().tolist() == [[3, 3], [6, 6], [1, 1]]
    assert paddle.scatter(x, t([1]), t([[9.0, 9.0]])).numpy().tolist() == [[1, 1], [9, 9], [3, 3]]


@pytest.mark.parametrize("overwrite", [True, False])
def test_scatter_grad(overwrite):
    rng = np.random.default_rng(5)
    x, updates = rng.uniform(-2, 2, (4, 3)), rng.uniform(-2, 2, (2, 3))
    index = t([3, 1])
    check_grad(lambda a, u: paddle.scatter(a, index, u, overwrite), [x, updates])
    check_double_grad(lambda a, u: paddle.scatter(a, index, u, overwrite) ** 2, [x, updates])


def test_scatter_errors():
    x = t(np.zeros((3, 2)))
    with pytest.raises(InvalidArgument, match=r"scatter: updates has shape \[1, 3\], expected \[1, 2\]"):
        paddle.scatter(x, t([0]), t(np.zeros((1, 3))))
    with pytest.raises(IndexError, match="scatter: index 3 is out of range for axis 0 of size 3"):
        paddle.scatter(x, t([3]), t(np.zeros((1, 2))))
    with pytest.raises(InvalidArgument, match="scatter: updates has dtype float32 but x has dtype float64"):
        paddle.scatter(x, t([0]), t(np.zeros((1, 2), np.float32)))


# ---- one_hot, masked_fill, masked_select, nonzero ----------------------------------------------
def test_one_hot():
    out = paddle.one_hot(t(np.array([[1, 0], [3, 1]], np.int32)), num_classes=4)
    assert out.dtype == paddle.float32 and out.shape == [2, 2, 4]
    np.testing.assert_array_equal(out.numpy(), np.eye(4, dtype=np.float32)[[[1, 0], [3, 1]]])
    with pytest.raises(IndexError, match="one_hot: index 4 is out of range for num_classes of size 4"):
        paddle.one_hot(t([4]), 4)
    with pytest.raises(InvalidArgument, match="one_hot: num_classes got 0, expected an int >= 1"):
        paddle.one_hot(t([0]), 0)
    with pytest.raises(InvalidArgument, match="one_hot: argument 'x' has dtype float32"):
        paddle.one_hot(t([0.0]), 2)


@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_masked_fill_and_masked_select_match_numpy(data):
    sx, sm = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3)).input_shapes
    x = data.draw(arrays(sx, "float32"))
    mask = data.draw(arrays(sm, "bool"))
    xb, mb = np.broadcast_arrays(x, mask)
    assert_forward(paddle.masked_fill(t(x), t(mask), 2.5), np.where(mb, np.float32(2.5), xb))
    assert_forward(paddle.masked_select(t(x), t(mask)), xb[mb])


def test_masked_fill_and_masked_select_grads():
    rng = np.random.default_rng(6)
    x = rng.uniform(-2, 2, (3, 4))
    mask = t(rng.random((1, 4)) < 0.5)
    check_grad(lambda a: paddle.masked_fill(a, mask, 0.0), [x])
    check_grad(lambda a, v: paddle.masked_fill(a, mask, v), [x, np.array(1.5)])
    check_grad(lambda a: paddle.masked_select(a, mask), [x])
    check_double_grad(lambda a: paddle.masked_select(a, mask) ** 2, [x])
    big_mask = t(rng.random((2, 3, 4)) < 0.5)
    check_grad(lambda a: paddle.masked_select(a, big_mask), [x])  # x broadcasts against the mask


def test_masked_fill_grad_is_zero_where_masked_and_inplace_form():
    x = t([1.0, 2.0, 3.0], stop_gradient=False)
    y = x * 1.0
    y.masked_fill_(t([True, False, True]), -1.0)
    assert y.numpy().tolist() == [-1.0, 2.0, -1.0]
    y.sum().backward()
    assert x.grad.numpy().tolist() == [0.0, 1.0, 0.0]


def test_masked_errors():
    x = t(np.zeros((2, 3)))
    with pytest.raises(InvalidArgument, match="masked_fill: mask has dtype int64, expected bool"):
        paddle.masked_fill(x, t([1, 0, 1]), 0.0)
    with pytest.raises(InvalidArgument, match="masked_fill: shapes"):
        paddle.masked_fill(x, t([True, False]), 0.0)
    with pytest.raises(InvalidArgument, match="masked_fill: value got str"):
        paddle.masked_fill(x, t([True, False, True]), "a")
    with pytest.raises(InvalidArgument, match="masked_select: mask has dtype float64, expected bool"):
        paddle.masked_select(x, x)
    with pytest.raises(InvalidArgument, match="masked_select: shapes"):
        paddle.masked_select(x, t([True, False]))


def test_masked_select_matches_torch():
    torch = torch_or_skip()
    x = np.random.default_rng(7).uniform(-1, 1, (3, 4)).astype(np.float32)
    m = x > 0
    np.testing.assert_array_equal(paddle.masked_select(t(x), t(m)).numpy(),
                                  torch.masked_select(torch.tensor(x), torch.tensor(m)).numpy())


@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_nonzero_matches_numpy(data):
    shape = data.draw(shapes(max_dims=3))
    x = data.draw(arrays(shape, data.draw(st.sampled_from(["int64", "bool", "float32"])), -1, 1))
    out = paddle.nonzero(t(x))
    assert_forward(out, np.argwhere(x).astype(np.int64))
    parts = paddle.nonzero(t(x), as_tuple=True)
    assert len(parts) == x.ndim
    for got, want in zip(parts, np.argwhere(x).T):
        assert got.shape == [want.size, 1] and got.numpy()[:, 0].tolist() == want.tolist()


def test_where_with_only_a_condition_is_nonzero():
    rows, cols = paddle.where(t([[True, False], [False, True]]))
    assert rows.numpy().tolist() == [[0], [1]] and cols.numpy().tolist() == [[0], [1]]
    assert paddle.nonzero(t([0.0, 1.0])).stop_gradient


def test_infer_meta_works_without_values_as_in_a_static_program():
    from minipaddle.framework.ops import indexing as I
    from minipaddle.framework.registry import MetaTensor
    f32, i64 = np.dtype("float32"), np.dtype("int64")
    x = MetaTensor((-1, 3, 4), f32)
    advanced = MetaTensor((1, -1), i64)
    assert I.getitem_meta(x, advanced, index=(I.ADVANCED, (None, None, -1), 0)) == ((-1, 3), f32)
    assert I.getitem_meta(x, advanced, index=((0, None, 2), None)).shape == (-1, 1, 3, 4)
    assert I.gather_meta(x, MetaTensor((-1,), i64), axis=1).shape == (-1, -1, 4)
    assert I.gather_nd_meta(x, MetaTensor((5, 2), i64)).shape == (5, 4)
    assert I.masked_select_meta(x, MetaTensor((3, 4), np.dtype(bool))).shape == (-1,)
    assert I.nonzero_meta(x).shape == (-1, 3)
    assert I.one_hot_meta(MetaTensor((-1,), i64), num_classes=5).shape == (-1, 5)
    with pytest.raises(InvalidArgument, match="getitem: index 5 is out of range for axis 1 of size 3"):
        I.getitem_meta(x, advanced, index=(0, 5))


@pytest.mark.parametrize("index", [(None, True, Ellipsis, False), (None, [0], Ellipsis, 1), ([0, 1], Ellipsis, [1, 2]),
                                   (0, Ellipsis, [1, 2]), (True, Ellipsis, 0)])
def test_an_ellipsis_for_no_axis_still_separates_advanced_indices(index):
    # numpy: advanced indices apart from each other put their dims first, even when the `...` between
    # them stands for no axis
    checked = 0
    for data in (np.array(0.5), np.arange(6.0).reshape(2, 3)):
        try:
            want = data[index]
        except IndexError:  # too many indices for the 0-D one
            continue
        got = paddle.to_tensor(data)[index]
        assert got.shape == list(want.shape)
        np.testing.assert_array_equal(got.numpy(), want)
        checked += 1
    assert checked
