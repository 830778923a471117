"""Colour and geometry adjustments behind the augmentation transforms, after
`paddle.vision.transforms.functional`: adjust_brightness / contrast / saturation / hue, to_grayscale,
rotate, erase.

Every image kind follows one definition -- Paddle's for Tensor images, which is also what PIL's
ImageEnhance does: an adjustment blends the image with an "extreme" image and clips,

    brightness  blend with black                      out = factor * img
    contrast    blend with the mean grey level        out = mean + factor * (img - mean)
    saturation  blend with the grey version           out = grey + factor * (img - grey)
    hue         shift H in HSV by hue_factor (a fraction of the colour circle)

clipped to [0, 1] for float images and [0, 255] for uint8 ones, then cast back (truncating, as
`astype`). A numpy image is HxWxC (or HxW), a Tensor CxHxW. rotate, affine and perspective sample the
image on a transformed grid (nearest or bilinear, `grid_sample`'s kernel), as Paddle's Tensor path does.

A uint8 numpy image stands for a PIL image (minipaddle's datasets hand out PIL's pixels as numpy
arrays), so it follows PIL's integer arithmetic exactly, as Paddle's PIL path does: grey levels are
PIL's "L" conversion (R*19595 + G*38470 + B*7471 + 0x8000) >> 16, the contrast target is the mean grey
level rounded to an int, blends are computed in float32 and truncated, and hue turns through PIL's
8-bit HSV. (Paddle's cv2 path for numpy images differs: a fixed mean of 74 for contrast, a second
random draw inside adjust_saturation.)
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from ...framework.errors import invalid_argument
from ...framework.ops.sampling import grid_sample_kernel
from ...framework.tensor import Tensor
from .image import from_hwc, to_hwc

__all__ = ["adjust_brightness", "adjust_contrast", "adjust_saturation", "adjust_hue", "to_grayscale", "rotate",
           "affine", "perspective", "erase"]

GREY_WEIGHTS = (0.2989, 0.587, 0.114)           # Paddle's Tensor to_grayscale (float images)
GREY_WEIGHTS_UINT8 = (0.299, 0.587, 0.114)      # ITU-R 601, what PIL and cv2 use for uint8 images


def _max_value(a: np.ndarray) -> float:
    return 1.0 if a.dtype.kind == "f" else 255.0


def _channels(op: str, a: np.ndarray) -> int:
    c = 1 if a.ndim == 2 else a.shape[2]
    if c not in (1, 3):
        raise invalid_argument(op, f"the image has {c} channels, expected 1 or 3.")
    return c


def _factor(op: str, name: str, value, low: float = 0.0, high: float = math.inf) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not low <= value <= high:
        raise invalid_argument(op, f"{name} got {value!r}, expected a number in [{low}, {high}].")
    return float(value)


def _blend(a: np.ndarray, target, ratio: float) -> np.ndarray:
    """target + ratio * (a - target), clipped to the image's range, in a's dtype."""
    out = target + ratio * (a.astype(np.float64) - target)
    return np.clip(out, 0.0, _max_value(a)).astype(a.dtype)


def _is_pil_like(a: np.ndarray, was_tensor: bool) -> bool:
    return a.dtype == np.uint8 and not was_tensor


def _grey_pil(a: np.ndarray) -> np.ndarray:
    """PIL's "L" conversion of an HWC RGB uint8 image (fixed point, rounded): HxW uint8."""
    rgb = a.astype(np.uint32)
    return ((rgb[..., 0] * 19595 + rgb[..., 1] * 38470 + rgb[..., 2] * 7471 + 0x8000) >> 16).astype(np.uint8)


def _blend_pil(a: np.ndarray, target, factor: float) -> np.ndarray:
    """PIL's Image.blend(degenerate, image, factor): float32 arithmetic, clipped, truncated to uint8."""
    target = np.asarray(target, dtype=np.float32)
    out = target + np.float32(factor) * (a.astype(np.float32) - target)
    return np.clip(out, 0, 255).astype(np.uint8)


def _grey(a: np.ndarray) -> np.ndarray:
    """HxW grey levels (float64) of an HWC RGB image."""
    weights = GREY_WEIGHTS if a.dtype.kind == "f" else GREY_WEIGHTS_UINT8
    return a.astype(np.float64) @ np.array(weights)


