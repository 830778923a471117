"""Convolution on the CPU as direct numba loops: the autotuner's alternative to im2col + BLAS.

The im2col kernels (im2col.py) copy every window into a big matrix and hand one GEMM to BLAS.
That copy is C*kh*kw times the input, and the GEMM is thin when there are few channels (LeNet's
first layer: a (6, 9) x (9, N*784) product). The direct kernels skip the copy and loop over the
definition itself, one output plane at a time:

    out[n, o, y, x] = sum over (c, i, j) of w[o, c, i, j] * xp[n, g*C/G + c, y*sh + i*dh, x*sw + j*dw]

where xp is x with its zero padding written out (padded once, so the loops need no bounds tests)
and g = o // (OC/G) is o's group.

The "wide rows" trick (stride 1, the common case). Give the output plane the padded input's row
width Wp instead of OW; its last Wp - OW columns are junk, cropped at the end. Then output element
k of the flat plane reads input element k + i*dh*Wp + j*dw, for every k at once, and each weight tap
is one long contiguous loop over the whole plane,

    out_flat[k] += w[o, c, i, j] * xp_flat[i*dh*Wp + j*dw + k]      k = 0 .. OH*Wp - (kw-1)*dw

which LLVM turns into SIMD code (the flat indexes are unsigned: a signed index makes numba test
"negative? wrap around" on every access, which stops vectorizing; see im2col.py). The forward loop
feeds four output channels from each input load. Strided convolutions take plain loops over rows.

The other two faces of the linear map (see framework/ops/conv.py) are written the same way:

    conv2d_transpose    scatter each input value times the tap back onto the padded output plane,
                        one (n, output channel) plane at a time, then crop the padding off
    conv2d_grad_filter  dw[o, c, i, j] = sum over (n, k) of dout_wide[n, o, k] * xp[n, c', k + offset]:
                        a dot product per tap, four taps of a row per pass over the gradient

The loops run on one thread, as im2col.py's do, and for the same reason, measured here: numba's OpenMP
threads spinning after a `prange` loop fight OpenBLAS's threads for the cores. With `prange` over the
(n, o) planes each direct kernel won its own timing, yet the LeNet training step they were chosen for ran
16-22 ms instead of 7.4 (2 cores, batch 64): the next BLAS call paid, and no single op's timing shows it.
On one thread the tuned step runs as fast as the default one.

Which kernel is faster depends on the shape and the machine. Measured on 2 cores, float32, LeNet at batch
64 (best of 60, OpenBLAS on 2 threads): conv1 (1 -> 6 channels, 3x3, pad 1) forward 0.30 ms direct vs 0.33
im2col, input grad 0.29 vs 0.23, weight grad 0.47 vs 0.49; conv2 (6 -> 16 channels, 5x5) forward 1.4 vs
0.69, input grad 1.2 vs 0.65, weight grad 5.7 vs 0.68. Few channels suit the direct loops, many suit one
big GEMM; on a busy machine a one-thread kernel also never waits for a descheduled BLAS thread. So im2col
stays the default and the autotuner times both per shape class.

The dot products sum with `fastmath={"reassoc"}` so they vectorize; no other fast-math flag is set,
so NaN and Inf propagate as IEEE says (the NaN checker relies on it).
"""
from __future__ import annotations

import numpy as np
from numba import njit


