"""Philox4x32-10 on the CPU (kernels/philox.py compiled by njit) and the dropout family drawing from it.

The GPU compiles the same functions (tests/device/cuda/test_random.py checks the known answers there
and that both devices drop the same units under one seed)."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework.kernels import philox
from minipaddle.framework.kernels.cpu import philox_draws

U = np.uint64
KNOWN_ANSWERS = [  # Random123's kat_vectors for philox4x32-10
    ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
     (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
]


@pytest.mark.parametrize("counter, key, expected", KNOWN_ANSWERS)
def test_philox_matches_the_random123_known_answers_in_python_and_compiled(counter, key, expected):
    args = [U(c) for c in counter] + [U(k) for k in key]
    assert tuple(int(w) for w in philox.philox4x32(*args)) == expected
    assert tuple(int(w) for w in philox_draws._philox4x32(*args)) == expected


def test_uniforms_are_the_top_24_bits_of_each_word_in_group_order():
    u = philox_draws.uniforms24(7, U(3), U(9))
    words = list(philox.philox4x32(U(0), U(0), U(0), U(0), U(3), U(9))) + \
        list(philox.philox4x32(U(1), U(0), U(0), U(0), U(3), U(9)))[:3]
    np.testing.assert_array_equal(u, [(int(w) >> 8) / 2**24 for w in words])
    assert philox_draws.uniforms24(0, U(1), U(1)).shape == (0,)
    many = philox_draws.uniforms24(100_000, U(5), U(6))
    assert 0 <= many.min() and many.max() < 1 and abs(many.mean() - 0.5) < 0.01


def test_dropout_keeps_where_the_seeded_philox_uniform_is_at_least_p():
    x = paddle.ones([4, 5])
    paddle.seed(123)
    out = paddle.nn.functional.dropout(x, p=0.3)
    paddle.seed(123)
    expected = philox_draws.uniforms_like((4, 5)) >= np.float32(0.3)
    np.testing.assert_array_equal(out.numpy() != 0, expected)
    np.testing.assert_allclose(out.numpy()[expected], 1 / 0.7, rtol=1e-6)
    paddle.seed(123)
    np.testing.assert_array_equal(paddle.nn.functional.dropout(x, p=0.3).numpy(), out.numpy())