def to_grayscale(img, num_output_channels: int = 1):
    """The grey version of an RGB image, with 1 or 3 (equal) channels; one channel of a uint8 numpy
    image comes back H x W, as PIL's "L" image does."""
    op = "to_grayscale"
    if num_output_channels not in (1, 3):
        raise invalid_argument(op, f"num_output_channels got {num_output_channels!r}, expected 1 or 3.")
    a, was_tensor = to_hwc(op, img)
    if _channels(op, a) == 1:
        grey = a.reshape(a.shape[0], a.shape[1]).astype(np.float64)
    elif _is_pil_like(a, was_tensor):
        grey = _grey_pil(a).astype(np.float64)
    else:
        grey = _grey(a)
    if a.dtype.kind != "f":
        grey = np.clip(np.rint(grey), 0, 255)
    if num_output_channels == 1 and _is_pil_like(a, was_tensor):
        return grey.astype(a.dtype)                      # PIL's "L" image: H x W
    out = np.repeat(grey[:, :, None], num_output_channels, axis=2).astype(a.dtype)
    return from_hwc(out, was_tensor)


def adjust_brightness(img, brightness_factor: float):
    """factor * image: 0 gives black, 1 the image, 2 twice as bright (clipped)."""
    op = "adjust_brightness"
    factor = _factor(op, "brightness_factor", brightness_factor)
    a, was_tensor = to_hwc(op, img)
    _channels(op, a)
    if _is_pil_like(a, was_tensor):
        return _blend_pil(a, 0.0, factor)
    return from_hwc(_blend(a, 0.0, factor), was_tensor)


def adjust_contrast(img, contrast_factor: float):
    """Blend with the image's mean grey level: 0 gives a flat grey image, 1 the image."""
    op = "adjust_contrast"
    factor = _factor(op, "contrast_factor", contrast_factor)
    a, was_tensor = to_hwc(op, img)
    grey_image = _channels(op, a) == 1
    if _is_pil_like(a, was_tensor):
        mean = int((a if grey_image else _grey_pil(a)).mean() + 0.5)
        return _blend_pil(a, mean, factor)
    mean = float(a.mean()) if grey_image else float(_grey(a).mean())
    return from_hwc(_blend(a, mean, factor), was_tensor)


def adjust_saturation(img, saturation_factor: float):
    """Blend with the grey image: 0 gives grey, 1 the image, 2 doubles the saturation."""
    op = "adjust_saturation"
    factor = _factor(op, "saturation_factor", saturation_factor)
    a, was_tensor = to_hwc(op, img)
    if _channels(op, a) == 1:
        return img
    if _is_pil_like(a, was_tensor):
        return _blend_pil(a, _grey_pil(a)[:, :, None], factor)
    return from_hwc(_blend(a, _grey(a)[:, :, None], factor), was_tensor)


def _rgb_to_hsv(rgb: np.ndarray) -> np.ndarray:
    maxc, minc = rgb.max(axis=-1), rgb.min(axis=-1)
    equal = maxc == minc
    delta = maxc - minc
    s = delta / np.where(equal, 1.0, maxc)
    divisor = np.where(equal, 1.0, delta)
    rc, gc, bc = ((maxc - rgb[..., i]) / divisor for i in range(3))
    r, g = rgb[..., 0], rgb[..., 1]
    h = (maxc == r) * (bc - gc) + ((maxc == g) & (maxc != r)) * (rc - bc + 2.0) \
        + ((maxc != r) & (maxc != g)) * (gc - rc + 4.0)
    h = h / 6.0 + 1.0
    return np.stack([h - np.trunc(h), s, maxc], axis=-1)


def _hsv_to_rgb(hsv: np.ndarray) -> np.ndarray:
    h, s, v = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    f = h * 6.0
    i = np.floor(f)
    f = f - i
    i = i.astype(np.int64) % 6
    p = np.clip(v * (1.0 - s), 0.0, 1.0)
    q = np.clip(v * (1.0 - s * f), 0.0, 1.0)
    t = np.clip(v * (1.0 - s * (1.0 - f)), 0.0, 1.0)
    table = np.stack([np.stack(c, axis=-1) for c in ((v, q, p, p, t, v), (t, v, v, q, p, p), (p, p, t, v, v, q))],
                     axis=-2)                                    # [..., 3 (rgb), 6 (sector)]
    return np.take_along_axis(table, i[..., None, None].repeat(3, axis=-2), axis=-1)[..., 0]


