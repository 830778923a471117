"""Losses: forward against PyTorch and numpy (Paddle's reduction rules where they differ from
PyTorch's), gradients against central differences, the fused cross-entropy op and its kernels,
ignore_index and class-weight semantics, loss layers, and every error a user can hit."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
import minipaddle.nn.functional as F
from minipaddle import nn
from minipaddle.framework import instrument
from minipaddle.framework.errors import InvalidArgument
from minipaddle.framework.kernels.cpu.loss import cross_entropy_grad_numba
from minipaddle.framework.ops.loss import cross_entropy_grad_kernel, cross_entropy_numpy, cross_entropy_with_softmax
from minipaddle.framework.registry import KernelKey, set_preferred_kernel

from ..ops.opcheck import check_double_grad, check_grad, torch_or_skip

RNG = np.random.default_rng(7)
REDUCTIONS = ["none", "mean", "sum"]


def t(a, **kw) -> paddle.Tensor:
    return paddle.to_tensor(a, **kw)


def log_softmax_np(x, axis=-1):
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


def paddle_ce_reference(x, y, weight=None, ignore_index=-100, reduction="mean"):
    """Paddle's hard-label cross_entropy in numpy, for [N, C] logits (its reduction rules)."""
    kept = y != ignore_index
    safe = np.where(kept, y, 0)
    loss = -log_softmax_np(x)[np.arange(len(y)), safe] * kept
    w = kept * (1.0 if weight is None else weight[safe])
    loss = loss * w
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    if weight is not None:
        return loss.sum() / (w.sum() or 1.0)
    return loss.sum() / (max(kept.sum(), 1) if ignore_index >= 0 else len(y))


def ce_data(n=6, c=5, dtype="float64"):
    x = RNG.standard_normal((n, c)).astype(dtype)
    y = RNG.integers(0, c, n)
    return x, y


# ---- cross_entropy forward -------------------------------------------------------------------
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ignore_index", [-100, 2])
def test_cross_entropy_matches_torch(reduction, weighted, ignore_index):
    torch = torch_or_skip()
    x, y = ce_data(8, 5)
    y[[1, 4]] = 2  # some rows hit ignore_index=2
    w = RNG.uniform(0.5, 2.0, 5) if weighted else None
    out = F.cross_entropy(t(x), t(y), weight=None if w is None else t(w), ignore_index=ignore_index,
                          reduction=reduction)
    ref = torch.nn.functional.cross_entropy(torch.tensor(x), torch.tensor(y),
                                            weight=None if w is None else torch.tensor(w),
                                            ignore_index=ignore_index, reduction=reduction)
    assert out.shape == list(ref.shape)
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-12, atol=1e-12)


def test_cross_entropy_accepts_labels_n_and_n1_and_keeps_their_shape_unreduced():
    x, y = ce_data()
    flat = F.cross_entropy(t(x), t(y), reduction="none")
    column = F.cross_entropy(t(x), t(y[:, None]), reduction="none")
    assert flat.shape == [6] and column.shape == [6, 1]
    np.testing.assert_allclose(column.numpy()[:, 0], flat.numpy())
    np.testing.assert_allclose(F.cross_entropy(t(x), t(y[:, None])).numpy(), F.cross_entropy(t(x), t(y)).numpy())


def test_cross_entropy_mean_with_negative_ignore_index_divides_by_all_rows_as_paddle_does():
    # Paddle's rule (unlike PyTorch's): with ignore_index < 0 and no weight, "mean" is over all rows,
    # the ignored ones adding 0; with ignore_index >= 0 it is over the kept rows only.
    x, y = ce_data()
    y[0] = -1
    out = F.cross_entropy(t(x), t(y), ignore_index=-1)
    np.testing.assert_allclose(out.numpy(), paddle_ce_reference(x, y, ignore_index=-1), rtol=1e-12)
    kept_mean = -log_softmax_np(x)[np.arange(1, 6), y[1:]].mean()
    assert not np.isclose(out.numpy(), kept_mean)
    np.testing.assert_allclose(out.numpy(), kept_mean * 5 / 6, rtol=1e-12)


def test_cross_entropy_all_rows_ignored_gives_zero_not_nan():
    x, _ = ce_data(4, 3)
    y = np.full(4, 1)
    for w in (None, t(np.ones(3))):
        out = F.cross_entropy(t(x), t(y), weight=w, ignore_index=1)
        assert out.numpy() == 0.0


