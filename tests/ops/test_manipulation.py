"""Manipulation ops: forward vs numpy on drawn shapes and layouts, gradients, grads through
create_graph, views vs copies, PyTorch, and every error a user can hit."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument

from .opcheck import arrays, assert_forward, check_grad, shapes, torch_or_skip

DTYPES = st.sampled_from(["float32", "float64", "int64", "bool"])
FEW = settings(max_examples=15, deadline=None)


def wrap(a: np.ndarray) -> paddle.Tensor:
    """A tensor over `a` itself, keeping its (maybe non-contiguous) layout; to_tensor would copy."""
    return paddle.Tensor._wrap(a)


def check_linear_double_grad(fn, inputs, seed: int = 0) -> None:
    """Run create_graph through a linear op f and differentiate the result once more.

    The first gradient is J^T v for a cotangent v; its gradient along weights w with respect
    to v is J w = f(w). So the second backward must reproduce the forward op itself.
    """
    rng = np.random.default_rng(seed)
    xs = [paddle.to_tensor(np.asarray(a, np.float64), stop_gradient=False) for a in inputs]
    outs = fn(*xs)
    outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    vs = [paddle.to_tensor(rng.uniform(-1, 1, o.shape), stop_gradient=False) for o in outs]
    gs = paddle.grad(outs, xs, grad_outputs=vs, create_graph=True)
    assert all(not g.stop_gradient for g in gs), "the first gradient must be part of a graph"
    ws = [rng.uniform(-1, 1, np.shape(a)) for a in inputs]
    total = sum((g * paddle.to_tensor(w)).sum() for g, w in zip(gs, ws))
    dvs = paddle.grad([total], vs)
    expected = fn(*[paddle.to_tensor(w) for w in ws])
    expected = list(expected) if isinstance(expected, (list, tuple)) else [expected]
    for dv, e in zip(dvs, expected):
        np.testing.assert_allclose(dv.numpy(), e.numpy(), rtol=1e-10, atol=1e-12)


def rand(*shape, seed=0):
    return np.random.default_rng(seed).uniform(-1, 1, shape)


# ---- forward vs numpy -------------------------------------------------------------------
@FEW
@given(data=st.data())
def test_transpose_permutes_dims(data):
    x = data.draw(arrays(data.draw(shapes()), data.draw(DTYPES)))
    perm = data.draw(st.permutations(range(x.ndim)))
    assert_forward(paddle.transpose(wrap(x), perm), np.transpose(x, perm))
    if x.ndim:
        assert_forward(wrap(x).T, x.T)


@FEW
@given(data=st.data())
def test_squeeze_drops_only_size_one_dims(data):
    x = data.draw(arrays(data.draw(shapes(max_side=2)), data.draw(DTYPES)))
    assert_forward(paddle.squeeze(wrap(x)), np.squeeze(x))
    if x.ndim:
        axes = data.draw(st.lists(st.integers(-x.ndim, x.ndim - 1), max_size=3, unique=True))
        drop = {a % x.ndim for a in axes if x.shape[a] == 1}
        expected = x.reshape([n for i, n in enumerate(x.shape) if i not in drop]) if axes else np.squeeze(x)
        assert_forward(wrap(x).squeeze(axes), expected)


@FEW
@given(data=st.data())
def test_unsqueeze_inserts_axes_one_after_another(data):
    x = data.draw(arrays(data.draw(shapes(max_dims=3)), data.draw(DTYPES)))
    expected = x
    axes = []
    for _ in range(data.draw(st.integers(1, 3))):
        axis = data.draw(st.integers(-expected.ndim - 1, expected.ndim))
        axes.append(axis)
        expected = np.expand_dims(expected, axis)
    assert_forward(paddle.unsqueeze(wrap(x), axes), expected)


@FEW
@given(data=st.data())
def test_flatten_merges_a_range_of_dims(data):
    x = data.draw(arrays(data.draw(shapes(min_dims=1)), data.draw(DTYPES)))
    start = data.draw(st.integers(0, x.ndim - 1))
    stop = data.draw(st.integers(start, x.ndim - 1))
    shape = x.shape[:start] + (int(np.prod(x.shape[start:stop + 1])),) + x.shape[stop + 1:]
    assert_forward(paddle.flatten(wrap(x), start, stop - x.ndim), x.reshape(shape))


@FEW
@given(data=st.data())
def test_expand_grows_size_one_dims_and_keeps_minus_one(data):
    x = data.draw(arrays(data.draw(shapes(max_dims=3, max_side=3)), data.draw(DTYPES)))
    lead = data.draw(st.lists(st.integers(0, 3), max_size=2))
    own = [data.draw(st.integers(0, 3)) if n == 1 else data.draw(st.sampled_from([n, -1])) for n in x.shape]
    target = lead + [n if t == -1 else t for n, t in zip(x.shape, own)]
    assert_forward(paddle.expand(wrap(x), lead + own), np.broadcast_to(x, target))
    assert_forward(paddle.broadcast_to(wrap(x), target), np.broadcast_to(x, target))
    assert_forward(wrap(x).expand_as(paddle.zeros(target)), np.broadcast_to(x, target))


@FEW
@given(data=st.data())
def test_concat_and_stack_join_tensors(data):
    shape = data.draw(shapes(min_dims=1, max_dims=3))
    dtype = data.draw(DTYPES)
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    parts = []
    for _ in range(data.draw(st.integers(1, 4))):
        s = list(shape)
        s[axis] = data.draw(st.integers(0, 3))
        parts.append(data.draw(arrays(tuple(s), dtype)))
    assert_forward(paddle.concat([wrap(p) for p in parts], axis=axis), np.concatenate(parts, axis))
    same = [data.draw(arrays(shape, dtype)) for _ in range(len(parts))]
    new_axis = data.draw(st.integers(-len(shape) - 1, len(shape)))
    assert_forward(paddle.stack([wrap(p) for p in same], new_axis), np.stack(same, new_axis))


@FEW
@given(data=st.data())
def test_split_and_chunk_cut_along_an_axis(data):
    x = data.draw(arrays(data.draw(shapes(min_dims=1, max_side=6)), data.draw(DTYPES)))
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    n = x.shape[axis]
    cuts = sorted(data.draw(st.lists(st.integers(0, n), max_size=3)))
    sections = list(np.diff([0] + cuts + [n]))
    if data.draw(st.booleans()):
        sections[data.draw(st.integers(0, len(sections) - 1))] = -1
    outs = paddle.split(wrap(x), sections, axis)
    assert isinstance(outs, list)
    for out, ref in zip(outs, np.split(x, cuts, axis), strict=True):
        assert_forward(out, ref)
    parts = data.draw(st.sampled_from([k for k in range(1, 7) if n % k == 0] or [1])) if n else 1
    for out, ref in zip(wrap(x).chunk(parts, axis), np.split(x, parts, axis), strict=True):
        assert_forward(out, ref)


bounds = st.integers(-8, 8)


@FEW
@given(data=st.data())
def test_slice_and_strided_slice_follow_python_slicing(data):
    x = data.draw(arrays(data.draw(shapes(min_dims=1, max_side=5)), data.draw(DTYPES)))
    axes = data.draw(st.lists(st.integers(-x.ndim, x.ndim - 1), min_size=1, max_size=x.ndim,
                              unique_by=lambda a: a % x.ndim))
    starts = [data.draw(bounds) for _ in axes]
    ends = [data.draw(bounds) for _ in axes]
    strides = [data.draw(st.sampled_from([-3, -2, -1, 1, 2, 3])) for _ in axes]
    plain = [slice(None)] * x.ndim
    strided = [slice(None)] * x.ndim
    for a, s, e, k in zip(axes, starts, ends, strides):
        plain[a % x.ndim] = slice(s, e)
        strided[a % x.ndim] = slice(s, e, k)
    assert_forward(paddle.slice(wrap(x), axes, starts, ends), x[tuple(plain)])
    assert_forward(paddle.strided_slice(wrap(x), axes, starts, ends, strides), x[tuple(strided)])


@FEW
@given(data=st.data())
def test_tile_flip_roll(data):
    x = data.draw(arrays(data.draw(shapes(max_dims=3, max_side=3)), data.draw(DTYPES)))
    reps = data.draw(st.lists(st.integers(1, 3), max_size=4))
    assert_forward(paddle.tile(wrap(x), reps), np.tile(x, reps))
    shift = data.draw(st.integers(-5, 5))
    assert_forward(paddle.roll(wrap(x), shift), np.roll(x, shift))
    if x.ndim:
        axes = data.draw(st.lists(st.integers(-x.ndim, x.ndim - 1), min_size=1, max_size=x.ndim,
                                  unique_by=lambda a: a % x.ndim))
        assert_forward(paddle.flip(wrap(x), axes), np.flip(x, axes))
        shifts = [data.draw(st.integers(-5, 5)) for _ in axes]
        assert_forward(wrap(x).roll(shifts, axes), np.roll(x, shifts, axes))


@FEW
@given(data=st.data())
def test_tril_and_triu_keep_a_triangle(data):
    x = data.draw(arrays(data.draw(shapes(min_dims=2, max_dims=4)), data.draw(DTYPES)))
    k = data.draw(st.integers(-4, 4))
    assert_forward(paddle.tril(wrap(x), k), np.tril(x, k))
    assert_forward(wrap(x).triu(diagonal=k), np.triu(x, k))


NUMPY_PAD_MODE = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "circular": "wrap"}


@FEW
@given(data=st.data())
def test_pad_modes_on_spatial_dims(data):
    mode = data.draw(st.sampled_from(sorted(NUMPY_PAD_MODE)))
    ndim = data.draw(st.integers(3, 5))
    x = data.draw(arrays(data.draw(shapes(min_dims=ndim, max_dims=ndim, min_side=1, max_side=4)), "float64"))
    channel_last = data.draw(st.booleans())
    spatial = list(range(1, ndim - 1)) if channel_last else list(range(2, ndim))
    widths = [(0, 0)] * ndim
    flat = []
    for axis in reversed(spatial):  # Paddle's order: last spatial dim first
        top = x.shape[axis] - 1 if mode == "reflect" else 5
        pair = (data.draw(st.integers(0, top)), data.draw(st.integers(0, top)))
        widths[axis] = pair
        flat += pair
    fmt = {3: "NCL", 4: "NCHW", 5: "NCDHW"}[ndim] if not channel_last else {3: "NLC", 4: "NHWC", 5: "NDHWC"}[ndim]
    out = paddle.pad(wrap(x), flat, mode=mode, value=1.5, data_format=fmt)
    kwargs = {"constant_values": 1.5} if mode == "constant" else {}
    assert_forward(out, np.pad(x, widths, NUMPY_PAD_MODE[mode], **kwargs))


@FEW
@given(data=st.data())
def test_constant_pad_with_a_pair_per_dim_starts_at_dim_zero(data):
    x = data.draw(arrays(data.draw(shapes(max_dims=4)), data.draw(DTYPES)))
    widths = [(data.draw(st.integers(0, 2)), data.draw(st.integers(0, 2))) for _ in range(x.ndim)]
    flat = [w for pair in widths for w in pair]
    assert_forward(paddle.pad(wrap(x), flat), np.pad(x, widths) if x.ndim else x)


def test_pad_documented_examples():
    x = paddle.to_tensor([[[1.0, 2.0, 3.0]]])
    assert paddle.pad(x, [1, 2], mode="reflect").tolist() == [[[2.0, 1.0, 2.0, 3.0, 2.0, 1.0]]]
    assert paddle.pad(x, [1, 2], mode="replicate").tolist() == [[[1.0, 1.0, 2.0, 3.0, 3.0, 3.0]]]
    assert paddle.pad(x, [1, 2], mode="circular").tolist() == [[[3.0, 1.0, 2.0, 3.0, 1.0, 2.0]]]
    assert paddle.pad(paddle.ones([2, 3]), [1, 1, 0, 2]).shape == [4, 5]


# ---- views and copies -------------------------------------------------------------------
def test_view_ops_share_storage_and_the_rest_copy():
    x = paddle.to_tensor(np.arange(24.0).reshape(2, 3, 4))
    views = [paddle.transpose(x, [1, 0, 2]), paddle.unsqueeze(x, 0), paddle.flatten(x),
             paddle.squeeze(paddle.unsqueeze(x, 0)), paddle.slice(x, [1], [1], [3]), paddle.reshape(x, [6, 4])]
    for v in views:
        assert np.shares_memory(v.numpy(), x.numpy()) and (v._base is x or v._base is x._base)
    copies = [paddle.expand(x, [2, 2, 3, 4]), paddle.concat([x]), paddle.stack([x]), *paddle.split(x, 2),
              paddle.strided_slice(x, [2], [0], [4], [2]), paddle.tile(x, [1]), paddle.flip(x, 0),
              paddle.roll(x, 1), paddle.pad(x, [0] * 6), paddle.tril(x), paddle.triu(x)]
    for c in copies:
        assert not np.shares_memory(c.numpy(), x.numpy())


def test_flatten_of_a_strided_tensor_copies_without_claiming_a_view():
    base = paddle.to_tensor(np.arange(12.0).reshape(3, 4))
    xt = paddle.transpose(base, [1, 0])
    out = paddle.flatten(xt)
    assert out.tolist() == np.arange(12.0).reshape(3, 4).T.reshape(-1).tolist()
    assert out._base is None


def test_dot_T_reverses_all_dims():
    x = paddle.to_tensor([[1, 2, 3]])
    assert x.T.tolist() == [[1], [2], [3]]
    assert paddle.ones([2, 3, 4]).T.shape == [4, 3, 2]


def test_methods_are_on_tensor():
    for name in ("transpose", "squeeze", "unsqueeze", "flatten", "expand", "expand_as", "tile", "flip", "split",
                 "chunk", "roll", "tril", "triu", "concat", "stack", "slice", "strided_slice", "broadcast_to"):
        assert callable(getattr(paddle.Tensor, name)), name


# ---- gradients ------------------------------------------------------------------------------
# name -> (function of tensors, input arrays); every op is linear, so create_graph is checked by
# check_linear_double_grad (the op applied to the weights comes back).
GRAD_CASES = {
    "transpose": (lambda x: paddle.transpose(x, [2, 0, 1]), [rand(2, 3, 2)]),
    "squeeze": (lambda x: paddle.squeeze(x, [0, 2]), [rand(1, 3, 1)]),
    "unsqueeze": (lambda x: paddle.unsqueeze(x, [0, -1]), [rand(2, 3)]),
    "flatten": (lambda x: paddle.flatten(x, 1, 2), [rand(2, 3, 2)]),
    "expand": (lambda x: paddle.expand(x, [2, -1, 3]), [rand(2, 1)]),
    "expand_as": (lambda x: paddle.expand_as(x, paddle.zeros([3, 2, 3])), [rand(1, 3)]),
    "concat": (lambda a, b, c: paddle.concat([a, b, c], axis=1), [rand(2, 1), rand(2, 3), rand(2, 2)]),
    "stack": (lambda a, b: paddle.stack([a, b], axis=-1), [rand(2, 3), rand(2, 3, seed=1)]),
    "split": (lambda x: paddle.split(x, [2, -1, 1], axis=1), [rand(2, 5)]),
    "chunk": (lambda x: paddle.chunk(x, 3, axis=0), [rand(3, 2)]),
    "slice": (lambda x: paddle.slice(x, [0, 1], [1, -3], [100, 3]), [rand(3, 4)]),
    "strided_slice": (lambda x: paddle.strided_slice(x, [0, 1], [-1, 0], [-100, 4], [-2, 3]), [rand(3, 4)]),
    "tile": (lambda x: paddle.tile(x, [2, 1, 3]), [rand(2, 2)]),
    "flip": (lambda x: paddle.flip(x, [0, -1]), [rand(2, 3)]),
    "roll": (lambda x: paddle.roll(x, [1, -2], [0, 1]), [rand(3, 4)]),
    "roll_flat": (lambda x: paddle.roll(x, 5), [rand(3, 4)]),
    "pad_constant": (lambda x: paddle.pad(x, [1, 0, 2, 1]), [rand(2, 2)]),
    "pad_reflect": (lambda x: paddle.pad(x, [2, 1, 1, 2], mode="reflect"), [rand(1, 1, 3, 3)]),
    "pad_replicate": (lambda x: paddle.pad(x, [2, 3], mode="replicate"), [rand(1, 2, 2)]),
    "pad_circular": (lambda x: paddle.pad(x, [1, 4, 2, 0], mode="circular", data_format="NHWC"),
                     [rand(1, 2, 3, 1)]),
    "tril": (lambda x: paddle.tril(x, -1), [rand(2, 3, 3)]),
    "triu": (lambda x: paddle.triu(x, 1), [rand(3, 4)]),
    "reshape": (lambda x: paddle.reshape(x, [0, -1]), [rand(2, 3, 2)]),
}


@pytest.mark.parametrize("case", sorted(GRAD_CASES))
def test_gradient_matches_central_differences(case):
    fn, inputs = GRAD_CASES[case]
    n_out = len(fn(*[paddle.to_tensor(a) for a in inputs])) if case in ("split", "chunk") else None
    for index in range(n_out) if n_out else [None]:
        check_grad(fn, inputs, out_index=index)


@pytest.mark.parametrize("case", sorted(GRAD_CASES))
def test_create_graph_through_the_gradient(case):
    fn, inputs = GRAD_CASES[case]
    check_linear_double_grad(fn, inputs)


def test_split_outputs_left_unused_get_zero_gradient():
    x = paddle.to_tensor(rand(4, 2), stop_gradient=False)
    _, b = paddle.split(x, 2)
    (b * 3).sum().backward()
    assert x.grad.tolist() == [[0, 0], [0, 0], [3, 3], [3, 3]]


def test_concat_routes_gradients_only_to_tensors_that_need_them():
    a = paddle.to_tensor(rand(2, 2), stop_gradient=False)
    b = paddle.to_tensor(rand(1, 2))
    paddle.concat([a, b, a]).sum().backward()
    assert a.grad.tolist() == [[2, 2], [2, 2]] and b.grad is None


def test_expand_as_gives_y_no_gradient():
    x = paddle.to_tensor(rand(1, 2), stop_gradient=False)
    y = paddle.to_tensor(rand(3, 2), stop_gradient=False)
    (gx,) = paddle.grad([paddle.expand_as(x, y)], [x])
    assert gx.tolist() == [[3, 3]]
    with pytest.raises(InvalidArgument, match="not reachable"):
        paddle.grad([paddle.expand_as(x, y)], [y])


def test_integer_outputs_carry_no_gradient():
    x = paddle.to_tensor([[1, 2], [3, 4]])
    assert all(p.stop_gradient for p in paddle.split(x, 2))
    assert paddle.concat([x, x]).stop_gradient


# ---- against PyTorch ------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad_matches_torch(mode):
    torch = torch_or_skip()
    x = rand(2, 3, 4, 5).astype(np.float32)
    pads = [1, 2, 2, 1]
    got = paddle.pad(paddle.to_tensor(x), pads, mode=mode)
    want = torch.nn.functional.pad(torch.tensor(x), pads, mode=mode)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


def test_tile_roll_tril_match_torch():
    torch = torch_or_skip()
    x = rand(3, 4).astype(np.float32)
    tx = torch.tensor(x)
    np.testing.assert_array_equal(paddle.tile(paddle.to_tensor(x), [2, 1, 2]).numpy(), torch.tile(tx, (2, 1, 2)))
    np.testing.assert_array_equal(paddle.roll(paddle.to_tensor(x), [1, -1], [0, 1]).numpy(),
                                  torch.roll(tx, (1, -1), (0, 1)))
    np.testing.assert_array_equal(paddle.tril(paddle.to_tensor(x), 1).numpy(), torch.tril(tx, 1))


# ---- errors ------------------------------------------------------------------------------
X = paddle.ones([2, 3])

ERRORS = [
    (lambda: paddle.transpose(X, [0]), "transpose: perm \\[0\\] has 1 entries, expected 2"),
    (lambda: paddle.transpose(X, [0, 0]), "transpose: perm \\[0, 0\\] is not a permutation"),
    (lambda: paddle.squeeze(X, 2), "squeeze: axis 2 is out of range"),
    (lambda: paddle.unsqueeze(X, 4), "unsqueeze: axis 4 is out of range"),
    (lambda: paddle.unsqueeze(X, 1.5), "unsqueeze: 'axis' got float"),
    (lambda: paddle.flatten(X, 1, 0), "flatten: start_axis \\(1\\) comes after stop_axis \\(0\\)"),
    (lambda: paddle.flatten(X, 0, 5), "flatten: axis 5 is out of range"),
    (lambda: paddle.expand(X, [3]), "expand: shape \\[3\\] has fewer dims"),
    (lambda: paddle.expand(X, [4, 3]), "expand: cannot expand x of shape \\[2, 3\\] to \\[4, 3\\]"),
    (lambda: paddle.expand(X, [-1, 2, 3]), "expand: shape \\[-1, 2, 3\\]: the new leading dim 0 is -1"),
    (lambda: paddle.broadcast_to(X, [2, -3]), "broadcast_to: shape \\[2, -3\\] has a negative size"),
    (lambda: paddle.expand_as(X, paddle.ones([3, 3])), "expand_as: cannot expand"),
    (lambda: paddle.concat([]), "concat: 'x' is an empty list"),
    (lambda: paddle.concat(X), "concat: 'x' got Tensor, expected a list"),
    (lambda: paddle.concat([X, [1.0]]), "concat: argument 'x\\[1\\]' got list"),
    (lambda: paddle.concat([X, paddle.ones([2, 2])], axis=0), "concat: x\\[1\\] has shape \\[2, 2\\]"),
    (lambda: paddle.concat([X, paddle.ones([2, 3], "float64")]), "concat: x\\[1\\] has dtype float64"),
    (lambda: paddle.concat([X, paddle.ones([6])]), "concat: x\\[1\\] has shape \\[6\\] .* same number of dims"),
    (lambda: paddle.concat([paddle.ones([])]), "concat: x\\[0\\] is 0-D"),
    (lambda: paddle.concat([X], axis=2), "concat: axis 2 is out of range"),
    (lambda: paddle.stack([X, paddle.ones([3, 2])]), "stack: x\\[1\\] has shape \\[3, 2\\]"),
    (lambda: paddle.stack([X], axis=3), "stack: axis 3 is out of range"),
    (lambda: paddle.split(X, 2, axis=1), "split: dim 1 of x has size 3, which does not split into 2"),
    (lambda: paddle.split(X, [1, 1], axis=1), "split: sections \\[1, 1\\] add up to 2, but dim 1 of x has size 3"),
    (lambda: paddle.split(X, [-1, -1], axis=1), "split: sections \\[-1, -1\\] must be"),
    (lambda: paddle.split(X, [4, -1], axis=1), "split: sections \\[4, -1\\] add up to 4"),
    (lambda: paddle.split(X, 0), "split: the number of parts is 0"),
    (lambda: paddle.split(X, 2.0), "split: 'num_or_sections' got float"),
    (lambda: paddle.split(paddle.ones([]), 1), "split: x is 0-D"),
    (lambda: paddle.chunk(X, 2, axis=1), "chunk: dim 1 of x has size 3, which does not split into 2"),
    (lambda: paddle.slice(X, [0, 1], [0], [1]), "slice: axes \\[0, 1\\], starts \\[0\\], ends \\[1\\]"),
    (lambda: paddle.slice(X, [2], [0], [1]), "slice: axis 2 is out of range"),
    (lambda: paddle.slice(X, [0, -2], [0, 0], [1, 1]), "slice: axis \\[0, -2\\] names the same axis twice"),
    (lambda: paddle.slice(paddle.ones([]), [0], [0], [1]), "slice: x is 0-D"),
    (lambda: paddle.strided_slice(X, [0], [0], [2], [0]), "strided_slice: strides \\[0\\] has a 0"),
    (lambda: paddle.tile(X, [0, 1]), "tile: repeat_times \\[0, 1\\] has a value <= 0"),
    (lambda: paddle.tile(X, "2"), "tile: 'repeat_times' got str"),
    (lambda: paddle.flip(X, [0, -2]), "flip: axis \\[0, -2\\] names the same axis twice"),
    (lambda: paddle.flip(X, 3), "flip: axis 3 is out of range"),
    (lambda: paddle.roll(X, [1, 2]), "roll: shifts \\[1, 2\\] must be a single int when axis is None"),
    (lambda: paddle.roll(X, [1, 2], 0), "roll: shifts \\[1, 2\\] and axis \\[0\\] differ in length"),
    (lambda: paddle.tril(paddle.ones([3])), "tril: x has shape \\[3\\], expected at least 2 dims"),
    (lambda: paddle.triu(X, 0.5), "triu: 'diagonal' got float"),
    (lambda: paddle.pad(X, [1, 1], mode="wrap"), "pad: mode 'wrap' is not one of"),
    (lambda: paddle.pad(X, [1, 1], mode="reflect"), "pad: got 2 pads in mode 'reflect' for a 2-D x"),
    (lambda: paddle.pad(paddle.ones([1, 1, 3]), [1, 1, 1]), "pad: got 3 pads for a 3-D x"),
    (lambda: paddle.pad(paddle.ones([1, 1, 3]), [3, 0], mode="reflect"),
     "pad: mode 'reflect' pads dim 2 \\(size 3\\) by \\(3, 0\\); expected pads <= 2"),
    (lambda: paddle.pad(paddle.ones([1, 1, 0]), [1, 0], mode="replicate"), "pad: mode 'replicate' cannot pad dim 2"),
    (lambda: paddle.pad(paddle.ones([1, 1, 3]), [1, 0], data_format="CHW"), "pad: data_format 'CHW'"),
    (lambda: paddle.pad(X, [1, -1, 0, 0]), "pad: dim 0 has pads \\(1, -1\\)"),
    (lambda: paddle.pad(X, [1, 1, 1, 1], value="0"), "pad: 'value' got str"),
    (lambda: paddle.reshape(X, [4, -1]), "reshape: cannot reshape \\[2, 3\\]"),
]


@pytest.mark.parametrize("call,message", ERRORS, ids=[m.split(":")[0] + str(i) for i, (_, m) in enumerate(ERRORS)])
def test_bad_arguments_raise_clear_errors(call, message):
    with pytest.raises(InvalidArgument, match=message):
        call()


def test_static_shapes_with_unknown_dims_pass_through_infer_meta():
    from minipaddle.framework.registry import MetaTensor, get_op
    f32 = np.dtype("float32")
    a, b = MetaTensor((-1, 3), f32), MetaTensor((-1, 2), f32)
    assert get_op("concat").infer_meta(a, b, axis=1).shape == (-1, 5)
    assert get_op("concat").infer_meta(a, b, axis=-1).shape == (-1, 5)
    assert [m.shape for m in get_op("split").infer_meta(a, num_or_sections=2, axis=0)] == [(-1, 3)] * 2
    assert get_op("flatten").infer_meta(a, start_axis=0, stop_axis=1).shape == (-1,)
    assert get_op("pad").infer_meta(a, paddings=((1, 1), (0, 2)), mode="constant").shape == (-1, 5)


def test_concat_takes_any_number_of_tensors_and_grads_reach_each():
    xs = [paddle.to_tensor([float(i)], stop_gradient=False) for i in range(2000)]
    out = paddle.concat(xs)
    (out * paddle.arange(2000).astype("float32")).sum().backward()
    assert xs[1999].grad.item() == 1999.0 and xs[3].grad.item() == 3.0


def test_paddle_reshape_underscore_reshapes_in_place():
    z = paddle.arange(6.0)
    r = paddle.reshape_(z, [2, 3])
    assert r is z and z.shape == [2, 3]
    np.testing.assert_array_equal(z.numpy(), np.arange(6.0).reshape(2, 3))
    with pytest.raises(InvalidArgument, match="reshape_"):
        paddle.reshape_([1, 2], [2])
