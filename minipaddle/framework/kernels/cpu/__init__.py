"""CPU kernels: numba ufuncs built from scalar primitives, numba loops, numpy/BLAS calls."""