def test_cross_entropy_weighted_mean_divides_by_the_weights_used():
    x, y = ce_data(7, 4)
    w = RNG.uniform(0.1, 3.0, 4)
    out = F.cross_entropy(t(x), t(y), weight=t(w))
    np.testing.assert_allclose(out.numpy(), paddle_ce_reference(x, y, weight=w), rtol=1e-12)


@pytest.mark.parametrize("label_dims", ["squeezed", "kept"])
def test_cross_entropy_along_axis_1_matches_torch(label_dims):
    torch = torch_or_skip()
    x = RNG.standard_normal((2, 3, 4, 5))
    y = RNG.integers(0, 3, (2, 4, 5))
    label = y if label_dims == "squeezed" else y[:, None]
    out = F.cross_entropy(t(x), t(label), axis=1, reduction="none")
    ref = torch.nn.functional.cross_entropy(torch.tensor(x), torch.tensor(y), reduction="none").numpy()
    np.testing.assert_allclose(out.numpy(), ref if label_dims == "squeezed" else ref[:, None], rtol=1e-12)
    np.testing.assert_allclose(F.cross_entropy(t(x), t(label), axis=1).numpy(), ref.mean(), rtol=1e-12)


def test_cross_entropy_soft_labels_match_torch_and_paddles_weighting():
    torch = torch_or_skip()
    x, _ = ce_data(5, 4)
    soft = RNG.dirichlet(np.ones(4), 5)
    for reduction in REDUCTIONS:
        out = F.cross_entropy(t(x), t(soft), soft_label=True, reduction=reduction)
        ref = torch.nn.functional.cross_entropy(torch.tensor(x), torch.tensor(soft), reduction=reduction).numpy()
        np.testing.assert_allclose(out.numpy(), ref[:, None] if reduction == "none" else ref, rtol=1e-12)
    # Paddle weights a soft-label row by sum(label * weight), and "mean" divides by those row weights
    w = RNG.uniform(0.5, 2.0, 4)
    per_row = -(soft * log_softmax_np(x)).sum(-1)
    row_w = soft @ w
    out = F.cross_entropy(t(x), t(soft), weight=t(w), soft_label=True)
    np.testing.assert_allclose(out.numpy(), (per_row * row_w).sum() / row_w.sum(), rtol=1e-12)


def test_cross_entropy_use_softmax_false_takes_probabilities():
    x, y = ce_data()
    p = np.exp(log_softmax_np(x))
    for reduction in REDUCTIONS:
        out = F.cross_entropy(t(p), t(y), use_softmax=False, reduction=reduction)
        np.testing.assert_allclose(out.numpy(), F.cross_entropy(t(x), t(y), reduction=reduction).numpy(),
                                   rtol=1e-10)
    soft = RNG.dirichlet(np.ones(5), 6)
    out = F.cross_entropy(t(p), t(soft), soft_label=True, use_softmax=False, reduction="none")
    np.testing.assert_allclose(out.numpy()[:, 0], -(soft * np.log(p)).sum(-1), rtol=1e-12)


def test_cross_entropy_label_smoothing_matches_torch():
    torch = torch_or_skip()
    x, y = ce_data(6, 5)
    for reduction in ("mean", "sum"):
        out = F.cross_entropy(t(x), t(y), label_smoothing=0.2, reduction=reduction)
        ref = torch.nn.functional.cross_entropy(torch.tensor(x), torch.tensor(y), label_smoothing=0.2,
                                                reduction=reduction)
        np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-12)


def test_softmax_with_cross_entropy_keeps_the_class_dim_and_returns_the_softmax():
    x, y = ce_data()
    loss, sm = F.softmax_with_cross_entropy(t(x), t(y), return_softmax=True)
    assert loss.shape == [6, 1] and sm.shape == [6, 5]
    np.testing.assert_allclose(sm.numpy(), np.exp(log_softmax_np(x)), rtol=1e-12)
    np.testing.assert_allclose(loss.numpy()[:, 0], paddle_ce_reference(x, y, reduction="none"), rtol=1e-12)
    soft = RNG.dirichlet(np.ones(5), 6)
    soft_loss = F.softmax_with_cross_entropy(t(x), t(soft), soft_label=True)
    np.testing.assert_allclose(soft_loss.numpy()[:, 0], -(soft * log_softmax_np(x)).sum(-1), rtol=1e-12)


