"""Discrete Fourier transforms (paddle.fft)."""
from __future__ import annotations
