"""Loss ops: the fused softmax cross-entropy with hard labels (Paddle's cross_entropy_with_softmax).

Classification trains through `cross_entropy(logits, label)` on every step, so it is one op,
not five: one kernel computes the softmax, each row's -log(softmax[label]) and the reduction
(kernels/cpu/loss.py: two compiled row passes around numpy's SIMD exp), and returns

    softmax  (the logits' shape)              saved for backward, so backward needs no exp
    loss     (the label's shape, or 0-D for reduction "mean"/"sum")

Its gradient is the classic one, run as one op, cross_entropy_with_softmax_grad:

    dlogits = (softmax - one_hot(label)) * dloss / divisor        (divisor: the "mean" one, else 1)

That op is linear in softmax and dloss, and its own gradient is written with ops, so double grad
works. When something downstream used the softmax output itself (a second-order gradient does),
its part `softmax * (dsoftmax - sum(dsoftmax * softmax))` is added.

Labels are checked where they are read: dtype and shape in infer_meta, values (0 <= label < C,
or ignore_index) by the kernel, which reads every label anyway; both raise the op's error.

bce_loss (binary cross-entropy of probabilities) is an op too, for Paddle's clamped logs and
gradient. Every other loss of `paddle.nn.functional` (nn/functional/loss.py) is a short
composition of existing ops: composed ops give exact gradients of any order.
"""
from __future__ import annotations

import numpy as np

from ..dispatch import dispatch
from ..errors import invalid_argument
from ..registry import LazyKernel, MetaTensor, add_kernel, register_op
from ..tensor import Tensor
from .common import as_tensor, normalize_axis, require_dtype
from .elementwise import multiply, scale, subtract
from .manipulation import reshape
from .reduction import sum as reduce_sum

REDUCTIONS = ("none", "mean", "sum")
FLOAT_WHAT = "a floating dtype (float16, float32, float64)"
OP = "cross_entropy_with_softmax"


# ---- shapes and labels ---------------------------------------------------------------------
def keep_shape(shape: tuple, axis: int) -> tuple:
    """`shape` with the class axis set to 1: the shape of one value per row, broadcastable back."""
    return shape[:axis] + (1,) + shape[axis + 1:]


def check_reduction(op: str, reduction, allowed: tuple = REDUCTIONS) -> None:
    if reduction not in allowed:
        raise invalid_argument(op, f"reduction got {reduction!r}, expected one of {', '.join(map(repr, allowed))}.")


def check_label_shape(op: str, input_shape: tuple, label_shape: tuple, axis: int) -> None:
    """Hard labels: the input's shape without the class axis, or with it set to 1 (Paddle takes both)."""
    without = input_shape[:axis] + input_shape[axis + 1:]
    if tuple(label_shape) not in (without, keep_shape(input_shape, axis)):
        raise invalid_argument(
            op, f"label has shape {list(label_shape)}, expected {list(without)} or "
                f"{list(keep_shape(input_shape, axis))} for input of shape {list(input_shape)} (class axis {axis}).",
            hint="hard labels hold one class index per row; for per-class probabilities pass soft_label=True.")


def check_label_dtype(op: str, label) -> None:
    if label.dtype.kind not in "iu":
        raise invalid_argument(op, f"label has dtype {label.dtype}, expected int64 (or int32) class indices.",
                               hint="for probabilities per class (soft labels) pass soft_label=True; "
                                    "otherwise cast with label.astype('int64').")


def bad_label_error(op: str, value: int, classes: int, ignore_index: int):
    return invalid_argument(op, f"label {value} is out of range: expected 0 <= label < {classes} "
                                f"(the number of classes) or ignore_index ({ignore_index}).")


def check_label_values(op: str, label: np.ndarray, classes: int, ignore_index: int) -> None:
    """Eager mode: reject labels outside [0, classes) that are not ignore_index (one vector pass)."""
    if not isinstance(label, np.ndarray) or label.size == 0:
        return
    bad = ((label < 0) | (label >= classes)) & (label != ignore_index)
    if bad.any():
        raise bad_label_error(op, int(label[bad].flat[0]), classes, ignore_index)


