"""minipaddle: a small, readable, fast PaddlePaddle-shaped deep-learning framework.

    import minipaddle as paddle
    x = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    (x * x).sum().backward()
    x.grad            # [2., 4., 6.]
"""
from __future__ import annotations

__version__ = "0.1.0"

from .framework import Tensor, errors  # noqa: F401
from .framework.autograd import (enable_grad, grad, is_grad_enabled, no_grad,  # noqa: F401
                                 set_grad_enabled)
from .framework.creation import (arange, empty, empty_like, eye, full, full_like, linspace,  # noqa: F401
                                 normal, numel, ones, ones_like, rand, randint, randn, randperm, seed, shape, to_tensor,
                                 uniform, zeros, zeros_like)
from .framework.dtype import (bool_ as bool, float16, float32, float64, get_default_dtype,  # noqa: F401,A004
                              int8, int16, int32, int64, set_default_dtype, uint8, bfloat16, complex64, complex128)
from .framework.place import CPUPlace, CUDAPlace, Place, get_device, set_device  # noqa: F401
from .framework.ops import public_api as _public_api

globals().update({_n: _f for _n, _f in _public_api().items() if _n not in globals()})


def is_tensor(x) -> bool:
    return isinstance(x, Tensor)


from .framework.parameter import ParamAttr, create_parameter  # noqa: F401,E402

# Submodules and names that pull in more code load on first use, so `import minipaddle` stays quick.
_LAZY_MODULES = ("nn", "optimizer", "io", "vision", "metric", "hapi", "regularizer", "datasets", "debug",
                 "visualizer", "notebook", "callbacks", "static", "profiler", "incubate", "amp", "jit", "tensor",
                 "device", "distributed", "utils", "hub", "inference", "text", "autograd")
_LAZY_NAMES = {"Model": ("hapi", "Model"), "summary": ("hapi", "summary"),
               "save": ("framework.io", "save"), "load": ("framework.io", "load"),
               "flops": ("hapi.flops", "flops"), "DataParallel": ("distributed", "DataParallel"),
               "is_compiled_with_cuda": ("device", "is_compiled_with_cuda"),
               "enable_static": ("static", "enable_static"), "disable_static": ("static", "disable_static"),
               "in_dynamic_mode": ("static", "in_dynamic_mode"),
               "set_flags": ("framework.flags", "set_flags"), "get_flags": ("framework.flags", "get_flags")}


def __getattr__(name: str):
    import importlib
    if name in _LAZY_MODULES:
        return importlib.import_module(f".{name}", __name__)
    if name in _LAZY_NAMES:
        module, attr = _LAZY_NAMES[name]
        return getattr(importlib.import_module(f".{module}", __name__), attr)
    raise AttributeError(f"module 'minipaddle' has no attribute '{name}'")


def load_ipython_extension(ipython) -> None:
    """`%load_ext minipaddle`: register the notebook magics (%%paddle_trace, %paddle_graph, ...)."""
    from .notebook.magics import load_ipython_extension as load
    load(ipython)