def test_cross_entropy_is_stable_for_huge_logits_and_keeps_float32():
    x = np.array([[1000.0, -1000.0, 0.0], [-1e4, -1e4, -1e4], [-np.inf, 0.0, 1.0]], np.float32)
    y = np.array([0, 2, 2])
    xt = t(x, stop_gradient=False)
    out = F.cross_entropy(xt, t(y), reduction="none")
    np.testing.assert_allclose(out.numpy(), [0.0, np.log(3.0), np.log1p(np.exp(-1.0))], rtol=1e-6, atol=1e-6)
    out.sum().backward()
    assert out.dtype == paddle.float32 and xt.grad.dtype == paddle.float32
    assert np.isfinite(xt.grad.numpy()).all()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_numba_and_numpy_kernels_agree(dtype, axis):
    x = RNG.standard_normal((4, 3, 5)).astype(dtype)
    x[0, 0, :] = -np.inf if axis == -1 else x[0, 0, :]
    shape = list(x.shape)
    shape[axis] = 1
    y = RNG.integers(0, x.shape[axis], shape)
    y.reshape(-1)[0] = 7  # ignored row
    for reduction in REDUCTIONS:
        fused, loss = cross_entropy_with_softmax(t(x), t(y), ignore_index=7, axis=axis, reduction=reduction)
        ref_sm, ref_loss = cross_entropy_numpy(x, y, ignore_index=7, axis=axis, reduction=reduction)
        np.testing.assert_allclose(fused.numpy(), ref_sm, rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(loss.numpy(), ref_loss, rtol=1e-5, atol=1e-7)
        assert loss.numpy().dtype == np.dtype(dtype)


@pytest.mark.parametrize("ignore_index", [-100, 7, -1])
@pytest.mark.parametrize("axis", [-1, 1])
def test_numba_and_numpy_grad_kernels_agree(ignore_index, axis):
    x = RNG.standard_normal((4, 3, 5)).astype("float32")
    shape = list(x.shape)
    shape[axis] = 1
    y = RNG.integers(0, x.shape[axis], shape)
    y.reshape(-1)[[0, 3]] = ignore_index
    sm, _ = cross_entropy_numpy(x, y, ignore_index=ignore_index, axis=axis)
    for reduction in REDUCTIONS:
        dloss = RNG.standard_normal(y.shape if reduction == "none" else ()).astype("float32")
        kwargs = {"ignore_index": ignore_index, "axis": axis, "reduction": reduction}
        expected = cross_entropy_grad_kernel(sm, y, dloss, **kwargs)
        np.testing.assert_allclose(cross_entropy_grad_numba(sm, y, dloss, **kwargs), expected, rtol=1e-6, atol=1e-7)
        assert np.all(np.moveaxis(expected, axis, -1).reshape(-1, x.shape[axis])[[0, 3]] == 0)  # ignored rows


def test_numpy_kernel_runs_through_the_op_when_preferred_and_serves_float16():
    x, y = ce_data(5, 4, "float32")
    key = KernelKey("cpu", np.dtype("float32"))
    fused = F.cross_entropy(t(x), t(y)).numpy()
    set_preferred_kernel("cross_entropy_with_softmax", key, "numpy")
    try:
        np.testing.assert_allclose(F.cross_entropy(t(x), t(y)).numpy(), fused, rtol=1e-6)
    finally:
        set_preferred_kernel("cross_entropy_with_softmax", key, None)
    half = F.cross_entropy(t(x.astype("float16")), t(y))
    assert half.dtype == paddle.float16
    np.testing.assert_allclose(half.numpy(), fused, rtol=2e-3)


def test_hard_label_cross_entropy_runs_one_op_forward_and_one_backward():
    x, y = ce_data(128, 10, "float32")
    xt = t(x, stop_gradient=False)
    ops: list[str] = []
    unsubscribe = instrument.subscribe(lambda e: ops.append(e.op), kinds=("op",))
    try:
        loss = F.cross_entropy(xt, t(y))
        forward = list(ops)
        loss.backward()
    finally:
        unsubscribe()
    assert forward == ["cross_entropy_with_softmax"]
    assert ops[1:] == ["cross_entropy_with_softmax_grad"]
    expected = np.exp(log_softmax_np(x.astype(np.float64)))
    expected[np.arange(128), y] -= 1
    np.testing.assert_allclose(xt.grad.numpy(), expected / 128, rtol=1e-5, atol=1e-7)


# ---- cross_entropy gradients ------------------------------------------------------------------------
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("ignore_index", [-100, 1])
def test_cross_entropy_gradients_and_double_gradients(reduction, ignore_index):
    x, y = ce_data(5, 4)
    y[2] = ignore_index if ignore_index >= 0 else y[2]

    def fn(a, b):
        return F.cross_entropy(a, b, ignore_index=ignore_index, reduction=reduction)

    check_grad(fn, [x, y], wrt=[0])
    check_double_grad(fn, [x, y], wrt=[0])


def test_cross_entropy_gradient_along_axis_and_through_the_softmax_output():
    x = RNG.standard_normal((2, 3, 4))
    y = RNG.integers(0, 3, (2, 1, 4))
    check_grad(lambda a, b: F.cross_entropy(a, b, axis=1, reduction="none"), [x, y], wrt=[0])
    check_double_grad(lambda a, b: F.cross_entropy(a, b, axis=1, reduction="none"), [x, y], wrt=[0])

    def both(a, b):
        loss, sm = F.softmax_with_cross_entropy(a, b, axis=1, return_softmax=True)
        return loss * 2.0 + (sm * sm).sum(axis=1, keepdim=True)

    check_grad(both, [x, y], wrt=[0])


def test_cross_entropy_gradients_wrt_input_and_class_weight():
    x, y = ce_data(6, 4)
    y[0] = 3
    w = RNG.uniform(0.5, 2.0, 4)
    for reduction in REDUCTIONS:
        check_grad(lambda a, b, c, r=reduction: F.cross_entropy(a, b, weight=c, ignore_index=3, reduction=r),
                   [x, y, w], wrt=[0, 2])


def test_cross_entropy_soft_and_smoothed_gradients():
    x, y = ce_data(4, 3)
    soft = RNG.dirichlet(np.ones(3), 4)
    w = RNG.uniform(0.5, 2.0, 3)
    check_grad(lambda a, b, c: F.cross_entropy(a, b, weight=c, soft_label=True), [x, soft, w], wrt=[0, 1, 2])
    check_grad(lambda a, b: F.cross_entropy(a, b, label_smoothing=0.1), [x, y], wrt=[0])
    p = np.exp(log_softmax_np(x))
    check_grad(lambda a, b: F.cross_entropy(a, b, use_softmax=False, reduction="sum"), [p, y], wrt=[0])


# ---- nll_loss -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_nll_loss_matches_torch_with_weights_ignore_index_and_extra_dims(reduction):
    torch = torch_or_skip()
    x = log_softmax_np(RNG.standard_normal((3, 4, 2)), axis=1)
    y = RNG.integers(0, 4, (3, 2))
    y[0, 0] = 1
    w = RNG.uniform(0.5, 2.0, 4)
    out = F.nll_loss(t(x), t(y), weight=t(w), ignore_index=1, reduction=reduction)
    ref = torch.nn.functional.nll_loss(torch.tensor(x), torch.tensor(y), weight=torch.tensor(w), ignore_index=1,
                                       reduction=reduction)
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-12)
    check_grad(lambda a, b, c: F.nll_loss(a, b, weight=c, ignore_index=1, reduction=reduction), [x, y, w],
               wrt=[0, 2])


