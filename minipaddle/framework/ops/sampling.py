"""Spatial transformer ops (Jaderberg et al. 2015): affine_grid makes sampling positions from affine
matrices, grid_sample reads an image at such positions.

    affine_grid(theta [N, 2, 3], out_shape [N, C, H, W]) -> grid [N, H, W, 2]
        grid[n, y, x] = theta[n] @ (x_base, y_base, 1)    (x_base, y_base in [-1, 1])
    grid_sample(x [N, C, H, W], grid [N, Ho, Wo, 2]) -> out [N, C, Ho, Wo]
        out[n, :, i, j] = x[n, :] read at grid[n, i, j] = (gx, gy), bilinearly or at the nearest pixel
        (and the same in 3-D: x [N, C, D, H, W], grid [N, Do, Ho, Wo, 3] of (gx, gy, gz), trilinearly)

Coordinates are normalized: -1 and 1 are the centres of the corner pixels with align_corners=True
(Paddle's default), their outer edges with False. affine_grid is linear in theta, so its gradient
is one matmul with the fixed base grid (and grads of grads come free); 3-D theta [N, 3, 4] makes a
[N, D, H, W, 3] grid. grid_sample's gradient (to x and to grid) is the op grid_sample_grad, a
numpy kernel; that op has no gradient of its own (no double grad through grid_sample).
"""
from __future__ import annotations

import itertools
from numbers import Integral

import numpy as np

from ..dispatch import dispatch
from ..dtype import convert_dtype
from ..errors import invalid_argument
from ..registry import MetaTensor, add_kernel, new_meta, register_op
from ..tensor import Tensor

SAMPLE_FLOATS = ("float32", "float64")
MODES = ("bilinear", "nearest")
PADDING_MODES = ("zeros", "border", "reflection")


# ---- affine_grid ---------------------------------------------------------------------------------
def _base_coords(size: int, align_corners: bool) -> np.ndarray:
    """The normalized coordinate of each of `size` pixel centres."""
    if align_corners:
        return np.linspace(-1.0, 1.0, size) if size > 1 else np.zeros(1)
    return (np.arange(size) * 2.0 + 1.0) / size - 1.0


def base_grid(spatial: tuple, align_corners: bool) -> np.ndarray:
    """[prod(spatial), k + 1]: (x, y[, z], 1) for every output position, x fastest (row-major)."""
    axes = [_base_coords(s, align_corners) for s in spatial]        # (D,) H, W
    mesh = np.meshgrid(*axes, indexing="ij")
    coords = [m.reshape(-1) for m in reversed(mesh)]                  # x first, as the grid stores it
    return np.stack(coords + [np.ones(coords[0].size)], axis=1)


def affine_grid_meta(theta, out_shape=(1, 1, 1, 1), align_corners=True) -> MetaTensor:
    op = "affine_grid"
    if len(theta.shape) != 3 or tuple(theta.shape[1:]) not in ((2, 3), (3, 4)):
        raise invalid_argument(op, f"theta has shape {list(theta.shape)}, expected [N, 2, 3] (2-D) or [N, 3, 4] "
                                   "(3-D).")
    if theta.dtype.kind != "f":
        raise invalid_argument(op, f"theta has dtype {theta.dtype}, expected float32 or float64.")
    k = theta.shape[1]
    if len(out_shape) != k + 2 or any(not isinstance(s, Integral) or s < 1 for s in out_shape):
        raise invalid_argument(op, f"out_shape {list(out_shape)} must be {k + 2} ints >= 1 ([N, C, H, W] for 2-D "
                                   "theta, [N, C, D, H, W] for 3-D).")
    if theta.shape[0] not in (-1, out_shape[0]):
        raise invalid_argument(op, f"theta holds {theta.shape[0]} matrices but out_shape asks for a batch of "
                                   f"{out_shape[0]}.")
    return new_meta((theta.shape[0],) + tuple(out_shape[2:]) + (k,), theta.dtype)


