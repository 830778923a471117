"""warpctc: the Connectionist Temporal Classification loss (Graves et al. 2006), as Paddle's warpctc op.

For each sequence n, the logits [T, C] are softmaxed over classes; the loss is -log of the total
probability of every alignment (a path of T classes, blanks allowed) that collapses to the label
(repeats merged, then blanks removed). The sum over paths is a dynamic programme over the label
with blanks between and around its symbols (l' = blank, l1, blank, l2, ..., blank; S' = 2L + 1):

    alpha[t, s] = (alpha[t-1, s] + alpha[t-1, s-1] [+ alpha[t-1, s-2] if l'_s != blank and l'_s != l'_{s-2}])
                  * y[t, l'_s]
    loss        = -log(alpha[T-1, S'-1] + alpha[T-1, S'-2])

computed in log space; beta is the same recursion run backwards. The kernel also returns the
gradient of the loss with respect to the logits, softmax - posterior of each class, as Paddle's op
does (its WarpCTCGrad output); the backward rule scales it by the incoming gradient. With
norm_by_times the gradient (not the loss) is divided by the sequence's length, as in Paddle. There
is no double gradient (nor is there in Paddle).
"""
from __future__ import annotations

import numpy as np

from ..dispatch import dispatch
from ..errors import invalid_argument
from ..registry import add_kernel, new_meta, register_op
from ..tensor import Tensor

CTC_FLOATS = ("float32", "float64")


def warpctc_meta(logits, label, logits_length, label_length, blank=0, norm_by_times=False):
    op = "warpctc"
    if len(logits.shape) != 3:
        raise invalid_argument(op, f"log_probs must be 3-D [max_logit_length, batch_size, num_classes + 1], got "
                                   f"shape {list(logits.shape)}.")
    if logits.dtype.kind != "f":
        raise invalid_argument(op, f"log_probs has dtype {logits.dtype}, expected float32 or float64.")
    t, n, c = logits.shape
    if len(label.shape) != 2 or label.dtype.kind not in "iu":
        raise invalid_argument(op, f"labels must be a 2-D int tensor [batch_size, max_label_length], got shape "
                                   f"{list(label.shape)} and dtype {label.dtype}.")
    for name, lengths in (("input_lengths", logits_length), ("label_lengths", label_length)):
        if tuple(lengths.shape) not in ((n,), (-1,)) or lengths.dtype.kind not in "iu":
            raise invalid_argument(op, f"{name} must be a 1-D int tensor of batch_size ({n}) lengths, got shape "
                                       f"{list(lengths.shape)} and dtype {lengths.dtype}.")
    if -1 not in (n, label.shape[0]) and label.shape[0] != n:
        raise invalid_argument(op, f"labels hold {label.shape[0]} sequences but log_probs {n}.")
    if not isinstance(blank, int) or (c != -1 and not 0 <= blank < c):
        raise invalid_argument(op, f"blank got {blank!r}, expected a class index in [0, {c}).")
    return new_meta((n, 1), logits.dtype), new_meta((t, n, c), logits.dtype)


def _log_softmax(x: np.ndarray) -> np.ndarray:
    shifted = x - x.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def _logsumexp(*arrays: np.ndarray) -> np.ndarray:
    stacked = np.stack(arrays)
    top = stacked.max(axis=0)
    safe = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return np.log(np.exp(stacked - safe).sum(axis=0)) + safe


def _shift(a: np.ndarray, k: int) -> np.ndarray:
    """a moved k places right (k > 0) or left (k < 0), -inf where nothing moved in."""
    out = np.full_like(a, -np.inf)
    if abs(k) < a.size:
        if k > 0:
            out[k:] = a[:-k]
        else:
            out[:k] = a[-k:]
    return out


