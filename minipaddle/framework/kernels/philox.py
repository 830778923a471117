"""Philox4x32-10, the counter-based generator behind dropout, written once as plain Python and
compiled for every device (Salmon et al., "Parallel Random Numbers: As Easy as 1, 2, 3", SC'11).

`philox4x32(counter, key)` scrambles a 128-bit counter under a 64-bit key through ten rounds of
multiply-and-xor into four random 32-bit words. Element group g of a draw uses counter g, so the
numbers depend only on (key, element index): the CPU's loop (kernels/cpu/philox_draws.py, numba
`njit`) and the GPU's kernels (kernels/cuda/random.py, `cuda.jit(device=True)`) compile these same
functions, and a draw under one key gives the same numbers on either device -- dropout masks
included. A learner can call them on numpy integers:

    >>> from numpy import uint64 as U
    >>> [hex(int(w)) for w in philox4x32(U(0), U(0), U(0), U(0), U(0), U(0))]   # Random123's known answer
    ['0x6627e8d5', '0xe169c58d', '0xbc57ac4c', '0x9b00dbd8']

Words travel as uint64 holding 32-bit values (numba widens integer arithmetic anyway); a 32x32 ->
64-bit product gives each round its high and low halves. A word becomes a float in [0, 1) through
its top 24 bits (exact in float32); float64 uniforms take 53 bits from two words. This module
imports no numba.
"""
from __future__ import annotations

import math

import numpy as np

# the round multipliers and the Weyl key increments (Random123)
PHILOX_M0 = np.uint64(0xD2511F53)
PHILOX_M1 = np.uint64(0xCD9E8D57)
PHILOX_W0 = np.uint64(0x9E3779B9)
PHILOX_W1 = np.uint64(0xBB67AE85)
LOW32 = np.uint64(0xFFFFFFFF)
SHIFT32 = np.uint64(32)
SHIFT8 = np.uint64(8)
SHIFT5 = np.uint64(5)
SHIFT6 = np.uint64(6)
TWO_POW_M24 = 1.0 / (1 << 24)
TWO_POW_M53 = 1.0 / (1 << 53)
TWO_POW_26 = float(1 << 26)
TWO_PI = 2.0 * math.pi


def philox4x32(c0, c1, c2, c3, k0, k1):
    """Ten Philox rounds on the counter (c0..c3) under the key (k0, k1): four random 32-bit words."""
    for _ in range(10):
        p0 = PHILOX_M0 * c0
        p1 = PHILOX_M1 * c2
        hi0, lo0 = p0 >> SHIFT32, p0 & LOW32
        hi1, lo1 = p1 >> SHIFT32, p1 & LOW32
        c0, c1, c2, c3 = hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0
        k0 = (k0 + PHILOX_W0) & LOW32
        k1 = (k1 + PHILOX_W1) & LOW32
    return c0, c1, c2, c3


def unit24(word):
    """A float in [0, 1) from the top 24 bits of a 32-bit word."""
    return (word >> SHIFT8) * TWO_POW_M24


def unit53(word_a, word_b):
    """A float64 in [0, 1) from 27 + 26 bits of two words."""
    return ((word_a >> SHIFT5) * TWO_POW_26 + (word_b >> SHIFT6)) * TWO_POW_M53


def box_muller(u1, u2):
    """Two independent standard normals from two uniforms in [0, 1) (1 - u1 is never 0)."""
    radius = math.sqrt(-2.0 * math.log(1.0 - u1))
    angle = TWO_PI * u2
    return radius * math.cos(angle), radius * math.sin(angle)
