"""Elementwise CUDA kernels built from the same scalar primitives as the CPU loops.

`CudaElementwiseKernel(primitives.exp, FLOATS)` compiles nothing until its first call; then it
specializes one grid-stride kernel that applies the primitive to every element -- the primitive
is compiled as a CUDA device function and inlined -- and numba caches the machine code on disk.
One definition of the math (ops/primitives.py), every device.

Two paths per kernel:
- every input has the output's shape: a flat loop, `out[i] = primitive(x[i], y[i])` -- consecutive
  threads touch consecutive elements, so loads and stores coalesce;
- shapes differ (numpy broadcasting): neighbouring dims that all operands walk alike are merged
  into one first (`coalesce`). Two operands left with two dims (a matrix and a row or a column,
  the common case) run on a 2-D grid of rows and columns; otherwise each thread finds the input
  elements it reads with the shared index helper `broadcast_position(s)` (kernels/broadcast.py,
  the one the CPU can compile too).

float16 and float32 compute in float32 (the primitive's float constants made float32, see
launch.float32_variant), float64 in float64; float16 is rounded once, on the store.
Kernels take C-contiguous device arrays and return new ones; scalar attributes arrive as numbers.
"""
from __future__ import annotations

import math

import numpy as np
from numba import cuda, from_dtype

from ...ops import primitives as P
from .. import broadcast
from .launch import THREADS, blocks_for, device_function, flat, float32_variant, launch, max_blocks, specialize

FLOATS = ("float16", "float32", "float64")
NUMERIC = FLOATS + ("int32", "int64")
ALL = NUMERIC + ("bool",)
INTS_AND_BOOL = ("int32", "int64", "bool")
BOOL = np.dtype(bool)

# float16 math runs in float32; every other dtype computes in itself
_COMPUTE = {np.dtype("float16"): np.dtype("float32")}

broadcast_position = cuda.jit(device=True)(broadcast.broadcast_position)
broadcast_positions = cuda.jit(device=True)(broadcast.broadcast_positions)


# ---- kernel templates: `primitive` and `compute` are bound per op and dtype (launch.specialize) ----
def _map_x(x, out):
    # Four elements per step, all loaded before any is stored: four loads in flight per thread
    # keep the memory system busy (one at a time leaves half of an H100's bandwidth unused).
    n, grid = out.size, cuda.gridsize(1)
    i = cuda.grid(1)
    while i + 3 * grid < n:
        a, b, c, d = x[i], x[i + grid], x[i + 2 * grid], x[i + 3 * grid]
        out[i] = primitive(compute(a))  # noqa: F821 - bound per op
        out[i + grid] = primitive(compute(b))  # noqa: F821
        out[i + 2 * grid] = primitive(compute(c))  # noqa: F821
        out[i + 3 * grid] = primitive(compute(d))  # noqa: F821
        i += 4 * grid
    while i < n:
        out[i] = primitive(compute(x[i]))  # noqa: F821
        i += grid


# the rarer patterns loop one element at a time
def _map_x_a(x, a, out):
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        out[i] = primitive(compute(x[i]), a)  # noqa: F821


def _map_x_ab(x, a, b, out):
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        out[i] = primitive(compute(x[i]), a, b)  # noqa: F821


def _map_xy(x, y, out):
    n, grid = out.size, cuda.gridsize(1)  # unrolled by four, as _map_x
    i = cuda.grid(1)
    while i + 3 * grid < n:
        x0, x1, x2, x3 = x[i], x[i + grid], x[i + 2 * grid], x[i + 3 * grid]
        y0, y1, y2, y3 = y[i], y[i + grid], y[i + 2 * grid], y[i + 3 * grid]
        out[i] = primitive(compute(x0), compute(y0))  # noqa: F821
        out[i + grid] = primitive(compute(x1), compute(y1))  # noqa: F821
        out[i + 2 * grid] = primitive(compute(x2), compute(y2))  # noqa: F821
        out[i + 3 * grid] = primitive(compute(x3), compute(y3))  # noqa: F821
        i += 4 * grid
    while i < n:
        out[i] = primitive(compute(x[i]), compute(y[i]))  # noqa: F821
        i += grid