def _rgb_to_hsv_pil(a: np.ndarray) -> np.ndarray:
    """PIL's 8-bit RGB -> HSV (Convert.c, after colorsys), in float32 and truncated like its C code."""
    rgb = a.astype(np.int32)
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    maxc, minc = rgb.max(axis=-1), rgb.min(axis=-1)
    equal = maxc == minc
    cr = np.where(equal, 1, maxc - minc).astype(np.float32)
    s = cr / np.where(maxc == 0, 1, maxc).astype(np.float32)
    rc, gc, bc = ((maxc - c).astype(np.float32) / cr for c in (r, g, b))
    h = np.where(r == maxc, bc - gc, np.where(g == maxc, np.float32(2.0) + rc - bc, np.float32(4.0) + gc - rc))
    h = np.fmod(h / np.float32(6.0) + np.float32(1.0), np.float32(1.0))
    hue = np.where(equal, 0, np.clip((h * np.float32(255.0)).astype(np.int32), 0, 255))
    sat = np.where(equal, 0, np.clip((s * np.float32(255.0)).astype(np.int32), 0, 255))
    return np.stack([hue, sat, maxc], axis=-1).astype(np.uint8)


def _hsv_to_rgb_pil(hsv: np.ndarray) -> np.ndarray:
    """PIL's 8-bit HSV -> RGB: six sectors, p/q/t rounded."""
    h, s, v = (hsv[..., i].astype(np.float32) for i in range(3))
    sector = np.floor(h * np.float32(6.0) / np.float32(255.0))
    f = h * np.float32(6.0) / np.float32(255.0) - sector
    fs = s / np.float32(255.0)
    p, q, t = (np.clip(np.round(v * (np.float32(1.0) - x)), 0, 255)
               for x in (fs, fs * f, fs * (np.float32(1.0) - f)))
    table = np.stack([np.stack(c, axis=-1) for c in ((v, q, p, p, t, v), (t, v, v, q, p, p), (p, p, t, v, v, q))],
                     axis=-2)
    i = sector.astype(np.int64) % 6
    out = np.take_along_axis(table, i[..., None, None].repeat(3, axis=-2), axis=-1)[..., 0]
    grey = (hsv[..., 1] == 0)[..., None]
    return np.where(grey, hsv[..., 2:3], out).astype(np.uint8)


def adjust_hue(img, hue_factor: float):
    """Rotate every colour's hue by hue_factor (in [-0.5, 0.5], a fraction of the colour circle)."""
    op = "adjust_hue"
    factor = _factor(op, "hue_factor", hue_factor, -0.5, 0.5)
    a, was_tensor = to_hwc(op, img)
    if _channels(op, a) == 1:
        return img
    if _is_pil_like(a, was_tensor):
        hsv = _rgb_to_hsv_pil(a)
        hsv[..., 0] = ((hsv[..., 0].astype(np.int16) + int(factor * 255)) % 256).astype(np.uint8)
        return _hsv_to_rgb_pil(hsv)
    rgb = a.astype(np.float64) / (255.0 if a.dtype.kind != "f" else 1.0)
    hsv = _rgb_to_hsv(rgb)
    hue = hsv[..., 0] + factor
    hsv[..., 0] = hue - np.floor(hue)
    out = _hsv_to_rgb(hsv)
    if a.dtype.kind != "f":
        out = out * 255.0
    return from_hwc(out.astype(a.dtype), was_tensor)


def _grid_from_matrix(m: np.ndarray, w: int, h: int, ow: int, oh: int) -> np.ndarray:
    """grid_sample positions [1, oh, ow, 2] for the 2x3 matrix `m` that maps output pixels (relative to the
    centre) to input pixels. Computed in float32, as Paddle computes it: at right angles many positions
    fall exactly between two pixels, and which one nearest sampling picks depends on these roundings."""
    f32 = np.float32
    xs = np.linspace(-ow * 0.5 + 0.5, ow * 0.5 + 0.5 - 1, ow, dtype=f32)
    ys = np.linspace(-oh * 0.5 + 0.5, oh * 0.5 + 0.5 - 1, oh, dtype=f32)
    base = np.ones((oh, ow, 3), dtype=f32)
    base[..., 0] = xs[None, :]
    base[..., 1] = ys[:, None]
    grid = base.reshape(-1, 3) @ (m.reshape(2, 3).T / np.array([0.5 * w, 0.5 * h], dtype=f32))
    return grid.reshape(1, oh, ow, 2)


