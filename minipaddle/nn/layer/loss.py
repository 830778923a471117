"""Loss layers: CrossEntropyLoss, MSELoss, L1Loss, ..., each a Layer that keeps its settings and
calls the function of the same name in nn/functional/loss.py.

    loss_fn = paddle.nn.CrossEntropyLoss()
    loss = loss_fn(model(x), y)          # = F.cross_entropy(model(x), y)
"""
from __future__ import annotations

from ...framework.errors import invalid_argument
from ..functional import loss as F
from .layers import Layer

__all__ = ["CrossEntropyLoss", "MSELoss", "L1Loss", "SmoothL1Loss", "NLLLoss", "BCELoss", "BCEWithLogitsLoss",
           "KLDivLoss", "MarginRankingLoss", "HingeEmbeddingLoss", "MultiLabelSoftMarginLoss", "CTCLoss"]


def _reduction(layer: str, reduction, allowed=("none", "mean", "sum")) -> str:
    """Check `reduction` when the layer is built, so the mistake shows where it was made."""
    if reduction not in allowed:
        raise invalid_argument(layer, f"reduction got {reduction!r}, expected one of "
                                      f"{', '.join(map(repr, allowed))}.")
    return reduction


class CrossEntropyLoss(Layer):
    """Softmax cross-entropy of logits against hard or soft labels (F.cross_entropy)."""

    def __init__(self, weight=None, ignore_index: int = -100, reduction: str = "mean", soft_label: bool = False,
                 axis: int = -1, use_softmax: bool = True, label_smoothing: float = 0.0, name=None) -> None:
        super().__init__()
        self.weight = weight  # a plain attribute, not a Parameter: class weights are not trained
        self.ignore_index = ignore_index
        self.reduction = _reduction("CrossEntropyLoss", reduction)
        self.soft_label = soft_label
        self.axis = axis
        self.use_softmax = use_softmax
        self.label_smoothing = label_smoothing

    def forward(self, input, label):
        return F.cross_entropy(input, label, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, soft_label=self.soft_label, axis=self.axis,
                               use_softmax=self.use_softmax, label_smoothing=self.label_smoothing)

    def extra_repr(self) -> str:
        return f"reduction={self.reduction!r}, ignore_index={self.ignore_index}, soft_label={self.soft_label}"


class MSELoss(Layer):
    """(input - label)^2, reduced (F.mse_loss)."""

    def __init__(self, reduction: str = "mean") -> None:
        super().__init__()
        self.reduction = _reduction("MSELoss", reduction)

    def forward(self, input, label):
        return F.mse_loss(input, label, reduction=self.reduction)

    def extra_repr(self) -> str:
        return f"reduction={self.reduction!r}"


class L1Loss(Layer):
    """|input - label|, reduced (F.l1_loss)."""

    def __init__(self, reduction: str = "mean", name=None) -> None:
        super().__init__()
        self.reduction = _reduction("L1Loss", reduction)

    def forward(self, input, label):
        return F.l1_loss(input, label, reduction=self.reduction)

    def extra_repr(self) -> str:
        return f"reduction={self.reduction!r}"


class SmoothL1Loss(Layer):
    """Huber loss with threshold `delta` (F.smooth_l1_loss)."""

    def __init__(self, reduction: str = "mean", delta: float = 1.0, name=None) -> None:
        super().__init__()
        self.reduction = _reduction("SmoothL1Loss", reduction)
        self.delta = delta

    def forward(self, input, label):
        return F.smooth_l1_loss(input, label, reduction=self.reduction, delta=self.delta)

    def extra_repr(self) -> str:
        return f"reduction={self.reduction!r}, delta={self.delta}"


class NLLLoss(Layer):
    """Negative log-likelihood of log-probabilities [N, C, ...] at int labels (F.nll_loss)."""

    def __init__(self, weight=None, ignore_index: int = -100, reduction: str = "mean", name=None) -> None:
        super().__init__()
        self.weight = weight
        self.ignore_index = ignore_index
        self.reduction = _reduction("NLLLoss", reduction)

    def forward(self, input, label):
        return F.nll_loss(input, label, weight=self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)

    def extra_repr(self) -> str:
        return f"reduction={self.reduction!r}, ignore_index={self.ignore_index}"


