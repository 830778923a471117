"""Linear algebra: matmul's Paddle semantics (1-D promotion, batch broadcasting, transpose
flags), its two kernels, gradients and double grads, bmm/dot/mv/t/outer, PyTorch, errors."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument
from minipaddle.framework.kernels.cpu.matmul import matmul_numba
from minipaddle.framework.ops.linalg import matmul_blas, matmul_meta
from minipaddle.framework.registry import MetaTensor

from .opcheck import arrays, assert_forward, check_double_grad, check_grad, torch_or_skip


def _np_matmul(x, y, transpose_x=False, transpose_y=False):
    """The reference: numpy.matmul after swapping the last two dims of any flagged matrix."""
    if transpose_x and x.ndim >= 2:
        x = np.swapaxes(x, -1, -2)
    if transpose_y and y.ndim >= 2:
        y = np.swapaxes(y, -1, -2)
    return np.matmul(x, y)


@st.composite
def matmul_case(draw, max_side=4):
    """Shapes (any of them 1-D, batch dims that broadcast) and transpose flags that fit together."""
    m, k, n = (draw(st.integers(0, max_side)) for _ in range(3))
    batch_x, batch_y = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=2, max_side=3)).input_shapes
    tx, ty = draw(st.booleans()), draw(st.booleans())
    x_shape = (k,) if draw(st.booleans()) else batch_x + ((k, m) if tx else (m, k))
    y_shape = (k,) if draw(st.booleans()) else batch_y + ((n, k) if ty else (k, n))
    return x_shape, y_shape, tx, ty


# ---- forward -----------------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(case=matmul_case(), data=st.data())
def test_matmul_matches_numpy(case, data):
    x_shape, y_shape, tx, ty = case
    dtype = data.draw(st.sampled_from(["float32", "float64", "int64"]))
    x = data.draw(arrays(x_shape, dtype))
    y = data.draw(arrays(y_shape, dtype))
    out = paddle.matmul(paddle.to_tensor(x), paddle.to_tensor(y), transpose_x=tx, transpose_y=ty)
    assert_forward(out, _np_matmul(x, y, tx, ty), rtol=1e-5, atol=1e-5)


@settings(max_examples=30, deadline=None)
@given(case=matmul_case(max_side=9), data=st.data())
def test_numba_kernel_agrees_with_blas_kernel(case, data):
    x_shape, y_shape, tx, ty = case
    dtype = data.draw(st.sampled_from(["float32", "float64"]))
    x = data.draw(arrays(x_shape, dtype))
    y = data.draw(arrays(y_shape, dtype))
    ours, blas = matmul_numba(x, y, tx, ty), matmul_blas(x, y, tx, ty)
    assert ours.shape == blas.shape and ours.dtype == blas.dtype
    np.testing.assert_allclose(ours, blas, rtol=1e-5, atol=1e-5)


def test_numba_kernel_handles_blocks_larger_than_a_tile():
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(2, 70, 130)), rng.normal(size=(130, 67))  # edges that don't divide TILE=64
    np.testing.assert_allclose(matmul_numba(x, y), x @ y, rtol=1e-10)


def test_both_kernels_are_registered_and_blas_is_the_default():
    from minipaddle.framework.ops import describe
    d = describe("matmul")
    float32 = {k["name"]: k["default"] for k in d["kernels"] if k["dtype"] == "float32" and k["backend"] == "cpu"}
    assert float32 == {"blas": True, "numba": False}
    on_gpu = [k["name"] for k in d["kernels"] if k["dtype"] == "float32" and k["backend"] == "gpu"]
    assert {"cuda_naive", "cuda_tiled", "cuda_regblock", "cuda_bankfree"} <= set(on_gpu)   # the progression


def test_selecting_the_numba_kernel_gives_the_same_result():
    from minipaddle.framework.ops.linalg import MATMUL
    from minipaddle.framework.registry import KernelKey, set_preferred_kernel
    x = paddle.to_tensor(np.random.default_rng(1).normal(size=(3, 5)).astype("float32"))
    y = paddle.to_tensor(np.random.default_rng(2).normal(size=(5, 4)).astype("float32"))
    expected = paddle.matmul(x, y).numpy()
    key = KernelKey("cpu", np.dtype("float32"))
    set_preferred_kernel(MATMUL.name, key, "numba")
    try:
        np.testing.assert_allclose(paddle.matmul(x, y).numpy(), expected, rtol=1e-5)
    finally:
        set_preferred_kernel(MATMUL.name, key, None)


def test_one_d_operands_are_promoted_and_squeezed():
    v = paddle.to_tensor([1.0, 2.0, 3.0])
    m = paddle.ones([3, 2])
    assert paddle.matmul(v, v).shape == [] and paddle.matmul(v, v).item() == 14.0
    assert paddle.matmul(v, m).shape == [2]
    assert paddle.matmul(m, paddle.ones([2]), transpose_x=False).shape == [3]
    assert paddle.matmul(paddle.ones([4, 2, 3]), v).shape == [4, 2]
    assert paddle.matmul(v, v, transpose_x=True, transpose_y=True).item() == 14.0  # no-op on vectors


def test_static_shapes_with_unknown_dims():
    f32 = np.dtype("float32")
    assert matmul_meta(MetaTensor((-1, 3), f32), MetaTensor((3, 4), f32)).shape == (-1, 4)
    assert matmul_meta(MetaTensor((2, -1), f32), MetaTensor((-1, 4), f32)).shape == (2, 4)
    assert matmul_meta(MetaTensor((-1, 2, 3), f32), MetaTensor((3,), f32)).shape == (-1, 2)


# ---- gradients ---------------------------------------------------------------------
GRAD_CASES = [
    ((2, 3), (3, 4), False, False),
    ((3, 2), (3, 4), True, False),
    ((2, 3), (4, 3), False, True),
    ((3, 2), (4, 3), True, True),
    ((3,), (3, 4), False, False),
    ((2, 3), (3,), False, False),
    ((3,), (3,), False, False),
    ((3,), (2, 4, 3), False, True),
    ((2, 3, 2), (3,), True, False),
    ((2, 1, 2, 3), (4, 3, 2), False, False),   # batch dims broadcast both ways
    ((1, 3, 2), (5, 4, 3), True, True),
]


@pytest.mark.parametrize("x_shape, y_shape, tx, ty", GRAD_CASES, ids=str)
def test_matmul_grad_and_double_grad(x_shape, y_shape, tx, ty):
    rng = np.random.default_rng(3)
    x, y = rng.uniform(-1, 1, x_shape), rng.uniform(-1, 1, y_shape)

    def fn(a, b):
        return paddle.matmul(a, b, transpose_x=tx, transpose_y=ty)
    check_grad(fn, [x, y])
    check_double_grad(fn, [x, y])


def test_matmul_grad_only_for_inputs_that_need_it():
    x = paddle.to_tensor(np.ones((2, 3)), stop_gradient=False)
    w = paddle.to_tensor(np.full((3, 4), 0.5))
    paddle.matmul(x, w).sum().backward()
    assert w.grad is None
    np.testing.assert_allclose(x.grad.numpy(), np.full((2, 3), 2.0))


# ---- bmm, dot, mv, t, outer --------------------------------------------------------
def test_bmm():
    rng = np.random.default_rng(4)
    x, y = rng.uniform(-1, 1, (2, 3, 4)), rng.uniform(-1, 1, (2, 4, 5))
    assert_forward(paddle.bmm(paddle.to_tensor(x), paddle.to_tensor(y)), x @ y, rtol=1e-12)
    check_grad(paddle.bmm, [x, y])
    check_double_grad(paddle.bmm, [x, y])


@pytest.mark.parametrize("shape", [(4,), (3, 4)])
def test_dot(shape):
    rng = np.random.default_rng(5)
    x, y = rng.uniform(-1, 1, shape), rng.uniform(-1, 1, shape)
    out = paddle.dot(paddle.to_tensor(x), paddle.to_tensor(y))
    assert_forward(out, np.sum(x * y, axis=-1), rtol=1e-12)
    check_grad(paddle.dot, [x, y])
    check_double_grad(paddle.dot, [x, y])
    ints = paddle.dot(paddle.to_tensor([1, 2, 3]), paddle.to_tensor([4, 5, 6]))
    assert ints.dtype == paddle.int64 and ints.item() == 32


def test_mv():
    rng = np.random.default_rng(6)
    x, v = rng.uniform(-1, 1, (3, 4)), rng.uniform(-1, 1, (4,))
    assert_forward(paddle.mv(paddle.to_tensor(x), paddle.to_tensor(v)), x @ v, rtol=1e-12)
    check_grad(paddle.mv, [x, v])
    check_double_grad(paddle.mv, [x, v])


def test_t_transposes_matrices_and_leaves_vectors():
    x = np.arange(6.0).reshape(2, 3)
    t = paddle.to_tensor(x)
    assert_forward(paddle.t(t), x.T)
    assert paddle.t(paddle.to_tensor([1.0, 2.0])).shape == [2]
    assert t.t().shape == [3, 2]
    check_grad(paddle.t, [x])


def test_outer():
    rng = np.random.default_rng(7)
    x, y = rng.uniform(-1, 1, (3,)), rng.uniform(-1, 1, (2, 2))
    assert_forward(paddle.outer(paddle.to_tensor(x), paddle.to_tensor(y)), np.outer(x, y), rtol=1e-12)
    check_grad(paddle.outer, [x, y])


def test_operators_and_methods():
    a = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    b = paddle.to_tensor([[0.0, 1.0], [1.0, 0.0]])
    assert (a @ b).numpy().tolist() == [[2.0, 1.0], [4.0, 3.0]]
    assert a.matmul(b, transpose_x=True).numpy().tolist() == [[3.0, 1.0], [4.0, 2.0]]
    assert a.dot(b).numpy().tolist() == [2.0, 3.0]


# ---- against PyTorch ---------------------------------------------------------------
def test_matmul_and_grads_match_torch():
    torch = torch_or_skip()
    rng = np.random.default_rng(8)
    x, y = rng.normal(size=(2, 1, 3, 4)).astype("float32"), rng.normal(size=(5, 4, 2)).astype("float32")
    px, py = paddle.to_tensor(x, stop_gradient=False), paddle.to_tensor(y, stop_gradient=False)
    tx, ty = torch.tensor(x, requires_grad=True), torch.tensor(y, requires_grad=True)
    out = paddle.matmul(px, py)
    ref = torch.matmul(tx, ty)
    np.testing.assert_allclose(out.numpy(), ref.detach().numpy(), rtol=1e-5, atol=1e-5)
    (out * out).sum().backward()
    (ref * ref).sum().backward()
    np.testing.assert_allclose(px.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(py.grad.numpy(), ty.grad.numpy(), rtol=1e-4, atol=1e-4)


# ---- errors ------------------------------------------------------------------------
def test_inner_dim_mismatch_names_both_shapes():
    with pytest.raises(InvalidArgument) as e:
        paddle.matmul(paddle.ones([2, 3]), paddle.ones([4, 5]))
    msg = str(e.value)
    assert msg.startswith("InvalidArgument: matmul: x's last dim (3) must equal y's first dim (4)")
    assert "[2, 3]" in msg and "[4, 5]" in msg
    with pytest.raises(InvalidArgument, match=r"x's first dim \(2\) must equal y's last dim \(5\)"):
        paddle.matmul(paddle.ones([2, 3]), paddle.ones([4, 5]), transpose_x=True, transpose_y=True)
    with pytest.raises(InvalidArgument, match=r"x's last dim \(3\) must equal y's second-to-last dim \(4\)"):
        paddle.matmul(paddle.ones([2, 3]), paddle.ones([6, 4, 5]))


def test_matmul_argument_errors():
    with pytest.raises(InvalidArgument, match=r"matmul: the batch dims of x \[2\] and y \[3\] cannot be broadcast"):
        paddle.matmul(paddle.ones([2, 2, 3]), paddle.ones([3, 3, 5]))
    with pytest.raises(InvalidArgument, match="matmul: x has shape \\[\\] and y has shape \\[3\\]; 0-D"):
        paddle.matmul(paddle.to_tensor(2.0), paddle.ones([3]))
    with pytest.raises(InvalidArgument, match="matmul: x has dtype float32 but y has dtype float64"):
        paddle.matmul(paddle.ones([2, 2]), paddle.ones([2, 2], dtype="float64"))
    with pytest.raises(InvalidArgument, match="matmul: argument 'y' got list, expected a Tensor"):
        paddle.matmul(paddle.ones([2, 2]), [[1.0, 0.0], [0.0, 1.0]])


def test_other_linalg_errors():
    with pytest.raises(InvalidArgument, match="bmm: x has shape \\[2, 3\\] and y has shape"):
        paddle.bmm(paddle.ones([2, 3]), paddle.ones([2, 3, 4]))
    with pytest.raises(InvalidArgument, match=r"bmm: x's batch size \(2\) must equal y's \(3\)"):
        paddle.bmm(paddle.ones([2, 3, 4]), paddle.ones([3, 4, 5]))
    with pytest.raises(InvalidArgument, match=r"bmm: x's last dim \(4\) must equal y's second dim \(5\)"):
        paddle.bmm(paddle.ones([2, 3, 4]), paddle.ones([2, 5, 5]))
    with pytest.raises(InvalidArgument, match="dot: x of shape \\[3\\] and y of shape \\[4\\] differ in dim 0"):
        paddle.dot(paddle.ones([3]), paddle.ones([4]))
    with pytest.raises(InvalidArgument, match="dot: x has shape \\[2, 2, 2\\]"):
        paddle.dot(paddle.ones([2, 2, 2]), paddle.ones([2, 2, 2]))
    with pytest.raises(InvalidArgument, match=r"mv: x's last dim \(3\) must equal vec's length \(2\)"):
        paddle.mv(paddle.ones([2, 3]), paddle.ones([2]))
    with pytest.raises(InvalidArgument, match="mv: x has shape \\[3\\] and vec has shape"):
        paddle.mv(paddle.ones([3]), paddle.ones([3]))
    with pytest.raises(InvalidArgument, match="t: x has shape \\[2, 2, 2\\]; expected a tensor with at most 2"):
        paddle.t(paddle.ones([2, 2, 2]))


# ---- mm and dist ---------------------------------------------------------------------------------
def test_mm_is_matmul_without_flags():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 3, 4)), rng.standard_normal((4, 5))
    assert_forward(paddle.mm(paddle.to_tensor(a), paddle.to_tensor(b)), a @ b)
    assert_forward(paddle.to_tensor(a).mm(paddle.to_tensor(b)), a @ b)
    check_grad(paddle.mm, [a, b])
    with pytest.raises(InvalidArgument, match="matmul"):
        paddle.mm(paddle.ones([2, 3]), paddle.ones([4, 2]))


@pytest.mark.parametrize("p", [2, 1, 3, 0, np.inf, -np.inf, 0.5])
def test_dist_is_the_p_norm_of_the_broadcast_difference(p):
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal((3, 4)), rng.standard_normal((4,))
    d = (x - y).ravel()
    expected = {0: np.count_nonzero(d), np.inf: np.abs(d).max(), -np.inf: np.abs(d).min()}.get(
        p, (np.abs(d) ** p).sum() ** (1 / p) if p else 0.0)
    expected = np.float64(expected)
    assert_forward(paddle.dist(paddle.to_tensor(x), paddle.to_tensor(y), p=p), np.array(expected))
    if p != 0:
        check_grad(lambda a, b: paddle.dist(a, b, p=p), [x, y])


def test_dist_rejects_a_non_number_p():
    with pytest.raises(InvalidArgument, match="dist: p got str, expected a number"):
        paddle.dist(paddle.ones([2]), paddle.zeros([2]), p="fro")
