"""paddle.hub: models from a repository's hubconf.py (local folders; see minipaddle/hapi/hub.py)."""
from __future__ import annotations

from .hapi.hub import help, list, load  # noqa: A004 - Paddle's names

__all__ = ["list", "help", "load"]
