"""Moving a tensor between devices: `x.cuda()`, `x.cpu()`, `x.to("gpu")`.

The move is an op like any other (Paddle's memcpy_h2d / memcpy_d2h), so it has a gradient: the
gradient of `y = x.cuda()` is `dy` moved back to where `x` lives. The copy itself is
`gpu.to_device` / `gpu.to_host`; both kernels are registered for every dtype on both backends,
since the input's place picks the kernel and the `place` attribute says where the copy goes.
"""
from __future__ import annotations

import numpy as np

from .. import gpu
from ..dispatch import dispatch
from ..errors import invalid_argument, unimplemented
from ..place import Place, convert_place, place_of, require
from ..registry import add_kernel, new_meta, register_op
from ..tensor import Tensor
from .common import ALL, BFLOAT16


def copy_to_meta(x, place="cpu", src="cpu"):
    return new_meta(x.shape, x.dtype)


def copy_to_grad(node, dout):
    return (copy_to_place(dout, node.src, node.place),)


COPY_TO = register_op("copy_to", inputs=("x",), attrs={"place": (str, "cpu"), "src": (str, "cpu")},
                      infer_meta=copy_to_meta, backward=copy_to_grad,
                      doc="A copy of x on `place` ('cpu' or 'gpu'); its gradient moves back to `src`.")


def copy_from_host(x: np.ndarray, place="cpu", src="cpu"):
    """The kernel for a host input: a host copy, or a device copy."""
    return x.copy() if place == "cpu" else gpu.to_device(x)


def copy_from_device(x, place="cpu", src="gpu"):
    """The kernel for a device input: a host copy, or a new device array with the same values."""
    if place == "cpu":
        return gpu.to_host(x)
    out = gpu.cuda().device_array(x.shape, x.dtype)
    out.copy_to_device(x)
    return out


add_kernel("copy_to", "cpu", ALL, copy_from_host, name="memcpy")
add_kernel("copy_to", "gpu", [d for d in ALL if d not in BFLOAT16], copy_from_device, name="memcpy")


def copy_to_place(x: Tensor, place: str, src: str) -> Tensor:
    return dispatch(COPY_TO, (x,), {"place": place, "src": src})


def to_place(x: Tensor, place) -> Tensor:
    """x on `place` (a Place or 'cpu'/'gpu'/'gpu:N'); x itself when it is there already, as Paddle does."""
    target = require(convert_place(place), "Tensor.to")
    here = place_of(x._data)
    if target == here:
        return x
    if target.backend == "gpu" and x._data.dtype.kind == "V":
        raise unimplemented("Tensor.cuda", "bfloat16 tensors have no GPU kernels in minipaddle.",
                            hint="cast to float32 or float16 first: x.astype('float32').cuda().")
    return copy_to_place(x, target.backend, here.backend)


def cuda(self: Tensor, device_id=None, blocking: bool = True) -> Tensor:
    """This tensor on GPU `device_id` (the current one when None); differentiable."""
    if device_id is not None and (not isinstance(device_id, int) or isinstance(device_id, bool) or device_id < 0):
        raise invalid_argument("Tensor.cuda", f"got device_id={device_id!r}, expected None or an int >= 0.")
    return to_place(self, Place("gpu", device_id or 0))


def cpu(self: Tensor) -> Tensor:
    """This tensor on the CPU; differentiable."""
    return to_place(self, "cpu")


def to(self: Tensor, *args, **kwargs) -> Tensor:
    """Paddle's `x.to(place)`, `x.to(dtype)`, `x.to(place, dtype)` (keywords `device`, `dtype`)."""
    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    kwargs.pop("blocking", None)
    if kwargs:
        raise invalid_argument("Tensor.to", f"got unexpected keywords {sorted(kwargs)}.",
                               hint="use x.to(device), x.to(dtype) or x.to(device, dtype).")
    for arg in args:
        if isinstance(arg, Place) or (isinstance(arg, str) and arg.split(":")[0].lower() in ("cpu", "gpu", "cuda")):
            device = arg
        elif arg is not None:
            dtype = arg
    out = self if device is None else to_place(self, device)
    return out if dtype is None else out.astype(dtype)


Tensor.cuda = cuda
Tensor.cpu = cpu
Tensor.to = to