def affine_grid_kernel(theta, out_shape=(1, 1, 1, 1), align_corners=True):
    base = base_grid(tuple(out_shape[2:]), align_corners).astype(theta.dtype)
    grid = np.matmul(base, theta.transpose(0, 2, 1))                  # [N, positions, k]
    return grid.reshape((theta.shape[0],) + tuple(out_shape[2:]) + (theta.shape[1],))


def affine_grid_grad(node, dout):
    """grid = base @ theta^T, so dtheta = dgrid^T @ base (summed over positions): one matmul."""
    from .linalg import matmul
    from .manipulation import reshape, transpose
    out_shape, k = node.out_shape, node.input_metas[0][0][1]
    base = Tensor._wrap(base_grid(tuple(out_shape[2:]), node.align_corners).astype(convert_dtype(dout.dtype)))
    flat = reshape(dout, [dout.shape[0], -1, k])
    return matmul(transpose(flat, [0, 2, 1]), base)


AFFINE_GRID = register_op("affine_grid", inputs=("theta",), infer_meta=affine_grid_meta, backward=affine_grid_grad,
                          attrs={"out_shape": (tuple, (1, 1, 1, 1)), "align_corners": (bool, True)})
add_kernel("affine_grid", "cpu", SAMPLE_FLOATS, affine_grid_kernel, name="numpy")


# ---- grid_sample ---------------------------------------------------------------------------------
def _check_sample(op: str, x, grid, mode: str, padding_mode: str) -> None:
    k = len(x.shape) - 2
    if k not in (2, 3) or len(grid.shape) != k + 2 or grid.shape[-1] != k:
        raise invalid_argument(op, f"x has shape {list(x.shape)} and grid {list(grid.shape)}; expected x [N, C, H, W] "
                                   "and grid [N, H_out, W_out, 2], or x [N, C, D, H, W] and grid "
                                   "[N, D_out, H_out, W_out, 3].")
    for name, t in (("x", x), ("grid", grid)):
        if t.dtype.kind != "f":
            raise invalid_argument(op, f"{name} has dtype {t.dtype}, expected float32 or float64.")
    if x.dtype != grid.dtype:
        raise invalid_argument(op, f"x has dtype {x.dtype} but grid has {grid.dtype}; expected the same dtype.")
    if -1 not in (x.shape[0], grid.shape[0]) and x.shape[0] != grid.shape[0]:
        raise invalid_argument(op, f"x has a batch of {x.shape[0]} but grid of {grid.shape[0]}; expected the same.")
    if mode not in MODES:
        raise invalid_argument(op, f"mode got {mode!r}, expected one of {list(MODES)}.")
    if padding_mode not in PADDING_MODES:
        raise invalid_argument(op, f"padding_mode got {padding_mode!r}, expected one of {list(PADDING_MODES)}.")


def grid_sample_meta(x, grid, mode="bilinear", padding_mode="zeros", align_corners=True) -> MetaTensor:
    _check_sample("grid_sample", x, grid, mode, padding_mode)
    return new_meta(tuple(x.shape[:2]) + tuple(grid.shape[1:-1]), x.dtype)


def _reflect(coord: np.ndarray, twice_low: float, twice_high: float) -> tuple[np.ndarray, np.ndarray]:
    """Fold coord into [low, high] by mirroring at the ends; also d(result)/d(coord) (+1 or -1)."""
    if twice_low == twice_high:
        return np.zeros_like(coord), np.zeros_like(coord)
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    shifted = coord - low
    sign = np.where(shifted < 0, -1.0, 1.0)
    distance = np.abs(shifted)
    extra = np.fmod(distance, span)
    flips = np.floor(distance / span)
    even = flips % 2 == 0
    return np.where(even, extra + low, span - extra + low), np.where(even, sign, -sign)


