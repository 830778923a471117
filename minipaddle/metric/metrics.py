"""Streaming evaluation metrics (Paddle's `paddle.metric`): Accuracy, Precision, Recall, Auc.

A Metric accumulates over batches. `paddle.Model` drives it like this, once per batch:

    outs = metric.compute(*(outputs + labels))     # Tensors in, Tensors out (cheap per-sample work)
    metric.update(*[o.numpy() for o in outs])      # numpy in; returns this batch's value
    metric.accumulate()                            # the value over every batch since reset()

All counting is vectorized numpy; none of it records gradients.
"""
from __future__ import annotations

import abc

import numpy as np

from ..framework.autograd import no_grad
from ..framework.errors import invalid_argument, unimplemented
from ..framework.tensor import Tensor

__all__ = ["Metric", "Accuracy", "Precision", "Recall", "Auc", "accuracy"]


def _numpy(x, op: str, what: str) -> np.ndarray:
    if isinstance(x, Tensor):
        return x.numpy()
    if isinstance(x, np.ndarray):
        return x
    raise invalid_argument(op, f"'{what}' must be a numpy ndarray or Tensor, got {type(x).__name__}.")


class Metric(metaclass=abc.ABCMeta):
    """Base class: subclasses implement reset, update, accumulate and name; compute is optional.

    >>> class MeanAbs(paddle.metric.Metric):                         # doctest: +SKIP
    ...     def __init__(self): self.reset()
    ...     def reset(self): self.total, self.count = 0.0, 0
    ...     def update(self, err): self.total += abs(err).sum(); self.count += err.size
    ...     def accumulate(self): return self.total / max(self.count, 1)
    ...     def name(self): return "mean_abs"
    """

    @abc.abstractmethod
    def reset(self) -> None:
        """Forget everything accumulated."""

    @abc.abstractmethod
    def update(self, *args):
        """Add one batch (numpy arrays, the outputs of compute)."""

    @abc.abstractmethod
    def accumulate(self):
        """The metric over every batch since the last reset."""

    @abc.abstractmethod
    def name(self):
        """The metric's name (or a list of names) as shown in logs."""

    def compute(self, *args):
        """Per-batch preprocessing on Tensors (predictions, labels); its outputs go to update()."""
        return args


