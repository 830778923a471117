"""Kernels: the code that computes an op on one backend. cpu/ holds numba and numpy kernels."""
from .numba_cache import configure as _configure_numba_cache

_configure_numba_cache()  # before any kernel module imports numba: a read-only install must still run
