"""Loss layers: CrossEntropyLoss, MSELoss, L1Loss, ..."""
from __future__ import annotations

__all__: list[str] = []
