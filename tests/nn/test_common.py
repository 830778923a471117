"""nn.functional common ops and layers: linear, dropout (2d, 3d, alpha), embedding, pad, interpolate /
upsample, cosine_similarity, normalize, label_smooth, pairwise_distance; Linear, Dropout, Embedding,
Flatten, Identity, Pad2D, Upsample, CosineSimilarity. Forward vs numpy and PyTorch, gradients by
central differences, double grads, Paddle's index rules and every error message."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
import minipaddle.nn.functional as F
from minipaddle import nn
from minipaddle.framework.errors import InvalidArgument
from minipaddle.framework.ops import describe
from minipaddle.framework.ops.nn_ops import embedding_grad_numpy

from ..ops.opcheck import assert_forward, check_double_grad, check_grad, torch_or_skip

RNG = np.random.default_rng(7)


def rand(*shape, dtype="float32", low=-1.0, high=1.0):
    return RNG.uniform(low, high, shape).astype(dtype)


def t(a, grad=False):
    return paddle.to_tensor(a, stop_gradient=not grad)


# ---- linear ------------------------------------------------------------------------------------
@pytest.mark.parametrize("x_shape", [(5,), (4, 3), (2, 4, 3), (2, 1, 2, 3), (0, 3)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_linear_matches_numpy_for_any_leading_dims_and_keeps_dtype(x_shape, dtype):
    x = rand(*x_shape, dtype=dtype)
    w = rand(x_shape[-1], 6, dtype=dtype)
    b = rand(6, dtype=dtype)
    out = F.linear(t(x), t(w), t(b))
    assert_forward(out, (x.astype(np.float64) @ w + b).astype(dtype), rtol=1e-5, atol=1e-6)
    assert out.grad_fn is None  # nothing needed grad
    assert F.linear(t(x), t(w)).numpy().dtype == np.dtype(dtype)


def test_linear_is_one_op_recorded_once():
    x, w, b = t(rand(8, 4)), t(rand(4, 3), grad=True), t(rand(3), grad=True)
    out = F.linear(x, w, b)
    assert out.grad_fn.op.name == "linear"
    assert out.grad_fn.next_edges[0] is None  # x needs no grad: dx is never computed
    assert "blas" in [k["name"] for k in describe("linear")["kernels"]]


def test_linear_matches_torch():
    torch = torch_or_skip()
    x, w, b = rand(3, 2, 5), rand(5, 4), rand(4)
    got = F.linear(t(x), t(w), t(b)).numpy()
    want = torch.nn.functional.linear(torch.from_numpy(x), torch.from_numpy(w.T.copy()), torch.from_numpy(b))
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("x_shape", [(3,), (4, 3), (2, 2, 3)])
def test_linear_gradients(x_shape):
    check_grad(F.linear, [rand(*x_shape), rand(3, 2), rand(2)])
    check_grad(lambda x, w: F.linear(x, w), [rand(*x_shape), rand(3, 2)])


@pytest.mark.parametrize("x_shape", [(4, 3), (2, 2, 3)])
def test_linear_double_grad(x_shape):
    # linear is bilinear in (x, W): d2/dx dW is not zero, so this exercises the backward's own graph
    check_double_grad(F.linear, [rand(*x_shape), rand(3, 2), rand(2)])


def test_linear_errors_name_the_shapes():
    with pytest.raises(InvalidArgument, match=r"linear: x's last dim \(3\) must equal weight's first dim \(4\)"):
        F.linear(t(rand(2, 3)), t(rand(4, 5)), t(rand(5)))
    with pytest.raises(InvalidArgument, match=r"bias has shape \[4\], expected \[5\]"):
        F.linear(t(rand(2, 4)), t(rand(4, 5)), t(rand(4)))
    with pytest.raises(InvalidArgument, match="weight has shape \\[4\\], expected a 2-D"):
        F.linear(t(rand(2, 4)), t(rand(4)), t(rand(4)))
    with pytest.raises(InvalidArgument, match="'weight' has dtype float64 but 'x' has float32"):
        F.linear(t(rand(2, 4)), t(rand(4, 5, dtype="float64")), t(rand(5)))
    with pytest.raises(InvalidArgument, match="expected a Tensor"):
        F.linear(rand(2, 4), t(rand(4, 5)))
    with pytest.raises(InvalidArgument, match=r"linear: x's last dim \(5\) must equal weight's first dim \(4\)"):
        F.linear(t(rand(2, 5)), t(rand(4, 5)))  # without a bias too
    with pytest.raises(InvalidArgument, match="linear: x is 0-D"):
        F.linear(t(np.array(1.0, np.float32)), t(rand(1, 5)))


# ---- dropout -----------------------------------------------------------------------------------
def test_dropout_upscales_kept_elements_and_zeroes_the_rest():
    paddle.seed(1)
    x = rand(200, 50, low=1.0, high=2.0)
    out = F.dropout(t(x), p=0.3).numpy()
    kept = out != 0
    np.testing.assert_allclose(out[kept], x[kept] / 0.7, rtol=1e-6)
    assert out.dtype == np.float32
    assert abs(1 - kept.mean() - 0.3) < 0.02  # 10000 draws: the dropped fraction is close to p


def test_dropout_mask_follows_paddle_seed():
    x = t(rand(6, 7))
    paddle.seed(5)
    a = F.dropout(x, 0.5).numpy()
    paddle.seed(5)
    b = F.dropout(x, 0.5).numpy()
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, F.dropout(x, 0.5).numpy())


def test_dropout_gradient_is_the_saved_mask():
    paddle.seed(2)
    x = t(rand(5, 6), grad=True)
    out = F.dropout(x, 0.4)
    out.backward(paddle.ones_like(out))
    mask = (out.numpy() != 0) / 0.6
    np.testing.assert_allclose(x.grad.numpy(), mask, rtol=1e-6)

    def reseeded(v, axis=None):  # the same mask on every call, so central differences see one function
        paddle.seed(11)
        return F.dropout(v, 0.4, axis=axis)
    check_grad(reseeded, [rand(3, 4)])
    check_grad(lambda v: reseeded(v, axis=[1]), [rand(3, 4)])
    check_double_grad(lambda v: reseeded(v) * v, [rand(3, 4)])


def test_dropout_modes_in_train_and_eval():
    x = t(rand(4, 5, low=1.0, high=2.0))
    assert F.dropout(x, 0.3, training=False) is x  # upscale_in_train: evaluation is the identity
    np.testing.assert_allclose(F.dropout(x, 0.3, training=False, mode="downscale_in_infer").numpy(),
                               x.numpy() * 0.7, rtol=1e-6)
    paddle.seed(3)
    out = F.dropout(x, 0.3, mode="downscale_in_infer").numpy()
    np.testing.assert_array_equal(out[out != 0], x.numpy()[out != 0])  # training: kept as is
    assert F.dropout(x, 0.0) is x
    np.testing.assert_array_equal(F.dropout(x, 1.0).numpy(), np.zeros((4, 5), np.float32))


def test_dropout_axis_shares_one_draw_along_the_other_axes():
    paddle.seed(4)
    out = F.dropout(t(np.ones((6, 5, 3, 3), np.float32)), 0.5, axis=[0, 1]).numpy()
    per_map = out.reshape(6, 5, 9)
    assert np.all(per_map == per_map[:, :, :1])  # each (n, c) map is all kept or all dropped
    assert 0 < (per_map[:, :, 0] == 0).sum() < 30
    out2d = F.dropout2d(t(np.ones((6, 5, 3, 3), np.float32)), 0.5).numpy().reshape(6, 5, 9)
    assert np.all(out2d == out2d[:, :, :1])
    nhwc = F.dropout2d(t(np.ones((2, 3, 3, 8), np.float32)), 0.5, data_format="NHWC").numpy().reshape(2, 9, 8)
    assert np.all(nhwc == nhwc[:, :1, :])
    out3d = F.dropout3d(t(np.ones((2, 4, 2, 2, 2), np.float32)), 0.5).numpy().reshape(2, 4, 8)
    assert np.all(out3d == out3d[:, :, :1])


def test_dropout_errors():
    x = t(rand(2, 3))
    with pytest.raises(InvalidArgument, match=r"dropout: p is 1.5, expected a probability in \[0, 1\]"):
        F.dropout(x, 1.5)
    with pytest.raises(InvalidArgument, match="mode 'scale' is not one of"):
        F.dropout(x, 0.5, mode="scale")
    with pytest.raises(InvalidArgument, match="axis 2 is out of range for a 2-D x"):
        F.dropout(x, 0.5, axis=2)
    with pytest.raises(InvalidArgument, match="dropout2d: x has 2 dims"):
        F.dropout2d(x)
    with pytest.raises(InvalidArgument, match="data_format 'NCL' is not one of"):
        F.dropout2d(t(rand(1, 2, 2, 2)), data_format="NCL")
    with pytest.raises(InvalidArgument, match="argument 'x' has dtype int64"):
        F.dropout(paddle.to_tensor([1, 2]), 0.5)


def test_alpha_dropout_keeps_mean_and_variance_of_selu_activations():
    paddle.seed(6)
    x = RNG.standard_normal((400, 250)).astype(np.float32)
    out = F.alpha_dropout(t(x), p=0.2).numpy()
    assert abs(out.mean()) < 0.03 and abs(out.std() - 1) < 0.03
    xt = t(x)
    assert F.alpha_dropout(xt, 0.2, training=False) is xt
    xx = t(rand(4, 4), grad=True)
    out = F.alpha_dropout(xx, 0.5)
    out.backward(paddle.ones_like(out))
    a = ((1 - 0.5) * (1 + 0.5 * (1.6732632423543772 * 1.0507009873554805) ** 2)) ** -0.5
    grad = xx.grad.numpy()
    assert {round(float(g), 5) for g in np.unique(grad)} == {0.0, round(a, 5)}


# ---- embedding ---------------------------------------------------------------------------------
def test_embedding_forward_and_padding_rows():
    w = rand(10, 4)
    ids = np.array([[1, 3, 3], [0, 9, 2]])
    out = F.embedding(t(ids), t(w))
    assert_forward(out, w[ids])
    padded = F.embedding(t(ids), t(w), padding_idx=3).numpy()
    np.testing.assert_array_equal(padded[ids == 3], 0)
    np.testing.assert_array_equal(padded[ids != 3], w[ids[ids != 3]])
    np.testing.assert_array_equal(F.embedding(t(ids), t(w), padding_idx=-1).numpy()[1, 1], 0)  # -1 is row 9
    assert F.embedding(t(ids.astype(np.int32)), t(w.astype(np.float64))).numpy().dtype == np.float64


def test_embedding_gradient_scatter_adds_rows_and_skips_padding():
    w = t(rand(6, 3), grad=True)
    ids = t(np.array([[0, 2, 2], [5, 2, 0]]))
    dout = rand(2, 3, 3)
    F.embedding(ids, w, padding_idx=5).backward(t(dout))
    want = np.zeros((6, 3), np.float32)
    np.add.at(want, ids.numpy().reshape(-1), dout.reshape(-1, 3))
    want[5] = 0
    np.testing.assert_allclose(w.grad.numpy(), want, rtol=1e-6)
    check_grad(lambda i, v: F.embedding(i, v), [np.array([1, 1, 0, 3]), rand(4, 2)], wrt=[1])


def test_embedding_numba_and_numpy_gradients_agree():
    from minipaddle.framework.kernels.cpu.nn_common import embedding_grad_numba
    ids = RNG.integers(0, 50, (7, 9))
    dout = rand(7, 9, 5)
    for padding in (-1, 3):
        np.testing.assert_allclose(embedding_grad_numba(dout, ids, 50, padding),
                                   embedding_grad_numpy(dout, ids, 50, padding), rtol=1e-5, atol=1e-6)


def test_embedding_gradient_is_itself_differentiable():
    # embedding_grad's backward is embedding: d/d(dout) of <grad W, v> = v's rows at the ids
    ids = t(np.array([2, 0, 2]))
    w = t(rand(4, 3), grad=True)
    dout = t(rand(3, 3), grad=True)
    (gw,) = paddle.grad([F.embedding(ids, w)], [w], grad_outputs=[dout], create_graph=True)
    v = rand(4, 3)
    (gd,) = paddle.grad([(gw * t(v)).sum()], [dout])
    np.testing.assert_allclose(gd.numpy(), v[[2, 0, 2]], rtol=1e-6)


def test_embedding_errors():
    w = t(rand(5, 2))
    with pytest.raises(InvalidArgument, match="embedding"):
        F.embedding(t(np.array([0, 5])), w)
    with pytest.raises(InvalidArgument, match="embedding"):
        F.embedding(t(np.array([-1, 2])), w)
    with pytest.raises(InvalidArgument, match="argument 'x' has dtype float32, expected int32 or int64 ids"):
        F.embedding(t(np.array([0.0, 1.0], np.float32)), w)
    with pytest.raises(InvalidArgument, match=r"padding_idx is 5, expected it in \[-5, 5\)"):
        F.embedding(t(np.array([0])), w, padding_idx=5)
    with pytest.raises(InvalidArgument, match="weight has shape \\[5\\], expected a 2-D"):
        F.embedding(t(np.array([0])), t(rand(5)))


def test_embedding_out_of_range_message_names_the_id():
    with pytest.raises(InvalidArgument) as info:
        F.embedding(t(np.array([0, 7])), t(rand(5, 2)))
    assert "7" in str(info.value) and "5" in str(info.value)


# ---- one_hot, pad ------------------------------------------------------------------------------
def test_one_hot_and_pad_are_the_registered_ops():
    assert_forward(F.one_hot(t(np.array([0, 2])), 3), np.eye(3, dtype=np.float32)[[0, 2]])
    x = rand(1, 1, 2, 3)
    out = F.pad(t(x), [1, 2, 0, 1], mode="constant", value=9.0)  # [left, right, top, bottom]
    assert_forward(out, np.pad(x, ((0, 0), (0, 0), (0, 1), (1, 2)), constant_values=9.0))
    assert_forward(F.zeropad2d(t(x), [1, 0, 0, 0]), np.pad(x, ((0, 0), (0, 0), (0, 0), (1, 0))))


# ---- interpolate -------------------------------------------------------------------------------
def _torch_interp(torch, x, **kw):
    return torch.nn.functional.interpolate(torch.from_numpy(x), **kw).numpy()


@pytest.mark.parametrize("case", [
    dict(size=[7, 5], mode="nearest"), dict(size=[3, 2], mode="nearest"), dict(scale_factor=2, mode="nearest"),
    dict(scale_factor=[1.5, 2.5], mode="nearest"),
    dict(size=[7, 5], mode="bilinear", align_corners=False), dict(size=[7, 5], mode="bilinear", align_corners=True),
    dict(size=[2, 3], mode="bilinear", align_corners=False), dict(scale_factor=1.7, mode="bilinear"),
    dict(size=[7, 9], mode="bicubic", align_corners=False), dict(size=[6, 3], mode="bicubic", align_corners=True),
    dict(size=[3, 2], mode="area"), dict(size=[5, 7], mode="area"),
])
def test_interpolate_4d_matches_torch(case):
    torch = torch_or_skip()
    x = rand(2, 3, 4, 5)
    got = F.interpolate(t(x), **case)
    assert got.numpy().dtype == np.float32
    np.testing.assert_allclose(got.numpy(), _torch_interp(torch, x, **case), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("case", [
    dict(size=[9], mode="linear"), dict(size=[9], mode="linear", align_corners=True), dict(size=[4], mode="area"),
])
def test_interpolate_3d_matches_torch(case):
    torch = torch_or_skip()
    x = rand(2, 3, 6)
    np.testing.assert_allclose(F.interpolate(t(x), **case).numpy(), _torch_interp(torch, x, **case),
                               rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case", [dict(size=[3, 5, 4], mode="trilinear"),
                                  dict(size=[3, 5, 4], mode="trilinear", align_corners=True),
                                  dict(scale_factor=2, mode="nearest")])
def test_interpolate_5d_matches_torch(case):
    torch = torch_or_skip()
    x = rand(1, 2, 2, 3, 3)
    np.testing.assert_allclose(F.interpolate(t(x), **case).numpy(), _torch_interp(torch, x, **case),
                               rtol=1e-5, atol=1e-6)


def paddle_bilinear_reference(x, out_h, out_w, align_corners, align_mode):
    """Paddle's CPU bilinear kernel, transcribed loop by loop (the 4-neighbour form, not matrices)."""
    n, c, in_h, in_w = x.shape

    def taps(n_in, n_out):
        r = np.float32(0) if n_out <= 1 else (np.float32(n_in - 1) / np.float32(n_out - 1) if align_corners
                                             else np.float32(n_in) / np.float32(n_out))
        flag = align_mode == 0 and not align_corners
        out = []
        for k in range(n_out):
            lo = int(float(r) * (k + 0.5) - 0.5) if flag else int(r * np.float32(k))
            lo = max(lo, 0)
            hi = min(lo + 1, n_in - 1)
            src = max(float(r) * (k + 0.5) - 0.5, 0.0)
            d = (np.float32(src) - lo) if flag else (r * np.float32(k) - lo)
            out.append((lo, hi, float(d)))
        return out
    out = np.zeros((n, c, out_h, out_w))
    for k, (y0, y1, dy) in enumerate(taps(in_h, out_h)):
        for j, (x0, x1, dx) in enumerate(taps(in_w, out_w)):
            out[:, :, k, j] = (x[:, :, y0, x0] * (1 - dy) * (1 - dx) + x[:, :, y1, x0] * dy * (1 - dx)
                               + x[:, :, y0, x1] * (1 - dy) * dx + x[:, :, y1, x1] * dy * dx)
    return out