# ---- elementwise losses against torch, with gradients ------------------------------------------------
def _pair_data(shape=(3, 4)):
    return RNG.standard_normal(shape), RNG.standard_normal(shape)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_regression_losses_match_torch_and_numeric_gradients(reduction):
    torch = torch_or_skip()
    a, b = _pair_data()
    a[0, 0] = b[0, 0] + 0.3  # inside smooth_l1's quadratic zone for delta 0.7
    tf = torch.nn.functional
    cases = [(F.mse_loss, {}, lambda x, y: tf.mse_loss(x, y, reduction=reduction)),
             (F.l1_loss, {}, lambda x, y: tf.l1_loss(x, y, reduction=reduction)),
             (F.smooth_l1_loss, {"delta": 0.7}, lambda x, y: tf.huber_loss(x, y, reduction=reduction, delta=0.7))]
    for fn, kw, ref in cases:
        out = fn(t(a), t(b), reduction=reduction, **kw)
        np.testing.assert_allclose(out.numpy(), ref(torch.tensor(a), torch.tensor(b)).numpy(), rtol=1e-12)
        check_grad(lambda x, y, fn=fn, kw=kw: fn(x, y, reduction=reduction, **kw), [a, b])


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_binary_cross_entropy_matches_torch_with_weight(reduction):
    torch = torch_or_skip()
    p = RNG.uniform(0.05, 0.95, (3, 4))
    y = RNG.uniform(0, 1, (3, 4))
    w = RNG.uniform(0.5, 2.0, 4)
    out = F.binary_cross_entropy(t(p), t(y), weight=t(w), reduction=reduction)
    ref = torch.nn.functional.binary_cross_entropy(torch.tensor(p), torch.tensor(y), weight=torch.tensor(w),
                                                   reduction=reduction)
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-12)
    check_grad(lambda a, b, c: F.binary_cross_entropy(a, b, weight=c, reduction=reduction), [p, y, w])
    check_double_grad(lambda a, b: F.binary_cross_entropy(a, b, reduction=reduction), [p, y])


