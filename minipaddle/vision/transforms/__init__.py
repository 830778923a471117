"""paddle.vision.transforms: numpy image transforms (no PIL or cv2 needed) and their functional forms."""
from __future__ import annotations

from . import functional  # noqa: F401
from .transforms import *  # noqa: F401,F403
from .transforms import __all__ as _transforms_all
from .augment import *  # noqa: F401,F403,E402
from .augment import __all__ as _augment_all
from .adjust import (adjust_brightness, adjust_contrast, adjust_hue, adjust_saturation, affine,  # noqa: F401
                     erase, perspective, rotate, to_grayscale)
# Paddle also exports the functional forms at this level (paddle.vision.transforms.hflip, ...)
from .functional import center_crop, crop, hflip, normalize, pad, resize, to_tensor, vflip  # noqa: F401,E402

__all__ = [*_transforms_all, *_augment_all, "functional"]
