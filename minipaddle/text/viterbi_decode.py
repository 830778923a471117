"""paddle.text.viterbi_decode and ViterbiDecoder: the best tag path of a CRF (framework/ops/viterbi.py)."""
from __future__ import annotations

from ..framework.errors import invalid_type
from ..framework.ops.common import as_tensor
from ..framework.ops.viterbi import viterbi_decode as _viterbi_decode
from ..nn import Layer

__all__ = ["viterbi_decode", "ViterbiDecoder"]


def viterbi_decode(potentials, transition_params, lengths, include_bos_eos_tag: bool = True, name=None):
    """(scores [batch_size], path [batch_size, max(lengths)] int64) of the highest scoring tag sequences.

    With include_bos_eos_tag, the last row of transition_params scores leaving the start tag and the
    second to last row entering the stop tag, as in Paddle.
    """
    op = "viterbi_decode"
    if not isinstance(include_bos_eos_tag, bool):
        raise invalid_type(op, f"include_bos_eos_tag must be a bool, got {type(include_bos_eos_tag).__name__}.")
    return _viterbi_decode(as_tensor(op, "potentials", potentials), as_tensor(op, "transition_params",
                                                                                transition_params),
                           as_tensor(op, "lengths", lengths), include_bos_eos_tag)


class ViterbiDecoder(Layer):
    """viterbi_decode with fixed transitions: forward(potentials, lengths) -> (scores, path)."""

    def __init__(self, transitions, include_bos_eos_tag: bool = True, name=None) -> None:
        super().__init__()
        self.transitions = transitions
        self.include_bos_eos_tag = include_bos_eos_tag
        self.name = name

    def forward(self, potentials, lengths):
        return viterbi_decode(potentials, self.transitions, lengths, self.include_bos_eos_tag)