def test_binary_cross_entropy_clamps_log_at_certain_inputs():
    p = np.array([0.0, 1.0, 0.0, 1.0])
    y = np.array([0.0, 1.0, 1.0, 0.0])
    out = F.binary_cross_entropy(t(p), t(y), reduction="none")
    np.testing.assert_allclose(out.numpy(), [0.0, 0.0, 100.0, 100.0])


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_binary_cross_entropy_with_logits_matches_torch_with_pos_weight(reduction):
    torch = torch_or_skip()
    x = RNG.standard_normal((3, 4)) * 4
    y = RNG.uniform(0, 1, (3, 4))
    w = RNG.uniform(0.5, 2.0, 4)
    pw = RNG.uniform(0.5, 3.0, 4)
    tf = torch.nn.functional
    for pos in (None, pw):
        out = F.binary_cross_entropy_with_logits(t(x), t(y), weight=t(w), reduction=reduction,
                                                 pos_weight=None if pos is None else t(pos))
        ref = tf.binary_cross_entropy_with_logits(torch.tensor(x), torch.tensor(y), weight=torch.tensor(w),
                                                  reduction=reduction,
                                                  pos_weight=None if pos is None else torch.tensor(pos))
        np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-12)
    check_grad(lambda a, b, c, d: F.binary_cross_entropy_with_logits(a, b, weight=c, reduction=reduction,
                                                                     pos_weight=d), [x, y, w, pw])


def test_binary_cross_entropy_with_logits_is_stable_and_has_sigmoid_gradient_at_zero():
    x = t(np.array([-800.0, 800.0, 0.0], np.float32), stop_gradient=False)
    y = t(np.array([1.0, 0.0, 1.0], np.float32))
    out = F.binary_cross_entropy_with_logits(x, y, reduction="none")
    np.testing.assert_allclose(out.numpy(), [800.0, 800.0, np.log(2.0)], rtol=1e-6)
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [-1.0, 1.0, -0.5], atol=1e-6)  # sigmoid(x) - y


@pytest.mark.filterwarnings("ignore:reduction. 'mean' divides")  # PyTorch's note on its own "mean"
@pytest.mark.parametrize("reduction", ["none", "mean", "sum", "batchmean"])
def test_kl_div_matches_torch_and_is_zero_where_label_is_zero(reduction):
    torch = torch_or_skip()
    x = log_softmax_np(RNG.standard_normal((4, 5)))
    y = RNG.dirichlet(np.ones(5), 4)
    y[0, 1] = 0.0
    for log_target in (False, True):
        label = np.log(y + 0.1) if log_target else y
        out = F.kl_div(t(x), t(label), reduction=reduction, log_target=log_target)
        ref = torch.nn.functional.kl_div(torch.tensor(x), torch.tensor(label), reduction=reduction,
                                         log_target=log_target)
        np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-12, atol=1e-15)
        check_grad(lambda a, b, lt=log_target: F.kl_div(a, b, reduction=reduction, log_target=lt), [x, label],
                   wrt=[0])
    none = F.kl_div(t(x), t(y), reduction="none").numpy()
    assert none[0, 1] == 0.0


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_ranking_losses_match_torch(reduction):
    torch = torch_or_skip()
    a, b = _pair_data()
    sign = np.where(RNG.random((3, 4)) < 0.5, -1.0, 1.0)
    tf = torch.nn.functional
    out = F.margin_ranking_loss(t(a), t(b), t(sign), margin=0.3, reduction=reduction)
    ref = tf.margin_ranking_loss(torch.tensor(a), torch.tensor(b), torch.tensor(sign), margin=0.3, reduction=reduction)
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-12)
    check_grad(lambda x, y: F.margin_ranking_loss(x, y, t(sign), margin=0.3, reduction=reduction), [a, b])
    out = F.hinge_embedding_loss(t(a), t(sign), margin=0.8, reduction=reduction)
    ref = tf.hinge_embedding_loss(torch.tensor(a), torch.tensor(sign), margin=0.8, reduction=reduction)
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-12)
    check_grad(lambda x: F.hinge_embedding_loss(x, t(sign), margin=0.8, reduction=reduction), [a])


