"""The image kinds every transform takes, and the one conversion they share.

A numpy image is HxW or HxWxC (as cv2 and `np.asarray(pil_image)` give them); a PIL image is read as its
pixels; a Tensor image is CxHxW (or HxW), as in Paddle. Transforms work on the HWC numpy view
(`to_hwc`) and give back the kind they got (`from_hwc`): numpy for numpy and PIL, a Tensor for a Tensor.
"""
from __future__ import annotations

import numpy as np

from ...framework.errors import invalid_argument
from ...framework.tensor import Tensor

__all__ = ["is_pil", "to_hwc", "from_hwc"]


def is_pil(img) -> bool:
    return type(img).__module__.startswith("PIL.")


def to_hwc(op: str, img) -> tuple[np.ndarray, bool]:
    """The image as a numpy HW/HWC array (a view where possible), and whether it came as a Tensor."""
    if type(img) is np.ndarray and 2 <= img.ndim <= 3:   # the common case, checked first
        return img, False
    if isinstance(img, Tensor):
        a = img._data
        if a.ndim not in (2, 3):
            raise invalid_argument(op, f"got a Tensor of shape {list(a.shape)}, expected a CHW or HW image.")
        return (a.transpose(1, 2, 0) if a.ndim == 3 else a), True
    if is_pil(img):
        img = np.asarray(img)
    if not isinstance(img, np.ndarray):
        raise invalid_argument(op, f"got {type(img).__name__}, expected a numpy HWC/HW image, a PIL image or a "
                                   "CHW Tensor.")
    if img.ndim not in (2, 3):
        raise invalid_argument(op, f"got an array of shape {list(img.shape)}, expected HxW or HxWxC.")
    return img, False


def from_hwc(a: np.ndarray, was_tensor: bool):
    """`a` back in the kind the image came as: numpy as it is, a Tensor as CxHxW."""
    if not was_tensor:
        return a
    return Tensor._wrap(np.ascontiguousarray(a.transpose(2, 0, 1) if a.ndim == 3 else a))
