"""paddle.device: which device new tensors live on, and what this build can use.

    paddle.device.set_device("cpu")          # or "gpu", "gpu:0" where numba.cuda sees a GPU
    paddle.device.get_device()               # 'cpu'
    paddle.device.cuda.device_count()        # 0 on a machine without an NVIDIA GPU
"""
from __future__ import annotations

from ..framework.place import cuda_available, get_device, set_device
from . import cuda  # noqa: F401

__all__ = ["set_device", "get_device", "is_compiled_with_cuda", "is_compiled_with_rocm", "is_compiled_with_xpu",
           "cuda"]


def is_compiled_with_cuda() -> bool:
    """Whether tensors can be placed on an NVIDIA GPU here (minipaddle's GPU path is numba.cuda)."""
    return cuda_available()


def is_compiled_with_rocm() -> bool:
    """minipaddle has no ROCm path."""
    return False


def is_compiled_with_xpu() -> bool:
    """minipaddle has no Kunlun XPU path."""
    return False
