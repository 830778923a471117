"""CUDA shape-manipulation and indexing kernels (kernels/cuda/strided.py, kernels/cuda/indexing.py):
every op against its CPU kernel on tiny shapes, then autograd on GPU tensors -- the same expression
run with CPU tensors must give the same value and the same gradients, and the gradients must live
on the GPU."""
from __future__ import annotations

import numpy as np
import pytest
from numba import cuda

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument
from minipaddle.framework.ops.index_parsing import normalize_index

from .kernel_check import check, run_both

RNG = np.random.default_rng(5)
X = RNG.standard_normal((3, 4, 5)).astype(np.float32)
ROWS = np.array([2, 0, 2], np.int64)  # a repeated index: its gradients must add up


def check_parts(op_name, arrays, attrs):
    """check() for ops with several outputs (split, chunk)."""
    gpu, cpu = run_both(op_name, arrays, attrs)
    assert len(gpu) == len(cpu)
    for g, c in zip(gpu, cpu):
        np.testing.assert_array_equal(g.copy_to_host(), c)


# ---- views and strided copies ------------------------------------------------------------------
@pytest.mark.parametrize("op_name, attrs", [
    ("reshape", {"shape": (0, -1)}), ("reshape", {"shape": (60,)}), ("squeeze", {"axis": None}),
    ("unsqueeze", {"axis": (0, -1)}), ("flatten", {"start_axis": 1, "stop_axis": -1}),
    ("tile", {"repeat_times": (2, 1, 1, 3)}), ("flip", {"axis": (0, 2)}), ("flip", {"axis": (-1,)}),
    ("slice", {"axes": (1,), "starts": (1,), "ends": (3,)}), ("slice", {"axes": (0,), "starts": (-2,), "ends": (9,)}),
    ("strided_slice", {"axes": (1, 2), "starts": (-1, 0), "ends": (-100, 5), "strides": (-1, 2)}),
])
def test_views_and_strided_copies_match_the_cpu(op_name, attrs):
    check(op_name, [X], attrs)


def test_reshape_and_contiguous_slices_share_the_input_memory():
    from minipaddle.framework.kernels.cuda import strided
    x = cuda.to_device(X)
    viewed = strided.reshape(x, shape=(12, 5))
    viewed[0, 0] = 7.0  # a write through the view shows in x
    assert x.copy_to_host()[0, 0, 0] == 7.0
    rows = strided.slice(x, axes=(0,), starts=(1,), ends=(2,))
    rows[0, 0, 1] = 8.0
    assert x.copy_to_host()[1, 0, 1] == 8.0


def test_concat_stack_split_chunk_match_the_cpu():
    other = RNG.standard_normal((3, 2, 5)).astype(np.float32)
    check("concat", [X, other, X[:, :1].copy()], {"axis": 1})
    check("concat", [X.astype(np.int64), X.astype(np.int64)], {"axis": -1})
    check("stack", [X, X * 2], {"axis": 0})
    check("stack", [X, X * 2, X], {"axis": -1})
    check_parts("split", [X], {"num_or_sections": (1, -1, 2), "axis": -1})
    check_parts("split", [X], {"num_or_sections": 3, "axis": 0})
    check_parts("chunk", [X > 0], {"chunks": 2, "axis": 1})


def test_strided_slice_grad_writes_into_zeros():
    attrs = {"input_shape": (3, 4, 5), "axes": (1, 2), "starts": (-1, 0), "ends": (-100, 5), "strides": (-1, 2)}
    check("strided_slice_grad", [RNG.standard_normal((3, 4, 3)).astype(np.float32)], attrs)


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad_and_pad_grad_in_every_mode(mode):
    paddings = ((0, 0), (1, 2), (2, 1))
    check("pad", [X], {"paddings": paddings, "mode": mode, "value": 1.5})
    dout = RNG.standard_normal((3, 7, 8)).astype(np.float32)
    check("pad_grad", [dout], {"paddings": paddings, "mode": mode}, rtol=1e-5)


# ---- indexing ----------------------------------------------------------------------------------
INDICES = [1, -1, (slice(1, None), slice(None, None, 2)), (None, Ellipsis, 2), (-1, slice(None, None, -1)),
           np.array([2, 0, 2]), (slice(None), np.array([[1, 3], [0, 0]])),
           (np.array([0, 2]), slice(None), np.array([1, -1])),        # separated: the advanced dims go first
           (1, slice(None), np.array([0, 4, 4])), X[:, :, 0] > 0, (True,), (Ellipsis, np.array([1]), None)]


@pytest.mark.parametrize("index", INDICES, ids=range(len(INDICES)))
def test_getitem_and_its_gradient_follow_numpys_rules(index):
    items, advanced = normalize_index(X.shape, index)
    check("getitem", [X, advanced._data], {"index": items})
    out_shape = X[index].shape
    dout = RNG.standard_normal(out_shape).astype(np.float32)
    check("getitem_grad", [dout, advanced._data], {"index": items, "shape": X.shape}, rtol=1e-6)


