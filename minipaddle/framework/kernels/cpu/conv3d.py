"""conv3d kernels: one batched matrix product per kernel tap.

For the tap (a, b, e) of a kd x kh x kw kernel, every output position reads the input at
(z*sd + a*dd, y*sh + b*dh, x*sw + e*dw) of the padded input: one strided slice of it. So

    out[n, o, :] = sum over taps of weight[o, :, a, b, e] @ slice_{a,b,e}(x)[n, :, :]

is kd*kh*kw products of a (OC/G, C/G) matrix with a (C/G, OD*OH*OW) one, per group (np.matmul
broadcasts over the batch and the groups). The input gradient (conv3d_transpose) adds each tap's
product back onto its slice; the weight gradient multiplies dout with each slice.
"""
from __future__ import annotations

import itertools

import numpy as np


def _out_sizes(sizes, kernel, strides, paddings, dilations) -> tuple:
    return tuple((sizes[i] + paddings[2 * i] + paddings[2 * i + 1] - dilations[i] * (kernel[i] - 1) - 1)
                 // strides[i] + 1 for i in range(3))


def _pad(x: np.ndarray, paddings) -> np.ndarray:
    pads = ((0, 0), (0, 0)) + tuple((paddings[2 * i], paddings[2 * i + 1]) for i in range(3))
    return np.pad(x, pads) if any(paddings) else x


def _tap_slices(tap, out_sizes, strides, dilations) -> tuple:
    """The slices of the padded input that tap (a, b, e) reads for every output position."""
    return tuple(slice(t * d, t * d + s * (o - 1) + 1, s) for t, o, s, d in zip(tap, out_sizes, strides, dilations))


def conv3d_taps(x: np.ndarray, weight: np.ndarray, strides=(1, 1, 1), paddings=(0,) * 6, dilations=(1, 1, 1),
                groups: int = 1) -> np.ndarray:
    """out (N, OC, OD, OH, OW) = weight (OC, C/G, kd, kh, kw) convolved with x (N, C, D, H, W)."""
    n, c = x.shape[:2]
    oc, cg = weight.shape[:2]
    kernel = weight.shape[2:]
    out_sizes = _out_sizes(x.shape[2:], kernel, strides, paddings, dilations)
    xp = _pad(x, paddings).reshape((n, groups, cg) + tuple(s + paddings[2 * i] + paddings[2 * i + 1]
                                                           for i, s in enumerate(x.shape[2:])))
    wg = weight.reshape((groups, oc // groups, cg) + kernel)
    out = np.zeros((n, groups, oc // groups, int(np.prod(out_sizes))), x.dtype)
    for tap in itertools.product(*(range(k) for k in kernel)):
        window = xp[(slice(None),) * 3 + _tap_slices(tap, out_sizes, strides, dilations)]
        out += np.matmul(wg[(Ellipsis,) + tap], window.reshape(n, groups, cg, -1))
    return out.reshape((n, oc) + out_sizes)


def conv3d_transpose_taps(x: np.ndarray, weight: np.ndarray, strides=(1, 1, 1), paddings=(0,) * 6,
                          dilations=(1, 1, 1), groups: int = 1, output_size=(1, 1, 1)) -> np.ndarray:
    """The adjoint of conv3d: x (N, C, D, H, W) on conv3d's output grid, weight (C, OC/G, kd, kh, kw)
    -> (N, OC, *output_size), each input value spread over its kernel window."""
    n, c = x.shape[:2]
    ocg = weight.shape[1]
    kernel = weight.shape[2:]
    in_sizes = x.shape[2:]
    padded_sizes = tuple(s + paddings[2 * i] + paddings[2 * i + 1] for i, s in enumerate(output_size))
    padded = np.zeros((n, groups, ocg) + padded_sizes, x.dtype)
    xg = x.reshape(n, groups, c // groups, -1)
    wg = weight.reshape((groups, c // groups, ocg) + kernel)
    for tap in itertools.product(*(range(k) for k in kernel)):
        spread = np.matmul(wg[(Ellipsis,) + tap].transpose(0, 2, 1), xg)        # (N, G, OC/G, D*H*W)
        padded[(slice(None),) * 3 + _tap_slices(tap, in_sizes, strides, dilations)] += \
            spread.reshape((n, groups, ocg) + in_sizes)
    crop = tuple(slice(paddings[2 * i], paddings[2 * i] + s) for i, s in enumerate(output_size))
    return np.ascontiguousarray(padded[(slice(None),) * 3 + crop]).reshape((n, groups * ocg) + tuple(output_size))


def conv3d_grad_filter_taps(x: np.ndarray, dout: np.ndarray, strides=(1, 1, 1), paddings=(0,) * 6,
                            dilations=(1, 1, 1), groups: int = 1, filter_size=(1, 1, 1)) -> np.ndarray:
    """d(conv3d)/d(weight): dout (N, OC, OD, OH, OW) times each tap's slice of x -> (OC, C/G, kd, kh, kw)."""
    n, c = x.shape[:2]
    oc = dout.shape[1]
    cg = c // groups
    out_sizes = dout.shape[2:]
    xp = _pad(x, paddings)
    xp = xp.reshape((n, groups, cg) + xp.shape[2:])
    dg = dout.reshape(n, groups, oc // groups, -1)
    dw = np.zeros((groups, oc // groups, cg) + tuple(filter_size), x.dtype)
    for tap in itertools.product(*(range(k) for k in filter_size)):
        window = xp[(slice(None),) * 3 + _tap_slices(tap, out_sizes, strides, dilations)]
        dw[(Ellipsis,) + tap] = np.matmul(dg, window.reshape(n, groups, cg, -1).transpose(0, 1, 3, 2)).sum(axis=0)
    return dw.reshape((oc, cg) + tuple(filter_size))
