"""paddle.callbacks: the training callbacks of the high-level API (they live in hapi/callbacks.py)."""
from __future__ import annotations

from .hapi.callbacks import *  # noqa: F401,F403
from .hapi.callbacks import __all__  # noqa: F401