def test_getitem_rejects_an_index_past_the_end_on_the_gpu():
    from minipaddle.framework.kernels.cuda import indexing
    items, advanced = normalize_index(X.shape, np.array([0, 3]))
    with pytest.raises(InvalidArgument, match="index 3 is out of range for axis 0 of size 3"):
        indexing.getitem(cuda.to_device(X), cuda.to_device(advanced._data), index=items)


def test_gather_index_select_and_their_gradient():
    check("gather", [X, ROWS], {"axis": 1})
    check("gather", [X, np.array(1)], {"axis": 2})
    check("index_select", [X, ROWS.astype(np.int32)], {"axis": 0})
    dout = RNG.standard_normal((3, 3, 5))
    check("gather_grad", [dout.astype(np.float32), ROWS], {"axis": 1, "shape": (3, 4, 5)}, rtol=1e-6)
    check("gather_grad", [dout.astype(np.float16), ROWS], {"axis": 1, "shape": (3, 4, 5)}, rtol=1e-3)
    check("gather_grad", [(dout * 10).astype(np.int64), ROWS], {"axis": 1, "shape": (3, 4, 5)})


def test_gather_nd_scatter_take_along_axis_one_hot_embedding():
    coords = np.array([[0, 1], [2, 3], [0, 1]], np.int64)
    check("gather_nd", [X, coords])
    check("gather_nd", [X, np.zeros((2, 0), np.int64)])
    check("gather_nd_grad", [RNG.standard_normal((3, 5)).astype(np.float32), coords], {"shape": (3, 4, 5)})
    updates = RNG.standard_normal((2, 4, 5)).astype(np.float32)
    check("scatter", [X, np.array([2, 0]), updates], {"overwrite": True})
    check("scatter", [X, np.array([2, 2]), updates], {"overwrite": False}, rtol=1e-6)
    check("take_along_axis", [X, RNG.integers(-4, 4, (3, 2, 5))], {"axis": 1, "broadcast": True})
    check("take_along_axis", [X, RNG.integers(0, 4, (1, 2, 1))], {"axis": 1, "broadcast": True})
    check("take_along_axis", [X, RNG.integers(0, 4, (2, 2, 3))], {"axis": 1, "broadcast": False})
    check("take_along_axis_grad", [RNG.standard_normal((3, 2, 5)).astype(np.float32), RNG.integers(0, 4, (1, 2, 1))],
          {"axis": 1, "broadcast": True, "shape": (3, 4, 5)}, rtol=1e-6)
    check("one_hot", [np.array([[1, 0], [3, 2]], np.int64)], {"num_classes": 4})
    weight, ids = RNG.standard_normal((6, 3)).astype(np.float32), np.array([[1, 5, 1], [0, 2, 5]])
    check("embedding", [ids, weight], {"padding_idx": 5})
    check("embedding_grad", [RNG.standard_normal((2, 3, 3)).astype(np.float32), ids],
          {"num_embeddings": 6, "padding_idx": 1}, rtol=1e-6)


# ---- autograd on GPU tensors: the same expression on either device ----------------------------------
def _square_sum(t):
    return (t * t).sum()


def _weights(t):
    """A fixed tensor of t's shape on t's device: makes every gradient entry distinct."""
    w = np.arange(1, 1 + int(np.prod(t.shape)), dtype=np.float32).reshape(t.shape)
    return paddle.to_tensor(w, place=t.place)


EXPRESSIONS = {
    "sum over an axis": lambda x: (x.sum(axis=1) * _weights(x.sum(axis=1))).sum(),
    "mean with keepdim": lambda x: _square_sum(x.mean(axis=0, keepdim=True)),
    "x[1:, ::2]": lambda x: (x[1:, ::2] * _weights(x[1:, ::2])).sum(),
    "x[1], x[None, ..., 2]": lambda x: _square_sum(x[1]) + _square_sum(x[None, ..., 2]),
    "concat": lambda x: _square_sum(paddle.concat([x, x * 2], axis=1)),
    "stack": lambda x: _square_sum(paddle.stack([x, x + 1], axis=1)),
    "x.T": lambda x: (x.T @ x).sum(),
    "reshape, unsqueeze, flatten": lambda x: _square_sum(paddle.unsqueeze(x.reshape([2, 6]), [0]).flatten()),
    "tile and flip": lambda x: (paddle.flip(paddle.tile(x, [2, 1]), [0, 1]) * _weights(paddle.tile(x, [2, 1]))).sum(),
    "split": lambda x: _square_sum(paddle.split(x, [1, 3], axis=1)[1]),
    "reflect pad": lambda x: _square_sum(paddle.nn.functional.pad(x.reshape([1, 1, 3, 4]), [1, 2, 0, 1],
                                                                  mode="reflect")),
}