class Accuracy(Metric):
    """Top-k classification accuracy. `Accuracy(topk=(1, 5))` reports acc_top1 and acc_top5.

    compute(pred [N, C], label [N] / [N, 1] / one-hot [N, C]) -> correct [N, maxk] (float32 0/1);
    update(correct) -> this batch's accuracy; accumulate() -> over all batches.
    """

    def __init__(self, topk=(1,), name: str | None = None, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        topk = (topk,) if isinstance(topk, int) else tuple(topk)
        if not topk or not all(isinstance(k, int) and k >= 1 for k in topk):
            raise invalid_argument("Accuracy", f"topk must be positive ints, got {topk!r}.")
        self.topk = topk
        self.maxk = max(topk)
        base = name or "acc"
        self._name = [f"{base}_top{k}" for k in topk] if self.maxk != 1 else [base]
        self.reset()

    def compute(self, pred, label, *args) -> Tensor:
        pred_np = _numpy(pred, "Accuracy.compute", "pred")
        label_np = _numpy(label, "Accuracy.compute", "label")
        if pred_np.ndim < 1 or pred_np.shape[-1] < self.maxk:
            raise invalid_argument("Accuracy.compute", f"pred has shape {list(pred_np.shape)}; expected [..., C] "
                                                       f"with C >= max(topk) = {self.maxk}.")
        batch = int(np.prod(pred_np.shape[:-1]))
        if label_np.ndim == pred_np.ndim and label_np.shape[-1] == pred_np.shape[-1] and label_np.shape[-1] != 1:
            label_np = label_np.argmax(axis=-1)  # one-hot (or soft) labels
        if label_np.size != batch:
            raise invalid_argument("Accuracy.compute", f"label has shape {list(label_np.shape)}, which does not match "
                                                       f"pred's {batch} samples (pred shape {list(pred_np.shape)}).",
                                   hint="labels are class indices of shape [N] or [N, 1], or one-hot [N, C].")
        top = np.argsort(-pred_np.reshape(batch, -1), axis=-1, kind="stable")[:, :self.maxk]
        correct = top == label_np.reshape(batch, 1)
        return Tensor._wrap(correct.reshape(pred_np.shape[:-1] + (self.maxk,)).astype(np.float32))

    def update(self, correct, *args):
        correct = _numpy(correct, "Accuracy.update", "correct")
        if correct.ndim < 1 or correct.shape[-1] < self.maxk:
            raise invalid_argument("Accuracy.update", f"correct has shape {list(correct.shape)}; expected [..., "
                                                      f"{self.maxk}] (the output of compute).")
        num_samples = int(np.prod(correct.shape[:-1]))
        accs = []
        for i, k in enumerate(self.topk):
            num_corrects = float(correct[..., :k].sum())
            accs.append(num_corrects / num_samples if num_samples else 0.0)
            self.total[i] += num_corrects
            self.count[i] += num_samples
        return accs[0] if len(self.topk) == 1 else accs

    def reset(self) -> None:
        self.total = [0.0] * len(self.topk)
        self.count = [0] * len(self.topk)

    def accumulate(self):
        res = [t / c if c > 0 else 0.0 for t, c in zip(self.total, self.count)]
        return res[0] if len(self.topk) == 1 else res

    def name(self) -> list[str]:
        return self._name


def _binary_inputs(op: str, preds, labels) -> tuple[np.ndarray, np.ndarray]:
    """Predicted probabilities rounded to 0/1 and labels, both flat; one value per sample."""
    preds = _numpy(preds, op, "preds")
    labels = _numpy(labels, op, "labels")
    if preds.size != labels.size or (preds.ndim > 1 and preds.shape[-1] != 1):
        raise invalid_argument(op, f"preds {list(preds.shape)} and labels {list(labels.shape)} must hold one value "
                                   "per sample ([N] or [N, 1]).",
                               hint="preds are probabilities of the positive class, e.g. a sigmoid output.")
    return np.floor(preds.reshape(-1) + 0.5).astype(np.int32), labels.reshape(-1)


class Precision(Metric):
    """Binary precision tp / (tp + fp); preds are probabilities (>= 0.5 means positive), labels 0/1."""

    def __init__(self, name: str = "precision", *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._name = name
        self.reset()

    def update(self, preds, labels) -> None:
        preds, labels = _binary_inputs("Precision.update", preds, labels)
        predicted_pos = preds == 1
        self.tp += int(np.count_nonzero(predicted_pos & (labels == 1)))
        self.fp += int(np.count_nonzero(predicted_pos & (labels != 1)))

    def reset(self) -> None:
        self.tp = 0
        self.fp = 0

    def accumulate(self) -> float:
        ap = self.tp + self.fp
        return float(self.tp) / ap if ap != 0 else 0.0

    def name(self) -> str:
        return self._name


class Recall(Metric):
    """Binary recall tp / (tp + fn); preds are probabilities (>= 0.5 means positive), labels 0/1."""

    def __init__(self, name: str = "recall", *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._name = name
        self.reset()

    def update(self, preds, labels) -> None:
        preds, labels = _binary_inputs("Recall.update", preds, labels)
        actual_pos = labels == 1
        self.tp += int(np.count_nonzero(actual_pos & (preds == 1)))
        self.fn += int(np.count_nonzero(actual_pos & (preds != 1)))

    def reset(self) -> None:
        self.tp = 0
        self.fn = 0

    def accumulate(self) -> float:
        recall = self.tp + self.fn
        return float(self.tp) / recall if recall != 0 else 0.0

    def name(self) -> str:
        return self._name


class Auc(Metric):
    """Area under the ROC curve, from histograms of the positive-class score over num_thresholds bins.

    update(preds [N, 2] (column 1 is the positive class's probability) or [N] / [N, 1], labels [N] / [N, 1]).
    """

    def __init__(self, curve: str = "ROC", num_thresholds: int = 4095, name: str = "auc", *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if curve != "ROC":
            raise unimplemented("Auc", f"curve={curve!r} is not supported; only 'ROC' is (as in Paddle, whose "
                                       "Auc always computes the ROC area).")
        if not isinstance(num_thresholds, int) or num_thresholds < 1:
            raise invalid_argument("Auc", f"num_thresholds must be a positive int, got {num_thresholds!r}.")
        self._curve = curve
        self._num_thresholds = num_thresholds
        self._name = name
        self.reset()

    def update(self, preds, labels) -> None:
        preds = _numpy(preds, "Auc.update", "preds")
        labels = _numpy(labels, "Auc.update", "labels").reshape(-1)
        if preds.ndim == 2 and preds.shape[1] == 2:
            scores = preds[:, 1]
        elif preds.size == labels.size and (preds.ndim == 1 or preds.shape[-1] == 1):
            scores = preds.reshape(-1)
        else:
            raise invalid_argument("Auc.update", f"preds has shape {list(preds.shape)}, labels {labels.size} values; "
                                                 "expected preds [N, 2] (or [N]) with one label per sample.")
        if scores.shape[0] != labels.size:
            raise invalid_argument("Auc.update", f"got {scores.shape[0]} predictions but {labels.size} labels.")
        if scores.size and not (np.all(scores >= 0) and np.all(scores <= 1)):
            raise invalid_argument("Auc.update", "scores must be probabilities in [0, 1].",
                                   hint="apply softmax or sigmoid to the network's output first.")
        bins = (scores.astype(np.float64) * self._num_thresholds).astype(np.int64)
        positive = labels.astype(bool)
        n_bins = self._num_thresholds + 1
        self._stat_pos += np.bincount(bins[positive], minlength=n_bins)
        self._stat_neg += np.bincount(bins[~positive], minlength=n_bins)

    @staticmethod
    def trapezoid_area(x1, x2, y1, y2):
        return abs(x1 - x2) * (y1 + y2) / 2.0

    def accumulate(self) -> float:
        # Walk thresholds from high to low: each bin moves the ROC point by (its negatives, its positives).
        tot_pos = np.cumsum(self._stat_pos[::-1])
        tot_neg = np.cumsum(self._stat_neg[::-1])
        prev_pos = np.concatenate([[0.0], tot_pos[:-1]])
        prev_neg = np.concatenate([[0.0], tot_neg[:-1]])
        auc = float(np.sum(self.trapezoid_area(tot_neg, prev_neg, tot_pos, prev_pos)))
        p, n = tot_pos[-1], tot_neg[-1]
        return auc / p / n if p > 0.0 and n > 0.0 else 0.0

    def reset(self) -> None:
        self._stat_pos = np.zeros(self._num_thresholds + 1)
        self._stat_neg = np.zeros(self._num_thresholds + 1)

    def name(self) -> str:
        return self._name


def accuracy(input: Tensor, label: Tensor, k: int = 1, correct=None, total=None, name=None) -> Tensor:
    """The fraction of samples whose label is among the top-k predictions, as a 0-D float32 Tensor.

    >>> paddle.metric.accuracy(paddle.to_tensor([[0.1, 0.9], [0.8, 0.2]]), paddle.to_tensor([[1], [1]]))
    ... # doctest: +SKIP     -> 0.5
    """
    with no_grad():
        x = _numpy(input, "accuracy", "input")
        y = _numpy(label, "accuracy", "label")
        if x.ndim != 2:
            raise invalid_argument("accuracy", f"input has shape {list(x.shape)}, expected [N, C].")
        if y.dtype.kind not in "iu":
            raise invalid_argument("accuracy", f"label has dtype {y.dtype}, expected int32 or int64 class indices.")
        if y.size != x.shape[0] or (y.ndim == 2 and y.shape[1] != 1) or y.ndim > 2:
            raise invalid_argument("accuracy", f"label has shape {list(y.shape)}, expected [{x.shape[0]}, 1] "
                                               f"(or [{x.shape[0]}]) for input {list(x.shape)}.")
        if not isinstance(k, int) or not 1 <= k <= x.shape[1]:
            raise invalid_argument("accuracy", f"k must be an int in [1, {x.shape[1]}], got {k!r}.")
        top = np.argsort(-x, axis=1, kind="stable")[:, :k]
        hits = np.count_nonzero((top == y.reshape(-1, 1)).any(axis=1))
        value = hits / x.shape[0] if x.shape[0] else 0.0
        if correct is not None:
            correct._data[...] = hits
        if total is not None:
            total._data[...] = x.shape[0]
        return Tensor._wrap(np.asarray(value, dtype=np.float32))
