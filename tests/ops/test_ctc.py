"""warpctc / F.ctc_loss: the loss against a brute-force sum over every alignment and against torch,
the gradient by central differences, Paddle's reductions and norm_by_times, clear errors."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument

from .opcheck import check_grad, torch_or_skip

F = paddle.nn.functional
RNG = np.random.default_rng(9)


def brute_force_ctc(logits: np.ndarray, target: list, blank: int = 0) -> float:
    """-log of the summed probability of every path of T classes that collapses to target."""
    probs = np.exp(logits - logits.max(-1, keepdims=True))
    probs /= probs.sum(-1, keepdims=True)
    total = 0.0
    for path in itertools.product(range(logits.shape[1]), repeat=logits.shape[0]):
        merged = [c for i, c in enumerate(path) if i == 0 or c != path[i - 1]]
        if [c for c in merged if c != blank] == list(target):
            total += np.prod([probs[t, c] for t, c in enumerate(path)])
    return -np.log(total)


def _ctc(x, labels, input_lengths, label_lengths, **kwargs):
    return F.ctc_loss(x, paddle.to_tensor(np.array(labels, dtype="int32")), paddle.to_tensor(np.array(input_lengths)),
                      paddle.to_tensor(np.array(label_lengths)), **kwargs)


@pytest.mark.parametrize("target, blank", [([1, 2], 0), ([1, 1], 0), ([2], 0), ([], 0), ([0, 1], 2)])
def test_the_loss_sums_every_alignment(target, blank):
    logits = RNG.standard_normal((4, 1, 3))
    labels = [target + [0] * (2 - len(target))]
    got = _ctc(paddle.to_tensor(logits), labels, [4], [len(target)], blank=blank, reduction="none")
    assert float(got[0]) == pytest.approx(brute_force_ctc(logits[:, 0], target, blank), rel=1e-10)


def test_matches_torch_with_padding_and_its_gradient_is_numeric():
    torch = torch_or_skip()
    x = RNG.standard_normal((6, 3, 5))
    labels, il, ll = [[1, 2, 2], [3, 1, 0], [4, 0, 0]], [6, 5, 4], [3, 2, 1]
    for reduction in ("none", "sum", "mean"):
        got = _ctc(paddle.to_tensor(x), labels, il, ll, reduction=reduction)
        want = torch.nn.functional.ctc_loss(torch.tensor(x).log_softmax(-1), torch.tensor(labels), torch.tensor(il),
                                            torch.tensor(ll), reduction=reduction)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10)
    check_grad(lambda t: _ctc(t, labels, il, ll, reduction="mean"), [x])
    check_grad(lambda t: _ctc(t, labels, il, ll, reduction="none"), [x])


def test_log_softmax_inputs_give_the_same_loss_and_norm_by_times_scales_only_the_gradient():
    x = RNG.standard_normal((5, 2, 4))
    labels, il, ll = [[1, 2], [3, 0]], [5, 3], [2, 1]
    raw = _ctc(paddle.to_tensor(x), labels, il, ll, reduction="none")
    logp = _ctc(F.log_softmax(paddle.to_tensor(x), axis=-1), labels, il, ll, reduction="none")
    np.testing.assert_allclose(raw.numpy(), logp.numpy(), rtol=1e-12)
    grads = []
    for norm in (False, True):
        t = paddle.to_tensor(x, stop_gradient=False)
        loss = _ctc(t, labels, il, ll, reduction="sum", norm_by_times=norm)
        loss.backward()
        grads.append(t.grad.numpy())
    np.testing.assert_allclose(grads[1][:, 0], grads[0][:, 0] / 5, rtol=1e-12)
    np.testing.assert_allclose(grads[1][:, 1], grads[0][:, 1] / 3, rtol=1e-12)
    assert np.all(grads[0][3:, 1] == 0)          # past the sequence's end nothing is read


def test_an_impossible_alignment_is_infinite_unless_zero_infinity():
    x = paddle.to_tensor(RNG.standard_normal((2, 1, 3)))
    assert np.isinf(float(_ctc(x, [[1, 1]], [2], [2], reduction="sum")))   # needs a blank between: 3 steps
    assert float(_ctc(x, [[1, 1]], [2], [2], reduction="sum", zero_infinity=True)) == 0.0
    layer = paddle.nn.CTCLoss(blank=0, reduction="none")
    out = layer(x, paddle.to_tensor([[1, 2]], dtype="int32"), paddle.to_tensor([2]), paddle.to_tensor([2]))
    assert out.shape == [1]


def test_ctc_errors_say_what_was_expected():
    x = paddle.rand([4, 2, 3])
    with pytest.raises(InvalidArgument, match=r"log_probs must be 3-D"):
        _ctc(paddle.rand([4, 3]), [[1], [1]], [4, 4], [1, 1])
    with pytest.raises(InvalidArgument, match=r"input_lengths must be a 1-D int tensor of batch_size \(2\)"):
        _ctc(x, [[1], [1]], [4], [1, 1])
    with pytest.raises(InvalidArgument, match=r"blank got 3, expected a class index in \[0, 3\)"):
        _ctc(x, [[1], [1]], [4, 4], [1, 1], blank=3)
    with pytest.raises(InvalidArgument, match="sequence 1 has input length 5"):
        _ctc(x, [[1], [1]], [4, 5], [1, 1])
    with pytest.raises(InvalidArgument, match="reduction got 'avg'"):
        _ctc(x, [[1], [1]], [4, 4], [1, 1], reduction="avg")
