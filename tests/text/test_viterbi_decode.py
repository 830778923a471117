"""viterbi_decode: the best path against brute force over every tag sequence, padding, start/stop tags, errors.
Paddle's own answers are in tests/compat/cases_datasets.py (viterbi_decode)."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument

RNG = np.random.default_rng(2)


def brute_force(potentials: np.ndarray, trans: np.ndarray, include: bool) -> tuple[float, list]:
    best, best_path = -np.inf, None
    steps, tags = potentials.shape
    for path in itertools.product(range(tags), repeat=steps):
        score = sum(potentials[t, tag] for t, tag in enumerate(path))
        score += sum(trans[a, b] for a, b in zip(path, path[1:]))
        if include:
            score += trans[-1, path[0]] + trans[-2, path[-1]]
        if score > best:
            best, best_path = score, list(path)
    return best, best_path


@pytest.mark.parametrize("include", [False, True])
def test_the_path_is_the_best_of_all_tag_sequences(include):
    potentials = RNG.standard_normal((3, 4, 4))
    trans = RNG.standard_normal((4, 4))
    lengths = np.array([4, 2, 3])
    scores, path = paddle.text.viterbi_decode(paddle.to_tensor(potentials), paddle.to_tensor(trans),
                                              paddle.to_tensor(lengths), include)
    assert path.shape == [3, 4] and path.dtype == paddle.int64
    for b, length in enumerate(lengths):
        want_score, want_path = brute_force(potentials[b, :length], trans, include)
        assert float(scores[b]) == pytest.approx(want_score, rel=1e-12)
        assert path.numpy()[b, :length].tolist() == want_path
        assert not path.numpy()[b, length:].any()          # padded with 0 past the sequence's end


def test_decoder_layer_and_errors():
    trans = paddle.rand([3, 3])
    decoder = paddle.text.ViterbiDecoder(trans, include_bos_eos_tag=False)
    scores, path = decoder(paddle.rand([2, 5, 3]), paddle.to_tensor([2, 3]))
    assert scores.shape == [2] and path.shape == [2, 3]
    with pytest.raises(InvalidArgument, match=r"transition_params has shape \[4, 4\]"):
        paddle.text.viterbi_decode(paddle.rand([2, 5, 3]), paddle.rand([4, 4]), paddle.to_tensor([2, 3]))
    with pytest.raises(InvalidArgument, match=r"lengths \[0, 3\] must lie in \[1, 5\]"):
        paddle.text.viterbi_decode(paddle.rand([2, 5, 3]), trans, paddle.to_tensor([0, 3]))
    with pytest.raises(InvalidArgument, match="lengths must be a 1-D int tensor of batch_size"):
        paddle.text.viterbi_decode(paddle.rand([2, 5, 3]), trans, paddle.to_tensor([1.0, 3.0]))
