"""paddle.hapi: the high-level API — paddle.Model (fit / evaluate / predict), callbacks, summary."""
from __future__ import annotations

from . import callbacks  # noqa: F401
from .model import Model
from .progressbar import ProgressBar  # noqa: F401
from .summary import summary

__all__ = ["Model", "summary", "callbacks"]