def _source_coords(g: np.ndarray, size: int, padding_mode: str, align_corners: bool):
    """Pixel coordinate for normalized g along one axis, and d(coordinate)/d(g)."""
    if align_corners:
        coord, scale = (g + 1) / 2 * (size - 1), (size - 1) / 2
    else:
        coord, scale = ((g + 1) * size - 1) / 2, size / 2
    slope = np.full_like(coord, scale)
    if padding_mode == "reflection":
        coord, flip = _reflect(coord, 0.0, 2.0 * (size - 1)) if align_corners else _reflect(coord, -1.0, 2.0 * size - 1)
        slope = slope * flip
    if padding_mode in ("border", "reflection"):
        inside = (coord > 0) & (coord < size - 1)
        coord = np.clip(coord, 0, size - 1)
        slope = np.where(inside, slope, 0.0)
    return coord, slope


def _positions(x, grid, padding_mode, align_corners):
    """Per grid axis (x, y[, z]): the pixel coordinate [N, P] and d(coordinate)/d(grid value).

    Computed in the grid's own dtype: float32 grids round (and tie) as Paddle's kernel does."""
    n = x.shape[0]
    sizes = x.shape[2:][::-1]                      # grid[..., 0] indexes the last axis (W), then H, then D
    coords, slopes = [], []
    for axis, size in enumerate(sizes):
        coord, slope = _source_coords(grid[..., axis], size, padding_mode, align_corners)
        coords.append(coord.reshape(n, -1))
        slopes.append(slope.reshape(n, -1))
    return coords, slopes, sizes


def _flat_index(points: list, sizes: tuple) -> tuple[np.ndarray, np.ndarray]:
    """Flat (d*H + h)*W + w index of integer points per axis (x first), and whether each lies inside."""
    valid = np.ones(points[0].shape, bool)
    flat = np.zeros(points[0].shape, np.int64)
    for point, size in zip(reversed(points), reversed(sizes)):     # slowest axis first
        valid &= (point >= 0) & (point <= size - 1)
        flat = flat * size + np.clip(point, 0, size - 1).astype(np.int64)
    return flat, valid


def _neighbours(coords: list, sizes: tuple, mode: str):
    """The pixels each position reads: (flat index, inside mask, weight, per-axis corner offsets) each.

    Bilinear (trilinear in 3-D) reads the 2**k corners around it, weighted by the product over axes of
    (1 - f) or f; nearest reads the closest pixel (ties to even, as Paddle)."""
    if mode == "nearest":
        flat, valid = _flat_index([np.rint(c) for c in coords], sizes)
        return [(flat, valid, np.ones_like(coords[0]), None)]
    lows = [np.floor(c) for c in coords]
    fracs = [c - lo for c, lo in zip(coords, lows)]
    out = []
    for corner in itertools.product((0, 1), repeat=len(coords)):
        weight = np.ones_like(coords[0])
        for f, bit in zip(fracs, corner):
            weight = weight * (f if bit else 1 - f)
        flat, valid = _flat_index([lo + bit for lo, bit in zip(lows, corner)], sizes)
        out.append((flat, valid, weight, corner))
    return out


def _gather(flat_x: np.ndarray, index: np.ndarray) -> np.ndarray:
    """flat_x [N, C, pixels] read at index [N, P] -> [N, C, P]."""
    return np.take_along_axis(flat_x, index[:, None, :], axis=2)


def grid_sample_kernel(x, grid, mode="bilinear", padding_mode="zeros", align_corners=True):
    n, c = x.shape[:2]
    coords, _, sizes = _positions(x, grid, padding_mode, align_corners)
    flat_x = x.reshape(n, c, -1).astype(np.float64)
    out = np.zeros((n, c, coords[0].shape[1]))
    for index, valid, weight, _ in _neighbours(coords, sizes, mode):
        out += _gather(flat_x, index) * (weight * valid)[:, None, :]
    return out.reshape((n, c) + tuple(grid.shape[1:-1])).astype(x.dtype)