def _sample(op: str, img, make_grid, interpolation: str, fill):
    """The image read at the positions `make_grid(w, h)` gives (grid_sample's [1, oh, ow, 2]), outside
    pixels set to `fill`."""
    if interpolation not in ("nearest", "bilinear"):
        raise invalid_argument(op, f"interpolation got {interpolation!r}, expected 'nearest' or 'bilinear'.")
    a, was_tensor = to_hwc(op, img)
    h, w = a.shape[:2]
    grid = make_grid(w, h)
    chw = (a[:, :, None] if a.ndim == 2 else a).transpose(2, 0, 1).astype(np.float32)
    with_mask = np.concatenate([chw, np.ones((1, h, w), np.float32)])[None]   # the last channel marks the inside
    sampled = grid_sample_kernel(with_mask, grid, interpolation, "zeros", False)[0].astype(np.float64)
    values, inside = sampled[:-1], sampled[-1:]
    fill_values = np.broadcast_to(np.asarray(0 if fill is None else fill, dtype=np.float64).reshape(-1, 1, 1),
                                  values.shape)
    if interpolation == "nearest":
        values = np.where(inside < 0.5, fill_values, values)
    else:
        values = values * inside + (1.0 - inside) * fill_values
    out = values.transpose(1, 2, 0)
    if a.dtype.kind != "f":
        out = np.clip(np.rint(out), np.iinfo(a.dtype).min, np.iinfo(a.dtype).max)
    out = out.astype(a.dtype)
    return from_hwc(out[:, :, 0] if a.ndim == 2 else out, was_tensor)


def rotate(img, angle: float, interpolation: str = "nearest", expand: bool = False, center=None, fill=0):
    """Rotate by `angle` degrees counter-clockwise about `center` (default: the image centre); pixels from
    outside the image get `fill`; `expand` grows the output to hold the whole rotated image."""
    a, _ = to_hwc("rotate", img)
    h, w = a.shape[:2]
    f32 = np.float32
    rad = math.radians(-float(angle) % 360)
    rc = (0.0, 0.0) if center is None else (center[0] - 0.5 * w, center[1] - 0.5 * h)
    m = np.array([math.cos(rad), math.sin(rad), 0.0, -math.sin(rad), math.cos(rad), 0.0], dtype=f32)
    m[2] += m[0] * f32(-rc[0]) + m[1] * f32(-rc[1]) + f32(rc[0])
    m[5] += m[3] * f32(-rc[0]) + m[4] * f32(-rc[1]) + f32(rc[1])
    size = None
    if expand:
        corners = np.array([[-0.5 * w, -0.5 * h, 1.0], [-0.5 * w, 0.5 * h, 1.0], [0.5 * w, 0.5 * h, 1.0],
                            [0.5 * w, -0.5 * h, 1.0]], dtype=f32)
        pos = corners @ m.reshape(2, 3).T
        extent = np.ceil(pos.max(axis=0)) - np.floor(pos.min(axis=0))
        size = (int(extent[1]), int(extent[0]))
    oh, ow = size or (h, w)
    return _sample("rotate", img, lambda w_, h_: _grid_from_matrix(m, w_, h_, ow, oh), interpolation, fill)


def affine_matrix(center, angle: float, translate, scale: float, shear) -> list[float]:
    """Paddle's inverse affine matrix (output -> input) for rotate, translate, scale and shear about center:
    M = T * C * R * S * Sh * C^-1, inverted in closed form."""
    rot, sx, sy = math.radians(angle), math.radians(shear[0]), math.radians(shear[1])
    a = math.cos(rot - sy) / math.cos(sy)
    b = -math.cos(rot - sy) * math.tan(sx) / math.cos(sy) - math.sin(rot)
    c = math.sin(rot - sy) / math.cos(sy)
    d = -math.sin(rot - sy) * math.tan(sx) / math.cos(sy) + math.cos(rot)
    cx, cy = center
    tx, ty = translate
    m = [x / scale for x in (d, -b, 0.0, -c, a, 0.0)]
    m[2] += m[0] * (-cx - tx) + m[1] * (-cy - ty) + cx
    m[5] += m[3] * (-cx - tx) + m[4] * (-cy - ty) + cy
    return m


