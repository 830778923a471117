"""conv2d on the GPU as a direct kernel: one thread per output element, summing its window.

The other candidate beside conv.py's im2col + matmul (the default), as the CPU keeps
kernels/cpu/conv_direct.py beside its im2col kernels. It needs no column buffer (the im2col
candidate's cols take C*kh*kw times the output's memory) and reads x through the cache, so for
depthwise and other grouped convolutions with few channels per group, or when memory is short, it
can win; for a wide layer the matmul's reuse of every loaded value wins. The autotuner times both
on the real shapes (`paddle.incubate.autotune`).

    out[n, o, y, x] = sum over c in o's group, i < kh, j < kw of
                      w[o, c, i, j] * x[n, g*C/G + c, y*sh - pt + i*dh, x*sw - pl + j*dw]
"""
from __future__ import annotations

from numba import cuda

from .conv import _out_size
from .launch import THREADS, blocks_for, flat, launch


@cuda.jit(cache=True)
def _conv2d_direct(x, w, out, channels, height, width, oc, cg, kh, kw, sh, sw, pt, pl, dh, dw, oh, ow, groups, zero):
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        xo = i % ow
        yo = (i // ow) % oh
        o = (i // (ow * oh)) % oc
        n = i // (ow * oh * oc)
        first = (o // (oc // groups)) * cg   # the group's first input channel
        total = zero
        for c in range(cg):
            base = (n * channels + first + c) * height
            wbase = (o * cg + c) * kh
            for k in range(kh):
                h = yo * sh - pt + k * dh
                if h < 0 or h >= height:
                    continue
                for j in range(kw):
                    col = xo * sw - pl + j * dw
                    if 0 <= col < width:
                        total += w[(wbase + k) * kw + j] * x[(base + h) * width + col]
        out[i] = total


def conv2d(x, weight, strides=(1, 1), paddings=(0, 0, 0, 0), dilations=(1, 1), groups=1):
    """out (N, OC, OH, OW) = weight (OC, C/G, kh, kw) convolved with x (N, C, H, W): conv.conv2d's signature."""
    n, c, h, w = (int(s) for s in x.shape)
    oc, cg, kh, kw = (int(s) for s in weight.shape)
    oh = _out_size(h, kh, strides[0], paddings[0], paddings[1], dilations[0])
    ow = _out_size(w, kw, strides[1], paddings[2], paddings[3], dilations[1])
    out = cuda.device_array((n, oc, oh, ow), x.dtype)
    if out.size:
        launch(_conv2d_direct, blocks_for(out.size), THREADS, flat(x, x.size), flat(weight, weight.size),
               flat(out, out.size), c, h, w, oc, cg, kh, kw, int(strides[0]), int(strides[1]), int(paddings[0]),
               int(paddings[2]), int(dilations[0]), int(dilations[1]), oh, ow, int(groups), x.dtype.type(0))
    return out
