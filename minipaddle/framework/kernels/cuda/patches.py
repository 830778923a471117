"""unfold and fold on the GPU: conv2d's im2col and col2im (kernels/cuda/conv.py) as ops of their own.

unfold is im2col itself, and fold is col2im (every column added back onto its window, atomically
where windows overlap), so both run the CUDA kernels conv2d runs:

    unfold  x [N, C, H, W]        -> out [N, C*kh*kw, OH*OW]
    fold    x [N, C*kh*kw, OH*OW] -> out [N, C, *output_sizes]

The one difference is the order of the paddings: unfold/fold take Paddle's (top, left, bottom,
right), conv2d's helpers (top, bottom, left, right).
"""
from __future__ import annotations

from .conv import col2im, im2col


def _conv_paddings(paddings) -> tuple:
    """(top, left, bottom, right) -> conv2d's (top, bottom, left, right)."""
    top, left, bottom, right = (int(p) for p in paddings)
    return top, bottom, left, right


def unfold(x, kernel_sizes=(1, 1), strides=(1, 1), paddings=(0, 0, 0, 0), dilations=(1, 1)):
    """x [N, C, H, W] -> [N, C*kh*kw, OH*OW]: every kh x kw window as a column."""
    kh, kw = (int(k) for k in kernel_sizes)
    cols, _, _ = im2col(x, kh, kw, strides, _conv_paddings(paddings), dilations)
    return cols


def fold(x, output_sizes=(1, 1), kernel_sizes=(1, 1), strides=(1, 1), paddings=(0, 0, 0, 0), dilations=(1, 1)):
    """x [N, C*kh*kw, L] -> [N, C, *output_sizes]: every column added back onto its window."""
    n, rows, _ = (int(s) for s in x.shape)
    kh, kw = (int(k) for k in kernel_sizes)
    height, width = (int(s) for s in output_sizes)
    conv_paddings = _conv_paddings(paddings)
    oh = (height + conv_paddings[0] + conv_paddings[1] - (int(dilations[0]) * (kh - 1) + 1)) // int(strides[0]) + 1
    ow = (width + conv_paddings[2] + conv_paddings[3] - (int(dilations[1]) * (kw - 1) + 1)) // int(strides[1]) + 1
    return col2im(x, (n, rows // (kh * kw), height, width), kh, kw, strides, conv_paddings, dilations, oh, ow)
