"""What every CUDA kernel module shares: the launch, launch sizes, warp shuffles, and building kernels from templates.

The launch. Every kernel in this folder starts through `launch(kernel, grid, block, *args)`, which is
`kernel[grid, block](*args)` plus one line for the debugger: while a recorded op runs, the launch
(kernel, grid, block) is noted in `kernel_launches.launch_log`, and the op's node shows it.

Launch sizes. Kernels loop grid-stride (`for i in range(cuda.grid(1), n, cuda.gridsize(1))`), so any
grid computes the right answer; `blocks_for(n)` picks enough blocks to fill the GPU (8 per
multiprocessor: one wave) and no more, so each thread handles several elements and the launch stays cheap.

Warp shuffles. Reductions finish inside a warp with `cuda.shfl_down_sync`: 32 threads exchange
registers with no shared memory and no barrier. numba's CUDA simulator has no shuffles, so under the
simulator `shfl_down` is emulated through shared memory (every thread of the block must call it --
the reduction kernels are written so they do).

Templates. A kernel such as "apply `primitive` to every element" is written once as a template
function; `specialize(template, name, names)` makes a copy whose globals bind `primitive` (and
whatever else the template names) and compiles it with `cuda.jit(cache=True)` on first use. The
copy's qualname carries a hash of the bound functions' source, so an edited primitive compiles
afresh instead of loading a stale kernel from `__pycache__`.
"""
from __future__ import annotations

import hashlib
import inspect
import math
import types

import numpy as np

if not hasattr(np, "row_stack"):
    # numba-cuda <= 0.30 registers an overload for np.row_stack on its first compile; numpy 2.5
    # removed that alias (of np.vstack), and the compile then fails with an AttributeError.
    np.row_stack = np.vstack

import numba  # noqa: E402 - after the numpy fix above
from numba import cuda  # noqa: E402

from ...kernel_launches import launch_log  # noqa: E402

SIMULATOR = bool(numba.config.ENABLE_CUDASIM)
# The simulator runs each GPU thread as a Python thread: small blocks, few of them, keep tests quick.
THREADS = 64 if SIMULATOR else 256
WARP = 32
FULL_MASK = 0xFFFFFFFF

_max_blocks = None


def max_blocks() -> int:
    """One wave of blocks: 8 blocks of 256 threads fill a multiprocessor (2048 resident threads)."""
    global _max_blocks
    if _max_blocks is None:
        if SIMULATOR:
            _max_blocks = 4
        else:
            _max_blocks = cuda.get_current_device().MULTIPROCESSOR_COUNT * 8
    return _max_blocks


def blocks_for(n: int, threads: int = THREADS) -> int:
    """Blocks for a grid-stride loop over n elements: one element per thread, capped at max_blocks()."""
    return max(1, min(math.ceil(n / threads), max_blocks()))


def launch(kernel, grid, block, *args) -> None:
    """Run `kernel` on `grid` blocks of `block` threads: `kernel[grid, block](*args)`.

    While the debugger records an op, the launch is noted for the op's node (kernel name, grid,
    block); otherwise this costs one attribute read. Example:

        launch(permute_copy, blocks_for(out.size), THREADS, x, out, ndim, shape, strides)
    """
    launches = launch_log.launches
    if launches is not None:
        launches.append((kernel, grid, block))
    kernel[grid, block](*args)


# ---- warp shuffles -------------------------------------------------------------------------
if SIMULATOR:
    import threading

    from numba.cuda.simulator import kernel as _simulator

    _allocating = threading.Lock()

    def shfl_down(value, delta):
        """The simulator's stand-in for cuda.shfl_down_sync: lane i reads lane i + delta of its warp
        (its own value when that lane is outside the warp), through a block-wide scratch array.

        Plain Python on purpose: the simulator swaps the `cuda` global of a device function on every
        call, which races when the threads of a block call it at once. Two scratch rows taken in
        turn need one barrier per shuffle: a thread cannot write a row again before every thread
        has passed the next barrier, by which time they have all read it."""
        sim = _simulator._get_kernel_context()
        with _allocating:  # the simulator's shared.array is not thread-safe on first use
            scratch = sim.shared.array((2, 1024), object)
        me = threading.current_thread()
        turn = getattr(me, "shuffle_turn", 0)
        me.shuffle_turn = 1 - turn
        tid = sim.threadIdx.x
        scratch[turn, tid] = value
        sim.syncthreads()
        return scratch[turn, tid + delta] if tid % WARP + delta < WARP else value


else:
    @cuda.jit(device=True)
    def shfl_down(value, delta):
        """Lane i gets lane i + delta's `value` (all 32 lanes take part)."""
        return cuda.shfl_down_sync(FULL_MASK, value, delta)


# ---- kernels from templates ------------------------------------------------------------------
def _source_tag(functions) -> str:
    digest = hashlib.sha1()
    for fn in functions:
        fn = getattr(fn, "py_func", fn)
        fn = getattr(fn, "__wrapped__", fn)
        try:
            digest.update(inspect.getsource(fn).encode())
        except (OSError, TypeError):  # a numba type or a constant: its repr is its identity
            digest.update(repr(fn).encode())
    return digest.hexdigest()[:10]


def specialize(template, name: str, names: dict, *, device: bool = False):
    """`template` with its free globals bound to `names`, compiled by cuda.jit (cache=True) on first call.

    `name` is the kernel's readable name (it shows in profilers: "gelu_float32"); the compiled code
    is cached on disk under it plus a hash of the bound functions' source.
    """
    bound = {**template.__globals__, **names}
    fn = types.FunctionType(template.__code__, bound, name, template.__defaults__)
    fn.__qualname__ = f"{name}_{_source_tag(names.values())}"
    fn.__module__ = template.__module__
    fn.__doc__ = template.__doc__
    if device:
        return cuda.jit(device=True)(fn)
    return cuda.jit(cache=True)(fn)


def device_function(fn):
    """A plain Python scalar function (a primitive) as a CUDA device function."""
    return cuda.jit(device=True)(fn)


def float32_variant(fn):
    """A copy of the scalar function `fn` whose float constants are float32, for float32 kernels.

    numba types a Python float constant as float64, and float32 * float64 is float64: `0.5 * x *
    (1.0 + math.erf(x * SQRT_HALF))` would compute a float32 GELU in float64 (erf, not erff) --
    on a GPU several times the work. With its constants (and the float globals it reads, such as
    SQRT_HALF) made float32, the same source computes in float32, as PyTorch's float32 kernels do.
    """
    consts = tuple(np.float32(c) if type(c) is float else c for c in fn.__code__.co_consts)
    names = {k: np.float32(v) if type(v) is float else v for k, v in fn.__globals__.items()}
    copy = types.FunctionType(fn.__code__.replace(co_consts=consts), names, fn.__name__, fn.__defaults__)
    copy.__qualname__ = f"{fn.__qualname__}_float32"
    copy.__module__ = fn.__module__
    copy.__wrapped__ = fn  # its source is the primitive's
    return copy


def flat(array, n: int):
    """A C-contiguous device array as 1-D (no copy; a 1-D array is passed as it is: no new object)."""
    return array if len(array.shape) == 1 else array.reshape(n)