@pytest.mark.parametrize("align_mode", [0, 1])
@pytest.mark.parametrize("size", [(7, 3), (2, 8), (4, 5)])
def test_bilinear_follows_paddles_kernel_for_both_align_modes(align_mode, size):
    x = rand(1, 2, 4, 5)
    got = F.interpolate(t(x), size=list(size), mode="bilinear", align_mode=align_mode)
    np.testing.assert_allclose(got.numpy(), paddle_bilinear_reference(x, *size, False, align_mode),
                               rtol=1e-5, atol=1e-6)


def test_nearest_uses_floor_of_scaled_index_and_channel_last_matches():
    x = np.arange(5, dtype=np.float32).reshape(1, 1, 1, 5)
    np.testing.assert_array_equal(F.interpolate(t(x), size=[1, 3]).numpy().ravel(), [0, 1, 3])
    # a scale factor sets the step to 1 / scale (0.588 here), a size to in / out (0.625): Paddle's rule
    np.testing.assert_array_equal(F.interpolate(t(x), scale_factor=[1, 1.7]).numpy().ravel(), [0, 0, 1, 1, 2, 2, 3, 4])
    np.testing.assert_array_equal(F.interpolate(t(x), size=[1, 8]).numpy().ravel(), [0, 0, 1, 1, 2, 3, 3, 4])
    nchw = rand(2, 3, 4, 5)
    for mode in ("nearest", "bilinear", "bicubic"):
        a = F.interpolate(t(nchw), size=[6, 3], mode=mode).numpy()
        b = F.interpolate(t(nchw.transpose(0, 2, 3, 1)), size=[6, 3], mode=mode, data_format="NHWC").numpy()
        np.testing.assert_allclose(a, b.transpose(0, 3, 1, 2), rtol=1e-6, atol=1e-6)
    same = F.interpolate(t(nchw), size=[4, 5], mode="bilinear")
    np.testing.assert_array_equal(same.numpy(), nchw)


