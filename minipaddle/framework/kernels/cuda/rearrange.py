"""Ops that only move elements, and binary cross-entropy, on the GPU, as calls of other GPU kernels.

pixel_shuffle, pixel_unshuffle and channel_shuffle are "reshape, transpose, reshape" on the CPU
(ops/patches.py); here the reshapes are views of the C-contiguous device array and the transpose is
one permute kernel. bce_loss is one elementwise kernel compiled from its scalar formula.
"""
from __future__ import annotations

import math

from ...ops.loss import LOG_FLOOR
from .elementwise import FLOATS, CudaElementwiseKernel
from .reduction import permute
from .strided import reshaped


def _shuffled(x, blocks: tuple, order: tuple, shape: tuple):
    return reshaped(permute(reshaped(x, blocks), order), shape)


def pixel_shuffle(x, upscale_factor=1, data_format="NCHW"):
    r = upscale_factor
    if data_format == "NCHW":
        n, c, h, w = x.shape
        return _shuffled(x, (n, c // (r * r), r, r, h, w), (0, 1, 4, 2, 5, 3), (n, c // (r * r), h * r, w * r))
    n, h, w, c = x.shape
    return _shuffled(x, (n, h, w, c // (r * r), r, r), (0, 1, 4, 2, 5, 3), (n, h * r, w * r, c // (r * r)))


def pixel_unshuffle(x, downscale_factor=1, data_format="NCHW"):
    r = downscale_factor
    if data_format == "NCHW":
        n, c, h, w = x.shape
        return _shuffled(x, (n, c, h // r, r, w // r, r), (0, 1, 3, 5, 2, 4), (n, c * r * r, h // r, w // r))
    n, h, w, c = x.shape
    return _shuffled(x, (n, h // r, r, w // r, r, c), (0, 1, 3, 5, 2, 4), (n, h // r, w // r, c * r * r))


def channel_shuffle(x, groups=1, data_format="NCHW"):
    if data_format == "NCHW":
        n, c, h, w = x.shape
        return _shuffled(x, (n, groups, c // groups, h, w), (0, 2, 1, 3, 4), (n, c, h, w))
    n, h, w, c = x.shape
    return _shuffled(x, (n, h, w, groups, c // groups), (0, 1, 2, 4, 3), (n, h, w, c))


def bce(x, label):
    """-(label * log(x) + (1 - label) * log(1 - x)), each log clamped at LOG_FLOOR (-100) as on the CPU."""
    log_x = max(math.log(x), LOG_FLOOR) if x > 0 else LOG_FLOOR
    log_1mx = max(math.log1p(-x), LOG_FLOOR) if x < 1 else LOG_FLOOR
    return label * (log_1mx - log_x) - log_1mx


bce_loss = CudaElementwiseKernel(bce, FLOATS)