# ---- the op ---------------------------------------------------------------------------------
def cross_entropy_meta(logits, label, ignore_index=-100, axis=-1, reduction="mean"):
    require_dtype(OP, "logits", logits, "f", FLOAT_WHAT)
    check_label_dtype(OP, label)
    check_reduction(OP, reduction)
    shape = tuple(logits.shape)
    if not shape:
        raise invalid_argument(OP, "logits is 0-D, expected at least one dim (the classes).")
    axis %= len(shape)
    check_label_shape(OP, shape, label.shape, axis)
    if shape[axis] == 0:
        raise invalid_argument(OP, f"logits has 0 classes along axis {axis}, expected at least 1.")
    loss_shape = tuple(label.shape) if reduction == "none" else ()
    return MetaTensor(shape, logits.dtype), MetaTensor(loss_shape, logits.dtype)


def mean_divisor(valid: int, rows: int, ignore_index: int) -> int:
    """Paddle's "mean": over the rows not ignored when ignore_index >= 0 (at least 1, so all-ignored
    gives 0, not nan); over all rows otherwise (ignored ones add 0 to the sum)."""
    return max(valid, 1) if ignore_index >= 0 else rows


def grad_divisor(label: np.ndarray, ignore_index: int, reduction: str) -> int:
    """What each row's gradient is divided by: the "mean" divisor (at least 1); 1 for "sum"/"none"."""
    if reduction != "mean":
        return 1
    rows = label.size
    valid = rows - int(np.count_nonzero(label == ignore_index)) if ignore_index >= 0 else rows
    return max(mean_divisor(valid, rows, ignore_index), 1)


def as_rows(logits: np.ndarray, label: np.ndarray, axis: int):
    """(rows, classes) C-contiguous logits with the class axis last, and the labels as (rows,)."""
    moved = logits if axis == logits.ndim - 1 else np.moveaxis(logits, axis, -1)
    x2 = np.ascontiguousarray(moved).reshape(-1, logits.shape[axis])  # no copy when already so
    lab = label.reshape(-1)
    if lab.dtype != np.int64 and lab.dtype != np.int32:
        lab = lab.astype(np.int64)
    return x2, lab, moved.shape


def finish(logits, label, softmax2, loss, valid, moved_shape, axis, ignore_index, reduction, total=None):
    """Lay the softmax out like the logits, reduce the per-row losses (unless their `total` is
    given), both in the logits' dtype."""
    dtype = logits.dtype
    softmax = softmax2.reshape(moved_shape).astype(dtype, copy=False)
    if axis != logits.ndim - 1:
        softmax = np.ascontiguousarray(np.moveaxis(softmax, -1, axis))
    if reduction == "none":
        return softmax, loss.reshape(label.shape).astype(dtype, copy=False)
    if total is None:
        total = loss.sum(dtype=np.float64)
    if reduction == "mean":
        divisor = mean_divisor(valid, loss.shape[0], ignore_index)
        total = total / divisor if divisor else np.nan  # no rows at all: nan, as mean([]) is
    return softmax, np.asarray(total, dtype=dtype)


def cross_entropy_numpy(logits, label, ignore_index=-100, axis=-1, reduction="mean"):
    """The same in whole-array numpy calls (float16 computed in float32): the reference kernel."""
    axis %= logits.ndim
    x2, lab, moved_shape = as_rows(logits, label, axis)
    if x2.dtype == np.float16:
        x2 = x2.astype(np.float32)
    rows, classes = x2.shape
    check_label_values(OP, lab, classes, ignore_index)
    m = x2.max(axis=1, keepdims=True)
    m[~np.isfinite(m)] = 0
    shifted = x2 - m
    softmax2 = np.exp(shifted)
    total = softmax2.sum(axis=1, keepdims=True)
    ignored = lab == ignore_index
    with np.errstate(divide="ignore", invalid="ignore"):  # a row of -inf: nan, as softmax gives
        softmax2 /= total
        loss = np.log(total[:, 0]) - shifted[np.arange(rows), np.where(ignored, 0, lab)]
    loss[ignored] = 0
    valid = rows - int(np.count_nonzero(ignored))
    return finish(logits, label, softmax2, loss, valid, moved_shape, axis, ignore_index, reduction)


# ---- the gradient: its own op, whose gradient is written with ops --------------------------------
def one_hot_along(label: np.ndarray, shape: tuple, axis: int, dtype) -> np.ndarray:
    """Zeros of `shape` with a 1 at each row's label along `axis`; no 1 in an out-of-range (ignored) row."""
    classes = shape[axis]
    lab = label.reshape(-1)
    moved = np.zeros(shape[:axis] + shape[axis + 1:] + (classes,), dtype)
    hits = np.flatnonzero((lab >= 0) & (lab < classes))
    moved.reshape(-1)[hits * classes + lab[hits]] = 1
    return moved if axis == len(shape) - 1 else np.moveaxis(moved, -1, axis)


