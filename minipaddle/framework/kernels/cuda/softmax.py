"""softmax and log_softmax CUDA kernels: one block per row, the row's max subtracted before exp.

The softmax axis is moved last (a free reshape when it is already last, else one transpose copy
with reduction.permute), so each row is contiguous and a block's threads read it coalesced.
A block (a warp or more: as many threads as the row has, up to 256) makes three sweeps over its
row -- the max, the sum of exp(x - max), the output -- and combines its threads' partial max and
sum with warp shuffles, then across warps in shared memory.
Non-finite rows follow the CPU kernel (ops/softmax.py): a row holding +inf or NaN gives NaN
everywhere; a row of only -inf is not shifted (exp(-inf) = 0), so it gives 0 / 0 = NaN too.
float16 computes in float32.
"""
from __future__ import annotations

import math

import numpy as np
from numba import cuda, from_dtype

from .launch import THREADS, WARP, launch, max_blocks, shfl_down, specialize
from .reduction import permute


# ---- the row kernel template: `log_output` and `acc` are bound per op and dtype --------------------
def _softmax_rows(x, out, rows, row_len):
    scratch = cuda.shared.array(32, acc)  # noqa: F821 - one slot per warp
    tid = cuda.threadIdx.x
    step = cuda.blockDim.x
    for row in range(cuda.blockIdx.x, rows, cuda.gridDim.x):
        begin = row * row_len
        # 1. the row's max
        top = acc(-math.inf)  # noqa: F821
        for i in range(begin + tid, begin + row_len, step):
            v = acc(x[i])  # noqa: F821
            top = top if top >= v or top != top else v
        # ... combined over the block: shuffles within each warp, then the warps' results via shared memory
        offset = WARP // 2
        while offset > 0:
            other = shfl_down(top, offset)  # noqa: F821 - bound (launch.shfl_down)
            top = top if top >= other or top != top else other
            offset //= 2
        if tid % WARP == 0:
            scratch[tid // WARP] = top
        cuda.syncthreads()
        top = scratch[0]
        for w in range(1, step // WARP):
            top = top if top >= scratch[w] or top != top else scratch[w]
        cuda.syncthreads()  # scratch is reused for the sum
        if top == -math.inf:  # a row of only -inf: not shifted
            top = acc(0.0)  # noqa: F821
        # 2. the sum of exp(x - max)
        total = acc(0.0)  # noqa: F821
        for i in range(begin + tid, begin + row_len, step):
            total += math.exp(acc(x[i]) - top)  # noqa: F821
        offset = WARP // 2
        while offset > 0:
            total += shfl_down(total, offset)  # noqa: F821
            offset //= 2
        if tid % WARP == 0:
            scratch[tid // WARP] = total
        cuda.syncthreads()
        total = scratch[0]
        for w in range(1, step // WARP):
            total += scratch[w]
        cuda.syncthreads()  # scratch is reused by the next row
        # 3. the output
        if log_output:  # noqa: F821
            log_total = math.log(total) if total > 0 else -math.inf  # an all -inf row: total 0 (NaN: stays NaN)
            for i in range(begin + tid, begin + row_len, step):
                out[i] = acc(x[i]) - top - log_total  # noqa: F821
        else:
            for i in range(begin + tid, begin + row_len, step):
                out[i] = math.exp(acc(x[i]) - top) / total  # noqa: F821


_KERNELS: dict = {}


def _kernel(log_output: bool, dtype: np.dtype):
    acc_dtype = np.dtype("float64") if dtype == np.float64 else np.dtype("float32")
    key = (log_output, acc_dtype)
    kernel = _KERNELS.get(key)
    if kernel is None:
        names = {"acc": from_dtype(acc_dtype), "log_output": log_output, "shfl_down": shfl_down}
        name = "log_softmax_rows" if log_output else "softmax_rows"
        kernel = _KERNELS[key] = specialize(_softmax_rows, f"{name}_{acc_dtype}", names)
    return kernel


def _run(x, axis: int, log_output: bool):
    ndim = len(x.shape)
    if ndim == 0:  # a single element: softmax 1, log_softmax 0 (NaN stays NaN)
        return _run(x.reshape(1), 0, log_output).reshape(())
    axis = axis % ndim
    moved = x
    if axis != ndim - 1:
        perm = tuple(d for d in range(ndim) if d != axis) + (axis,)
        moved = permute(x, perm)
    row_len = x.shape[axis]
    rows = x.size // row_len if row_len else 0
    out = cuda.device_array(moved.shape, x.dtype)
    if rows and row_len:
        # short rows get smaller blocks (whole warps): no thread idles through a 10-class row
        threads = min(THREADS, WARP * math.ceil(row_len / WARP))
        blocks = min(rows, max_blocks() * (THREADS // threads))
        kernel = _kernel(log_output, np.dtype(x.dtype))
        launch(kernel, blocks, threads, moved.reshape(x.size), out.reshape(x.size), rows, row_len)
    if axis != ndim - 1:  # move the axis back where it was
        back = tuple(range(axis)) + (ndim - 1,) + tuple(range(axis, ndim - 1))
        out = permute(out, back)
    return out


def softmax(x, axis=-1):
    """exp(x - max) / sum(exp(x - max)) along `axis`."""
    return _run(x, axis, log_output=False)


def log_softmax(x, axis=-1):
    """(x - max) - log(sum(exp(x - max))) along `axis`."""
    return _run(x, axis, log_output=True)