def ctc_one(logp: np.ndarray, target: np.ndarray, blank: int) -> tuple[float, np.ndarray]:
    """(loss, d loss / d logits) of one sequence: logp [T, C] log-softmaxed, target [L] class ids."""
    steps, classes = logp.shape
    ext = np.full(2 * len(target) + 1, blank, dtype=np.int64)
    ext[1::2] = target
    width = ext.size
    # s-2 -> s is allowed onto a symbol that differs from the symbol two back
    skip = np.zeros(width, bool)
    skip[2:] = (ext[2:] != blank) & (ext[2:] != ext[:-2])
    neg_inf = -np.inf
    alpha = np.full((steps, width), neg_inf)
    alpha[0, 0] = logp[0, ext[0]]
    if width > 1:
        alpha[0, 1] = logp[0, ext[1]]
    for t in range(1, steps):
        prev = alpha[t - 1]
        one = _shift(prev, 1)
        two = np.where(skip, _shift(prev, 2), neg_inf)
        alpha[t] = _logsumexp(prev, one, two) + logp[t, ext]
    beta = np.full((steps, width), neg_inf)
    beta[-1, -1] = logp[-1, ext[-1]]
    if width > 1:
        beta[-1, -2] = logp[-1, ext[-2]]
    skip_next = np.zeros(width, bool)                        # s -> s+2 is allowed when skip[s+2]
    skip_next[:-2] = skip[2:]
    for t in range(steps - 2, -1, -1):
        nxt = beta[t + 1]
        one = _shift(nxt, -1)
        two = np.where(skip_next, _shift(nxt, -2), neg_inf)
        beta[t] = _logsumexp(nxt, one, two) + logp[t, ext]
    log_total = _logsumexp(alpha[-1, -1:], alpha[-1, -2:-1] if width > 1 else np.array([neg_inf]))[0]
    if not np.isfinite(log_total):          # no alignment fits in T steps
        return np.inf, np.zeros_like(logp)
    with np.errstate(invalid="ignore"):
        posterior = np.exp(alpha + beta - logp[:, ext] - log_total)   # [T, S'], finite or 0
    posterior = np.nan_to_num(posterior)
    occupancy = np.zeros((steps, classes))
    for s in range(width):
        occupancy[:, ext[s]] += posterior[:, s]
    return -log_total, np.exp(logp) - occupancy


def warpctc_kernel(logits, label, logits_length, label_length, blank=0, norm_by_times=False):
    steps, batch, classes = logits.shape
    loss = np.zeros((batch, 1), logits.dtype)
    grad = np.zeros_like(logits)
    for n in range(batch):
        t_n, l_n = int(logits_length[n]), int(label_length[n])
        if not 0 < t_n <= steps or not 0 <= l_n <= label.shape[1]:
            raise invalid_argument("warpctc", f"sequence {n} has input length {t_n} and label length {l_n}; expected "
                                              f"0 < input length <= {steps} and 0 <= label length <= "
                                              f"{label.shape[1]}.")
        logp = _log_softmax(logits[:t_n, n].astype(np.float64))
        value, g = ctc_one(logp, label[n, :l_n].astype(np.int64), blank)
        loss[n, 0] = value
        grad[:t_n, n] = g / t_n if norm_by_times else g
    return loss, grad


def warpctc_backward(node, dloss, dgrad=None):
    """d loss / d logits was computed with the loss; scale it by each sequence's incoming gradient."""
    from .manipulation import reshape
    return reshape(dloss, [1, -1, 1]) * node.warpctc_grad


WARPCTC = register_op("warpctc", inputs=("logits", "label", "logits_length", "label_length"),
                      outputs=("loss", "warpctc_grad"), infer_meta=warpctc_meta, backward=warpctc_backward,
                      save=("warpctc_grad",), differentiable_inputs=(0,),
                      attrs={"blank": (int, 0), "norm_by_times": (bool, False)})
add_kernel("warpctc", "cpu", CTC_FLOATS, warpctc_kernel, name="numpy")


def warpctc(logits: Tensor, label: Tensor, logits_length: Tensor, label_length: Tensor, blank: int,
            norm_by_times: bool) -> Tensor:
    """The loss [N, 1] (the gradient output stays inside the graph)."""
    loss, _ = dispatch(WARPCTC, (logits, label, logits_length, label_length),
                       {"blank": blank, "norm_by_times": norm_by_times})
    return loss


__all__ = ["warpctc"]
