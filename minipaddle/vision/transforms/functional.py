"""Image functions behind the transforms, after `paddle.vision.transforms.functional` (numpy only, no PIL/cv2).

Images are numpy arrays, HxW or HxWxC (as cv2 and `np.asarray(pil_image)` give them), or Tensors,
which are read as CxH xW (or HxW) as in Paddle. A numpy or PIL image comes back as numpy; a Tensor
comes back as a Tensor. Resizing follows cv2's conventions (pixel centers at +0.5; uint8 results
rounded and clipped), which PyTorch's `interpolate(..., align_corners=False)` shares.
"""
from __future__ import annotations

import functools
import numbers
from collections.abc import Sequence

import numpy as np

from ...framework.errors import invalid_argument, unimplemented
from ...framework.tensor import Tensor
from .image import from_hwc, to_hwc
from .image import is_pil as _is_pil

__all__ = ["to_tensor", "normalize", "resize", "pad", "crop", "center_crop", "hflip", "vflip"]


def to_tensor(pic, data_format: str = "CHW") -> Tensor:
    """HWC (or HW) image -> CHW float Tensor; uint8 [0, 255] becomes float32 [0, 1], other dtypes are kept."""
    if data_format not in ("CHW", "HWC"):
        raise invalid_argument("to_tensor", f"data_format got {data_format!r}, expected 'CHW' or 'HWC'.")
    if isinstance(pic, Tensor):
        raise invalid_argument("to_tensor", "got a Tensor, expected a numpy or PIL image.",
                               hint="ToTensor goes first in a Compose, before transforms that return Tensors.")
    a, _ = to_hwc("to_tensor", pic)
    if a.ndim == 2:
        a = a[:, :, None]
    if data_format == "CHW":
        a = a.transpose(2, 0, 1)
    if a.dtype == np.uint8:
        out = np.multiply(a, np.float32(1 / 255), dtype=np.float32)
    else:
        out = np.array(a, order="C")
    return Tensor._wrap(out)


def normalize(img, mean, std, data_format: str = "CHW", to_rgb: bool = False):
    """(img - mean) / std per channel; `to_rgb` first reverses the channel order (BGR -> RGB)."""
    if data_format not in ("CHW", "HWC"):
        raise invalid_argument("normalize", f"data_format got {data_format!r}, expected 'CHW' or 'HWC'.")
    mean_t = tuple(float(v) for v in np.ravel(mean))
    std_t = tuple(float(v) for v in np.ravel(std))
    return normalize_values(img, mean_t, std_t, data_format, to_rgb)


def normalize_values(img, mean: tuple, std: tuple, data_format: str, to_rgb: bool):
    """normalize() once mean and std are tuples of floats (Normalize calls this per image).

    As Paddle does, mean and std are shaped [C, 1, 1] (CHW) or [1, 1, C] (HWC) and broadcast against
    the image, so a grey H x W image comes back 1 x H x W: the [N, 1, H, W] batches conv2d wants.
    """
    was_tensor = isinstance(img, Tensor)
    a = img._data if was_tensor else np.asarray(img)
    mean_a, inv_std = _normalize_stats(mean, std, data_format)
    if to_rgb and a.ndim == 3:
        a = a[::-1] if data_format == "CHW" else a[..., ::-1]
    try:
        out_shape = np.broadcast_shapes(a.shape, mean_a.shape)
    except ValueError:
        raise invalid_argument("normalize", f"an image of shape {list(a.shape)} ({data_format}) does not fit "
                                            f"{max(len(mean), len(std))} mean/std values (shaped "
                                            f"{list(mean_a.shape)}).",
                               hint="give one mean and std per channel.") from None
    out = np.subtract(a, mean_a, dtype=np.float32)
    out *= inv_std
    assert out.shape == out_shape
    return Tensor._wrap(out) if was_tensor else out


