"""linear on the GPU: x @ W + b as one call of the GPU matmul the registry chose, and one broadcasting add.

As on the CPU (framework/ops/nn_ops.py), the leading dims of x fold into rows, so a [batch, seq, in]
input is one matrix product, not one per batch entry. The kernel has the CPU kernel's signature and
takes and returns C-contiguous device arrays.
"""
from __future__ import annotations

import math


from . import elementwise as E
from .composed import chosen_matmul
from .strided import reshaped


def linear(x, weight, bias):
    """x [..., in] @ weight [in, out] + bias [out]."""
    shape = tuple(x.shape)
    rows = reshaped(x, (math.prod(shape[:-1]), shape[-1]))
    out = E.add(chosen_matmul(rows, weight), bias)
    return reshaped(out, shape[:-1] + (int(weight.shape[1]),))
