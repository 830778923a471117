"""Recurrent layers built from ops: SimpleRNN, LSTM, GRU (and their cells)."""
from __future__ import annotations

__all__: list[str] = []