def test_every_loss_keeps_float32_in_its_value_and_gradient():
    a = RNG.uniform(0.1, 0.9, (3, 4)).astype("float32")
    b = RNG.uniform(0.1, 0.9, (3, 4)).astype("float32")
    y = RNG.integers(0, 4, 3)
    w = np.full(4, 0.5, "float32")
    cases = {
        "cross_entropy": lambda x: F.cross_entropy(x, t(y), weight=t(w), label_smoothing=0.1),
        "soft cross_entropy": lambda x: F.cross_entropy(x, t(b), soft_label=True),
        "nll_loss": lambda x: F.nll_loss(x, t(y), weight=t(w)),
        "mse_loss": lambda x: F.mse_loss(x, t(b)),
        "l1_loss": lambda x: F.l1_loss(x, t(b)),
        "smooth_l1_loss": lambda x: F.smooth_l1_loss(x, t(b), delta=0.5),
        "binary_cross_entropy": lambda x: F.binary_cross_entropy(x, t(b), weight=t(w)),
        "binary_cross_entropy_with_logits": lambda x: F.binary_cross_entropy_with_logits(x, t(b), pos_weight=t(w)),
        "kl_div": lambda x: F.kl_div(x, t(b), reduction="batchmean"),
        "margin_ranking_loss": lambda x: F.margin_ranking_loss(x, t(b), t(np.sign(a - b)), margin=0.1),
        "hinge_embedding_loss": lambda x: F.hinge_embedding_loss(x, t(np.sign(a - b))),
    }
    for name, fn in cases.items():
        x = t(a, stop_gradient=False)
        loss = fn(x)
        loss.backward()
        assert loss.dtype == paddle.float32 and x.grad.dtype == paddle.float32, name


def test_composed_losses_have_second_derivatives():
    x, y = ce_data(4, 3)
    p = RNG.uniform(0.1, 0.9, (4, 3))
    w = RNG.uniform(0.5, 2.0, 3)
    check_double_grad(lambda a, b: F.binary_cross_entropy_with_logits(a, b, pos_weight=t(w)), [x, p], wrt=[0])
    check_double_grad(lambda a, b: F.cross_entropy(a, b, soft_label=True), [x, p / p.sum(1, keepdims=True)])
    check_double_grad(lambda a: F.cross_entropy(a, t(y), weight=t(w)), [x])
    check_double_grad(lambda a, b: F.kl_div(a, b, reduction="batchmean"), [log_softmax_np(x), p])
    check_double_grad(lambda a, b: F.mse_loss(a, b), [x, p])