def _map_xy_broadcast(x, y, out, ndim, shape, x_strides, y_strides):
    n, grid = out.size, cuda.gridsize(1)  # unrolled by four, as _map_x: eight loads in flight
    i = cuda.grid(1)
    while i + 3 * grid < n:
        xi0, yi0 = broadcast_positions(i, ndim, shape, x_strides, y_strides)
        xi1, yi1 = broadcast_positions(i + grid, ndim, shape, x_strides, y_strides)
        xi2, yi2 = broadcast_positions(i + 2 * grid, ndim, shape, x_strides, y_strides)
        xi3, yi3 = broadcast_positions(i + 3 * grid, ndim, shape, x_strides, y_strides)
        x0, x1, x2, x3 = x[xi0], x[xi1], x[xi2], x[xi3]
        y0, y1, y2, y3 = y[yi0], y[yi1], y[yi2], y[yi3]
        out[i] = primitive(compute(x0), compute(y0))  # noqa: F821
        out[i + grid] = primitive(compute(x1), compute(y1))  # noqa: F821
        out[i + 2 * grid] = primitive(compute(x2), compute(y2))  # noqa: F821
        out[i + 3 * grid] = primitive(compute(x3), compute(y3))  # noqa: F821
        i += 4 * grid
    while i < n:
        xi, yi = broadcast_positions(i, ndim, shape, x_strides, y_strides)
        out[i] = primitive(compute(x[xi]), compute(y[yi]))  # noqa: F821
        i += grid


def _map_xy_broadcast_2d(x, y, out, rows, cols, x_row, x_col, y_row, y_col):
    # the common case after merging dims -- a matrix and a row or a column: a 2-D grid walks rows
    # (blockIdx.y) and columns (blockIdx.x, threads), so finding an element needs no division at all
    for r in range(cuda.blockIdx.y, rows, cuda.gridDim.y):
        for c in range(cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x, cols, cuda.gridDim.x * cuda.blockDim.x):
            out[r * cols + c] = primitive(compute(x[r * x_row + c * x_col]), compute(y[r * y_row + c * y_col]))  # noqa: F821


def _map_cxy(c, x, y, out):
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        out[i] = primitive(c[i], x[i], y[i])  # noqa: F821


def _map_cxy_broadcast(c, x, y, out, ndim, shape, c_strides, x_strides, y_strides):
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        ci = broadcast_position(i, ndim, shape, c_strides)
        xi, yi = broadcast_positions(i, ndim, shape, x_strides, y_strides)
        out[i] = primitive(c[ci], x[xi], y[yi])  # noqa: F821


_FLAT = {(1, 0): _map_x, (1, 1): _map_x_a, (1, 2): _map_x_ab, (2, 0): _map_xy, (3, 0): _map_cxy}
_BROADCAST = {2: _map_xy_broadcast, 3: _map_cxy_broadcast}


def _is_array(value) -> bool:
    return not isinstance(value, (bool, int, float, np.generic))