class BCELoss(Layer):
    """Binary cross-entropy of probabilities (F.binary_cross_entropy)."""

    def __init__(self, weight=None, reduction: str = "mean", name=None) -> None:
        super().__init__()
        self.weight = weight
        self.reduction = _reduction("BCELoss", reduction)

    def forward(self, input, label):
        return F.binary_cross_entropy(input, label, weight=self.weight, reduction=self.reduction)

    def extra_repr(self) -> str:
        return f"reduction={self.reduction!r}"


class BCEWithLogitsLoss(Layer):
    """Binary cross-entropy of raw scores, computed stably (F.binary_cross_entropy_with_logits)."""

    def __init__(self, weight=None, reduction: str = "mean", pos_weight=None, name=None) -> None:
        super().__init__()
        self.weight = weight
        self.reduction = _reduction("BCEWithLogitsLoss", reduction)
        self.pos_weight = pos_weight

    def forward(self, logit, label):
        return F.binary_cross_entropy_with_logits(logit, label, weight=self.weight, reduction=self.reduction,
                                                  pos_weight=self.pos_weight)

    def extra_repr(self) -> str:
        return f"reduction={self.reduction!r}"


class KLDivLoss(Layer):
    """Kullback-Leibler divergence of log-probabilities `input` from `label` (F.kl_div)."""

    def __init__(self, reduction: str = "mean", log_target: bool = False) -> None:
        super().__init__()
        self.reduction = _reduction("KLDivLoss", reduction, ("none", "batchmean", "mean", "sum"))
        self.log_target = log_target

    def forward(self, input, label):
        return F.kl_div(input, label, reduction=self.reduction, log_target=self.log_target)

    def extra_repr(self) -> str:
        return f"reduction={self.reduction!r}, log_target={self.log_target}"


class MarginRankingLoss(Layer):
    """max(0, -label * (input - other) + margin) (F.margin_ranking_loss)."""

    def __init__(self, margin: float = 0.0, reduction: str = "mean", name=None) -> None:
        super().__init__()
        self.margin = margin
        self.reduction = _reduction("MarginRankingLoss", reduction)

    def forward(self, input, other, label):
        return F.margin_ranking_loss(input, other, label, margin=self.margin, reduction=self.reduction)

    def extra_repr(self) -> str:
        return f"margin={self.margin}, reduction={self.reduction!r}"


class HingeEmbeddingLoss(Layer):
    """input where label is 1, max(0, margin - input) where it is -1 (F.hinge_embedding_loss)."""

    def __init__(self, margin: float = 1.0, reduction: str = "mean", name=None) -> None:
        super().__init__()
        self.margin = margin
        self.reduction = _reduction("HingeEmbeddingLoss", reduction)

    def forward(self, input, label):
        return F.hinge_embedding_loss(input, label, margin=self.margin, reduction=self.reduction)

    def extra_repr(self) -> str:
        return f"margin={self.margin}, reduction={self.reduction!r}"


class MultiLabelSoftMarginLoss(Layer):
    """F.multi_label_soft_margin_loss as a layer (one sigmoid per class; labels 0/1 per class)."""

    def __init__(self, weight=None, reduction: str = "mean", name=None) -> None:
        super().__init__()
        self.weight, self.reduction = weight, _reduction("MultiLabelSoftMarginLoss", reduction)

    def forward(self, input, label):
        return F.multi_label_soft_margin_loss(input, label, self.weight, self.reduction)


class CTCLoss(Layer):
    """F.ctc_loss as a layer: forward(log_probs, labels, input_lengths, label_lengths, norm_by_times=False)."""

    def __init__(self, blank: int = 0, reduction: str = "mean", zero_infinity: bool = False) -> None:
        super().__init__()
        self.blank, self.reduction, self.zero_infinity = blank, _reduction("CTCLoss", reduction), zero_infinity

    def forward(self, log_probs, labels, input_lengths, label_lengths, norm_by_times: bool = False):
        return F.ctc_loss(log_probs, labels, input_lengths, label_lengths, self.blank, self.reduction,
                          norm_by_times=norm_by_times, zero_infinity=self.zero_infinity)
