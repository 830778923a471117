"""Transform classes, after `paddle.vision.transforms`: callables a Dataset applies to each sample.

    transform = T.Compose([T.RandomCrop(28, padding=4), T.RandomHorizontalFlip(),
                           T.ToTensor(), T.Normalize(mean=[0.5], std=[0.5])])
    x = transform(image_hw_uint8)          # Tensor [1, 28, 28] float32 in [-1, 1]

`keys` (Paddle's): a transform called with a tuple applies `_apply_<key>` to each element, e.g.
keys=("image", "mask") flips an image and its mask together; random choices are drawn once per
call (`_get_params`), so both get the same crop and flip. Random transforms draw from
`paddle.io`'s per-worker generator (paddle.seed's generator in the main process), so a pipeline
is reproducible given paddle.seed, with any number of DataLoader workers.
"""
from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np

from ...framework.errors import invalid_argument
from ...framework.tensor import Tensor
from ...io.worker import sample_rng
from . import functional as F

__all__ = ["BaseTransform", "Compose", "ToTensor", "Normalize", "Resize", "Pad", "RandomCrop", "CenterCrop",
           "RandomHorizontalFlip", "RandomVerticalFlip", "Transpose"]


class Compose:
    """Applies transforms one after another; an error names the transform that raised."""

    def __init__(self, transforms: Sequence) -> None:
        for i, t in enumerate(transforms):
            if not callable(t):
                raise invalid_argument("Compose", f"transforms[{i}] is a {type(t).__name__}, expected a callable.")
        self.transforms = list(transforms)

    def __call__(self, data):
        for i, t in enumerate(self.transforms):
            try:
                data = t(data)
            except Exception as e:
                e.add_note(f"(in Compose: transform {i}, {t!r})")
                raise
        return data

    def __repr__(self) -> str:
        inner = "".join(f"\n    {t!r}," for t in self.transforms)
        return f"Compose([{inner}\n])"


class BaseTransform:
    """Base class: subclasses define `_apply_image` (and `_get_params` if random)."""

    def __init__(self, keys: Sequence[str] | None = None) -> None:
        if keys is None:
            keys = ("image",)
        elif isinstance(keys, str) or not isinstance(keys, Sequence):
            raise invalid_argument(type(self).__name__, f"keys got {keys!r}, expected a sequence such as "
                                                        "('image', 'label').")
        for k in keys:
            if getattr(self, f"_apply_{k}", None) is None:
                raise invalid_argument(type(self).__name__, f"key {k!r} is not supported.",
                                       hint="supported keys have an _apply_<key> method: image, label, mask.")
        self.keys = tuple(keys)
        self.params = None

    def _get_params(self, inputs: tuple):
        return None

    def __call__(self, inputs):
        if not isinstance(inputs, tuple):
            if self.keys == ("image",):   # the common case: one image, no tuple to build
                self.params = self._get_params((inputs,))
                return self._apply_image(inputs)
            inputs = (inputs,)
        self.params = self._get_params(inputs)
        outputs = [getattr(self, f"_apply_{k}")(x) for k, x in zip(self.keys, inputs)]
        outputs.extend(inputs[len(self.keys):])
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def _apply_image(self, image):
        raise NotImplementedError(f"'{type(self).__name__}' must implement _apply_image")

    def _apply_label(self, label):
        return label

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if k not in ("keys", "params")
                           and not k.startswith("_"))
        return f"{type(self).__name__}({fields})"


class ToTensor(BaseTransform):
    """HWC/HW image -> CHW Tensor; uint8 [0, 255] becomes float32 [0, 1] (other dtypes are kept)."""

    def __init__(self, data_format: str = "CHW", keys=None) -> None:
        super().__init__(keys)
        self.data_format = data_format

    def _apply_image(self, img):
        return F.to_tensor(img, self.data_format)


class Normalize(BaseTransform):
    """(image - mean) / std per channel; mean and std are numbers or one value per channel.

    A grey H x W image (what MNIST hands its transform) comes back 1 x H x W, as in Paddle:
    `Normalize(mean=[127.5], std=[127.5], data_format="CHW")` gives conv2d its channel axis.
    """

    def __init__(self, mean=0.0, std=1.0, data_format: str = "CHW", to_rgb: bool = False, keys=None) -> None:
        super().__init__(keys)
        if data_format not in ("CHW", "HWC"):
            raise invalid_argument("Normalize", f"data_format got {data_format!r}, expected 'CHW' or 'HWC'.")
        # as Paddle: one number means that value for each of 3 channels (so a grey image becomes 3 x H x W)
        self.mean = [mean] * 3 if isinstance(mean, numbers.Number) else list(mean)
        self.std = [std] * 3 if isinstance(std, numbers.Number) else list(std)
        self.data_format = data_format
        self.to_rgb = to_rgb
        self._mean = tuple(float(v) for v in np.ravel(self.mean))
        self._std = tuple(float(v) for v in np.ravel(self.std))

    def _apply_image(self, img):
        return F.normalize_values(img, self._mean, self._std, self.data_format, self.to_rgb)