def cross_entropy_grad_kernel(softmax, label, dloss, ignore_index=-100, axis=-1, reduction="mean"):
    """dlogits = (softmax - one_hot(label)) * coef, coef per row: dloss (over the mean's divisor),
    0 on ignored rows. One multiply over the softmax and one scattered subtract of coef."""
    axis %= softmax.ndim
    x2, lab, moved_shape = as_rows(softmax, label, axis)
    ignored = lab == ignore_index
    n_ignored = int(np.count_nonzero(ignored))
    coef = dloss.reshape(-1) if reduction == "none" else dloss[()] / grad_divisor(lab, ignore_index, reduction)
    if n_ignored:
        coef = np.where(ignored, softmax.dtype.type(0), coef)
    grad = x2 * (coef[:, None] if np.ndim(coef) else coef)
    rows = np.flatnonzero(~ignored) if n_ignored else np.arange(lab.size)
    grad[rows, lab[rows]] -= coef[rows] if np.ndim(coef) else coef
    grad = grad.reshape(moved_shape)
    return grad if axis == softmax.ndim - 1 else np.ascontiguousarray(np.moveaxis(grad, -1, axis))


def _row_mask(node, shape: tuple, axis: int) -> Tensor | None:
    """1.0 on rows whose label is not ignore_index, in keep_shape; None when no row is ignored."""
    kept = node.label._data != node.ignore_index
    return None if kept.all() else Tensor._wrap(kept.reshape(keep_shape(shape, axis)).astype(node.softmax._data.dtype))


def cross_entropy_grad_grad(node, ddx):
    """The grad op is linear in softmax and in dloss: d/dsoftmax = ddx * coef,
    d/ddloss = the reduction of (softmax - one_hot) * ddx over each row's classes."""
    softmax, dloss, reduction = node.softmax, node.dloss, node.reduction
    shape = tuple(softmax._data.shape)
    axis = node.axis % len(shape)
    keep = keep_shape(shape, axis)
    mask = _row_mask(node, shape, axis)
    label = node.label._data
    divisor = grad_divisor(label, node.ignore_index, reduction)
    coef = reshape(dloss, list(keep)) if reduction == "none" else scale(dloss, 1.0 / divisor)
    if mask is not None:
        coef = multiply(coef, mask)
    d_softmax = multiply(ddx, coef)

    onehot = Tensor._wrap(one_hot_along(np.where(label == node.ignore_index, -1, label), shape, axis,
                                        softmax._data.dtype))
    per_row = reduce_sum(multiply(subtract(softmax, onehot), ddx), axis=axis, keepdim=True)
    if mask is not None:
        per_row = multiply(per_row, mask)
    if reduction == "none":
        d_dloss = reshape(per_row, list(dloss._data.shape))
    else:
        d_dloss = scale(reduce_sum(per_row), 1.0 / divisor)
    return d_softmax, None, d_dloss


def cross_entropy_grad(node, dsoftmax, dloss):
    softmax = node.softmax
    attrs = {"ignore_index": node.ignore_index, "axis": node.axis, "reduction": node.reduction}
    grad = dispatch(CROSS_ENTROPY_GRAD, (softmax, node.label, dloss), attrs)
    if not (dsoftmax.stop_gradient and not dsoftmax._data.any()):  # the softmax output was used too
        grad = grad + softmax * (dsoftmax - reduce_sum(dsoftmax * softmax, axis=node.axis, keepdim=True))
    return grad, None


def cross_entropy_grad_meta(softmax, label, dloss, ignore_index=-100, axis=-1, reduction="mean"):
    return MetaTensor(tuple(softmax.shape), softmax.dtype)


CROSS_ENTROPY_WITH_SOFTMAX = register_op(
    OP, inputs=("logits", "label"), outputs=("softmax", "loss"), infer_meta=cross_entropy_meta,
    backward=cross_entropy_grad, save=("softmax", "label"), differentiable_inputs=(0,),
    attrs={"ignore_index": (int, -100), "axis": (int, -1), "reduction": (str, "mean")},
    doc="Fused softmax + cross-entropy with hard labels + reduction; outputs (softmax, loss).")
# float32, kernels called directly: 128x10 (the MLP's logits) numba 5.7 us, numpy 27 us; 128x1000
# numba 0.35 ms, numpy 0.34 ms (kernels/cpu/loss.py). numba is the default; the grad kernel likewise
# (128x10: numba 3.6 us, numpy ~15 us).
add_kernel(OP, "cpu", ("float32", "float64"), LazyKernel("minipaddle.framework.kernels.cpu.loss:cross_entropy_numba"),
           name="numba", priority=1)
