"""Augmentation transforms, after `paddle.vision.transforms`: colour jitter (Brightness/Contrast/Saturation/
HueTransform, ColorJitter), Grayscale, RandomRotation, RandomAffine, RandomPerspective, RandomResizedCrop and
RandomErasing.

The random choices draw from `paddle.io`'s per-sample generator (paddle.seed's in the main process), like
the other random transforms, so a pipeline is reproducible given paddle.seed; the draws are not Paddle's
(Paddle draws from Python's `random` and numpy's global generator). The image functions are in adjust.py.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from ...framework.errors import invalid_argument
from ...framework.tensor import Tensor
from ...io.worker import sample_rng
from . import adjust
from . import functional as F
from .transforms import BaseTransform, Compose

__all__ = ["BrightnessTransform", "ContrastTransform", "SaturationTransform", "HueTransform", "ColorJitter",
           "Grayscale", "RandomRotation", "RandomAffine", "RandomPerspective", "RandomResizedCrop",
           "RandomErasing"]


def _check_input(name: str, value, center: float = 1.0, bound=(0.0, math.inf), clip_first_on_zero: bool = True):
    """Paddle's range for a jitter amount: a number v means [center - v, center + v]; None means no change."""
    if isinstance(value, numbers.Number) and not isinstance(value, bool):
        if value < 0:
            raise invalid_argument(name, f"a single number must be non negative, got {value}.")
        low, high = center - value, center + value
        if clip_first_on_zero:
            low = max(low, 0.0)
    elif isinstance(value, (tuple, list)) and len(value) == 2:
        low, high = value
        if not bound[0] <= low <= high <= bound[1]:
            raise invalid_argument(name, f"values {list(value)} should lie between {bound}, in increasing order.")
    else:
        raise invalid_argument(name, f"got {value!r}, expected a single number or a list/tuple of length 2.")
    return None if low == high == center else (float(low), float(high))


class _ColorTransform(BaseTransform):
    """A factor drawn uniformly from `value`'s range, then one adjustment."""
    _name = ""
    _center, _bound, _clip = 1.0, (0.0, math.inf), True

    def __init__(self, value, keys=None) -> None:
        super().__init__(keys)
        self.value = _check_input(type(self).__name__, value, self._center, self._bound, self._clip)

    def _get_params(self, inputs):
        return None if self.value is None else float(sample_rng().uniform(*self.value))

    def _apply_image(self, img):
        if self.params is None:
            return img
        return self._adjust(img, self.params)


class BrightnessTransform(_ColorTransform):
    """Brightness scaled by a factor drawn from [max(0, 1 - value), 1 + value]."""
    _adjust = staticmethod(adjust.adjust_brightness)


class ContrastTransform(_ColorTransform):
    """Contrast scaled by a factor drawn from [max(0, 1 - value), 1 + value]."""
    _adjust = staticmethod(adjust.adjust_contrast)


class SaturationTransform(_ColorTransform):
    """Saturation scaled by a factor drawn from [max(0, 1 - value), 1 + value]."""
    _adjust = staticmethod(adjust.adjust_saturation)


class HueTransform(_ColorTransform):
    """Hue shifted by a factor drawn from [-value, value] (value <= 0.5)."""
    _adjust = staticmethod(adjust.adjust_hue)
    _center, _bound, _clip = 0.0, (-0.5, 0.5), False


class ColorJitter(BaseTransform):
    """Brightness, contrast, saturation and hue jitter, applied in a random order."""

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0, keys=None) -> None:
        super().__init__(keys)
        self.brightness, self.contrast, self.saturation, self.hue = brightness, contrast, saturation, hue
        self._parts = [BrightnessTransform(brightness, self.keys), ContrastTransform(contrast, self.keys),
                       SaturationTransform(saturation, self.keys), HueTransform(hue, self.keys)]

    def _get_params(self, inputs):
        order = sample_rng().permutation(len(self._parts))
        return Compose([self._parts[i] for i in order])

    def _apply_image(self, img):
        return self.params(img)


