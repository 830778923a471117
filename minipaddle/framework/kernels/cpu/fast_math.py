"""Scalar math the fusion pass's generated loops call in place of libm (kernels/cpu/fused.py copies
these functions' source into each generated kernel module, so they must stay self-contained).

numba calls libm one element at a time for math.tanh / math.exp / math.erf (no SVML), so a fused
loop using them is slower than numpy. Written as clamps, polynomials and one division (tanh, erf:
Eigen's float rational approximations, |error| < 4e-7) or as a short series and squarings (exp),
the loop vectorizes: 65536 float32, generated loop vs numpy: tanh 32 vs 350 us, exp 106 vs 670 us.
And `x ** c` with a literal c: numba calls libm pow per element; POW_LITERALS are a multiply or a sqrt.
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

def tanh_f32(x):
    x = min(max(x, np.float32(-7.90531110763549805)), np.float32(7.90531110763549805))
    x2 = x * x
    p = np.float32(-2.76076847742355e-16)
    p = p * x2 + np.float32(2.00018790482477e-13)
    p = p * x2 + np.float32(-8.60467152213735e-11)
    p = p * x2 + np.float32(5.12229709037114e-08)
    p = p * x2 + np.float32(1.48572235717979e-05)
    p = p * x2 + np.float32(6.37261928875436e-04)
    p = p * x2 + np.float32(4.89352455891786e-03)
    q = np.float32(1.19825839466702e-06)
    q = q * x2 + np.float32(1.18534705686654e-04)
    q = q * x2 + np.float32(2.26843463243900e-03)
    q = q * x2 + np.float32(4.89352518554385e-03)
    return x * p / q


def erf_f32(x):
    x = min(max(x, np.float32(-4.0)), np.float32(4.0))
    x2 = x * x
    p = np.float32(-2.72614225801306e-10)
    p = p * x2 + np.float32(2.77068142495902e-08)
    p = p * x2 + np.float32(-2.10102402082508e-06)
    p = p * x2 + np.float32(-5.69250639462346e-05)
    p = p * x2 + np.float32(-7.34990630326855e-04)
    p = p * x2 + np.float32(-2.95459980854025e-03)
    p = p * x2 + np.float32(-1.60960333262415e-02)
    q = np.float32(-1.45660718464996e-05)
    q = q * x2 + np.float32(-2.13374055278905e-04)
    q = q * x2 + np.float32(-1.68282697438203e-03)
    q = q * x2 + np.float32(-7.37332916720468e-03)
    q = q * x2 + np.float32(-1.42647390514189e-02)
    return x * p / q


def exp_f32(x):
    # exp(x) = exp(x / 1024) ** 1024: a Taylor series in float64, then ten squarings (relative error < 1e-7)
    r = np.float64(x) * 0.0009765625
    y = 1.0 + r * (1.0 + r * (0.5 + r * (1.0 / 6 + r * (1.0 / 24 + r * (1.0 / 120 + r * (1.0 / 720 + r / 5040))))))
    for _ in range(10):
        y = y * y
    return np.float32(y)


def tanh_fast(x):
    return tanh_f32(x)


def erf_fast(x):
    return erf_f32(x)


def exp_fast(x):
    return exp_f32(x)


def sigmoid_fast(x):
    return np.float32(1.0) / (np.float32(1.0) + exp_f32(-x))


def silu_fast(x):
    return x / (np.float32(1.0) + exp_f32(-x))


def gelu_fast(x):
    return np.float32(0.5) * x * (np.float32(1.0) + erf_f32(x * np.float32(0.7071067811865476)))


def gelu_tanh_fast(x):
    inner = np.float32(0.7978845608028654) * (x + np.float32(0.044715) * x * x * x)
    return np.float32(0.5) * x * (np.float32(1.0) + tanh_f32(inner))


def tanhshrink_fast(x):
    return x - tanh_f32(x)


HELPERS = {fn.__name__: fn for fn in (tanh_f32, erf_f32, exp_f32)}
FAST_F32: dict[str, Callable] = {"tanh": tanh_fast, "erf": erf_fast, "exp": exp_fast, "sigmoid": sigmoid_fast,
                                 "silu": silu_fast, "gelu": gelu_fast, "gelu_tanh": gelu_tanh_fast,
                                 "tanhshrink": tanhshrink_fast}


def pow_1(x, y):
    return x


def pow_2(x, y):
    return x * x


def pow_3(x, y):
    return x * x * x


def pow_half(x, y):
    return math.sqrt(x)


def pow_minus_1(x, y):
    return 1.0 / x


POW_LITERALS = {1.0: pow_1, 2.0: pow_2, 3.0: pow_3, 0.5: pow_half, -1.0: pow_minus_1}