@pytest.mark.parametrize("mode,size", [("nearest", [5, 3]), ("bilinear", [5, 3]), ("bicubic", [3, 4]),
                                       ("area", [2, 2])])
def test_interpolate_gradients(mode, size):
    check_grad(lambda v: F.interpolate(v, size=size, mode=mode), [rand(1, 2, 3, 4)])
    if mode == "bilinear":
        check_grad(lambda v: F.interpolate(v, size=size, mode=mode, align_corners=True), [rand(1, 1, 3, 4)])


def test_interpolate_grad_is_differentiable_in_the_output_gradient():
    x = t(rand(1, 1, 3, 4), grad=True)
    v = t(rand(1, 1, 5, 6), grad=True)
    (gx,) = paddle.grad([F.interpolate(x, size=[5, 6], mode="bilinear")], [x], grad_outputs=[v], create_graph=True)
    w = rand(1, 1, 3, 4)
    (gv,) = paddle.grad([(gx * t(w)).sum()], [v])
    np.testing.assert_allclose(gv.numpy(), F.interpolate(t(w), size=[5, 6], mode="bilinear").numpy(), rtol=1e-5)


def test_upsample_is_interpolate():
    x = rand(1, 2, 3, 3)
    np.testing.assert_array_equal(F.upsample(t(x), scale_factor=2, mode="bilinear").numpy(),
                                  F.interpolate(t(x), scale_factor=2, mode="bilinear").numpy())