class Grayscale(BaseTransform):
    """The grey version of an RGB image, with 1 or 3 channels."""

    def __init__(self, num_output_channels: int = 1, keys=None) -> None:
        super().__init__(keys)
        if num_output_channels not in (1, 3):
            raise invalid_argument("Grayscale", f"num_output_channels got {num_output_channels!r}, expected 1 or 3.")
        self.num_output_channels = num_output_channels

    def _apply_image(self, img):
        return adjust.to_grayscale(img, self.num_output_channels)


class RandomRotation(BaseTransform):
    """Rotate by an angle drawn from `degrees` ((-d, d) for a number d)."""

    def __init__(self, degrees, interpolation: str = "nearest", expand: bool = False, center=None, fill=0,
                 keys=None) -> None:
        if isinstance(degrees, numbers.Number) and not isinstance(degrees, bool):
            if degrees < 0:
                raise invalid_argument("RandomRotation", f"a single number of degrees must be positive, got {degrees}.")
            degrees = (-degrees, degrees)
        elif not isinstance(degrees, (tuple, list)) or len(degrees) != 2:
            raise invalid_argument("RandomRotation", f"degrees got {degrees!r}, expected a number or a sequence of 2.")
        super().__init__(keys)
        self.degrees = tuple(degrees)
        self.interpolation, self.expand, self.center, self.fill = interpolation, expand, center, fill

    def _get_params(self, inputs):
        return float(sample_rng().uniform(self.degrees[0], self.degrees[1]))

    def _apply_image(self, img):
        return adjust.rotate(img, self.params, self.interpolation, self.expand, self.center, self.fill)


def _pair_range(name: str, arg: str, value, sizes=(2,)) -> tuple:
    """A number v as (-v, v), or a sequence of one of `sizes` lengths as it is."""
    if isinstance(value, numbers.Number) and not isinstance(value, bool):
        if value < 0:
            raise invalid_argument(name, f"If {arg} is a single number, it must be positive, got {value}.")
        return (-float(value), float(value))
    if not isinstance(value, (tuple, list)) or len(value) not in sizes:
        raise invalid_argument(name, f"{arg} got {value!r}, expected a number or a sequence of length "
                                     f"{' or '.join(str(s) for s in sizes)}.")
    return tuple(float(v) for v in value)


class RandomAffine(BaseTransform):
    """A random affine map: rotation from `degrees`, translation up to `translate` (fractions of width and
    height), scale from `scale`, shear from `shear` (x range, or x and y ranges), about `center`."""

    def __init__(self, degrees, translate=None, scale=None, shear=None, interpolation: str = "nearest", fill=0,
                 center=None, keys=None) -> None:
        name = "RandomAffine"
        self.degrees = _pair_range(name, "degrees", degrees)
        super().__init__(keys)
        if interpolation not in ("nearest", "bilinear"):
            raise invalid_argument(name, f"interpolation got {interpolation!r}, expected 'nearest' or 'bilinear'.")
        if translate is not None and (len(translate) != 2 or not all(0.0 <= t <= 1.0 for t in translate)):
            raise invalid_argument(name, f"translate got {translate!r}, expected two fractions in [0, 1].")
        if scale is not None and (len(scale) != 2 or not all(s > 0 for s in scale)):
            raise invalid_argument(name, f"scale got {scale!r}, expected two positive numbers.")
        self.shear = None if shear is None else _pair_range(name, "shear", shear, (2, 4))
        self.translate, self.scale, self.interpolation, self.center = translate, scale, interpolation, center
        self.fill = 0 if fill is None else fill

    def _get_params(self, inputs):
        h, w = _hw(inputs[0])
        rng = sample_rng()
        angle = float(rng.uniform(*self.degrees))
        translations = (0, 0)
        if self.translate is not None:
            max_dx, max_dy = self.translate[0] * w, self.translate[1] * h
            translations = (int(rng.uniform(-max_dx, max_dx)), int(rng.uniform(-max_dy, max_dy)))
        scale = 1.0 if self.scale is None else float(rng.uniform(*self.scale))
        shear = (0.0, 0.0)
        if self.shear is not None:
            shear = (float(rng.uniform(*self.shear[:2])),
                     float(rng.uniform(*self.shear[2:])) if len(self.shear) == 4 else 0.0)
        return angle, translations, scale, shear

    def _apply_image(self, img):
        angle, translations, scale, shear = self.params
        return adjust.affine(img, angle, translations, scale, shear, self.interpolation, self.fill, self.center)


