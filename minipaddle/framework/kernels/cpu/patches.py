"""unfold / fold kernels: conv2d's im2col and col2im loops (kernels/cpu/im2col.py), laid out per image.

im2col fills one (C*kh*kw, N*L) matrix for the whole batch; unfold wants [N, C*kh*kw, L], so the
columns are regrouped by image. Paddings come in unfold's (top, left, bottom, right) order.
"""
from __future__ import annotations

import numpy as np

from .im2col import col2im, conv_out_size, im2col


def _window_counts(hw, kernel_sizes, strides, paddings, dilations) -> tuple[int, int]:
    oh = conv_out_size(hw[0], kernel_sizes[0], strides[0], paddings[0], paddings[2], dilations[0])
    ow = conv_out_size(hw[1], kernel_sizes[1], strides[1], paddings[1], paddings[3], dilations[1])
    return oh, ow


def unfold_im2col(x: np.ndarray, kernel_sizes=(1, 1), strides=(1, 1), paddings=(0, 0, 0, 0),
                  dilations=(1, 1)) -> np.ndarray:
    """x [N, C, H, W] -> [N, C*kh*kw, OH*OW]: every window as a column."""
    n, c, h, w = x.shape
    kh, kw = kernel_sizes
    oh, ow = _window_counts((h, w), kernel_sizes, strides, paddings, dilations)
    cols = np.empty((c * kh * kw, n * oh * ow), x.dtype)
    im2col(np.ascontiguousarray(x), cols, kh, kw, strides[0], strides[1], paddings[0], paddings[1],
           dilations[0], dilations[1], oh, ow)
    return np.ascontiguousarray(cols.reshape(c * kh * kw, n, oh * ow).transpose(1, 0, 2))


def fold_col2im(x: np.ndarray, output_sizes=(1, 1), kernel_sizes=(1, 1), strides=(1, 1), paddings=(0, 0, 0, 0),
                dilations=(1, 1)) -> np.ndarray:
    """x [N, C*kh*kw, L] -> [N, C, *output_sizes]: every column added back onto its window."""
    n, rows, length = x.shape
    kh, kw = kernel_sizes
    oh, ow = _window_counts(output_sizes, kernel_sizes, strides, paddings, dilations)
    cols = np.ascontiguousarray(x.transpose(1, 0, 2)).reshape(rows, n * length)
    out = np.zeros((n, rows // (kh * kw)) + tuple(output_sizes), x.dtype)
    col2im(cols, out, kh, kw, strides[0], strides[1], paddings[0], paddings[1], dilations[0], dilations[1], oh, ow)
    return out
