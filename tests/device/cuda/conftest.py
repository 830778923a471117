"""CUDA tests run on a real GPU where there is one, else under numba's CUDA simulator.

The simulator must be switched on before numba is first imported, so this folder runs as its own
pytest process (numba reads NUMBA_ENABLE_CUDASIM once, at import). A machine with an NVIDIA driver
(nvidia-smi on the PATH) runs the real kernels; NUMBA_ENABLE_CUDASIM set by hand always wins.
"""
import os
import shutil

if "NUMBA_ENABLE_CUDASIM" not in os.environ and shutil.which("nvidia-smi") is None:
    os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")
