"""Golden cases: sparse (issue: scientific computing)."""
from __future__ import annotations

from .harness import case, outcome  # noqa: F401
