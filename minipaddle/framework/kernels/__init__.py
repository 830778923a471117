"""Kernels: the code that computes an op on one backend. cpu/ holds numba and numpy kernels."""
