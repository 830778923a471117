"""Common layers: Linear, Dropout, Embedding, Flatten, Identity, Pad, Upsample."""
from __future__ import annotations

__all__: list[str] = []