# ---- stride 1: wide rows -----------------------------------------------------------------------
@njit(cache=True)
def conv2d_wide_loop(xp, w, out, dh, dw, groups):
    """out (N, OC, OH, Wp), zeroed, += w (OC, C/G, kh, kw) convolved (stride 1) with padded xp (N, C, Hp, Wp)."""
    n_img, oc, oh, wp = out.shape
    c_in, hp = xp.shape[1], xp.shape[2]
    cg, kh, kw = w.shape[1], w.shape[2], w.shape[3]
    ocg = oc // groups
    blocks = (ocg + 3) // 4
    length = np.uint64(oh * wp - (kw - 1) * dw)
    plane_out = np.uint64(oh * wp)
    src = xp.reshape(-1)
    dst = out.reshape(-1)
    for job in range(n_img * groups * blocks):  # up to 4 output planes of one image and group
        n = job // (groups * blocks)
        g = (job // blocks) % groups
        o0 = g * ocg + (job % blocks) * 4
        count = min(4, (g + 1) * ocg - o0)
        d0 = np.uint64((n * oc + o0) * oh * wp)
        for c in range(cg):
            plane = (n * c_in + g * cg + c) * hp * wp
            for i in range(kh):
                for j in range(kw):
                    s0 = np.uint64(plane + i * dh * wp + j * dw)
                    if count == 4:
                        t0, t1 = w[o0, c, i, j], w[o0 + 1, c, i, j]
                        t2, t3 = w[o0 + 2, c, i, j], w[o0 + 3, c, i, j]
                        d1 = d0 + plane_out
                        d2 = d1 + plane_out
                        d3 = d2 + plane_out
                        for k in range(length):  # one input load feeds four output planes
                            v = src[s0 + k]
                            dst[d0 + k] += t0 * v
                            dst[d1 + k] += t1 * v
                            dst[d2 + k] += t2 * v
                            dst[d3 + k] += t3 * v
                    else:
                        for q in range(count):
                            t = w[o0 + q, c, i, j]
                            dq = d0 + np.uint64(q) * plane_out
                            for k in range(length):
                                dst[dq + k] += t * src[s0 + k]


@njit(cache=True)
def conv2d_transpose_wide_loop(xw, w, outp, dh, dw, groups):
    """outp (N, OC, Hp, Wp), zeroed, += each xw (N, C, H, Wp: right-padded) value times w (C, OC/G, kh, kw)."""
    n_img, c_in, h, wp = xw.shape
    ocg, kh, kw = w.shape[1], w.shape[2], w.shape[3]
    oc, hp = outp.shape[1], outp.shape[2]
    cg = c_in // groups
    length = np.uint64(h * wp - (kw - 1) * dw)
    plane_in = np.uint64(h * wp)
    src = xw.reshape(-1)
    dst = outp.reshape(-1)
    for job in range(n_img * oc):  # one output plane (image n, channel o) at a time
        n = job // oc
        o = job % oc
        first = (o // ocg) * cg
        local = o % ocg
        for i in range(kh):
            for j in range(kw):
                d0 = np.uint64(job * hp * wp + i * dh * wp + j * dw)
                c = 0
                while c + 4 <= cg:  # four input planes per pass over the output plane
                    t0, t1 = w[first + c, local, i, j], w[first + c + 1, local, i, j]
                    t2, t3 = w[first + c + 2, local, i, j], w[first + c + 3, local, i, j]
                    s0 = np.uint64(n * c_in + first + c) * plane_in
                    s1 = s0 + plane_in
                    s2 = s1 + plane_in
                    s3 = s2 + plane_in
                    for k in range(length):
                        dst[d0 + k] += t0 * src[s0 + k] + t1 * src[s1 + k] + t2 * src[s2 + k] + t3 * src[s3 + k]
                    c += 4
                while c < cg:
                    t = w[first + c, local, i, j]
                    s0 = np.uint64(n * c_in + first + c) * plane_in
                    for k in range(length):
                        dst[d0 + k] += t * src[s0 + k]
                    c += 1


@njit(cache=True, fastmath={"reassoc"})
def conv2d_grad_filter_wide_loop(xp, dout_w, dwt, dh, dw, groups):
    """dwt (OC, C/G, kh, kw), zeroed, = conv2d's (stride 1) weight grad: dout_w (N, OC, OH, Wp) against xp."""
    n_img, oc, oh, wp = dout_w.shape
    c_in, hp = xp.shape[1], xp.shape[2]
    cg, kh, kw = dwt.shape[1], dwt.shape[2], dwt.shape[3]
    ocg = oc // groups
    length = np.uint64(oh * wp - (kw - 1) * dw)
    step = np.uint64(dw)
    src = xp.reshape(-1)
    grad = dout_w.reshape(-1)
    for job in range(oc * cg):  # one (out channel, in channel) filter at a time
        o = job // cg
        c = job % cg
        channel = (o // ocg) * cg + c
        for i in range(kh):
            j = 0
            while j + 4 <= kw:  # four taps of a row share each load of the gradient
                a0 = a1 = a2 = a3 = dwt[o, c, i, j]  # 0 of the right dtype
                for n in range(n_img):
                    s0 = np.uint64((n * c_in + channel) * hp * wp + i * dh * wp + j * dw)
                    g0 = np.uint64((n * oc + o) * oh * wp)
                    for k in range(length):  # dot products: vectorized thanks to reassoc
                        g = grad[g0 + k]
                        a0 += g * src[s0 + k]
                        a1 += g * src[s0 + step + k]
                        a2 += g * src[s0 + 2 * step + k]
                        a3 += g * src[s0 + 3 * step + k]
                dwt[o, c, i, j], dwt[o, c, i, j + 1], dwt[o, c, i, j + 2], dwt[o, c, i, j + 3] = a0, a1, a2, a3
                j += 4
            while j < kw:
                acc = dwt[o, c, i, j]
                for n in range(n_img):
                    s0 = np.uint64((n * c_in + channel) * hp * wp + i * dh * wp + j * dw)
                    g0 = np.uint64((n * oc + o) * oh * wp)
                    for k in range(length):
                        acc += grad[g0 + k] * src[s0 + k]
                dwt[o, c, i, j] = acc
                j += 1


# ---- any stride: plain loops over rows ----------------------------------------------------------
@njit(cache=True)
def conv2d_strided_loop(xp, w, out, sh, sw, dh, dw, groups):
    """out (N, OC, OH, OW), zeroed, += w convolved with padded xp, any strides."""
    n_img, oc, oh, ow = out.shape
    cg, kh, kw = w.shape[1], w.shape[2], w.shape[3]
    ocg = oc // groups
    for job in range(n_img * oc):
        n = job // oc
        o = job % oc
        first = (o // ocg) * cg
        for c in range(cg):
            for i in range(kh):
                for j in range(kw):
                    tap = w[o, c, i, j]
                    for y in range(oh):
                        for x in range(ow):
                            out[n, o, y, x] += tap * xp[n, first + c, y * sh + i * dh, x * sw + j * dw]


@njit(cache=True)
def conv2d_transpose_strided_loop(x, w, outp, sh, sw, dh, dw, groups):
    """outp (N, OC, Hp, Wp), zeroed, += each x value times its taps, scattered with any strides."""
    n_img, c_in, height, width = x.shape
    ocg, kh, kw = w.shape[1], w.shape[2], w.shape[3]
    oc = outp.shape[1]
    cg = c_in // groups
    for job in range(n_img * oc):
        n = job // oc
        o = job % oc
        first = (o // ocg) * cg
        for c in range(cg):
            for i in range(kh):
                for j in range(kw):
                    tap = w[first + c, o % ocg, i, j]
                    for y in range(height):
                        for k in range(width):
                            outp[n, o, y * sh + i * dh, k * sw + j * dw] += tap * x[n, first + c, y, k]


@njit(cache=True)
def conv2d_grad_filter_strided_loop(xp, dout, dwt, sh, sw, dh, dw, groups):
    """dwt (OC, C/G, kh, kw), zeroed, = conv2d's weight grad with any strides."""
    n_img, oc, oh, ow = dout.shape
    cg, kh, kw = dwt.shape[1], dwt.shape[2], dwt.shape[3]
    ocg = oc // groups
    for job in range(oc * cg):
        o = job // cg
        c = job % cg
        channel = (o // ocg) * cg + c
        for i in range(kh):
            for j in range(kw):
                acc = dwt[o, c, i, j]
                for n in range(n_img):
                    for y in range(oh):
                        for x in range(ow):
                            acc += dout[n, o, y, x] * xp[n, channel, y * sh + i * dh, x * sw + j * dw]
                dwt[o, c, i, j] = acc


# ---- the kernels the registry calls (framework/ops/conv.py) --------------------------------------
def _padded(x: np.ndarray, paddings, width: int | None = None) -> np.ndarray:
    """x with its zero padding (top, bottom, left, right) written out, C-contiguous; `width`: pad the
    right side further, to that row width."""
    pt, pb, pl, pr = paddings
    n, c, h, w = x.shape
    full = w + pl + pr if width is None else width
    if not (pt or pb or pl) and full == w:
        return np.ascontiguousarray(x)
    xp = np.zeros((n, c, h + pt + pb, full), x.dtype)
    xp[:, :, pt:pt + h, pl:pl + w] = x
    return xp


def _out_size(size: int, k: int, s: int, before: int, after: int, d: int) -> int:
    return (size + before + after - (d * (k - 1) + 1)) // s + 1


def conv2d_direct(x: np.ndarray, weight: np.ndarray, strides=(1, 1), paddings=(0, 0, 0, 0),
                  dilations=(1, 1), groups: int = 1) -> np.ndarray:
    """out (N, OC, OH, OW) = weight (OC, C/G, kh, kw) convolved with x (N, C, H, W), without im2col."""
    n, _, h, w = x.shape
    oc, _, kh, kw = weight.shape
    oh = _out_size(h, kh, strides[0], paddings[0], paddings[1], dilations[0])
    ow = _out_size(w, kw, strides[1], paddings[2], paddings[3], dilations[1])
    xp = _padded(x, paddings)
    weight = np.ascontiguousarray(weight)
    if tuple(strides) == (1, 1):
        out = np.zeros((n, oc, oh, xp.shape[3]), x.dtype)  # wide rows: the last columns are cropped
        conv2d_wide_loop(xp, weight, out, dilations[0], dilations[1], groups)
        return np.ascontiguousarray(out[:, :, :, :ow])
    out = np.zeros((n, oc, oh, ow), x.dtype)
    conv2d_strided_loop(xp, weight, out, strides[0], strides[1], dilations[0], dilations[1], groups)
    return out


def conv2d_transpose_direct(x: np.ndarray, weight: np.ndarray, strides=(1, 1), paddings=(0, 0, 0, 0),
                            dilations=(1, 1), groups: int = 1, output_size=(1, 1)) -> np.ndarray:
    """The adjoint of conv2d (its input grad): x (N, C, H, W), weight (C, OC/G, kh, kw) -> (N, OC, *output_size)."""
    n, _, h, w = x.shape
    _, ocg, kh, kw = weight.shape
    pt, pb, pl, pr = paddings
    # the padded output holds every window the scatter touches and the padding around output_size
    hp = max(output_size[0] + pt + pb, (h - 1) * strides[0] + (kh - 1) * dilations[0] + 1)
    wp = max(output_size[1] + pl + pr, (w - 1) * strides[1] + (kw - 1) * dilations[1] + 1)
    outp = np.zeros((n, ocg * groups, hp, wp), x.dtype)
    weight = np.ascontiguousarray(weight)
    if tuple(strides) == (1, 1):
        xw = _padded(x, (0, 0, 0, 0), width=wp)  # x's rows widened to the output's row width
        conv2d_transpose_wide_loop(xw, weight, outp, dilations[0], dilations[1], groups)
    else:
        conv2d_transpose_strided_loop(np.ascontiguousarray(x), weight, outp, strides[0], strides[1],
                                      dilations[0], dilations[1], groups)
    return np.ascontiguousarray(outp[:, :, pt:pt + output_size[0], pl:pl + output_size[1]])


def conv2d_grad_filter_direct(x: np.ndarray, dout: np.ndarray, strides=(1, 1), paddings=(0, 0, 0, 0),
                              dilations=(1, 1), groups: int = 1, filter_size=(1, 1)) -> np.ndarray:
    """d(conv2d)/d(weight): dout (N, OC, OH, OW) against the windows of x -> (OC, C/G, kh, kw)."""
    c = x.shape[1]
    oc = dout.shape[1]
    dwt = np.zeros((oc, c // groups, filter_size[0], filter_size[1]), x.dtype)
    xp = _padded(x, paddings)
    if tuple(strides) == (1, 1):
        dout_w = _padded(dout, (0, 0, 0, 0), width=xp.shape[3])  # dout's rows widened to xp's row width
        conv2d_grad_filter_wide_loop(xp, dout_w, dwt, dilations[0], dilations[1], groups)
    else:
        conv2d_grad_filter_strided_loop(xp, np.ascontiguousarray(dout), dwt, strides[0], strides[1],
                                        dilations[0], dilations[1], groups)
    return dwt