add_kernel(OP, "cpu", ("float16", "float32", "float64"), cross_entropy_numpy, name="numpy")
CROSS_ENTROPY_GRAD = register_op(
    OP + "_grad", inputs=("softmax", "label", "dloss"), outputs=("logits_grad",), infer_meta=cross_entropy_grad_meta,
    backward=cross_entropy_grad_grad, save=("softmax", "label", "dloss"), differentiable_inputs=(0, 2),
    attrs={"ignore_index": (int, -100), "axis": (int, -1), "reduction": (str, "mean")},
    doc="The gradient of cross_entropy_with_softmax wrt its logits: (softmax - one_hot(label)) * dloss.")
add_kernel(OP + "_grad", "cpu", ("float16", "float32", "float64"), cross_entropy_grad_kernel, name="numpy")
add_kernel(OP + "_grad", "cpu", ("float32", "float64"),
           LazyKernel("minipaddle.framework.kernels.cpu.loss:cross_entropy_grad_numba"), name="numba", priority=1)


def cross_entropy_with_softmax(logits, label, ignore_index: int = -100, axis: int = -1,
                               reduction: str = "mean") -> tuple[Tensor, Tensor]:
    """(softmax, loss) of logits against hard int labels, reduced by `reduction`, in one op."""
    logits = as_tensor(OP, "logits", logits)
    label = as_tensor(OP, "label", label)
    axis = normalize_axis(OP, axis, logits._data.ndim)
    if isinstance(ignore_index, bool) or not isinstance(ignore_index, (int, np.integer)):
        raise invalid_argument(OP, f"ignore_index got {ignore_index!r}, expected an int.")
    return dispatch(CROSS_ENTROPY_WITH_SOFTMAX, (logits, label),
                    {"ignore_index": int(ignore_index), "axis": axis, "reduction": reduction})


# ---- bce_loss: binary cross-entropy on probabilities ------------------------------------------
BCE_EPS = 1e-12   # Paddle's floor on x * (1 - x) in the gradient
LOG_FLOOR = -100  # log(x) is clamped here (as Paddle and PyTorch do), so x = 0 or 1 gives a finite loss


def bce_loss_meta(x, label) -> MetaTensor:
    require_dtype("bce_loss", "input", x, "f", FLOAT_WHAT)
    if label.dtype != x.dtype:
        raise invalid_argument("bce_loss", f"label has dtype {label.dtype} but input has dtype {x.dtype}; "
                                           "expected the same.", hint="cast the label with .astype(input.dtype).")
    if tuple(label.shape) != tuple(x.shape):
        raise invalid_argument("bce_loss", f"label has shape {list(label.shape)}, expected input's shape "
                                           f"{list(x.shape)}.")
    return MetaTensor(tuple(x.shape), x.dtype)


def bce_loss_kernel(x, label):
    """-(label * log(x) + (1 - label) * log(1 - x)), each log clamped at -100, elementwise."""
    with np.errstate(divide="ignore"):
        log_x = np.maximum(np.log(x), LOG_FLOOR)
        log_1mx = np.maximum(np.log1p(-x), LOG_FLOOR)
    out = label * (log_1mx - log_x)
    out -= log_1mx
    return out


def bce_loss_grad(node, dout):
    from .activation import clip
    from .elementwise import log, maximum
    x, label = node.x, node.label
    dx = dout * (x - label) / maximum(x * (1.0 - x), BCE_EPS)
    dlabel = dout * (clip(log(1.0 - x), min=LOG_FLOOR) - clip(log(x), min=LOG_FLOOR))
    return dx, dlabel


BCE_LOSS = register_op("bce_loss", inputs=("x", "label"), infer_meta=bce_loss_meta, backward=bce_loss_grad,
                       save=("x", "label"), doc="Elementwise binary cross-entropy of probabilities x and label.")
add_kernel("bce_loss", "cpu", ("float16", "float32", "float64"), bce_loss_kernel, name="numpy")


def bce_loss(x, label) -> Tensor:
    """Elementwise -(label * log(x) + (1 - label) * log(1 - x)), logs clamped at -100 (no reduction)."""
    return dispatch(BCE_LOSS, (as_tensor("bce_loss", "input", x), as_tensor("bce_loss", "label", label)))


__all__ = ["cross_entropy_with_softmax", "bce_loss"]
