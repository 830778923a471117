"""Functional API: the losses of `paddle.nn.functional`, with Paddle's signatures and semantics.

    cross_entropy (+ softmax_with_cross_entropy)   one fused op for hard labels (framework/ops/loss.py)
    nll_loss, mse_loss, l1_loss, smooth_l1_loss    short compositions of ops
    binary_cross_entropy                           the bce_loss op (clamped logs, Paddle's gradient)
    binary_cross_entropy_with_logits, kl_div,      compositions written to stay finite for any input
    margin_ranking_loss, hinge_embedding_loss

Labels never carry a gradient (hard labels are ints), so the masks they give (ignored rows, safe
indices) are computed once in numpy and enter the graph as constants. Reductions follow Paddle:
"mean" with class weights divides by the sum of the weights used, and an all-zero divisor
becomes 1 (a loss of 0, not nan).
"""
from __future__ import annotations

from numbers import Number

import numpy as np

from ...framework import arrays, gpu
from ...framework.creation import ones_like
from ...framework.dispatch import dispatch
from ...framework.errors import invalid_argument
from ...framework.ops.activation import relu, softplus
from ...framework.ops.common import as_tensor, normalize_axis, require_dtype
from ...framework.ops.elementwise import abs as absolute
from ...framework.ops.elementwise import cast, exp, log, square, where, zeros_like
from ...framework.ops.indexing import gather
from ...framework.ops.loss import (CROSS_ENTROPY_WITH_SOFTMAX, FLOAT_WHAT, bce_loss, check_label_dtype,
                                   check_label_shape, check_label_values, check_reduction, keep_shape,
                                   one_hot_along)
from ...framework.ops.manipulation import reshape
from ...framework.ops.reduction import mean
from ...framework.ops.reduction import sum as reduce_sum
from ...framework.ops.softmax import log_softmax, softmax
from ...framework.ops.sorting import take_along_axis
from ...framework.tensor import Tensor

__all__ = ["cross_entropy", "softmax_with_cross_entropy", "nll_loss", "mse_loss", "square_error_cost", "l1_loss",
           "smooth_l1_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div",
           "margin_ranking_loss", "hinge_embedding_loss", "dice_loss", "multi_label_soft_margin_loss",
           "ctc_loss"]


# ---- shared checks and reductions ----------------------------------------------------------------
def _float_input(op: str, arg: str, x) -> Tensor:
    x = as_tensor(op, arg, x)
    require_dtype(op, arg, x._data, "f", FLOAT_WHAT)
    return x


def _same_dtype(op: str, arg: str, t: Tensor, like: Tensor) -> None:
    if t._data.dtype != like._data.dtype:
        raise invalid_argument(op, f"{arg} has dtype {t._data.dtype} but input has dtype {like._data.dtype}; "
                                   "expected the same.", hint=f"cast it with {arg}.astype(input.dtype).")


