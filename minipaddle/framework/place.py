"""Places (devices), after Paddle: `CPUPlace()`, `CUDAPlace(0)`, `set_device("gpu:0")`.

A place names where a tensor's memory lives and so which backend's kernels run. The
kernel registry keys kernels by `place.backend` ("cpu" or "gpu"). A tensor's place is read off
its storage: a numpy array lives on the CPU, a numba device array on the GPU (framework/gpu.py).
"""
from __future__ import annotations

import numpy as np

from .errors import invalid_argument


class Place:
    __slots__ = ("backend", "device_id")

    def __init__(self, backend: str, device_id: int = 0) -> None:
        self.backend = backend
        self.device_id = device_id

    def __repr__(self) -> str:
        return "Place(cpu)" if self.backend == "cpu" else f"Place(gpu:{self.device_id})"

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Place) and other.backend == self.backend
                and other.device_id == self.device_id)

    def __hash__(self) -> int:
        return hash((self.backend, self.device_id))

    def is_cpu_place(self) -> bool:
        return self.backend == "cpu"

    def is_gpu_place(self) -> bool:
        return self.backend == "gpu"


def CPUPlace() -> Place:  # noqa: N802 - Paddle's name
    return _CPU


def CUDAPlace(device_id: int = 0) -> Place:  # noqa: N802 - Paddle's name
    if not isinstance(device_id, int) or device_id < 0:
        raise invalid_argument("CUDAPlace", f"got device_id={device_id!r}, expected an int >= 0.")
    return Place("gpu", device_id)


_CPU = Place("cpu")
_current = _CPU


def _parse_device(device: str) -> Place:
    text = device.strip().lower()
    if text == "cpu":
        return _CPU
    name, _, index = text.partition(":")
    if name in ("gpu", "cuda"):
        if index == "":
            return CUDAPlace(0)
        if index.isdigit():
            return CUDAPlace(int(index))
    raise invalid_argument("set_device", f"got {device!r}, expected 'cpu', 'gpu' or 'gpu:N'.")


def cuda_available() -> bool:
    """True when numba.cuda is installed and sees a GPU (or its simulator is on)."""
    from . import gpu
    return gpu.available()


def set_device(device: str) -> Place:
    """`paddle.set_device("cpu")` / `"gpu:0"`: the place new tensors are created on."""
    global _current
    place = require(_parse_device(device), "set_device")
    _current = place
    return place


def require(place: Place, op: str) -> Place:
    """`place`, after checking it exists here: a GPU place loads numba.cuda and selects that device."""
    if place.backend == "gpu":
        from . import gpu
        if not gpu.available():
            raise invalid_argument(
                op, f"got {place}, but no CUDA GPU is available here.",
                hint="install the 'cuda' extra (pip install minipaddle[cuda]) on a machine with an NVIDIA GPU, "
                     "set NUMBA_ENABLE_CUDASIM=1 for numba's simulator, or use 'cpu'.")
        gpu.select(place.device_id)
        gpu.cuda()
    return place


def place_of(array) -> Place:
    """Where `array` lives: the current GPU for a device array, else the CPU."""
    if type(array) is np.ndarray:
        return _CPU
    from . import gpu
    return Place("gpu", gpu.current_device_id()) if gpu.is_device_array(array) else _CPU


def get_device() -> str:
    return "cpu" if _current.backend == "cpu" else f"gpu:{_current.device_id}"


def current_place() -> Place:
    return _current


def convert_place(place: object) -> Place:
    if place is None:
        return _current
    if isinstance(place, Place):
        return place
    if isinstance(place, str):
        return _parse_device(place)
    raise invalid_argument("place", f"got {place!r}, expected a Place or a string like 'cpu'.")
