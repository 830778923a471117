"""CUDA kernels (numba.cuda): every kernel of the GPU backend.

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
    indexing.py     x[index], x[index] = value, gather, gather_nd, scatter, take_along_axis, one_hot,
                    embedding + atomic grads
    cumulative.py   cumsum
    composed.py     kernels made of the kernels above: logsumexp, p_norm, any/all, isclose, roll, masked_select, ...
    conv.py         conv2d and its gradients: im2col, the GPU matmul, col2im with atomic adds
    pooling.py      max/avg/adaptive pooling and their gradients
    norm.py         batch_norm, layer_norm, group_norm (composed of reductions and elementwise kernels)
    loss.py         the fused softmax cross-entropy and its gradient
    linear.py       x @ w + b
    optimizer.py    fused per-parameter optimizer updates

Without a GPU they run under numba's CUDA simulator (`NUMBA_ENABLE_CUDASIM=1`), slowly but exactly.
"""
