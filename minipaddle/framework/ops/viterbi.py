"""viterbi_decode: the best tag sequence of a linear-chain CRF (paddle.text.viterbi_decode).

For each sequence, with emission scores potentials[t, tag] and transition scores trans[from, to]:

    alpha[0]      = potentials[0] (+ trans[-1, :], the start tag's row, with include_bos_eos_tag)
    alpha[t]      = max over prev of (alpha[t-1][prev] + trans[prev, :]) + potentials[t]
    score         = max of alpha[last] (+ trans[-2, :], the stop tag's row, added at the last step)

and the path is recovered backwards from the argmaxes. Sequences are padded to the longest; past a
sequence's end its path holds 0 and its alpha stops changing. No gradient (decoding is a max).
"""
from __future__ import annotations

import numpy as np

from ..dispatch import dispatch
from ..errors import invalid_argument
from ..registry import add_kernel, new_meta, register_op
from ..tensor import Tensor

__all__ = ["viterbi_decode"]


def viterbi_decode_meta(potentials, transition_params, lengths, include_bos_eos_tag=True):
    op = "viterbi_decode"
    if len(potentials.shape) != 3 or potentials.dtype.kind != "f":
        raise invalid_argument(op, f"potentials must be a float tensor [batch_size, sequence_length, num_tags], got "
                                   f"shape {list(potentials.shape)} and dtype {potentials.dtype}.")
    b, t, n = potentials.shape
    if tuple(transition_params.shape) not in ((n, n), (-1, -1)) or transition_params.dtype != potentials.dtype:
        raise invalid_argument(op, f"transition_params has shape {list(transition_params.shape)} and dtype "
                                   f"{transition_params.dtype}, expected [{n}, {n}] (num_tags x num_tags) of "
                                   f"{potentials.dtype}.")
    if tuple(lengths.shape) not in ((b,), (-1,)) or lengths.dtype.kind not in "iu":
        raise invalid_argument(op, f"lengths must be a 1-D int tensor of batch_size ({b}) lengths, got shape "
                                   f"{list(lengths.shape)} and dtype {lengths.dtype}.")
    if include_bos_eos_tag and n != -1 and n < 2:
        raise invalid_argument(op, f"include_bos_eos_tag needs the start and stop tags among num_tags, got {n} tags.")
    return new_meta((b,), potentials.dtype), new_meta((b, -1), np.dtype("int64"))


def viterbi_decode_kernel(potentials, transition_params, lengths, include_bos_eos_tag=True):
    batch, steps, _ = potentials.shape
    lengths = lengths.astype(np.int64)
    if batch and (lengths.min() < 1 or lengths.max() > steps):
        raise invalid_argument("viterbi_decode", f"lengths {lengths.tolist()} must lie in [1, {steps}] (the "
                                                 "sequence_length of potentials).")
    longest = int(lengths.max()) if batch else 0
    trans = transition_params.astype(np.float64)
    start, stop = (trans[-1, :], trans[-2, :]) if include_bos_eos_tag else (0.0, 0.0)
    alpha = potentials[:, 0].astype(np.float64) + start + stop * (lengths == 1)[:, None]
    left = lengths - 1
    history = []
    for t in range(1, longest):
        candidates = alpha[:, :, None] + trans[None]          # [batch, from, to]
        history.append(candidates.argmax(axis=1))
        alpha = np.where((left > 0)[:, None], candidates.max(axis=1) + potentials[:, t], alpha)
        alpha = alpha + stop * (left == 1)[:, None]
        left = left - 1
    path = np.zeros((batch, longest), np.int64)
    best = alpha.argmax(axis=1)
    for b in range(batch):
        tag = best[b]
        path[b, lengths[b] - 1] = tag
        for t in range(lengths[b] - 1, 0, -1):
            tag = history[t - 1][b, tag]
            path[b, t - 1] = tag
    return alpha.max(axis=1).astype(potentials.dtype), path


VITERBI_DECODE = register_op("viterbi_decode", inputs=("potentials", "transition_params", "lengths"),
                             outputs=("scores", "path"), infer_meta=viterbi_decode_meta,
                             attrs={"include_bos_eos_tag": (bool, True)})
add_kernel("viterbi_decode", "cpu", ("float32", "float64"), viterbi_decode_kernel, name="numpy")


def viterbi_decode(potentials: Tensor, transition_params: Tensor, lengths: Tensor,
                   include_bos_eos_tag: bool) -> tuple[Tensor, Tensor]:
    return dispatch(VITERBI_DECODE, (potentials, transition_params, lengths),
                    {"include_bos_eos_tag": include_bos_eos_tag})