@functools.lru_cache(maxsize=64)
def _normalize_stats(mean: tuple, std: tuple, data_format: str):
    """mean and 1/std shaped [C, 1, 1] (CHW) or [1, 1, C] (HWC), checked once per combination."""
    shape = (-1, 1, 1) if data_format == "CHW" else (1, 1, -1)
    if len(mean) != len(std) and 1 not in (len(mean), len(std)):
        raise invalid_argument("normalize", f"mean has {len(mean)} values but std has {len(std)}; expected "
                                            "one of each per channel.")
    if 0.0 in std:
        raise invalid_argument("normalize", f"std {list(std)} has a 0, which would divide by zero.")
    mean_a = np.asarray(mean, dtype=np.float32).reshape(shape)
    inv_std = (1.0 / np.asarray(std, dtype=np.float64)).astype(np.float32).reshape(shape)
    return mean_a, inv_std


def _size_hw(op: str, size) -> tuple[int, int]:
    if isinstance(size, numbers.Integral) and not isinstance(size, bool):
        return int(size), int(size)
    if isinstance(size, Sequence) and len(size) == 2 and all(isinstance(s, numbers.Integral) for s in size):
        return int(size[0]), int(size[1])
    raise invalid_argument(op, f"size got {size!r}, expected an int or a (height, width) pair.")


@functools.lru_cache(maxsize=128)
def _linear_matrix(n_in: int, n_out: int) -> np.ndarray:
    """(n_out, n_in) weights of 1-D linear interpolation with half-pixel centers: two taps per output pixel.

    Resizing is then two small matrix products (rows, then columns), which BLAS does faster than
    numpy can gather the taps; cached, since a pipeline resizes every image between the same sizes.
    """
    src = np.maximum((np.arange(n_out) + 0.5) * (n_in / n_out) - 0.5, 0.0)
    i0 = np.minimum(np.floor(src).astype(np.intp), n_in - 1)
    i1 = np.minimum(i0 + 1, n_in - 1)
    frac = src - i0
    m = np.zeros((n_out, n_in), np.float32)
    rows = np.arange(n_out)
    np.add.at(m, (rows, i0), 1 - frac)
    np.add.at(m, (rows, i1), frac)   # at the last pixel i1 == i0: the weights add up to 1
    return m


def _resize_bilinear(a: np.ndarray, oh: int, ow: int) -> np.ndarray:
    wy, wx = _linear_matrix(a.shape[0], oh), _linear_matrix(a.shape[1], ow)
    f = a.astype(np.float32, copy=False)
    if a.ndim == 2:
        out = wy @ f @ wx.T
    else:   # per channel: (oh, h) @ (c, h, w) @ (w, ow) -> (c, oh, ow), back to HWC
        out = np.ascontiguousarray((wy @ f.transpose(2, 0, 1) @ wx.T).transpose(1, 2, 0))
    if a.dtype.kind in "ui":
        info = np.iinfo(a.dtype)
        return np.clip(np.rint(out), info.min, info.max).astype(a.dtype)
    return out.astype(a.dtype, copy=False)


def resize(img, size, interpolation: str = "bilinear"):
    """Resize to `size` = (h, w), or, for an int, so the shorter side is `size` keeping the aspect ratio."""
    a, was_tensor = to_hwc("resize", img)
    h, w = a.shape[:2]
    if isinstance(size, numbers.Integral) and not isinstance(size, bool):
        if min(h, w) == size:
            return img if not _is_pil(img) else a
        oh, ow = (int(size * h / w), size) if w < h else (size, int(size * w / h))
    else:
        oh, ow = _size_hw("resize", size)
    if oh <= 0 or ow <= 0:
        raise invalid_argument("resize", f"target size ({oh}, {ow}) must be positive.")
    if interpolation == "bilinear":
        out = _resize_bilinear(a, oh, ow)
    elif interpolation == "nearest":
        iy = np.minimum(np.floor(np.arange(oh) * (h / oh)).astype(np.intp), h - 1)
        ix = np.minimum(np.floor(np.arange(ow) * (w / ow)).astype(np.intp), w - 1)
        out = a[iy][:, ix]
    else:
        raise unimplemented("resize", f"interpolation {interpolation!r} is not available.",
                            hint="use 'bilinear' or 'nearest'.")
    return from_hwc(out, was_tensor)


