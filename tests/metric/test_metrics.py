"""paddle.metric: Accuracy, Precision, Recall, Auc and accuracy() against hand computations."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument, Unimplemented
from minipaddle.metric import Accuracy, Auc, Metric, Precision, Recall
from tests.ops.opcheck import torch_or_skip

PRED = np.array([[0.1, 0.7, 0.2],     # top1 = 1, top2 = {1, 2}
                 [0.5, 0.2, 0.3],     # top1 = 0, top2 = {0, 2}
                 [0.1, 0.2, 0.7],     # top1 = 2, top2 = {2, 1}
                 [0.3, 0.4, 0.35]], dtype="float32")  # top1 = 1, top2 = {1, 2}
LABEL = np.array([[2], [0], [1], [0]])  # hits: top1 -> sample 1 only; top2 -> samples 0, 1, 2


# ---- Accuracy -------------------------------------------------------------------------
def test_accuracy_topk_by_hand():
    m = Accuracy(topk=(1, 2))
    correct = m.compute(paddle.to_tensor(PRED), paddle.to_tensor(LABEL))
    assert correct.shape == [4, 2] and correct.dtype == paddle.float32
    np.testing.assert_array_equal(correct.numpy(), [[0, 1], [1, 0], [0, 1], [0, 0]])
    assert m.update(correct) == [0.25, 0.75]
    assert m.accumulate() == [0.25, 0.75]
    assert m.name() == ["acc_top1", "acc_top2"]


def test_accuracy_accumulates_over_batches_weighted_by_size_and_resets():
    m = Accuracy()
    assert m.name() == ["acc"]
    m.update(m.compute(paddle.to_tensor(PRED), paddle.to_tensor(LABEL)))              # 1 of 4
    batch = m.update(m.compute(paddle.to_tensor(PRED[:2]), paddle.to_tensor([[1], [0]])))  # 2 of 2
    assert batch == 1.0
    assert m.accumulate() == pytest.approx(3 / 6)
    m.reset()
    assert m.accumulate() == 0.0


def test_accuracy_label_layouts_agree():
    m = Accuracy(topk=(2,), name="hit")
    flat = m.compute(paddle.to_tensor(PRED), paddle.to_tensor(LABEL.reshape(-1))).numpy()
    column = m.compute(paddle.to_tensor(PRED), paddle.to_tensor(LABEL)).numpy()
    one_hot = m.compute(paddle.to_tensor(PRED), paddle.to_tensor(np.eye(3, dtype="float32")[LABEL[:, 0]])).numpy()
    np.testing.assert_array_equal(flat, column)
    np.testing.assert_array_equal(flat, one_hot)
    assert m.name() == ["hit_top2"]


def test_accuracy_matches_torch_topk_on_random_data():
    rng = np.random.default_rng(0)
    pred = rng.normal(size=(50, 7)).astype("float32")
    label = rng.integers(0, 7, size=(50, 1))
    m = Accuracy(topk=(1, 3))
    got = m.update(m.compute(paddle.to_tensor(pred), paddle.to_tensor(label)))
    torch = torch_or_skip()
    top3 = torch.topk(torch.from_numpy(pred), 3, dim=1).indices.numpy()
    expected = [float(np.mean(top3[:, 0] == label[:, 0])), float(np.mean((top3 == label).any(axis=1)))]
    assert got == pytest.approx(expected)


def test_accuracy_errors():
    with pytest.raises(InvalidArgument, match="topk must be positive ints"):
        Accuracy(topk=(0,))
    m = Accuracy(topk=(5,))
    with pytest.raises(InvalidArgument, match=r"C >= max\(topk\) = 5"):
        m.compute(paddle.to_tensor(PRED), paddle.to_tensor(LABEL))
    with pytest.raises(InvalidArgument, match="does not match pred's 4 samples"):
        Accuracy().compute(paddle.to_tensor(PRED), paddle.to_tensor([[1], [2]]))
    with pytest.raises(InvalidArgument, match="must be a numpy ndarray or Tensor"):
        Accuracy().update([1, 0])


# ---- accuracy() -----------------------------------------------------------------------
def test_functional_accuracy():
    x, y = paddle.to_tensor(PRED), paddle.to_tensor(LABEL)
    acc1 = paddle.metric.accuracy(x, y)
    assert acc1.shape == [] and acc1.dtype == paddle.float32 and acc1.item() == 0.25
    assert paddle.metric.accuracy(x, y, k=2).item() == 0.75
    assert paddle.metric.accuracy(x, paddle.to_tensor(LABEL.astype("int32")), k=3).item() == 1.0
    correct, total = paddle.zeros([1], dtype="int32"), paddle.zeros([1], dtype="int32")
    paddle.metric.accuracy(x, y, k=2, correct=correct, total=total)
    assert (correct.item(), total.item()) == (3, 4)


def test_functional_accuracy_errors():
    x = paddle.to_tensor(PRED)
    with pytest.raises(InvalidArgument, match="expected int32 or int64"):
        paddle.metric.accuracy(x, paddle.to_tensor([[1.0], [0.0], [1.0], [0.0]]))
    with pytest.raises(InvalidArgument, match=r"expected \[4, 1\]"):
        paddle.metric.accuracy(x, paddle.to_tensor([[1], [0]]))
    with pytest.raises(InvalidArgument, match=r"k must be an int in \[1, 3\]"):
        paddle.metric.accuracy(x, paddle.to_tensor(LABEL), k=4)
    with pytest.raises(InvalidArgument, match=r"expected \[N, C\]"):
        paddle.metric.accuracy(paddle.to_tensor([0.1, 0.9]), paddle.to_tensor([1]))


# ---- Precision / Recall ---------------------------------------------------------------
PROBS = np.array([0.9, 0.6, 0.4, 0.2, 0.7, 0.5, 0.1], dtype="float32")   # rounded: 1 1 0 0 1 1 0
TRUTH = np.array([1, 0, 1, 0, 1, 1, 1])                                 # tp=3 fp=1 fn=2


def test_precision_and_recall_by_hand():
    p, r = Precision(), Recall()
    p.update(PROBS.reshape(-1, 1), TRUTH.reshape(-1, 1))
    r.update(paddle.to_tensor(PROBS), paddle.to_tensor(TRUTH))
    assert (p.tp, p.fp) == (3, 1) and p.accumulate() == 0.75
    assert (r.tp, r.fn) == (3, 2) and r.accumulate() == 0.6
    assert (p.name(), r.name()) == ("precision", "recall")


def test_precision_recall_accumulate_over_batches_and_reset():
    p, r = Precision(name="p"), Recall(name="r")
    for lo, hi in ((0, 3), (3, 7)):
        p.update(PROBS[lo:hi], TRUTH[lo:hi])
        r.update(PROBS[lo:hi], TRUTH[lo:hi])
    assert p.accumulate() == 0.75 and r.accumulate() == 0.6
    p.reset()
    r.reset()
    assert p.accumulate() == 0.0 and r.accumulate() == 0.0   # no positives: 0, not a division error


def test_precision_recall_errors():
    with pytest.raises(InvalidArgument, match="one value per sample"):
        Precision().update(np.ones(3), np.ones(4))
    with pytest.raises(InvalidArgument, match="'labels' must be a numpy ndarray or Tensor"):
        Recall().update(np.ones(3), [1, 1, 1])


# ---- Auc ------------------------------------------------------------------------------
def _pairwise_auc(scores, labels, num_thresholds):
    """AUC as P(positive ranks above negative) (ties count half), on the same bins the metric uses."""
    bins = np.floor(scores * num_thresholds)
    pos, neg = bins[labels == 1], bins[labels == 0]
    greater = (pos[:, None] > neg[None, :]).sum()
    ties = (pos[:, None] == neg[None, :]).sum()
    return (greater + 0.5 * ties) / (len(pos) * len(neg))


def test_auc_by_hand():
    a = Auc()
    a.update(np.array([[0.2, 0.8], [0.6, 0.4], [0.3, 0.7], [0.9, 0.1]]), np.array([[1], [0], [0], [1]]))
    assert a.accumulate() == pytest.approx(0.5)     # pairs: 0.8>0.4, 0.8>0.7, 0.1<0.4, 0.1<0.7
    assert a.name() == "auc"


@pytest.mark.parametrize("num_thresholds", [4095, 10])
def test_auc_equals_the_pairwise_ranking_probability(num_thresholds):
    rng = np.random.default_rng(num_thresholds)
    scores = rng.random(300)
    labels = (rng.random(300) < scores).astype("int64")     # informative but noisy
    a = Auc(num_thresholds=num_thresholds)
    for lo in range(0, 300, 64):    # several batches, [N, 2] layout
        s = scores[lo:lo + 64]
        a.update(np.stack([1 - s, s], axis=1), labels[lo:lo + 64].reshape(-1, 1))
    assert a.accumulate() == pytest.approx(_pairwise_auc(scores, labels, num_thresholds))


def test_auc_one_column_scores_reset_and_degenerate_cases():
    a = Auc()
    a.update(paddle.to_tensor([0.9, 0.1]), paddle.to_tensor([1, 0]))
    assert a.accumulate() == 1.0
    a.reset()
    a.update(np.array([0.3, 0.8]), np.array([1, 1]))      # no negatives
    assert a.accumulate() == 0.0


def test_auc_errors():
    with pytest.raises(Unimplemented, match="only 'ROC'"):
        Auc(curve="PR")
    with pytest.raises(InvalidArgument, match="num_thresholds"):
        Auc(num_thresholds=0)
    with pytest.raises(InvalidArgument, match=r"probabilities in \[0, 1\]"):
        Auc().update(np.array([[0.0, 1.5]]), np.array([1]))
    with pytest.raises(InvalidArgument, match="expected preds"):
        Auc().update(np.ones((4, 3)) / 3, np.array([1, 0, 1, 0]))


# ---- the base class -------------------------------------------------------------------
def test_metric_is_abstract_and_compute_passes_through():
    with pytest.raises(TypeError):
        Metric()

    class Count(Metric):
        def reset(self):
            self.n = 0

        def update(self, x):
            self.n += len(x)

        def accumulate(self):
            return self.n

        def name(self):
            return "count"

    c = Count()
    c.reset()
    args = (np.ones(2), np.zeros(2))
    assert c.compute(*args) == args
    c.update(np.ones(5))
    assert c.accumulate() == 5
