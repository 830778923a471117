"""Functional API: max/avg/adaptive pools."""
from __future__ import annotations

__all__: list[str] = []
