"""Gradient clipping (paddle.nn.ClipGradByValue / ByNorm / ByGlobalNorm) alone and inside optimizers."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument
from minipaddle.framework.parameter import create_parameter
from tests.ops.opcheck import torch_or_skip

nn = paddle.nn
G1 = np.array([[3.0, -4.0], [0.5, 12.0]])
G2 = np.array([-1.0, 2.0, -2.0])


def _pairs(need_clip=(True, True)):
    params = [create_parameter(list(g.shape), "float64", attr=paddle.ParamAttr(need_clip=n))
              for g, n in zip((G1, G2), need_clip)]
    return [(p, paddle.to_tensor(g)) for p, g in zip(params, (G1, G2))]


def _clipped(clip, need_clip=(True, True)):
    return [g.numpy() for _, g in clip(_pairs(need_clip))]


def test_clip_by_value():
    out = _clipped(nn.ClipGradByValue(max=2.0))
    np.testing.assert_array_equal(out[0], np.clip(G1, -2.0, 2.0))
    np.testing.assert_array_equal(out[1], np.clip(G2, -2.0, 2.0))
    out = _clipped(nn.ClipGradByValue(max=1.0, min=0.0))
    np.testing.assert_array_equal(out[1], [0.0, 1.0, 0.0])


def test_clip_by_norm_rescales_each_gradient_on_its_own():
    out = _clipped(nn.ClipGradByNorm(clip_norm=5.0))
    np.testing.assert_allclose(out[0], G1 * 5.0 / np.linalg.norm(G1))
    np.testing.assert_array_equal(out[1], G2)  # norm 3 <= 5: untouched


def test_clip_by_global_norm_matches_torch():
    torch = torch_or_skip()
    out = _clipped(nn.ClipGradByGlobalNorm(clip_norm=2.0))
    tensors = [torch.zeros(g.shape, dtype=torch.float64, requires_grad=True) for g in (G1, G2)]
    for t, g in zip(tensors, (G1, G2)):
        t.grad = torch.tensor(g)
    torch.nn.utils.clip_grad_norm_(tensors, max_norm=2.0)
    for got, t in zip(out, tensors):
        np.testing.assert_allclose(got, t.grad.numpy(), rtol=1e-5)  # torch adds 1e-6 to the norm
    total = np.sqrt((G1 ** 2).sum() + (G2 ** 2).sum())
    np.testing.assert_allclose(out[0], G1 * 2.0 / total)


def test_clip_by_global_norm_below_the_limit_keeps_gradients():
    out = _clipped(nn.ClipGradByGlobalNorm(clip_norm=100.0))
    np.testing.assert_array_equal(out[0], G1)
    pairs = _pairs()
    assert nn.ClipGradByGlobalNorm(100.0, auto_skip_clip=True)(pairs)[0][1] is pairs[0][1]


@pytest.mark.parametrize("clip", [nn.ClipGradByValue(0.1), nn.ClipGradByNorm(0.1), nn.ClipGradByGlobalNorm(0.1)])
def test_need_clip_false_keeps_its_gradient_and_leaves_the_global_norm(clip):
    out = _clipped(clip, need_clip=(False, True))
    np.testing.assert_array_equal(out[0], G1)
    if isinstance(clip, nn.ClipGradByGlobalNorm):
        np.testing.assert_allclose(out[1], G2 * 0.1 / np.linalg.norm(G2))  # G1 not in the norm


def test_none_gradients_pass_through():
    p = create_parameter([2], "float64")
    assert nn.ClipGradByGlobalNorm(1.0)([(p, None)]) == [(p, None)]


def test_optimizer_clips_before_updating_and_keeps_grad_visible():
    w = create_parameter([2, 2], "float64")
    b = create_parameter([3], "float64")
    w.set_value(np.zeros((2, 2)))
    b.set_value(np.zeros(3))
    w.grad, b.grad = paddle.to_tensor(G1), paddle.to_tensor(G2)
    paddle.optimizer.SGD(1.0, parameters=[w, b], grad_clip=nn.ClipGradByGlobalNorm(1.0)).step()
    total = np.sqrt((G1 ** 2).sum() + (G2 ** 2).sum())
    np.testing.assert_allclose(w.numpy(), -G1 / total)
    np.testing.assert_allclose(b.numpy(), -G2 / total)
    np.testing.assert_array_equal(w.grad.numpy(), G1)


def test_a_group_can_have_its_own_clip():
    w = create_parameter([2, 2], "float64")
    b = create_parameter([3], "float64")
    w.set_value(np.zeros((2, 2)))
    b.set_value(np.zeros(3))
    w.grad, b.grad = paddle.to_tensor(G1), paddle.to_tensor(G2)
    paddle.optimizer.SGD(1.0, parameters=[{"params": [w], "grad_clip": nn.ClipGradByValue(1.0)}, {"params": [b]}],
                         grad_clip=nn.ClipGradByValue(0.5)).step()
    np.testing.assert_array_equal(w.numpy(), -np.clip(G1, -1, 1))
    np.testing.assert_array_equal(b.numpy(), -np.clip(G2, -0.5, 0.5))


@pytest.mark.parametrize("make, message", [
    (lambda: nn.ClipGradByValue(max=-1.0), "max must be > 0 when min is not given"),
    (lambda: nn.ClipGradByValue(max=1.0, min=2.0), "must not be greater than max"),
    (lambda: nn.ClipGradByValue(max="1"), "max must be a number"),
    (lambda: nn.ClipGradByNorm(0.0), "clip_norm must be > 0"),
    (lambda: nn.ClipGradByGlobalNorm(-1.0), "clip_norm must be > 0"),
    (lambda: nn.ClipGradByGlobalNorm(1.0, group_name=3), "group_name must be a str"),
])
def test_bad_arguments_raise_clear_errors(make, message):
    with pytest.raises(InvalidArgument, match=message):
        make()
