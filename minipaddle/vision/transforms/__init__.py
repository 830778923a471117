"""paddle.vision.transforms: numpy image transforms (no PIL or cv2 needed) and their functional forms."""
from __future__ import annotations

from . import functional  # noqa: F401
from .transforms import *  # noqa: F401,F403
from .transforms import __all__ as _transforms_all

__all__ = [*_transforms_all, "functional"]