def _on_both_devices(expression, x, *indices):
    """(value, grad) of expression(x, *indices) with CPU tensors, then with GPU tensors."""
    results = []
    for place in ("cpu", "gpu"):
        t = paddle.to_tensor(x, place=place, stop_gradient=False)
        out = expression(t, *(paddle.to_tensor(i, place=place) for i in indices))
        out.backward()
        assert t.grad.place == (paddle.CUDAPlace(0) if place == "gpu" else paddle.CPUPlace())
        results.append((out.numpy(), t.grad.numpy()))
    (cpu_value, cpu_grad), (gpu_value, gpu_grad) = results
    np.testing.assert_allclose(gpu_value, cpu_value, rtol=1e-5)
    np.testing.assert_allclose(gpu_grad, cpu_grad, rtol=1e-5)


@pytest.mark.parametrize("name", list(EXPRESSIONS))
def test_backward_runs_on_the_gpu_and_matches_the_cpu(name):
    _on_both_devices(EXPRESSIONS[name], X[0, :3, :4].copy())


@pytest.mark.parametrize("expression", [
    lambda x, i: _square_sum(paddle.gather(x, i, axis=1)),
    lambda x, i: _square_sum(paddle.index_select(x, i, axis=0)),
    lambda x, i: _square_sum(x[i]),
    lambda x, i: (x[:, i] * _weights(x[:, i])).sum(),
], ids=["gather", "index_select", "x[int tensor]", "x[:, int tensor]"])
def test_indexing_with_an_int_tensor_differentiates_on_the_gpu(expression):
    _on_both_devices(expression, X[0, :3, :4].copy(), ROWS)


def test_indexing_with_a_bool_mask_tensor_differentiates_on_the_gpu():
    x = X[0, :3, :4].copy()
    _on_both_devices(lambda t, mask: _square_sum(t[mask]), x, x > 0)


def test_embedding_backward_adds_repeated_ids_on_the_gpu():
    weight = RNG.standard_normal((5, 3)).astype(np.float32)
    ids = np.array([[1, 4, 1], [0, 1, 2]])
    _on_both_devices(lambda w, i: _square_sum(paddle.nn.functional.embedding(i, w)), weight, ids)


def test_reshape_and_basic_indexing_of_a_gpu_tensor_are_views_of_its_storage():
    x = paddle.to_tensor(X, place="gpu")
    for view in (x.reshape([12, 5]), x[1], paddle.unsqueeze(x, [0])):
        assert view._base is x
    assert x.T._base is None  # a transpose is a copy on the GPU (storage stays C-contiguous)


@pytest.mark.parametrize("attrs", [{"axis": None}, {"axis": 0}, {"axis": -1, "reverse": True}, {"axis": 1}])
def test_cumsum_matches_the_cpu(attrs):
    check("cumsum", [X], attrs, rtol=1e-6)
    check("cumsum", [(X * 10).astype(np.int32)], attrs)


def test_float16_fills_pads_and_embeddings():
    check("pad", [X.astype(np.float16)], {"paddings": ((1, 0), (0, 2), (1, 1)), "mode": "constant", "value": 0.5})
    check("strided_slice_grad", [X[:, :2].astype(np.float16)],
          {"input_shape": (3, 4, 5), "axes": (1,), "starts": (0,), "ends": (2,), "strides": (1,)})
    check("embedding", [np.array([[1, 5], [0, 1]]), RNG.standard_normal((6, 3)).astype(np.float16)], {"padding_idx": 5})
    check("cumsum", [X.astype(np.float16)], {"axis": 2}, rtol=2e-3, atol=2e-3)


def test_cumsum_backward_runs_on_the_gpu():
    x = X[0, :3, :4].copy()
    _on_both_devices(lambda t: (paddle.cumsum(t, axis=1) * _weights(t)).sum() + (paddle.cumsum(t) * 0.5).sum(), x)


@pytest.mark.parametrize("index", INDICES, ids=range(len(INDICES)))
def test_index_put_writes_the_region_as_numpy_does(index):
    items, advanced = normalize_index(X.shape, index)
    region = X[index].shape
    value = RNG.standard_normal(region).astype(np.float32)
    parts = index if isinstance(index, tuple) else (index,)
    repeats = any(isinstance(a, np.ndarray) and a.dtype != bool and np.unique(a).size < a.size for a in parts)
    if not repeats:  # a position written twice keeps either value on the GPU (the order is undefined)
        check("index_put", [X, value, advanced._data], {"index": items})
    if len(region) and not repeats:  # a value broadcast along the region's leading dims
        check("index_put", [X, np.ascontiguousarray(value[..., :1]), advanced._data], {"index": items})
    check("index_put", [X, np.array(7.5, np.float32), advanced._data], {"index": items})
