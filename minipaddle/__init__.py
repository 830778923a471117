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
# every op family's public functions, by name: go-to-definition lands on the real def
from .framework.ops.elementwise import (  # noqa: F401
    abs, add, add_n, assign, cast, ceil, cos, divide, elementwise_pow, erf, exp, floor, floor_divide,
    log, log1p, maximum, minimum, mod, multiply, neg, pow, reciprocal, remainder, round, rsqrt, scale,
    sign, sin, sqrt, square, subtract, tanh, where
)
from .framework.ops.activation import (  # noqa: F401
    clip, elu, gelu, hardsigmoid, hardswish, hardtanh, leaky_relu, mish, relu, relu6, sigmoid, silu,
    softplus, softsign, tanhshrink
)
from .framework.ops.compare import (  # noqa: F401
    all, allclose, any, bitwise_and, bitwise_not, bitwise_or, bitwise_xor, equal, equal_all,
    greater_equal, greater_than, isclose, isfinite, isinf, isnan, less_equal, less_than, logical_and,
    logical_not, logical_or, logical_xor, not_equal
)
from .framework.ops.reduction import (  # noqa: F401
    amax, amin, argmax, argmin, cumsum, logsumexp, max, mean, min, norm, prod, std, sum, var
)
from .framework.ops.softmax import (  # noqa: F401
    log_softmax, softmax
)
from .framework.ops.manipulation import (  # noqa: F401
    broadcast_to, chunk, concat, expand, expand_as, flatten, flip, pad, reshape, reshape_, roll, slice,
    split, squeeze, stack, strided_slice, tile, transpose, tril, triu, unsqueeze
)
from .framework.ops.indexing import (  # noqa: F401
    gather, gather_nd, index_select, masked_fill, masked_select, nonzero, one_hot, scatter
)
from .framework.ops.linalg import (  # noqa: F401
    bmm, dist, dot, matmul, mm, mv, outer, t
)
from .framework.ops.sorting import (  # noqa: F401
    argsort, put_along_axis, sort, take_along_axis, topk
)
from .framework.ops.cumulative import (  # noqa: F401
    cumprod, logcumsumexp
)
from .framework.ops.building import (  # noqa: F401
    diag, diagflat, kron, meshgrid, repeat_interleave
)
from .framework.ops.counting import (  # noqa: F401
    bincount, bucketize, histogram, searchsorted, unique
)
from .framework.ops.complex import (  # noqa: F401
    angle, complex, conj, imag, is_complex, is_floating_point, is_integer, real
)
from .framework.ops.special import atan, digamma, lgamma, polygamma  # noqa: F401


def is_tensor(x) -> bool:
    return isinstance(x, Tensor)


from .framework.parameter import ParamAttr, create_parameter  # noqa: F401,E402

# Submodules and names that pull in more code load on first use, so `import minipaddle` stays quick.
_LAZY_MODULES = ("nn", "optimizer", "io", "vision", "metric", "hapi", "regularizer", "datasets", "debug",
                 "visualizer", "notebook", "callbacks", "static", "profiler", "incubate", "amp", "jit", "tensor",
                 "device", "distributed", "utils", "hub", "inference", "text", "autograd", "linalg", "fft",
                 "distribution", "sparse")
_LAZY_NAMES = {"Model": ("hapi", "Model"), "summary": ("hapi", "summary"),
               "save": ("framework.io", "save"), "load": ("framework.io", "load"),
               "flops": ("hapi.flops", "flops"), "DataParallel": ("distributed", "DataParallel"),
               "is_compiled_with_cuda": ("device", "is_compiled_with_cuda"),
               "enable_static": ("static", "enable_static"), "disable_static": ("static", "disable_static"),
               "in_dynamic_mode": ("static", "in_dynamic_mode"),
               "set_flags": ("framework.flags", "set_flags"), "get_flags": ("framework.flags", "get_flags"),
               "einsum": ("tensor.einsum", "einsum"), "inverse": ("linalg", "inv"), "cross": ("linalg", "cross"),
               "cholesky": ("linalg", "cholesky"), "eigvalsh": ("linalg", "eigvalsh")}


def __getattr__(name: str):
    import importlib
    if name in _LAZY_MODULES:
        return importlib.import_module(f".{name}", __name__)
    if name in _LAZY_NAMES:
        module, attr = _LAZY_NAMES[name]
        return getattr(importlib.import_module(f".{module}", __name__), attr)
    raise AttributeError(f"module 'minipaddle' has no attribute '{name}'")


def _check_nan_inf_changed(value) -> None:
    """FLAGS_check_nan_inf changed: the NaN/Inf checker (amp.debugging, loaded now) follows the flags."""
    from .amp import debugging
    debugging.flags_changed()


def _check_nan_inf_level_changed(value) -> None:
    from .framework.flags import get_flags
    if get_flags("FLAGS_check_nan_inf")["FLAGS_check_nan_inf"]:
        _check_nan_inf_changed(value)


def _wire_flags() -> None:
    # the core declares the flags and imports nothing above it: the package that acts on them registers here
    from .framework.flags import on_flag_change
    on_flag_change("FLAGS_check_nan_inf", _check_nan_inf_changed)
    on_flag_change("FLAGS_check_nan_inf_level", _check_nan_inf_level_changed)


_wire_flags()


def _load_sparse() -> None:
    """Tensor.to_sparse_coo/csr: paddle.sparse registers the conversions with the core when it loads."""
    import importlib
    importlib.import_module(".sparse", __name__)


from .framework.ops import tensor_methods as _tensor_methods  # noqa: E402

_tensor_methods.load_sparse = _load_sparse


def load_ipython_extension(ipython) -> None:
    """`%load_ext minipaddle`: register the notebook magics (%%paddle_trace, %paddle_graph, ...)."""
    from .notebook.magics import load_ipython_extension as load
    load(ipython)
