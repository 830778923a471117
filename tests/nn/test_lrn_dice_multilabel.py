"""local_response_norm, dice_loss and multi_label_soft_margin_loss (compositions of registered ops):
forward against torch / numpy, gradients by central differences, layers, clear errors."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument
from tests.ops.opcheck import check_grad, torch_or_skip

F = paddle.nn.functional
RNG = np.random.default_rng(5)


@pytest.mark.parametrize("shape, size", [((2, 6, 3, 4), 3), ((1, 5, 4), 4), ((1, 4, 2, 3, 2), 2)])
def test_local_response_norm_matches_torch(shape, size):
    torch = torch_or_skip()
    x = RNG.standard_normal(shape)
    got = F.local_response_norm(paddle.to_tensor(x), size, alpha=0.3, beta=0.6, k=1.5)
    want = torch.nn.functional.local_response_norm(torch.tensor(x), size, alpha=0.3, beta=0.6, k=1.5)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)
    check_grad(lambda t: F.local_response_norm(t, size, alpha=0.3, beta=0.6, k=1.5), [x])


def test_local_response_norm_channels_last_and_layer():
    x = paddle.rand([2, 6, 3, 4])
    first = paddle.nn.LocalResponseNorm(5)(x)
    last = F.local_response_norm(x.transpose([0, 2, 3, 1]), 5, data_format="NHWC")
    np.testing.assert_allclose(last.transpose([0, 3, 1, 2]).numpy(), first.numpy(), rtol=1e-6)
    with pytest.raises(InvalidArgument, match=r"expected 3-D or higher input"):
        F.local_response_norm(paddle.ones([2, 3]), 2)
    with pytest.raises(InvalidArgument, match="size must be an int >= 1"):
        F.local_response_norm(x, 0)


def dice_numpy(p, label, eps=1e-5):
    onehot = np.eye(p.shape[-1])[label[..., 0]]
    axes = tuple(range(1, p.ndim))
    return np.mean(1 - 2 * (p * onehot).sum(axes) / (p.sum(axes) + onehot.sum(axes) + eps))


def test_dice_loss_formula_and_gradient():
    p = RNG.uniform(0.05, 1.0, (3, 2, 4))
    label = RNG.integers(0, 4, (3, 2, 1))
    got = F.dice_loss(paddle.to_tensor(p), paddle.to_tensor(label))
    assert float(got) == pytest.approx(dice_numpy(p, label), rel=1e-12)
    check_grad(lambda t: F.dice_loss(t, paddle.to_tensor(label)), [p])


def test_dice_loss_errors():
    with pytest.raises(InvalidArgument, match=r"label has shape \[2, 2\], expected \[2, 1\]"):
        F.dice_loss(paddle.rand([2, 3]), paddle.to_tensor([[0, 1], [1, 0]]))
    with pytest.raises(InvalidArgument, match="label has dtype float32, expected int32 or int64"):
        F.dice_loss(paddle.rand([2, 3]), paddle.ones([2, 1]))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_multi_label_soft_margin_loss_matches_torch(reduction):
    torch = torch_or_skip()
    x = RNG.standard_normal((4, 5))
    y = (RNG.random((4, 5)) > 0.5).astype("float64")
    w = RNG.uniform(0.5, 2.0, 5)
    got = F.multi_label_soft_margin_loss(paddle.to_tensor(x), paddle.to_tensor(y), paddle.to_tensor(w), reduction)
    want = torch.nn.functional.multilabel_soft_margin_loss(torch.tensor(x), torch.tensor(y), torch.tensor(w),
                                                           reduction=reduction)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)
    check_grad(lambda t: F.multi_label_soft_margin_loss(t, paddle.to_tensor(y), reduction=reduction), [x])
    layer = paddle.nn.MultiLabelSoftMarginLoss(reduction=reduction)
    np.testing.assert_allclose(layer(paddle.to_tensor(x), paddle.to_tensor(y)).numpy(),
                               F.multi_label_soft_margin_loss(paddle.to_tensor(x), paddle.to_tensor(y),
                                                              reduction=reduction).numpy())


def test_multi_label_soft_margin_loss_errors():
    with pytest.raises(InvalidArgument, match="reduction got 'avg'"):
        F.multi_label_soft_margin_loss(paddle.rand([2, 3]), paddle.rand([2, 3]), reduction="avg")
    with pytest.raises(InvalidArgument, match=r"input has shape \[2, 3\] but label has shape \[2, 2\]"):
        F.multi_label_soft_margin_loss(paddle.rand([2, 3]), paddle.rand([2, 2]))