def test_interpolate_errors():
    x = t(rand(1, 1, 3, 3))
    with pytest.raises(InvalidArgument, match="got both size and scale_factor"):
        F.interpolate(x, size=[2, 2], scale_factor=2)
    with pytest.raises(InvalidArgument, match="got neither size nor scale_factor"):
        F.interpolate(x)
    with pytest.raises(InvalidArgument, match="mode 'linear' resizes a 3-D x, got a 4-D x"):
        F.interpolate(x, size=[2, 2], mode="linear")
    with pytest.raises(InvalidArgument, match="mode 'cubic' is not one of"):
        F.interpolate(x, size=[2, 2], mode="cubic")
    with pytest.raises(InvalidArgument, match="align_corners=True has no meaning in mode 'nearest'"):
        F.interpolate(x, size=[2, 2], align_corners=True)
    with pytest.raises(InvalidArgument, match="align_mode got 2, expected 0 or 1"):
        F.interpolate(x, size=[2, 2], mode="bilinear", align_mode=2)
    with pytest.raises(InvalidArgument, match="data_format 'NCW' does not fit a 4-D x"):
        F.interpolate(x, size=[2, 2], data_format="NCW")
    with pytest.raises(InvalidArgument, match="'size' got \\[2\\], expected 2 number"):
        F.interpolate(x, size=[2])
    with pytest.raises(InvalidArgument, match="the output size \\[0, 0\\] must be > 0"):
        F.interpolate(x, scale_factor=0.3)
    with pytest.raises(InvalidArgument, match="scale_factor \\[-1.0, -1.0\\] must be > 0"):
        F.interpolate(x, scale_factor=-1)


