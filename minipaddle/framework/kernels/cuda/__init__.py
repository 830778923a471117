"""CUDA kernels (numba.cuda): the GPU backend's elementwise, reduction, softmax and random kernels.

Nothing here is imported by `import minipaddle`: the op registry names these kernels through
`LazyKernel("minipaddle.framework.kernels.cuda.elementwise:gelu")` (kernels/cuda_registry.py), so numba.cuda
is imported the first time a GPU tensor meets an op. Every kernel takes C-contiguous numba device
arrays and the op's attributes -- the same signature as the op's CPU kernel -- and returns new
device arrays.

    launch.py       launch() (every kernel starts there; the debugger notes it), launch sizes, warp shuffles
    elementwise.py  every elementwise op, built from the scalar primitives (ops/primitives.py)
    activation.py   relu, gelu, silu, leaky_relu, clip, ... from the same primitives
    reduction.py    sum, mean, max, min, prod, argmax, argmin, var, std
    softmax.py      softmax, log_softmax
    random.py       Philox4x32-10 counter-based random numbers: uniform, normal, dropout masks
    manipulation.py broadcast_to, expand, expand_as, transpose: gathers into C-contiguous copies
    strided.py      reshape & co. (views), tile, flip, concat, stack, split, slice, pad: strided copies
    indexing.py     x[index], gather, gather_nd, scatter, take_along_axis, one_hot, embedding + atomic grads
    cumulative.py   cumsum

Without a GPU they run under numba's CUDA simulator (`NUMBA_ENABLE_CUDASIM=1`), slowly but exactly.
"""