def _padding_ltrb(padding) -> tuple[int, int, int, int]:
    if isinstance(padding, numbers.Integral) and not isinstance(padding, bool):
        return (int(padding),) * 4
    if isinstance(padding, Sequence) and len(padding) in (2, 4) and all(isinstance(p, numbers.Integral)
                                                                        for p in padding):
        p = [int(v) for v in padding]
        return (p[0], p[1], p[0], p[1]) if len(p) == 2 else (p[0], p[1], p[2], p[3])
    raise invalid_argument("pad", f"padding got {padding!r}, expected an int, (left/right, top/bottom) or "
                                  "(left, top, right, bottom).")


_PAD_MODES = {"constant": "constant", "edge": "edge", "reflect": "reflect", "symmetric": "symmetric"}


def pad(img, padding, fill=0, padding_mode: str = "constant"):
    """Pad the borders: `padding` is an int, (left/right, top/bottom) or (left, top, right, bottom)."""
    a, was_tensor = to_hwc("pad", img)
    ltrb = _padding_ltrb(padding)
    if min(ltrb) < 0:
        raise invalid_argument("pad", f"padding {padding!r} has a negative value.")
    if padding_mode not in _PAD_MODES:
        raise invalid_argument("pad", f"padding_mode got {padding_mode!r}, expected one of {list(_PAD_MODES)}.")
    return from_hwc(pad_hwc(a, ltrb, fill, padding_mode), was_tensor)


def pad_hwc(a: np.ndarray, ltrb: tuple[int, int, int, int], fill, padding_mode: str) -> np.ndarray:
    """pad() on a checked HWC/HW array and (left, top, right, bottom)."""
    left, top, right, bottom = ltrb
    if padding_mode == "constant":
        h, w = a.shape[:2]
        out = np.empty((h + top + bottom, w + left + right) + a.shape[2:], dtype=a.dtype)
        out[...] = fill   # a number, or one value per channel
        out[top:top + h, left:left + w] = a
        return out
    widths = [(top, bottom), (left, right)] + [(0, 0)] * (a.ndim - 2)
    return np.pad(a, widths, mode=_PAD_MODES[padding_mode])


def crop(img, top: int, left: int, height: int, width: int):
    """The `height` x `width` window whose top-left corner is (top, left)."""
    a, was_tensor = to_hwc("crop", img)
    h, w = a.shape[:2]
    if top < 0 or left < 0 or height <= 0 or width <= 0 or top + height > h or left + width > w:
        raise invalid_argument("crop", f"window top={top}, left={left}, height={height}, width={width} does not "
                                       f"fit in an image of {h}x{w}.")
    return from_hwc(a[top:top + height, left:left + width], was_tensor)


def center_crop(img, output_size):
    """The centered window of `output_size` (an int for a square)."""
    a, _ = to_hwc("center_crop", img)
    h, w = a.shape[:2]
    th, tw = _size_hw("center_crop", output_size)
    if th > h or tw > w:
        raise invalid_argument("center_crop", f"crop size ({th}, {tw}) is larger than the image ({h}, {w}).",
                               hint="Resize or Pad first.")
    return crop(img, int(round((h - th) / 2.0)), int(round((w - tw) / 2.0)), th, tw)


def hflip(img):
    """Mirror left-right."""
    a, was_tensor = to_hwc("hflip", img)
    return from_hwc(a[:, ::-1], was_tensor)


def vflip(img):
    """Mirror top-bottom."""
    a, was_tensor = to_hwc("vflip", img)
    return from_hwc(a[::-1], was_tensor)


# colour and geometry adjustments (adjust.py) are part of Paddle's functional namespace too
from .adjust import (adjust_brightness, adjust_contrast, adjust_hue, adjust_saturation, affine,  # noqa: E402,F401
                     erase, perspective, rotate, to_grayscale)

__all__ += ["adjust_brightness", "adjust_contrast", "adjust_saturation", "adjust_hue", "to_grayscale", "rotate",
            "affine", "perspective", "erase"]