# ---- cosine_similarity, pairwise_distance, normalize, label_smooth -----------------------------
def test_cosine_similarity_and_pairwise_distance_match_torch():
    torch = torch_or_skip()
    a, b = rand(4, 5), rand(1, 5)
    got = F.cosine_similarity(t(a), t(b), axis=1)
    want = torch.nn.functional.cosine_similarity(torch.from_numpy(a), torch.from_numpy(b), dim=1)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)
    got = F.pairwise_distance(t(a), t(rand(4, 5)), p=3.0)
    assert got.shape == [4]
    check_grad(lambda u, v: F.cosine_similarity(u, v, axis=0), [rand(3, 2), rand(3, 2)])
    check_grad(lambda u, v: F.pairwise_distance(u, v), [rand(3, 4), rand(3, 4)])


def test_normalize_divides_by_the_clamped_norm():
    x = rand(3, 4)
    assert_forward(F.normalize(t(x)), x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12), rtol=1e-5)
    assert_forward(F.normalize(t(x), p=1, axis=0), x / np.abs(x).sum(axis=0, keepdims=True), rtol=1e-5)
    np.testing.assert_array_equal(F.normalize(t(np.zeros((2, 3), np.float32))).numpy(), 0)
    check_grad(lambda v: F.normalize(v, axis=-1), [rand(2, 3)])


