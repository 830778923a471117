"""conv2d through a channels-last (NHWC) copy of the input: patches of whole channel vectors, one GEMM.

im2col on NCHW copies, for every (channel, tap), a row of OW values; on ResNet's small maps (8x8 and
less) those rows are a few elements long. Inside this kernel the input is laid out NHWC (one transposed,
padded copy), so a patch row is kh*kw runs of C contiguous values, and the product is
(N*OH*OW, kh*kw*C) @ (kh*kw*C, OC), written back as NCHW. The weight is transposed to (OC, kh, kw, C)
on every call (it changes every step).

It is an autotune candidate (`describe("conv2d")`), not the default: measured on the 2-core machine
(batch 32, 3x3, alternated medians against the batch-wide NCHW im2col the default runs on these maps),
it is 0.97x on 64->64 8x8, 0.93x on 64->128 stride 2, 0.90x on 128->128 4x4 -- the transposed copies
of the input and the weight cost what the longer runs save. Where BLAS or memory make it win, the
autotuner picks it.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .im2col import conv2d_im2col, conv_out_size

@njit(cache=True)
def channels_last_patches(padded, cols, kh, kw, sh, sw, dh, dw, oh, ow):
    """cols[(b, i, j), (di, dj, c)] = padded[b, i*sh + di*dh, j*sw + dj*dw, c] (padded: N, Hp, Wp, C)."""
    c = padded.shape[3]
    r = 0
    for b in range(padded.shape[0]):
        for i in range(oh):
            for j in range(ow):
                row = cols[r]
                k = 0
                for di in range(kh):
                    for dj in range(kw):
                        src = padded[b, i * sh + di * dh, j * sw + dj * dw]
                        for ch in range(c):
                            row[k + ch] = src[ch]
                        k += c
                r += 1


def conv2d_channels_last(x: np.ndarray, weight: np.ndarray, strides=(1, 1), paddings=(0, 0, 0, 0),
                         dilations=(1, 1), groups: int = 1) -> np.ndarray:
    """out (N, OC, OH, OW) = conv2d(x, weight), computed channels-last (grouped convs: batch-wide im2col)."""
    if groups != 1:
        return conv2d_im2col(x, weight, strides, paddings, dilations, groups)
    n, c, h, w = x.shape
    oc, _, kh, kw = weight.shape
    pt, pb, pl, pr = paddings
    oh = conv_out_size(h, kh, strides[0], pt, pb, dilations[0])
    ow = conv_out_size(w, kw, strides[1], pl, pr, dilations[1])
    padded = np.zeros((n, h + pt + pb, w + pl + pr, c), x.dtype)
    padded[:, pt:pt + h, pl:pl + w, :] = x.transpose(0, 2, 3, 1)
    cols = np.empty((n * oh * ow, kh * kw * c), x.dtype)
    channels_last_patches(padded, cols, kh, kw, strides[0], strides[1], dilations[0], dilations[1], oh, ow)
    w_rows = np.ascontiguousarray(weight.transpose(0, 2, 3, 1)).reshape(oc, kh * kw * c)
    out = cols @ w_rows.T  # (N*OH*OW, OC): BLAS reads the weight transposed, no copy
    return np.ascontiguousarray(out.reshape(n, oh, ow, oc).transpose(0, 3, 1, 2))