class RandomPerspective(BaseTransform):
    """With probability `prob`, move each corner inwards by up to `distortion_scale` of half the image
    and warp the image accordingly."""

    def __init__(self, prob: float = 0.5, distortion_scale: float = 0.5, interpolation: str = "nearest", fill=0,
                 keys=None) -> None:
        super().__init__(keys)
        name = "RandomPerspective"
        if not 0 <= prob <= 1:
            raise invalid_argument(name, f"prob got {prob!r}, expected a probability in [0, 1].")
        if not 0 <= distortion_scale <= 1:
            raise invalid_argument(name, f"distortion_scale got {distortion_scale!r}, expected a number in [0, 1].")
        if interpolation not in ("nearest", "bilinear"):
            raise invalid_argument(name, f"interpolation got {interpolation!r}, expected 'nearest' or 'bilinear'.")
        self.prob, self.distortion_scale, self.interpolation, self.fill = prob, distortion_scale, interpolation, fill

    def get_params(self, width: int, height: int, distortion_scale: float) -> tuple[list, list]:
        """(startpoints, endpoints): the corners, and where each moves (Paddle's draws)."""
        rng = sample_rng()
        dx, dy = int(distortion_scale * (width // 2)), int(distortion_scale * (height // 2))
        near_x, far_x = (0, dx + 1), (width - dx - 1, width)          # where a left / right corner may go
        near_y, far_y = (0, dy + 1), (height - dy - 1, height)        # where a top / bottom corner may go
        corners = [(near_x, near_y), (far_x, near_y), (far_x, far_y), (near_x, far_y)]
        endpoints = [[int(rng.uniform(*xs)), int(rng.uniform(*ys))] for xs, ys in corners]
        startpoints = [[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]]
        return startpoints, endpoints

    def _get_params(self, inputs):
        if sample_rng().random() >= self.prob:
            return None
        h, w = _hw(inputs[0])
        return self.get_params(w, h, self.distortion_scale)

    def _apply_image(self, img):
        if self.params is None:
            return img
        startpoints, endpoints = self.params
        return adjust.perspective(img, startpoints, endpoints, self.interpolation, self.fill)


def _hw(img) -> tuple[int, int]:
    if isinstance(img, Tensor):
        return tuple(img.shape[-2:])
    return tuple(np.asarray(img).shape[:2])


class RandomResizedCrop(BaseTransform):
    """A random crop of random area (`scale` of the image) and aspect ratio (`ratio`), resized to `size`
    (Inception-style); after 10 failed draws, the central crop of the nearest allowed ratio."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4, 4.0 / 3), interpolation: str = "bilinear",
                 keys=None) -> None:
        super().__init__(keys)
        self.size = (size, size) if isinstance(size, int) else tuple(size)
        if scale[0] > scale[1] or ratio[0] > ratio[1]:
            raise invalid_argument("RandomResizedCrop", f"scale {scale} and ratio {ratio} must be (min, max).")
        self.scale, self.ratio, self.interpolation = tuple(scale), tuple(ratio), interpolation

    def _get_params(self, inputs, attempts: int = 10):
        height, width = _hw(inputs[0])
        area = height * width
        rng = sample_rng()
        log_ratio = (math.log(self.ratio[0]), math.log(self.ratio[1]))
        for _ in range(attempts):
            target_area = rng.uniform(*self.scale) * area
            aspect = math.exp(rng.uniform(*log_ratio))
            w = int(round(math.sqrt(target_area * aspect)))
            h = int(round(math.sqrt(target_area / aspect)))
            if 0 < w <= width and 0 < h <= height:
                return int(rng.integers(0, height - h + 1)), int(rng.integers(0, width - w + 1)), h, w
        in_ratio = width / height
        if in_ratio < min(self.ratio):
            w, h = width, int(round(width / min(self.ratio)))
        elif in_ratio > max(self.ratio):
            h, w = height, int(round(height * max(self.ratio)))
        else:
            w, h = width, height
        return (height - h) // 2, (width - w) // 2, h, w

    def _apply_image(self, img):
        top, left, h, w = self.params
        return F.resize(F.crop(img, top, left, h, w), self.size, self.interpolation)


class RandomErasing(BaseTransform):
    """With probability `prob`, set a random box (area `scale` of the image, aspect `ratio`) to `value`
    (a number, one per channel, or 'random' for normal noise) -- Zhong et al. 2017."""

    def __init__(self, prob: float = 0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace: bool = False,
                 keys=None) -> None:
        super().__init__(keys)
        name = "RandomErasing"
        if not isinstance(scale, (tuple, list)) or not 0 <= scale[0] <= scale[1] <= 1:
            raise invalid_argument(name, f"scale got {scale!r}, expected (min, max) in [0, 1].")
        if not isinstance(ratio, (tuple, list)) or not 0 <= ratio[0] <= ratio[1]:
            raise invalid_argument(name, f"ratio got {ratio!r}, expected (min, max).")
        if not 0 <= prob <= 1:
            raise invalid_argument(name, f"prob got {prob!r}, expected a probability in [0, 1].")
        if isinstance(value, str) and value != "random":
            raise invalid_argument(name, f"value got {value!r}; a string value must be 'random'.")
        if not isinstance(value, (numbers.Number, str, tuple, list)):
            raise invalid_argument(name, f"value got {type(value).__name__}, expected a number, tuple, list or str.")
        if isinstance(value, (tuple, list)) and len(value) not in (1, 3):
            raise invalid_argument(name, "value should be a single number or a sequence with length equals to "
                                         "image's channel.")
        self.prob, self.scale, self.ratio, self.value, self.inplace = prob, tuple(scale), tuple(ratio), value, inplace

    def _get_params(self, inputs):
        rng = sample_rng()
        if rng.random() >= self.prob:
            return None
        img = inputs[0]
        tensor = isinstance(img, Tensor)
        shape = img.shape if tensor else np.asarray(img).shape
        if tensor:
            c, h, w = (1,) + tuple(shape) if len(shape) == 2 else tuple(shape[-3:])
        else:
            h, w = shape[:2]
            c = 1 if len(shape) == 2 else shape[2]
        log_ratio = np.log(self.ratio)
        for _ in range(10):
            erase_area = rng.uniform(*self.scale) * h * w
            aspect = np.exp(rng.uniform(*log_ratio))
            eh, ew = int(round(np.sqrt(erase_area * aspect))), int(round(np.sqrt(erase_area / aspect)))
            if eh >= h or ew >= w:
                continue
            if self.value == "random":
                noise = rng.standard_normal((c, eh, ew) if tensor else (eh, ew, c))
                v = noise if tensor else noise * 255
            else:
                values = np.ravel([self.value] if isinstance(self.value, numbers.Number) else self.value)
                v = values[:, None, None] if tensor else values[None, None, :]
            return int(rng.integers(0, h - eh + 1)), int(rng.integers(0, w - ew + 1)), eh, ew, v
        return None

    def _apply_image(self, img):
        if self.params is None:
            return img
        top, left, eh, ew, v = self.params
        if isinstance(img, Tensor):
            v = np.asarray(v).astype(img._data.dtype)
        elif np.asarray(img).ndim == 2:
            v = np.asarray(v)[..., 0]
        return adjust.erase(img, top, left, eh, ew, v, self.inplace)