def test_label_smooth_mixes_with_uniform_or_a_prior():
    label = np.eye(4, dtype=np.float32)[[0, 3]]
    assert_forward(F.label_smooth(t(label), epsilon=0.2), label * 0.8 + 0.05)
    prior = np.array([0.1, 0.2, 0.3, 0.4], np.float32)
    assert_forward(F.label_smooth(t(label), prior_dist=t(prior), epsilon=0.5), label * 0.5 + prior * 0.5)
    with pytest.raises(InvalidArgument, match=r"epsilon is 1.5, expected a number in \[0, 1\]"):
        F.label_smooth(t(label), epsilon=1.5)
    check_grad(lambda v: F.label_smooth(v, epsilon=0.3), [label])


# ---- layers ------------------------------------------------------------------------------------
def test_linear_layer_parameters_init_and_repr():
    paddle.seed(0)
    fc = nn.Linear(4, 2)
    assert repr(fc) == "Linear(in_features=4, out_features=2, dtype=float32)"
    assert fc.weight.shape == [4, 2] and fc.bias.shape == [2]
    limit = np.sqrt(6 / (4 + 2))
    assert np.all(np.abs(fc.weight.numpy()) <= limit) and fc.weight.numpy().std() > 0.1 * limit
    np.testing.assert_array_equal(fc.bias.numpy(), 0)
    assert [n for n, _ in fc.named_parameters()] == ["weight", "bias"]
    x = t(rand(3, 4))
    assert_forward(fc(x), x.numpy() @ fc.weight.numpy() + fc.bias.numpy(), rtol=1e-6)
    fc(x).sum().backward()
    np.testing.assert_allclose(fc.bias.grad.numpy(), [3, 3])
    no_bias = nn.Linear(4, 2, bias_attr=False, weight_attr=nn.initializer.Constant(0.5))
    assert no_bias.bias is None and len(no_bias.parameters()) == 1
    np.testing.assert_allclose(no_bias(x).numpy(), x.numpy().sum(1, keepdims=True) * 0.5 * np.ones((1, 2)),
                               rtol=1e-6)
    with pytest.raises(InvalidArgument, match="in_features got -1"):
        nn.Linear(-1, 2)