def affine(img, angle: float, translate, scale: float, shear, interpolation: str = "nearest", fill=0, center=None):
    """Rotate by `angle` degrees (clockwise, as Paddle's affine), translate by (tx, ty) pixels, scale, and
    shear by (sx, sy) degrees (a number: sx only), about `center` (default: the image centre)."""
    op = "affine"
    if isinstance(angle, bool) or not isinstance(angle, numbers.Real):
        raise invalid_argument(op, f"angle must be a number, got {type(angle).__name__}.")
    if not isinstance(translate, (list, tuple)) or len(translate) != 2:
        raise invalid_argument(op, f"translate got {translate!r}, expected a sequence of 2 numbers.")
    if not isinstance(scale, numbers.Real) or scale <= 0:
        raise invalid_argument(op, f"scale got {scale!r}, expected a positive number.")
    shear = [float(shear), 0.0] if isinstance(shear, numbers.Real) else list(shear)
    if len(shear) == 1:
        shear = shear * 2
    if len(shear) != 2:
        raise invalid_argument(op, f"shear got {shear!r}, expected a number or a sequence of 2.")
    a, _ = to_hwc(op, img)
    h, w = a.shape[:2]
    centre = (0.0, 0.0) if center is None else (center[0] - 0.5 * w, center[1] - 0.5 * h)
    m = np.array(affine_matrix(centre, float(angle), [float(t) for t in translate], float(scale), shear),
                 dtype=np.float32)
    return _sample(op, img, lambda w_, h_: _grid_from_matrix(m, w_, h_, w_, h_), interpolation, fill)


def perspective_coeffs(startpoints, endpoints) -> np.ndarray:
    """The 8 coefficients of the projective map taking each end point back to its start point
    (least squares, as Paddle): x_in = (c0 x + c1 y + c2) / (c6 x + c7 y + 1), y_in likewise with c3..c5."""
    rows, rhs = [], []
    for (ex, ey), (sx, sy) in zip(endpoints, startpoints):
        rows.append([ex, ey, 1, 0, 0, 0, -sx * ex, -sx * ey])
        rows.append([0, 0, 0, ex, ey, 1, -sy * ex, -sy * ey])
        rhs += [sx, sy]
    return np.linalg.lstsq(np.array(rows, dtype=np.float64), np.array(rhs, dtype=np.float64), rcond=None)[0]


def _perspective_grid(coeffs: np.ndarray, ow: int, oh: int) -> np.ndarray:
    f32 = np.float32
    c = coeffs.astype(f32)
    base = np.ones((oh * ow, 3), dtype=f32)
    base[:, 0] = np.tile(np.linspace(0.5, ow + 0.5 - 1.0, ow, dtype=f32), oh)
    base[:, 1] = np.repeat(np.linspace(0.5, oh + 0.5 - 1.0, oh, dtype=f32), ow)
    numerator = base @ (c[:6].reshape(2, 3).T / np.array([0.5 * ow, 0.5 * oh], dtype=f32))
    denominator = base @ np.array([[c[6], c[6]], [c[7], c[7]], [1.0, 1.0]], dtype=f32)
    return (numerator / denominator - f32(1.0)).reshape(1, oh, ow, 2)


def perspective(img, startpoints, endpoints, interpolation: str = "nearest", fill=0):
    """Warp the image so that the four `startpoints` ([x, y] corners) land on `endpoints`."""
    op = "perspective"
    for name, points in (("startpoints", startpoints), ("endpoints", endpoints)):
        if len(points) != 4 or any(len(p) != 2 for p in points):
            raise invalid_argument(op, f"{name} got {points!r}, expected four [x, y] points.")
    coeffs = perspective_coeffs(startpoints, endpoints)
    return _sample(op, img, lambda w, h: _perspective_grid(coeffs, w, h), interpolation, fill)


def erase(img, i: int, j: int, h: int, w: int, v, inplace: bool = False):
    """Set the h x w box at (top i, left j) to v (a number, one value per channel, or an array of the box)."""
    if isinstance(img, Tensor):
        out = img if inplace else Tensor._wrap(img._data.copy())
        values = v._data if isinstance(v, Tensor) else np.asarray(v)
        out._data[..., i:i + h, j:j + w] = values
        out._bump_version()
        return out
    a, _ = to_hwc("erase", img)
    out = a if inplace else a.copy()
    out[i:i + h, j:j + w, ...] = np.asarray(v._data if isinstance(v, Tensor) else v)
    return out