# ---- layers -------------------------------------------------------------------------------------------
def test_loss_layers_call_their_functions():
    x, y = ce_data(5, 3)
    w = RNG.uniform(0.5, 2.0, 3)
    a, b = _pair_data()
    p = RNG.uniform(0.1, 0.9, (3, 4))
    lp = log_softmax_np(x)
    cases = [
        (nn.CrossEntropyLoss(weight=t(w), ignore_index=1, reduction="sum"), (x, y),
         lambda: F.cross_entropy(t(x), t(y), weight=t(w), ignore_index=1, reduction="sum")),
        (nn.MSELoss(), (a, b), lambda: F.mse_loss(t(a), t(b))),
        (nn.L1Loss(reduction="sum"), (a, b), lambda: F.l1_loss(t(a), t(b), reduction="sum")),
        (nn.SmoothL1Loss(delta=0.5), (a, b), lambda: F.smooth_l1_loss(t(a), t(b), delta=0.5)),
        (nn.NLLLoss(weight=t(w)), (lp, y), lambda: F.nll_loss(t(lp), t(y), weight=t(w))),
        (nn.BCELoss(), (p, p * 0.5), lambda: F.binary_cross_entropy(t(p), t(p * 0.5))),
        (nn.BCEWithLogitsLoss(pos_weight=t(np.full(4, 2.0))), (a, p),
         lambda: F.binary_cross_entropy_with_logits(t(a), t(p), pos_weight=t(np.full(4, 2.0)))),
        (nn.KLDivLoss(reduction="batchmean"), (lp, np.exp(lp)), lambda: F.kl_div(t(lp), t(np.exp(lp)), "batchmean")),
        (nn.MarginRankingLoss(margin=0.1), (a, b, np.sign(a)),
         lambda: F.margin_ranking_loss(t(a), t(b), t(np.sign(a)), margin=0.1)),
        (nn.HingeEmbeddingLoss(margin=2.0), (a, np.sign(b)), lambda: F.hinge_embedding_loss(t(a), t(np.sign(b)), 2.0)),
    ]
    for layer, args, expected in cases:
        assert isinstance(layer, nn.Layer)
        np.testing.assert_allclose(layer(*[t(v) for v in args]).numpy(), expected().numpy(), rtol=1e-12)
        assert "reduction=" in repr(layer)
    assert list(nn.CrossEntropyLoss(weight=t(w)).parameters()) == []  # class weights are not trained


def test_cross_entropy_loss_layer_trains_a_linear_classifier():
    x = RNG.standard_normal((32, 4)).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int64)
    w = t(np.zeros((4, 2), np.float32), stop_gradient=False)
    loss_fn = nn.CrossEntropyLoss()
    first = None
    for _ in range(30):
        loss = loss_fn(paddle.matmul(t(x), w), t(y))
        first = first if first is not None else float(loss)
        loss.backward()
        w._data -= 0.5 * w.grad.numpy()
        w.clear_grad()
    assert float(loss) < first * 0.5


# ---- errors ----------------------------------------------------------------------------------------------
def _raises(match, fn, *args, **kwargs):
    with pytest.raises(InvalidArgument, match=match):
        fn(*args, **kwargs)


def test_cross_entropy_rejects_bad_labels_with_the_op_name():
    x, y = ce_data(4, 3, "float32")
    bad = y.copy()
    bad[2] = 3
    _raises(r"cross_entropy_with_softmax: label 3 is out of range: expected 0 <= label < 3",
            F.cross_entropy, t(x), t(bad))
    bad[2] = -1
    _raises(r"label -1 is out of range", F.cross_entropy, t(x), t(bad))
    _raises(r"cross_entropy: label -1 is out of range", F.cross_entropy, t(x), t(bad), weight=t(np.ones(3, "f4")))
    _raises(r"label has dtype float32, expected int64.*soft_label=True", F.cross_entropy, t(x), t(y.astype("f4")))
    _raises(r"label has shape \[4, 2\], expected \[4\] or \[4, 1\]", F.cross_entropy, t(x), t(np.zeros((4, 2), int)))
    _raises(r"label has shape \[3\], expected \[4\]", F.cross_entropy, t(x), t(y[:3]))
    _raises(r"label has shape \[4, 2\], expected \[4\]", F.nll_loss, t(x), t(np.zeros((4, 2), int)))
    _raises(r"nll_loss: label 5 is out of range", F.nll_loss, t(x), t(np.array([0, 1, 5, 2])))
    set_preferred_kernel("cross_entropy_with_softmax", KernelKey("cpu", np.dtype("float32")), "numpy")
    try:
        _raises(r"label 7 is out of range", F.cross_entropy, t(x), t(np.array([0, 7, 1, 1])))
    finally:
        set_preferred_kernel("cross_entropy_with_softmax", KernelKey("cpu", np.dtype("float32")), None)