def grid_sample_grad_meta(x, grid, dout, mode="bilinear", padding_mode="zeros", align_corners=True):
    return new_meta(tuple(x.shape), x.dtype), new_meta(tuple(grid.shape), grid.dtype)


def grid_sample_grad_kernel(x, grid, dout, mode="bilinear", padding_mode="zeros", align_corners=True):
    """(dx, dgrid): dout scattered back onto the pixels each position read, and the slope of the
    (tri)linear surface at each position along each axis (nearest sampling is flat: dgrid = 0)."""
    n, c = x.shape[:2]
    pixels = int(np.prod(x.shape[2:]))
    coords, slopes, sizes = _positions(x, grid, padding_mode, align_corners)
    d = dout.reshape(n, c, -1).astype(np.float64)
    flat_x = x.reshape(n, c, pixels).astype(np.float64)
    dx = np.zeros((n, c, pixels))
    k = len(coords)
    dgrid = np.zeros((n, coords[0].shape[1], k))
    offsets = (np.arange(n * c) * pixels).reshape(n, c, 1)
    fracs = [cd - np.floor(cd) for cd in coords]
    for index, valid, weight, corner in _neighbours(coords, sizes, mode):
        share = d * (weight * valid)[:, None, :]
        dx += np.bincount((index[:, None, :] + offsets).ravel(), weights=share.ravel(),
                          minlength=n * c * pixels).reshape(n, c, pixels)
        if corner is None:
            continue
        value = (_gather(flat_x, index) * d).sum(axis=1) * valid
        for axis in range(k):        # d(weight)/d(coord along axis): +-1 there, the other factors as they are
            slope = np.full_like(fracs[0], 1.0 if corner[axis] else -1.0)
            for other in range(k):
                if other != axis:
                    slope = slope * (fracs[other] if corner[other] else 1 - fracs[other])
            dgrid[..., axis] += value * slope
    for axis in range(k):
        dgrid[..., axis] *= slopes[axis]
    return dx.reshape(x.shape).astype(x.dtype), dgrid.reshape(grid.shape).astype(grid.dtype)


_SAMPLE_ATTRS = {"mode": (str, "bilinear"), "padding_mode": (str, "zeros"), "align_corners": (bool, True)}


def grid_sample_backward(node, dout):
    attrs = {"mode": node.mode, "padding_mode": node.padding_mode, "align_corners": node.align_corners}
    return dispatch(GRID_SAMPLE_GRAD, (node.x, node.grid, dout), attrs)


GRID_SAMPLE = register_op("grid_sample", inputs=("x", "grid"), infer_meta=grid_sample_meta,
                          backward=grid_sample_backward, save=("x", "grid"), attrs=_SAMPLE_ATTRS)
GRID_SAMPLE_GRAD = register_op("grid_sample_grad", inputs=("x", "grid", "dout"), outputs=("dx", "dgrid"),
                               infer_meta=grid_sample_grad_meta, attrs=_SAMPLE_ATTRS)
add_kernel("grid_sample", "cpu", SAMPLE_FLOATS, grid_sample_kernel, name="numpy")
add_kernel("grid_sample_grad", "cpu", SAMPLE_FLOATS, grid_sample_grad_kernel, name="numpy")


def affine_grid(theta: Tensor, out_shape: tuple, align_corners: bool) -> Tensor:
    return dispatch(AFFINE_GRID, (theta,), {"out_shape": out_shape, "align_corners": align_corners})


def grid_sample(x: Tensor, grid: Tensor, mode: str, padding_mode: str, align_corners: bool) -> Tensor:
    return dispatch(GRID_SAMPLE, (x, grid), {"mode": mode, "padding_mode": padding_mode,
                                             "align_corners": align_corners})


__all__ = ["affine_grid", "grid_sample"]
