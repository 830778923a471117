"""3-D pooling kernels: a loop over the kd*kh*kw window taps, each a strided slice of the padded input.

For tap (a, b, e), output (z, y, x) reads input (z*sd - pf + a, y*sh - pt + b, x*sw - pl + e). Max
pooling keeps a running max and the flat input index of where it came from (the first max wins,
as in Paddle); average pooling sums the slices and divides by each window's count.
"""
from __future__ import annotations

import itertools

import numpy as np



def _out_sizes(sizes, kernel, strides, paddings, ceil_mode) -> tuple:
    out = []
    for i, (size, k, s) in enumerate(zip(sizes, kernel, strides)):
        padded = size + paddings[2 * i] + paddings[2 * i + 1]
        out.append((padded - k + (s - 1 if ceil_mode else 0)) // s + 1)
    return tuple(out)


def _padded(x: np.ndarray, kernel, strides, paddings, out_sizes, fill: float) -> np.ndarray:
    """x padded before by the paddings and after far enough for the last (ceil_mode) window."""
    pads = [(0, 0), (0, 0)]
    for i, (size, k, s, o) in enumerate(zip(x.shape[2:], kernel, strides, out_sizes)):
        before = paddings[2 * i]
        after = max(paddings[2 * i + 1], (o - 1) * s + k - before - size)
        pads.append((before, after))
    return np.pad(x, pads, constant_values=fill)


def _tap(tap, out_sizes, strides) -> tuple:
    return (slice(None), slice(None)) + tuple(slice(t, t + s * (o - 1) + 1, s)
                                              for t, o, s in zip(tap, out_sizes, strides))


def max_pool3d_kernel(x, kernel_size=(1, 1, 1), strides=(1, 1, 1), paddings=(0,) * 6, ceil_mode=False):
    out_sizes = _out_sizes(x.shape[2:], kernel_size, strides, paddings, ceil_mode)
    xp = _padded(x, kernel_size, strides, paddings, out_sizes, -np.inf)
    d, h, w = x.shape[2:]
    best = np.full(x.shape[:2] + out_sizes, -np.inf, x.dtype)
    mask = np.zeros(best.shape, np.int32)
    grids = np.meshgrid(*(np.arange(o) * s - paddings[2 * i] for i, (o, s) in enumerate(zip(out_sizes, strides))),
                        indexing="ij")
    for tap in itertools.product(*(range(k) for k in kernel_size)):
        window = xp[_tap(tap, out_sizes, strides)]
        better = window > best
        if not better.any():
            continue
        iz, iy, ix = (g + t for g, t in zip(grids, tap))
        flat = ((iz * h + iy) * w + ix).astype(np.int32)
        np.copyto(best, window, where=better)
        np.copyto(mask, np.broadcast_to(flat, mask.shape), where=better)
    return best, mask


def max_pool3d_grad_kernel(dout, mask, input_size=(1, 1, 1)):
    """Every gradient added at its window's max (windows may share one)."""
    n, c = dout.shape[:2]
    plane = int(np.prod(input_size))
    index = (mask.reshape(n * c, -1) + (np.arange(n * c) * plane)[:, None]).ravel()
    dx = np.bincount(index, weights=dout.ravel().astype(np.float64), minlength=n * c * plane)
    return dx.astype(dout.dtype).reshape((n, c) + tuple(input_size))


def _counts(size: int, out: int, k: int, s: int, before: int) -> np.ndarray:
    """How many positions of each window along one dim lie inside the input."""
    start = np.arange(out) * s - before
    return (np.minimum(start + k, size) - np.maximum(start, 0)).astype(np.float64)


def _divisor(in_sizes, out_sizes, kernel, strides, paddings, exclusive: bool, divisor: float) -> np.ndarray:
    if divisor:
        return np.full(out_sizes, float(divisor))
    if not exclusive:
        return np.full(out_sizes, float(np.prod(kernel)))
    cd, ch, cw = (_counts(in_sizes[i], out_sizes[i], kernel[i], strides[i], paddings[2 * i]) for i in range(3))
    return cd[:, None, None] * ch[None, :, None] * cw[None, None, :]


def avg_pool3d_kernel(x, kernel_size=(1, 1, 1), strides=(1, 1, 1), paddings=(0,) * 6, ceil_mode=False,
                      exclusive=True, divisor=0.0):
    out_sizes = _out_sizes(x.shape[2:], kernel_size, strides, paddings, ceil_mode)
    xp = _padded(x, kernel_size, strides, paddings, out_sizes, 0.0)
    total = np.zeros(x.shape[:2] + out_sizes, x.dtype)
    for tap in itertools.product(*(range(k) for k in kernel_size)):
        total += xp[_tap(tap, out_sizes, strides)]
    return (total / _divisor(x.shape[2:], out_sizes, kernel_size, strides, paddings, exclusive, divisor)).astype(
        x.dtype)


def avg_pool3d_grad_kernel(dout, kernel_size=(1, 1, 1), strides=(1, 1, 1), paddings=(0,) * 6, ceil_mode=False,
                           exclusive=True, divisor=0.0, input_size=(1, 1, 1)):
    out_sizes = dout.shape[2:]
    share = (dout / _divisor(input_size, out_sizes, kernel_size, strides, paddings, exclusive, divisor)).astype(
        dout.dtype)
    like = np.empty(dout.shape[:2] + tuple(input_size), dout.dtype)
    dxp = np.zeros_like(_padded(like, kernel_size, strides, paddings, out_sizes, 0.0))
    for tap in itertools.product(*(range(k) for k in kernel_size)):
        dxp[_tap(tap, out_sizes, strides)] += share
    crop = (slice(None), slice(None)) + tuple(slice(paddings[2 * i], paddings[2 * i] + s)
                                              for i, s in enumerate(input_size))
    return np.ascontiguousarray(dxp[crop])