def _int_arg(op: str, arg: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise invalid_argument(op, f"{arg} got {value!r}, expected an int.")
    return int(value)


def _number_arg(op: str, arg: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (Number, np.number)) or isinstance(value, complex):
        raise invalid_argument(op, f"{arg} got {value!r}, expected a number.")
    return float(value)


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return mean(loss)
    if reduction == "sum":
        return reduce_sum(loss)
    return loss


def _nonzero(total: Tensor) -> Tensor:
    """total, with 0 replaced by 1: Paddle's guard for a weighted mean whose weights are all 0."""
    return where(total == 0, total + 1, total)


def _class_weight(op: str, weight, input: Tensor, axis: int) -> Tensor | None:
    if weight is None:
        return None
    weight = as_tensor(op, "weight", weight)
    classes = input._data.shape[axis]
    if weight._data.shape != (classes,):
        raise invalid_argument(op, f"weight has shape {list(weight._data.shape)}, expected [{classes}] "
                                   "(one weight per class).")
    _same_dtype(op, "weight", weight, input)
    return weight


# ---- hard labels as constants ---------------------------------------------------------------------
class _HardLabels:
    """What a hard-label loss needs from its labels, computed once: which rows are kept (not
    ignore_index), the labels with ignored rows set to class 0 (safe to index with), their count."""

    def __init__(self, op: str, label: Tensor, classes: int, ignore_index: int) -> None:
        self._like = data = label._data
        data = gpu.to_host(data)  # labels are checked and indexed on the host; their constants go back (const)
        check_label_values(op, data, classes, ignore_index)
        self.kept = data != ignore_index
        self.count = int(np.count_nonzero(self.kept))
        self.safe = np.where(self.kept, data, 0).astype(np.int64)
        self.shape = data.shape

    def const(self, array: np.ndarray) -> Tensor:
        """A constant tensor of `array` where the labels live."""
        return Tensor._wrap(arrays.placed_like(array, self._like))

    def mask(self, dtype) -> Tensor:
        """1.0 on kept rows, 0.0 on ignored ones, as a constant tensor."""
        return self.const(self.kept.astype(dtype))

    def weights(self, weight: Tensor) -> Tensor:
        """weight[label] per row (0 on ignored rows), differentiable wrt weight."""
        picked = reshape(gather(weight, self.const(self.safe.reshape(-1))), list(self.shape))
        return picked * self.mask(weight._data.dtype)


def _reduce_hard(loss: Tensor, labels: _HardLabels, weight: Tensor | None, ignore_index: int,
                 reduction: str) -> Tensor:
    """Paddle's reductions of a per-row hard-label loss (already 0 on ignored rows)."""
    if weight is not None:
        w = labels.weights(weight)
        loss = loss * w
        if reduction == "mean":
            return reduce_sum(loss) / _nonzero(reduce_sum(w))
    elif reduction == "mean":  # ignore_index >= 0: over the kept rows; otherwise over all rows
        divisor = max(labels.count, 1) if ignore_index >= 0 else loss._data.size
        return reduce_sum(loss) / float(divisor) if divisor else mean(loss)
    return reduce_sum(loss) if reduction == "sum" else loss


# ---- cross_entropy ---------------------------------------------------------------------------------
def cross_entropy(input, label, weight=None, ignore_index: int = -100, reduction: str = "mean",
                  soft_label: bool = False, axis: int = -1, use_softmax: bool = True,
                  label_smoothing: float = 0.0, name=None) -> Tensor:
    """Softmax cross-entropy between logits `input` and `label`, after Paddle's F.cross_entropy.

    Hard labels (int64 class indices, shape of input without the class axis, or with it as 1) run
    as one fused op. `weight` rescales classes (the "mean" is then divided by the sum of the weights
    used); `ignore_index` rows give 0; with `soft_label=True` the label holds per-class
    probabilities; `use_softmax=False` takes probabilities instead of logits; `label_smoothing=e`
    turns hard labels into (1 - e) * one_hot + e / C soft labels.

    >>> loss = F.cross_entropy(logits, paddle.to_tensor([0, 2]))       # doctest: +SKIP
    """
    op = "cross_entropy"
    input = as_tensor(op, "input", input)
    label = as_tensor(op, "label", label)
    ndim = input._data.ndim
    if ndim == 0:
        raise invalid_argument(op, "input is 0-D, expected at least one dim (the classes).")
    axis = ndim - 1 if axis == -1 else normalize_axis(op, axis, ndim)  # the default, checked cheaply
    if type(ignore_index) is not int:
        ignore_index = _int_arg(op, "ignore_index", ignore_index)
    if (weight is None and use_softmax and not soft_label and not label_smoothing
            and reduction in ("mean", "sum", "none")):
        # the training hot path: one op; it checks dtypes, shapes and label values itself
        return dispatch(CROSS_ENTROPY_WITH_SOFTMAX, (input, label),
                        {"ignore_index": ignore_index, "axis": axis, "reduction": reduction})[1]
    check_reduction(op, reduction)
    require_dtype(op, "input", input._data, "f", FLOAT_WHAT)
    if soft_label and ignore_index > 0:  # Paddle refuses it: no row of a soft label is "a class"
        raise invalid_argument(op, f"ignore_index is {ignore_index} with soft_label=True; soft labels have no "
                                   "class index to ignore.", hint="leave ignore_index at -100 for soft labels.")
    weight = _class_weight(op, weight, input, axis)
    smoothing = _number_arg(op, "label_smoothing", label_smoothing)
    if not 0.0 <= smoothing <= 1.0:
        raise invalid_argument(op, f"label_smoothing got {smoothing}, expected a value in [0, 1].")
    if smoothing > 0:
        label = _smoothed_label(op, input, label, axis, ignore_index, smoothing, soft_label)
        soft_label = True
    if soft_label:
        return _soft_cross_entropy(op, input, label, weight, reduction, axis, use_softmax)

    check_label_dtype(op, label._data)
    check_label_shape(op, input._data.shape, label._data.shape, axis)
    labels = _HardLabels(op, label, input._data.shape[axis], ignore_index)
    if use_softmax:
        loss = dispatch(CROSS_ENTROPY_WITH_SOFTMAX, (input, label),
                        {"ignore_index": ignore_index, "axis": axis, "reduction": "none"})[1]
    else:  # input holds probabilities: -log(p[label]), 1 put in ignored rows so their log is 0
        keep = keep_shape(input._data.shape, axis)
        picked = take_along_axis(input, labels.const(labels.safe.reshape(keep)), axis)
        picked = reshape(picked, list(labels.shape))
        loss = -log(where(labels.const(labels.kept), picked, ones_like(picked)))
    return _reduce_hard(loss, labels, weight, ignore_index, reduction)


def _smoothed_label(op: str, input: Tensor, label: Tensor, axis: int, ignore_index: int, eps: float,
                    soft_label: bool) -> Tensor:
    """Paddle's label smoothing: (1 - eps) * label + eps / C, label one-hot first if it is hard.
    An ignored hard label gets an all-zero row, so it adds nothing (and no weight)."""
    classes = input._data.shape[axis]
    if soft_label:
        return label * (1.0 - eps) + eps / classes
    check_label_dtype(op, label._data)
    check_label_shape(op, input._data.shape, label._data.shape, axis)
    labels = _HardLabels(op, label, classes, ignore_index)
    shape = input._data.shape
    dtype = input._data.dtype
    onehot = one_hot_along(np.where(labels.kept, labels.safe, -1), shape, axis, dtype)
    smooth = onehot * dtype.type(1.0 - eps) + dtype.type(eps / classes)
    smooth *= labels.kept.reshape(keep_shape(shape, axis))
    return labels.const(smooth)


def _soft_cross_entropy(op: str, input: Tensor, label: Tensor, weight: Tensor | None, reduction: str,
                        axis: int, use_softmax: bool) -> Tensor:
    """-sum(label * log_softmax(input)) over the class axis, kept as a dim of 1 (Paddle's shape)."""
    require_dtype(op, "label", label._data, "f", "a floating dtype (soft labels are probabilities)")
    if label._data.shape != input._data.shape:
        raise invalid_argument(op, f"soft label has shape {list(label._data.shape)}, expected input's shape "
                                   f"{list(input._data.shape)}.")
    if label._data.dtype != input._data.dtype:
        label = cast(label, input._data.dtype)
    log_p = log_softmax(input, axis=axis) if use_softmax else log(input)
    loss = -reduce_sum(label * log_p, axis=axis, keepdim=True)
    if weight is None:
        return _reduce(loss, reduction)
    bshape = [1] * input._data.ndim
    bshape[axis] = -1
    w = reduce_sum(label * reshape(weight, bshape), axis=axis, keepdim=True)  # each row's weight
    loss = loss * w
    if reduction == "mean":
        return reduce_sum(loss) / _nonzero(reduce_sum(w))
    return _reduce(loss, reduction)


def softmax_with_cross_entropy(logits, label, soft_label: bool = False, ignore_index: int = -100,
                               numeric_stable_mode: bool = True, return_softmax: bool = False,
                               axis: int = -1):
    """Per-row cross-entropy keeping the class axis as a dim of 1 (Paddle's older API); with
    `return_softmax=True` also the softmax. Always computed stably (numeric_stable_mode is moot)."""
    op = "softmax_with_cross_entropy"
    logits = as_tensor(op, "logits", logits)
    label = as_tensor(op, "label", label)
    if logits._data.ndim == 0:
        raise invalid_argument(op, "logits is 0-D, expected at least one dim (the classes).")
    axis = normalize_axis(op, axis, logits._data.ndim)
    if soft_label:
        loss = _soft_cross_entropy(op, _float_input(op, "logits", logits), label, None, "none", axis, True)
        return (loss, softmax(logits, axis=axis)) if return_softmax else loss
    shape = logits._data.shape
    if label._data.ndim == len(shape) - 1:  # [N] labels: keep the class axis as 1, as Paddle does
        check_label_shape(op, shape, label._data.shape, axis)
        label = Tensor._wrap(label._data.reshape(keep_shape(shape, axis)))
    sm, loss = dispatch(CROSS_ENTROPY_WITH_SOFTMAX, (logits, label),
                        {"ignore_index": _int_arg(op, "ignore_index", ignore_index), "axis": axis,
                         "reduction": "none"})
    return (loss, sm) if return_softmax else loss


# ---- nll_loss ----------------------------------------------------------------------------------------
def nll_loss(input, label, weight=None, ignore_index: int = -100, reduction: str = "mean", name=None) -> Tensor:
    """-input[n, label[n]] (times weight[label[n]]) for log-probabilities input of shape [N, C, d1, ...]
    and int labels [N, d1, ...] ([N] or [N, 1] for [N, C] input); "mean" divides by the sum of the weights
    of the rows not ignored."""
    op = "nll_loss"
    input = _float_input(op, "input", input)
    label = as_tensor(op, "label", label)
    check_reduction(op, reduction)
    ignore_index = _int_arg(op, "ignore_index", ignore_index)
    shape = input._data.shape
    if len(shape) < 2:
        raise invalid_argument(op, f"input has shape {list(shape)}, expected [N, C] or [N, C, d1, ...].")
    check_label_dtype(op, label._data)
    if len(shape) == 2 and label._data.shape == (shape[0], 1):  # Paddle takes [N, 1] labels for [N, C] too
        label = reshape(label, [shape[0]])
    if label._data.shape != shape[:1] + shape[2:]:
        raise invalid_argument(op, f"label has shape {list(label._data.shape)}, expected "
                                   f"{list(shape[:1] + shape[2:])} for input of shape {list(shape)}.")
    weight = _class_weight(op, weight, input, 1)
    labels = _HardLabels(op, label, shape[1], ignore_index)
    picked = take_along_axis(input, labels.const(labels.safe.reshape(keep_shape(shape, 1))), 1)
    picked = reshape(picked, list(labels.shape))
    w = labels.mask(input._data.dtype) if weight is None else labels.weights(weight)
    loss = -(picked * w)
    if reduction == "mean":
        return reduce_sum(loss) / _nonzero(reduce_sum(w))
    return _reduce(loss, reduction)


# ---- regression losses ---------------------------------------------------------------------------
def _pair(op: str, input, label, reduction: str) -> tuple[Tensor, Tensor]:
    input = _float_input(op, "input", input)
    label = _float_input(op, "label", label)
    _same_dtype(op, "label", label, input)
    check_reduction(op, reduction)
    return input, label


def mse_loss(input, label, reduction: str = "mean", name=None) -> Tensor:
    """(input - label)^2, reduced."""
    input, label = _pair("mse_loss", input, label, reduction)
    return _reduce(square(input - label), reduction)


def square_error_cost(input, label) -> Tensor:
    """(input - label)^2 per element, not reduced (Paddle's fit-a-line examples take its mean)."""
    input, label = _pair("square_error_cost", input, label, "none")
    return square(input - label)


def l1_loss(input, label, reduction: str = "mean", name=None) -> Tensor:
    """|input - label|, reduced."""
    input, label = _pair("l1_loss", input, label, reduction)
    return _reduce(absolute(input - label), reduction)


def smooth_l1_loss(input, label, reduction: str = "mean", delta: float = 1.0, name=None) -> Tensor:
    """Huber loss: 0.5 * d^2 where |d| < delta, else delta * |d| - 0.5 * delta^2 (d = input - label)."""
    op = "smooth_l1_loss"
    input, label = _pair(op, input, label, reduction)
    delta = _number_arg(op, "delta", delta)
    diff = input - label
    size = absolute(diff)
    loss = where(size < delta, 0.5 * square(diff), delta * size - 0.5 * delta * delta)
    return _reduce(loss, reduction)


# ---- binary losses ----------------------------------------------------------------------------------
def _elementwise_weight(op: str, weight, like: Tensor) -> Tensor | None:
    if weight is None:
        return None
    weight = _float_input(op, "weight", weight)
    _same_dtype(op, "weight", weight, like)
    try:
        np.broadcast_shapes(weight._data.shape, like._data.shape)
    except ValueError:
        raise invalid_argument(op, f"weight of shape {list(weight._data.shape)} does not broadcast to input's "
                                   f"shape {list(like._data.shape)}.") from None
    return weight


def binary_cross_entropy(input, label, weight=None, reduction: str = "mean", name=None) -> Tensor:
    """-weight * (label * log(input) + (1 - label) * log(1 - input)) for probabilities in [0, 1]."""
    op = "binary_cross_entropy"
    input, label = _pair(op, input, label, reduction)
    weight = _elementwise_weight(op, weight, input)
    data = input._data
    if data.size and not ((data >= 0).all() and (data <= 1).all()):  # nan fails both tests too
        raise invalid_argument(op, f"input holds values outside [0, 1] (min {np.nanmin(data)}, max "
                                   f"{np.nanmax(data)}); expected probabilities.",
                               hint="apply sigmoid first, or use binary_cross_entropy_with_logits on raw scores.")
    loss = bce_loss(input, label)
    return _reduce(loss if weight is None else loss * weight, reduction)


def binary_cross_entropy_with_logits(logit, label, weight=None, reduction: str = "mean", pos_weight=None,
                                     name=None) -> Tensor:
    """binary_cross_entropy(sigmoid(logit), label), computed without forming sigmoid:

        loss = (1 - label) * logit + (1 + (pos_weight - 1) * label) * softplus(-logit)

    softplus(-x) = log(1 + exp(-x)) is evaluated stably, so no logit overflows."""
    op = "binary_cross_entropy_with_logits"
    logit, label = _pair(op, logit, label, reduction)
    if label._data.shape != logit._data.shape:
        raise invalid_argument(op, f"label has shape {list(label._data.shape)}, expected logit's shape "
                                   f"{list(logit._data.shape)}.")
    weight = _elementwise_weight(op, weight, logit)
    pos_weight = _elementwise_weight(op, pos_weight, logit)
    log_one_plus = softplus(-logit)  # -log(sigmoid(logit))
    if pos_weight is None:
        loss = logit - logit * label + log_one_plus
    else:
        loss = (1.0 - label) * logit + (1.0 + (pos_weight - 1.0) * label) * log_one_plus
    return _reduce(loss if weight is None else loss * weight, reduction)


# ---- kl_div, ranking losses --------------------------------------------------------------------------
def kl_div(input, label, reduction: str = "mean", log_target: bool = False, name=None) -> Tensor:
    """label * (log(label) - input) for log-probabilities `input` (0 where label <= 0, as in Paddle);
    with log_target=True: exp(label) * (label - input). "batchmean" divides the sum by input.shape[0]."""
    op = "kl_div"
    input = _float_input(op, "input", input)
    label = _float_input(op, "label", label)
    _same_dtype(op, "label", label, input)
    check_reduction(op, reduction, ("none", "batchmean", "mean", "sum"))
    if log_target:
        loss = exp(label) * (label - input)
    else:
        positive = label > 0
        safe = where(positive, label, ones_like(label))  # log(1) = 0 where the branch is not taken: no nan
        loss = where(positive, label * (log(safe) - input), zeros_like(input * label))
    if reduction == "batchmean":
        batch = input._data.shape[0] if input._data.ndim else 1
        return reduce_sum(loss) / float(batch) if batch else mean(loss)
    return _reduce(loss, reduction)


def margin_ranking_loss(input, other, label, margin: float = 0.0, reduction: str = "mean", name=None) -> Tensor:
    """max(0, -label * (input - other) + margin): label 1 wants input ranked higher, -1 other."""
    op = "margin_ranking_loss"
    input, other = _pair(op, input, other, reduction)
    label = _float_input(op, "label", label)
    _same_dtype(op, "label", label, input)
    margin = _number_arg(op, "margin", margin)
    return _reduce(relu(-label * (input - other) + margin), reduction)


def hinge_embedding_loss(input, label, margin: float = 1.0, reduction: str = "mean", name=None) -> Tensor:
    """input where label is 1, max(0, margin - input) where label is -1 (0 elsewhere), reduced."""
    op = "hinge_embedding_loss"
    input, label = _pair(op, input, label, reduction)
    margin = _number_arg(op, "margin", margin)
    zero = zeros_like(input)
    loss = where(label == 1.0, input, zero) + where(label == -1.0, relu(margin - input), zero)
    return _reduce(loss, reduction)


def dice_loss(input, label, epsilon: float = 0.00001, name=None) -> Tensor:
    """1 - 2 |X & Y| / (|X| + |Y|), averaged over the batch: input holds class probabilities [N, ..., C],
    label the class ids [N, ..., 1]; the sums run over every dim but the batch (Paddle's formula)."""
    from ...framework.ops.indexing import one_hot
    from ...framework.ops.manipulation import squeeze
    op = "dice_loss"
    input = _float_input(op, "input", input)
    label = as_tensor(op, "label", label)
    if label.dtype.name not in ("int32", "int64"):
        raise invalid_argument(op, f"label has dtype {label.dtype.name}, expected int32 or int64 (class ids).")
    if input.ndim < 2:
        raise invalid_argument(op, f"input has shape {input.shape}; expected at least 2-D [N, ..., C].")
    if label.ndim != input.ndim or label.shape[-1] != 1 or label.shape[:-1] != input.shape[:-1]:
        raise invalid_argument(op, f"label has shape {label.shape}, expected {input.shape[:-1] + [1]} (input's "
                                   f"shape {input.shape} with a last dim of 1).")
    target = one_hot(squeeze(label, [-1]), input.shape[-1])
    dims = list(range(1, input.ndim))
    intersection = reduce_sum(input * target, axis=dims)
    denominator = reduce_sum(input, axis=dims) + reduce_sum(target, axis=dims)
    return mean(1 - intersection * 2 / (denominator + epsilon))


def multi_label_soft_margin_loss(input, label, weight=None, reduction: str = "mean", name=None) -> Tensor:
    """-(y log sigmoid(x) + (1 - y) log sigmoid(-x)), times weight, averaged over the classes (last dim),
    then reduced over the batch."""
    from ...framework.ops.nn_activation import log_sigmoid
    op = "multi_label_soft_margin_loss"
    if reduction not in ("sum", "mean", "none"):
        raise invalid_argument(op, f"reduction got {reduction!r}, expected 'sum', 'mean' or 'none'.")
    input, label = _float_input(op, "input", input), as_tensor(op, "label", label)
    if input.shape != label.shape:
        raise invalid_argument(op, f"input has shape {input.shape} but label has shape {label.shape}; expected "
                                   "the same shape.")
    loss = -(label * log_sigmoid(input) + (1 - label) * log_sigmoid(-input))
    if weight is not None:
        loss = loss * as_tensor(op, "weight", weight)
    return _reduce(mean(loss, axis=-1), reduction)


def ctc_loss(log_probs, labels, input_lengths, label_lengths, blank: int = 0, reduction: str = "mean",
             norm_by_times: bool = False, zero_infinity: bool = False) -> Tensor:
    """CTC loss of unsegmented sequences (framework/ops/ctc.py). log_probs [T, N, C] are softmaxed inside
    (as Paddle's warpctc does, so raw logits and log-softmax outputs give the same loss), labels [N, S]
    padded class ids, input_lengths / label_lengths [N]. "mean" divides each loss by its label length
    before averaging, as Paddle does."""
    from ...framework.ops.ctc import warpctc
    from ...framework.ops.compare import isinf
    from ...framework.ops.manipulation import squeeze
    op = "ctc_loss"
    if reduction not in ("mean", "sum", "none"):
        raise invalid_argument(op, f"reduction got {reduction!r}, expected 'mean', 'sum' or 'none'.")
    log_probs, labels = as_tensor(op, "log_probs", log_probs), as_tensor(op, "labels", labels)
    input_lengths = as_tensor(op, "input_lengths", input_lengths)
    label_lengths = as_tensor(op, "label_lengths", label_lengths)
    loss = squeeze(warpctc(log_probs, labels, input_lengths, label_lengths, int(blank), bool(norm_by_times)), [-1])
    if zero_infinity:
        loss = where(isinf(loss), zeros_like(loss), loss)
    if reduction == "mean":
        return mean(loss / cast(label_lengths, loss.dtype))
    return reduce_sum(loss) if reduction == "sum" else loss