def test_linear_layer_follows_default_dtype():
    paddle.set_default_dtype("float64")
    try:
        fc = nn.Linear(2, 3)
    finally:
        paddle.set_default_dtype("float32")
    assert fc.weight.numpy().dtype == np.float64 and "dtype=float64" in repr(fc)


def test_dropout_layers_honour_train_and_eval():
    paddle.seed(8)
    drop = nn.Dropout(0.5)
    x = t(np.ones((20, 20), np.float32))
    assert (drop(x).numpy() == 0).any()
    drop.eval()
    assert drop(x) is x
    model = nn.Sequential(nn.Dropout2D(0.5), nn.AlphaDropout(0.5), nn.Dropout3D(0.5))
    y = t(rand(2, 3, 2, 2))
    model.train()
    assert model[1].training and not np.array_equal(model[:2](y).numpy(), y.numpy())
    model.eval()
    assert model[0](y) is y and model[1](y) is y
    assert repr(nn.Dropout(0.1)) == "Dropout(p=0.1, axis=None, mode=upscale_in_train)"
    assert repr(nn.Dropout2D()) == "Dropout2D(p=0.5, data_format=NCHW)"


def test_embedding_layer_zeroes_its_padding_row():
    paddle.seed(9)
    emb = nn.Embedding(6, 3, padding_idx=-2)
    assert repr(emb) == "Embedding(6, 3, padding_idx=4, sparse=False)"
    np.testing.assert_array_equal(emb.weight.numpy()[4], 0)
    assert np.all(emb.weight.numpy()[[0, 1, 2, 3, 5]] != 0)
    out = emb(t(np.array([[4, 1]])))
    assert out.shape == [1, 2, 3]
    out.sum().backward()
    np.testing.assert_array_equal(emb.weight.grad.numpy()[4], 0)
    np.testing.assert_array_equal(emb.weight.grad.numpy()[1], 1)
    with pytest.raises(InvalidArgument, match=r"padding_idx is 6, expected it in \[-6, 6\)"):
        nn.Embedding(6, 3, padding_idx=6)