def test_cross_entropy_rejects_bad_arguments():
    x, y = ce_data(4, 3, "float32")
    _raises(r"reduction got 'avg', expected one of 'none', 'mean', 'sum'", F.cross_entropy, t(x), t(y),
            reduction="avg")
    _raises(r"weight has shape \[4\], expected \[3\]", F.cross_entropy, t(x), t(y), weight=t(np.ones(4, "f4")))
    _raises(r"weight has dtype float64 but input has dtype float32", F.cross_entropy, t(x), t(y),
            weight=t(np.ones(3)))
    _raises(r"input is 0-D", F.cross_entropy, t(np.float32(1.0)), t(y))
    _raises(r"axis 2 is out of range", F.cross_entropy, t(x), t(y), axis=2)
    _raises(r"label_smoothing got 1.5", F.cross_entropy, t(x), t(y), label_smoothing=1.5)
    _raises(r"soft label has shape \[4, 2\], expected input's shape \[4, 3\]", F.cross_entropy, t(x),
            t(np.full((4, 2), 0.5, "f4")), soft_label=True)
    _raises(r"ignore_index is 2 with soft_label=True", F.cross_entropy, t(x), t(np.full((4, 3), 1 / 3, "f4")),
            soft_label=True, ignore_index=2)
    _raises(r"argument 'logits' has dtype int64, expected a floating dtype", F.cross_entropy, t(y[:, None] * 1),
            t(y[:1]))
    _raises(r"argument 'input' got ndarray, expected a Tensor", F.cross_entropy, x, t(y))
    _raises(r"ignore_index got 1.5, expected an int", F.cross_entropy, t(x), t(y), ignore_index=1.5)


def test_other_losses_reject_bad_arguments():
    a = t(RNG.uniform(0.1, 0.9, (2, 3)))
    _raises(r"binary_cross_entropy: input holds values outside \[0, 1\].*sigmoid", F.binary_cross_entropy,
            a * 2.0, a)
    _raises(r"bce_loss: label has shape \[3\], expected input's shape \[2, 3\]", F.binary_cross_entropy,
            a, a[0])
    _raises(r"mse_loss: label has dtype float32 but input has dtype float64", F.mse_loss, a, a.astype("float32"))
    _raises(r"l1_loss: argument 'label' has dtype int64, expected a floating dtype", F.l1_loss, a,
            t(np.zeros((2, 3), int)))
    _raises(r"kl_div: reduction got 'avg', expected one of 'none', 'batchmean', 'mean', 'sum'", F.kl_div, a, a,
            reduction="avg")
    _raises(r"nll_loss: input has shape \[3\], expected \[N, C\]", F.nll_loss, a[0], t(np.array(1)))
    _raises(r"smooth_l1_loss: delta got 'x', expected a number", F.smooth_l1_loss, a, a, delta="x")
    _raises(r"weight of shape \[2\] does not broadcast", F.binary_cross_entropy_with_logits, a, a,
            weight=t(np.ones(2)))
    _raises(r"MSELoss: reduction got 'avg'", nn.MSELoss, reduction="avg")
    _raises(r"KLDivLoss: reduction got 'x'", nn.KLDivLoss, reduction="x")


def test_nll_loss_takes_n_by_1_labels_for_2d_input_as_paddle():
    log_probs = F.log_softmax(paddle.to_tensor([[1.0, 2.0, 3.0], [1.0, 0.5, 0.2]]), axis=1)
    flat = F.nll_loss(log_probs, paddle.to_tensor([2, 0]), reduction="none")
    column = F.nll_loss(log_probs, paddle.to_tensor([[2], [0]]), reduction="none")
    assert column.shape == [2]
    np.testing.assert_array_equal(column.numpy(), flat.numpy())
    with pytest.raises(InvalidArgument, match=r"nll_loss: label has shape \[2, 2\], expected \[2\]"):
        F.nll_loss(log_probs, paddle.to_tensor([[2, 1], [0, 1]]))


def test_square_error_cost_is_the_unreduced_squared_difference():
    pred = paddle.to_tensor([[1.0], [2.0]], stop_gradient=False)
    cost = F.square_error_cost(pred, paddle.to_tensor([[0.5], [3.0]]))
    np.testing.assert_allclose(cost.numpy(), [[0.25], [1.0]])
    cost.sum().backward()
    np.testing.assert_allclose(pred.grad.numpy(), [[1.0], [-2.0]])   # 2 * (pred - label)
    with pytest.raises(InvalidArgument, match="square_error_cost"):
        F.square_error_cost(paddle.to_tensor([1, 2]), paddle.to_tensor([1, 2]))