class Resize(BaseTransform):
    """Resize to (h, w), or an int: the shorter side to that size, keeping the aspect ratio."""

    def __init__(self, size, interpolation: str = "bilinear", keys=None) -> None:
        super().__init__(keys)
        F._size_hw("Resize", size)
        self.size = size
        self.interpolation = interpolation

    def _apply_image(self, img):
        return F.resize(img, self.size, self.interpolation)

    def _apply_mask(self, mask):
        return F.resize(mask, self.size, "nearest")


class Pad(BaseTransform):
    """Pad the borders (int, (left/right, top/bottom) or (left, top, right, bottom))."""

    def __init__(self, padding, fill=0, padding_mode: str = "constant", keys=None) -> None:
        super().__init__(keys)
        F._padding_ltrb(padding)
        self.padding = padding
        self.fill = fill
        self.padding_mode = padding_mode

    def _apply_image(self, img):
        return F.pad(img, self.padding, self.fill, self.padding_mode)

    _apply_mask = _apply_image


def _image_hw(img) -> tuple[int, int]:
    if isinstance(img, Tensor):
        return tuple(img.shape[-2:])
    return tuple(np.asarray(img).shape[:2])


class RandomCrop(BaseTransform):
    """A random `size` window, after optional `padding` (pad_if_needed pads images smaller than size)."""

    def __init__(self, size, padding=None, pad_if_needed: bool = False, fill=0, padding_mode: str = "constant",
                 keys=None) -> None:
        super().__init__(keys)
        self.size = F._size_hw("RandomCrop", size)
        self._ltrb = F._padding_ltrb(padding) if padding is not None else None
        if padding_mode not in F._PAD_MODES:
            raise invalid_argument("RandomCrop", f"padding_mode got {padding_mode!r}, expected one of "
                                                 f"{list(F._PAD_MODES)}.")
        self.padding = padding
        self.pad_if_needed = pad_if_needed
        self.fill = fill
        self.padding_mode = padding_mode

    def _get_params(self, inputs):
        h, w = _image_hw(inputs[0])
        th, tw = self.size
        if self._ltrb is not None:   # the padded size, worked out without padding twice
            left, top, right, bottom = self._ltrb
            h, w = h + top + bottom, w + left + right
        if self.pad_if_needed:
            h, w = h + 2 * max(th - h, 0), w + 2 * max(tw - w, 0)
        if h < th or w < tw:
            raise invalid_argument("RandomCrop", f"crop size {self.size} is larger than the (padded) image "
                                                 f"({h}, {w}).", hint="pass padding=... or pad_if_needed=True.")
        rng = sample_rng()
        # floor(u * n) for uniform u in [0, 1): a uniform int in [0, n), 8x cheaper than rng.integers
        return int(rng.random() * (h - th + 1)), int(rng.random() * (w - tw + 1))

    def _apply_image(self, img):
        a, was_tensor = F.to_hwc("RandomCrop", img)
        if self._ltrb is not None:
            a = F.pad_hwc(a, self._ltrb, self.fill, self.padding_mode)
        h, w = a.shape[:2]
        th, tw = self.size
        if self.pad_if_needed and (h < th or w < tw):
            a = F.pad_hwc(a, (max(tw - w, 0), max(th - h, 0)) * 2, self.fill, self.padding_mode)
        top, left = self.params
        return F.from_hwc(a[top:top + th, left:left + tw], was_tensor)

    _apply_mask = _apply_image


class CenterCrop(BaseTransform):
    """The centered `size` window (an int for a square)."""

    def __init__(self, size, keys=None) -> None:
        super().__init__(keys)
        self.size = F._size_hw("CenterCrop", size)

    def _apply_image(self, img):
        return F.center_crop(img, self.size)

    _apply_mask = _apply_image


class _RandomFlip(BaseTransform):
    def __init__(self, prob: float = 0.5, keys=None) -> None:
        super().__init__(keys)
        if not isinstance(prob, numbers.Real) or not 0 <= prob <= 1:
            raise invalid_argument(type(self).__name__, f"prob got {prob!r}, expected a number in [0, 1].")
        self.prob = prob

    def _get_params(self, inputs):
        return bool(sample_rng().random() < self.prob)

    def _apply_image(self, img):
        return self._flip(img) if self.params else img

    _apply_mask = _apply_image


class RandomHorizontalFlip(_RandomFlip):
    """Mirror left-right with probability `prob`."""

    _flip = staticmethod(F.hflip)


class RandomVerticalFlip(_RandomFlip):
    """Mirror top-bottom with probability `prob`."""

    _flip = staticmethod(F.vflip)


class Transpose(BaseTransform):
    """Permute the axes of an image: the default (2, 0, 1) turns HWC into CHW (an HW image gets C=1 first)."""

    def __init__(self, order: Sequence[int] = (2, 0, 1), keys=None) -> None:
        super().__init__(keys)
        self.order = tuple(order)

    def _apply_image(self, img):
        if isinstance(img, Tensor):
            return Tensor._wrap(np.ascontiguousarray(img._data.transpose(self.order)))
        a, _ = F.to_hwc("Transpose", img)
        if a.ndim == 2:
            a = a[:, :, None]
        if sorted(self.order) != list(range(a.ndim)):
            raise invalid_argument("Transpose", f"order {self.order} is not a permutation of the image's "
                                                f"{a.ndim} axes.")
        return a.transpose(self.order)