def test_flatten_identity_pad_upsample_cosine_layers():
    x = rand(2, 3, 4, 5)
    assert nn.Flatten()(t(x)).shape == [2, 60]
    assert nn.Flatten(0, 1)(t(x)).shape == [6, 4, 5]
    ident = nn.Identity(54, unused=True)
    xt = t(x)
    assert ident(xt) is xt
    assert_forward(nn.Pad2D(1, mode="replicate")(t(x)), np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), mode="edge"))
    assert_forward(nn.Pad1D([0, 2])(t(x[0])), np.pad(x[0], ((0, 0), (0, 0), (0, 2))))
    assert_forward(nn.ZeroPad2D([1, 0, 2, 0])(t(x)), np.pad(x, ((0, 0), (0, 0), (2, 0), (1, 0))))
    assert nn.Upsample(scale_factor=2)(t(x)).shape == [2, 3, 8, 10]
    assert nn.UpsamplingNearest2D(size=[5, 5])(t(x)).shape == [2, 3, 5, 5]
    bil = nn.UpsamplingBilinear2D(size=[7, 9])(t(x)).numpy()
    np.testing.assert_allclose(bil[..., 0, 0], x[..., 0, 0], rtol=1e-6)  # align_corners=True keeps corners
    np.testing.assert_allclose(bil[..., -1, -1], x[..., -1, -1], rtol=1e-6)
    cos = nn.CosineSimilarity(axis=0)
    assert_forward(cos(t(x[0, 0]), t(x[0, 0])), np.ones(5, np.float32), rtol=1e-5)
    assert repr(cos) == "CosineSimilarity(axis=0, eps=1e-08)"
    assert nn.PairwiseDistance()(t(rand(3, 4)), t(rand(3, 4))).shape == [3]
    with pytest.raises(InvalidArgument, match="Pad2D: padding got \\[1, 2\\], expected an int or 4 ints"):
        nn.Pad2D([1, 2])


def test_bilinear_matches_torch_and_has_gradients():
    torch = torch_or_skip()
    x1, x2, w, b = rand(4, 3), rand(4, 2), rand(5, 3, 2), rand(1, 5)
    got = F.bilinear(t(x1), t(x2), t(w), t(b))
    want = torch.nn.functional.bilinear(*(torch.from_numpy(a) for a in (x1, x2, w, b[0])))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)
    check_grad(F.bilinear, [x1, x2, w, b])
    layer = nn.Bilinear(3, 2, 5)
    assert layer.weight.shape == [5, 3, 2] and layer.bias.shape == [1, 5]
    assert layer(t(x1), t(x2)).shape == [4, 5]
    with pytest.raises(InvalidArgument, match=r"bilinear: x1 \[4, 2\] and x2 \[4, 2\] do not fit weight"):
        F.bilinear(t(x2), t(x2), t(w))


def test_unflatten_and_zero_pads():
    x = rand(2, 6, 3)
    assert nn.Unflatten(1, [2, 3])(t(x)).shape == [2, 2, 3, 3]
    assert nn.Unflatten(-1, [3, 1])(t(x)).shape == [2, 6, 3, 1]
    assert_forward(nn.ZeroPad1D([1, 2])(t(x)), np.pad(x, ((0, 0), (0, 0), (1, 2))))
    v = rand(1, 1, 2, 2, 2)
    assert_forward(nn.ZeroPad3D(1)(t(v)), np.pad(v, ((0, 0), (0, 0), (1, 1), (1, 1), (1, 1))))
