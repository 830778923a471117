"""paddle.metric: streaming metrics for evaluation (Accuracy, Precision, Recall, Auc) and `accuracy`."""
from __future__ import annotations

from .metrics import Accuracy, Auc, Metric, Precision, Recall, accuracy

__all__ = ["Metric", "Accuracy", "Precision", "Recall", "Auc", "accuracy"]
