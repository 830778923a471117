"""The GPU backend's entry point: numba.cuda, loaded the first time a GPU is asked for.

`import minipaddle` never imports numba.cuda (it takes a second and needs a driver); the first
`set_device("gpu")`, `to_tensor(..., place="gpu")` or `x.cuda()` calls `cuda()` here, which
imports it, checks that a device (or the simulator, NUMBA_ENABLE_CUDASIM=1) is there, and makes
the device array a type kernels may return (registry.ARRAY_TYPES).

A GPU tensor's storage is a C-contiguous numba device array: `_data` of a Tensor on the GPU.
Moving data between host and device happens here and nowhere else:

    to_device(np_array) -> device array        to_host(device_array) -> np.ndarray
"""
from __future__ import annotations

import numpy as np

from . import flags, registry
from .errors import invalid_argument, unavailable

_cuda = None            # the numba.cuda module, once loaded
_device_types: tuple = ()


def available() -> bool:
    """True when numba.cuda imports and sees a GPU (or its simulator is on). Loads numba.cuda."""
    try:
        from numba import cuda as numba_cuda
    except ImportError:
        return False
    try:
        return bool(numba_cuda.is_available())
    except Exception:  # a broken driver install is 'not available', not a crash
        return False


def cuda():
    """numba.cuda, after checking a GPU is there; the first call registers the device array type."""
    global _cuda, _device_types
    if _cuda is not None:
        return _cuda
    if not available():
        raise unavailable("gpu", "no CUDA GPU is available here (numba.cuda finds none).",
                          hint="install the 'cuda' extra (pip install minipaddle[cuda]) on a machine with an "
                               "NVIDIA GPU, set NUMBA_ENABLE_CUDASIM=1 for the simulator, or stay on the CPU.")
    from numba import cuda as numba_cuda
    _install_pool()
    probe = numba_cuda.device_array(1, np.float32)
    _device_types = (type(probe),)
    registry.ARRAY_TYPES.update(_device_types)
    registry.DEVICE_ARRAY_TYPES.update(_device_types)
    _cuda = numba_cuda
    return _cuda


def _install_pool() -> None:
    """Serve device allocations from the caching pool (framework/device_memory.py) unless
    FLAGS_allocator_strategy says otherwise; the simulator has no device memory to pool."""
    import numba
    strategy = flags.get_flags("FLAGS_allocator_strategy")["FLAGS_allocator_strategy"]
    if numba.config.ENABLE_CUDASIM or strategy != "auto_growth":
        return
    try:
        from .kernels.cuda import memory_pool
        memory_pool.install()
    except (ImportError, AttributeError, RuntimeError) as exc:  # another numba-cuda's plugin interface
        import warnings
        warnings.warn(f"the GPU memory pool is off ({type(exc).__name__}: {exc}); every array comes from "
                      "numba's own allocator.", RuntimeWarning, stacklevel=3)


def device_count() -> int:
    if not available():
        return 0
    from numba import cuda as numba_cuda
    return len(numba_cuda.gpus)


def select(device_id: int) -> None:
    """Make GPU `device_id` the one new device arrays are allocated on (one GPU per process at a time)."""
    count = device_count()
    if device_id >= count:
        raise invalid_argument("CUDAPlace", f"got device id {device_id}, but {count} GPU(s) are visible "
                                            f"(ids 0..{count - 1})." if count else
                               f"got device id {device_id}, but no GPU is visible.")
    if count > 1:
        cuda().select_device(device_id)


def current_device_id() -> int:
    return 0 if _cuda is None or len(_cuda.gpus) < 2 else _cuda.get_current_device().id


def device_name() -> str:
    """The current GPU's model ("NVIDIA H100 80GB HBM3"; "simulator" under numba's CUDA simulator):
    an autotune decision for the GPU holds for this model."""
    name = getattr(cuda().current_context().device, "name", None)
    if isinstance(name, bytes):
        name = name.decode()
    return name or "simulator"


def is_device_array(array) -> bool:
    return _device_types != () and type(array) in _device_types


def shares_memory(a, b) -> bool:
    """Whether two device arrays overlap in GPU memory (a view and the array it views do)."""
    if not (is_device_array(a) and is_device_array(b)) or a.size == 0 or b.size == 0:
        return False
    host_a = getattr(a, "_ary", None)
    if host_a is not None:  # the simulator's device arrays wrap numpy arrays
        return bool(np.shares_memory(host_a, b._ary))
    start_a, start_b = a.device_ctypes_pointer.value, b.device_ctypes_pointer.value
    return start_a < start_b + b.nbytes and start_b < start_a + a.nbytes  # C-contiguous: one byte range each


def to_device(array: np.ndarray):
    """A device copy of a host array (made C-contiguous first: kernels index it flat)."""
    array = np.asarray(array)
    if array.dtype.kind in "OUSV" and array.dtype.names is None:
        raise invalid_argument("to_device", f"a {array.dtype} array cannot live on the GPU.",
                               hint="the GPU holds bool, integer, float16/32/64 and complex tensors.")
    return cuda().to_device(np.ascontiguousarray(array).reshape(array.shape))  # 0-D stays 0-D


STAGING_BUFFERS = 8      # pinned host buffers kept, by byte size (a DataLoader's fields: a few sizes)
_staging: dict = {}


def to_device_pinned(array: np.ndarray):
    """A device copy of a host array made through a reused page-locked (pinned) host buffer.

    The GPU's copy engine reads pinned memory directly; from ordinary (pageable) memory the driver
    first copies through a bounce buffer of its own. DataLoader batches come this way: the same few
    sizes every step, so each size's buffer is pinned once and reused (the copy to the device has
    finished when this returns, so the next batch may overwrite it)."""
    array = np.asarray(array)
    if array.dtype.kind in "OUSV" or array.size == 0:
        return to_device(array)
    buffer = _staging.pop(array.nbytes, None)
    if buffer is None:
        if len(_staging) >= STAGING_BUFFERS:
            del _staging[next(iter(_staging))]       # the least recently used size
        buffer = cuda().pinned_array(array.nbytes, np.uint8)
    _staging[array.nbytes] = buffer
    staged = buffer.view(array.dtype).reshape(array.shape)
    staged[...] = array
    return cuda().to_device(staged)


def to_host(array) -> np.ndarray:
    """A host copy of a device array (a numpy array is returned as it is)."""
    if type(array) is np.ndarray:
        return array
    return array.copy_to_host()


def synchronize() -> None:
    if _cuda is not None:
        _cuda.synchronize()