class CudaElementwiseKernel:
    """A CUDA kernel applying `primitive` elementwise to device arrays of `dtypes`.

    `out_dtype` is the output's dtype when it is not the input's (bool for comparisons).
    Call it as the CPU kernel is called: arrays first, then scalar arguments of the primitive.

        exp = CudaElementwiseKernel(primitives.exp, FLOATS)
        y = exp(x_device)               # a new device array
    """

    def __init__(self, primitive, dtypes, out_dtype=None) -> None:
        self.primitive = primitive
        self.dtypes = frozenset(np.dtype(d) for d in dtypes)
        self.out_dtype = None if out_dtype is None else np.dtype(out_dtype)
        self._kernels: dict = {}
        self._device_primitives: dict = {}

    def _device_primitive(self, compute_dtype: np.dtype):
        """The primitive as a device function; for float32 math, its float32 variant (launch.py)."""
        single = compute_dtype == np.float32
        fn = self._device_primitives.get(single)
        if fn is None:
            fn = self._device_primitives[single] = device_function(
                float32_variant(self.primitive) if single else self.primitive)
        return fn

    def _kernel(self, template, dtype: np.dtype):
        key = (template.__name__, dtype)
        kernel = self._kernels.get(key)
        if kernel is None:
            compute_dtype = _COMPUTE.get(dtype, dtype)
            names = {"primitive": self._device_primitive(compute_dtype), "compute": from_dtype(compute_dtype),
                     "broadcast_position": broadcast_position, "broadcast_positions": broadcast_positions}
            # e.g. "gelu_map_x_float32": what a profiler shows for this launch
            kernel = self._kernels[key] = specialize(template, f"{self.primitive.__name__}{template.__name__}_{dtype}",
                                                     names)
        return kernel

    def __call__(self, *args, out_dtype=None):
        arrays = [a for a in args if _is_array(a)]
        scalars = args[len(arrays):]
        dtype = np.dtype(arrays[0].dtype) if len(arrays) < 3 else np.dtype(arrays[1].dtype)
        if dtype not in self.dtypes:
            have = ", ".join(sorted(d.name for d in self.dtypes))
            raise TypeError(f"{self.primitive.__name__} (cuda): no kernel for dtype {dtype}; have {have}.")
        out_dtype = out_dtype or self.out_dtype or dtype
        compute_type = _COMPUTE.get(dtype, dtype).type
        scalars = tuple(compute_type(s) for s in scalars)  # a float32 kernel gets float32 attributes
        shape = arrays[0].shape
        if any(a.shape != shape for a in arrays):
            shape = np.broadcast_shapes(*(a.shape for a in arrays))
        out = cuda.device_array(shape, out_dtype)
        n = out.size
        if n == 0:
            return out
        flat_out = flat(out, n)
        blocks = blocks_for(n)
        if all(a.shape == shape for a in arrays):
            kernel = self._kernel(_FLAT[(len(arrays), len(scalars))], dtype)
            launch(kernel, blocks, THREADS, *(flat(a, n) for a in arrays), *scalars, flat_out)
            return out
        strides = [broadcast.broadcast_strides(a.shape, shape) for a in arrays]
        merged, strides = broadcast.coalesce(shape, *strides)
        if len(merged) == 2 and len(arrays) == 2:
            rows, cols = merged
            (x_row, x_col), (y_row, y_col) = strides
            across = min(math.ceil(cols / THREADS), max_blocks())
            down = min(rows, 65535, max(1, 4 * max_blocks() // across))  # about four waves of blocks
            kernel = self._kernel(_map_xy_broadcast_2d, dtype)
            launch(kernel, (across, down), THREADS, flat(arrays[0], arrays[0].size), flat(arrays[1], arrays[1].size),
                   flat_out, rows, cols, x_row, x_col, y_row, y_col)
            return out
        kernel = self._kernel(_BROADCAST[len(arrays)], dtype)
        flat_inputs = (flat(a, a.size) for a in arrays)
        launch(kernel, blocks, THREADS, *flat_inputs, flat_out, len(merged), broadcast.padded(merged, 1),
               *(broadcast.padded(s, 0) for s in strides))
        return out

    @property
    def __wrapped__(self):  # inspect.unwrap lands on the primitive: its source is the kernel's math
        return self.primitive


# ---- scalar math the CPU runs through numpy (no primitive there): written here once -------------
def power(x, y):
    return x ** y


def floor_divide_float(x, y):
    return math.floor(x / y) if y != 0 else x / y  # x / 0 is +-inf or nan, as numpy's floor_divide


def remainder_float(x, y):
    return x % y if y != 0 else math.nan  # Python's sign rule (the divisor's), as numpy and Paddle


def equal_scalar(x, y):
    return x == y


def not_equal_scalar(x, y):
    return x != y


def less_than_scalar(x, y):
    return x < y


def less_equal_scalar(x, y):
    return x <= y


def greater_than_scalar(x, y):
    return x > y


def greater_equal_scalar(x, y):
    return x >= y


def logical_and_scalar(x, y):
    return x != 0 and y != 0


def logical_or_scalar(x, y):
    return x != 0 or y != 0


def logical_xor_scalar(x, y):
    return (x != 0) != (y != 0)


def logical_not_scalar(x):
    return x == 0


def bitwise_and_scalar(x, y):
    return x & y


def bitwise_or_scalar(x, y):
    return x | y


def bitwise_xor_scalar(x, y):
    return x ^ y


def bitwise_not_scalar(x):
    return ~x  # ints only: bitwise_not of bool is logical_not (see bitwise_not below)


def isnan_scalar(x):
    return x != x


def isinf_scalar(x):
    return x == math.inf or x == -math.inf


def isfinite_scalar(x):
    return not (x != x or x == math.inf or x == -math.inf)


def scale_after_scalar(x, scale, bias):
    return x * scale + bias


def scale_before_scalar(x, scale, bias):
    return (x + bias) * scale


def select_scalar(condition, x, y):
    return x if condition else y


def identity_scalar(x):
    return x


# ---- binary arithmetic ------------------------------------------------------------------
add = CudaElementwiseKernel(P.add, NUMERIC)
subtract = CudaElementwiseKernel(P.subtract, NUMERIC)
multiply = CudaElementwiseKernel(P.multiply, NUMERIC)
divide = CudaElementwiseKernel(P.divide, FLOATS)
maximum = CudaElementwiseKernel(P.maximum, NUMERIC)
minimum = CudaElementwiseKernel(P.minimum, NUMERIC)
elementwise_pow = CudaElementwiseKernel(power, FLOATS)
floor_divide = CudaElementwiseKernel(floor_divide_float, FLOATS)
remainder = CudaElementwiseKernel(remainder_float, FLOATS)

# ---- unary math -------------------------------------------------------------------------
neg = CudaElementwiseKernel(P.neg, NUMERIC)
abs = CudaElementwiseKernel(P.abs, NUMERIC)  # noqa: A001 - the op's name
square = CudaElementwiseKernel(P.square, NUMERIC)
exp = CudaElementwiseKernel(P.exp, FLOATS)
log = CudaElementwiseKernel(P.log, FLOATS)
log1p = CudaElementwiseKernel(P.log1p, FLOATS)
sqrt = CudaElementwiseKernel(P.sqrt, FLOATS)
rsqrt = CudaElementwiseKernel(P.rsqrt, FLOATS)
reciprocal = CudaElementwiseKernel(P.reciprocal, FLOATS)
sin = CudaElementwiseKernel(P.sin, FLOATS)
cos = CudaElementwiseKernel(P.cos, FLOATS)
tanh = CudaElementwiseKernel(P.tanh, FLOATS)
erf = CudaElementwiseKernel(P.erf, FLOATS)
sign = CudaElementwiseKernel(P.sign, FLOATS)
floor = CudaElementwiseKernel(P.floor, FLOATS)
ceil = CudaElementwiseKernel(P.ceil, FLOATS)
round = CudaElementwiseKernel(P.round, FLOATS)  # noqa: A001 - the op's name

# ---- comparisons and logic: bool out --------------------------------------------------------
equal = CudaElementwiseKernel(equal_scalar, ALL, out_dtype=BOOL)
not_equal = CudaElementwiseKernel(not_equal_scalar, ALL, out_dtype=BOOL)
less_than = CudaElementwiseKernel(less_than_scalar, ALL, out_dtype=BOOL)
less_equal = CudaElementwiseKernel(less_equal_scalar, ALL, out_dtype=BOOL)
greater_than = CudaElementwiseKernel(greater_than_scalar, ALL, out_dtype=BOOL)
greater_equal = CudaElementwiseKernel(greater_equal_scalar, ALL, out_dtype=BOOL)
logical_and = CudaElementwiseKernel(logical_and_scalar, ALL, out_dtype=BOOL)
logical_or = CudaElementwiseKernel(logical_or_scalar, ALL, out_dtype=BOOL)
logical_xor = CudaElementwiseKernel(logical_xor_scalar, ALL, out_dtype=BOOL)
logical_not = CudaElementwiseKernel(logical_not_scalar, ALL, out_dtype=BOOL)
isnan = CudaElementwiseKernel(isnan_scalar, NUMERIC, out_dtype=BOOL)
isinf = CudaElementwiseKernel(isinf_scalar, NUMERIC, out_dtype=BOOL)
isfinite = CudaElementwiseKernel(isfinite_scalar, NUMERIC, out_dtype=BOOL)
bitwise_and = CudaElementwiseKernel(bitwise_and_scalar, INTS_AND_BOOL)
bitwise_or = CudaElementwiseKernel(bitwise_or_scalar, INTS_AND_BOOL)
bitwise_xor = CudaElementwiseKernel(bitwise_xor_scalar, INTS_AND_BOOL)

_BITWISE_NOT_INT = CudaElementwiseKernel(bitwise_not_scalar, ("int32", "int64"))


def bitwise_not(x):
    """~x; on bool it is logical not (numpy's invert)."""
    if np.dtype(x.dtype) == BOOL:
        return logical_not(x)
    return _BITWISE_NOT_INT(x)


# ---- scale, cast, assign, where ---------------------------------------------------------------
_SCALE_AFTER = CudaElementwiseKernel(scale_after_scalar, NUMERIC)
_SCALE_BEFORE = CudaElementwiseKernel(scale_before_scalar, NUMERIC)
_CAST = CudaElementwiseKernel(identity_scalar, ALL)
_SELECT = CudaElementwiseKernel(select_scalar, ALL)


def scale(x, scale=1.0, bias=0.0, bias_after_scale=True):
    """scale * x + bias (bias_after_scale) or scale * (x + bias)."""
    if bias_after_scale:
        return _SCALE_AFTER(x, scale, bias)
    return _SCALE_BEFORE(x, scale, bias)


def cast(x, dtype=None):
    """A copy of x converted to `dtype` (float -> int truncates toward zero; to bool: x != 0)."""
    dtype = np.dtype(dtype)
    if dtype == np.dtype(x.dtype):
        return assign(x)
    return _CAST(x, out_dtype=dtype)


def assign(x):
    """A device-to-device copy of x."""
    out = cuda.device_array(x.shape, x.dtype)
    if x.size:
        out.copy_to_device(x)
    return out


def where(condition, x, y):
    """x where condition holds, else y; the three broadcast together."""
    return _SELECT(condition, x, y)
