"""Loss ops: cross_entropy, nll_loss, mse_loss, ... (fused where it pays)."""
from __future__ import annotations

__all__: list[str] = []
