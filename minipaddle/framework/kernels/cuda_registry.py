"""Registers the CUDA kernels (kernels/cuda/) with the op registry, under KernelKey("gpu", dtype).

Every kernel is named by a LazyKernel target string, so importing this module imports no numba: the
kernel's module (and numba.cuda) loads the first time an op runs on a GPU tensor. Each kernel has the
signature of the op's CPU kernel and takes and returns C-contiguous numba device arrays.

float16 kernels load float16, compute in float32 and store float16. Complex and bfloat16 tensors
have no GPU kernels yet; int8/int16/uint8 neither.

Import it after the op library (minipaddle.framework.ops) has registered every op.
"""
from __future__ import annotations

from ..registry import LazyKernel, add_kernel

FLOATS = ("float16", "float32", "float64")
NUMERIC = FLOATS + ("int32", "int64")
ALL = NUMERIC + ("bool",)
INTS_AND_BOOL = ("int32", "int64", "bool")

# ---- elementwise arithmetic and math (kernels/cuda/elementwise.py) ----
add_kernel("add", "gpu", NUMERIC, LazyKernel("minipaddle.framework.kernels.cuda.elementwise:add"), name="cuda")
add_kernel("subtract", "gpu", NUMERIC, LazyKernel("minipaddle.framework.kernels.cuda.elementwise:subtract"),
           name="cuda")
add_kernel("multiply", "gpu", NUMERIC, LazyKernel("minipaddle.framework.kernels.cuda.elementwise:multiply"),
           name="cuda")
add_kernel("divide", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.elementwise:divide"), name="cuda")
add_kernel("maximum", "gpu", NUMERIC, LazyKernel("minipaddle.framework.kernels.cuda.elementwise:maximum"), name="cuda")
add_kernel("minimum", "gpu", NUMERIC, LazyKernel("minipaddle.framework.kernels.cuda.elementwise:minimum"), name="cuda")
add_kernel("elementwise_pow", "gpu", FLOATS,
           LazyKernel("minipaddle.framework.kernels.cuda.elementwise:elementwise_pow"), name="cuda")
add_kernel("floor_divide", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.elementwise:floor_divide"),
           name="cuda")
add_kernel("remainder", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.elementwise:remainder"),
           name="cuda")
add_kernel("neg", "gpu", NUMERIC, LazyKernel("minipaddle.framework.kernels.cuda.elementwise:neg"), name="cuda")
add_kernel("abs", "gpu", NUMERIC, LazyKernel("minipaddle.framework.kernels.cuda.elementwise:abs"), name="cuda")
add_kernel("square", "gpu", NUMERIC, LazyKernel("minipaddle.framework.kernels.cuda.elementwise:square"), name="cuda")
add_kernel("exp", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.elementwise:exp"), name="cuda")
add_kernel("log", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.elementwise:log"), name="cuda")
add_kernel("log1p", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.elementwise:log1p"), name="cuda")
add_kernel("sqrt", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.elementwise:sqrt"), name="cuda")
add_kernel("rsqrt", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.elementwise:rsqrt"), name="cuda")
add_kernel("reciprocal", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.elementwise:reciprocal"),
           name="cuda")
add_kernel("sin", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.elementwise:sin"), name="cuda")
add_kernel("cos", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.elementwise:cos"), name="cuda")
add_kernel("tanh", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.elementwise:tanh"), name="cuda")
add_kernel("erf", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.elementwise:erf"), name="cuda")
add_kernel("sign", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.elementwise:sign"), name="cuda")
add_kernel("floor", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.elementwise:floor"), name="cuda")
add_kernel("ceil", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.elementwise:ceil"), name="cuda")
add_kernel("round", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.elementwise:round"), name="cuda")
add_kernel("scale", "gpu", NUMERIC, LazyKernel("minipaddle.framework.kernels.cuda.elementwise:scale"), name="cuda")
add_kernel("cast", "gpu", ALL, LazyKernel("minipaddle.framework.kernels.cuda.elementwise:cast"), name="cuda")
add_kernel("assign", "gpu", ALL, LazyKernel("minipaddle.framework.kernels.cuda.elementwise:assign"), name="cuda")
add_kernel("where", "gpu", ALL, LazyKernel("minipaddle.framework.kernels.cuda.elementwise:where"), name="cuda")

# ---- comparisons and logic: bool out ----
add_kernel("equal", "gpu", ALL, LazyKernel("minipaddle.framework.kernels.cuda.elementwise:equal"), name="cuda")
add_kernel("not_equal", "gpu", ALL, LazyKernel("minipaddle.framework.kernels.cuda.elementwise:not_equal"), name="cuda")
add_kernel("less_than", "gpu", ALL, LazyKernel("minipaddle.framework.kernels.cuda.elementwise:less_than"), name="cuda")
add_kernel("less_equal", "gpu", ALL, LazyKernel("minipaddle.framework.kernels.cuda.elementwise:less_equal"),
           name="cuda")
add_kernel("greater_than", "gpu", ALL, LazyKernel("minipaddle.framework.kernels.cuda.elementwise:greater_than"),
           name="cuda")
add_kernel("greater_equal", "gpu", ALL, LazyKernel("minipaddle.framework.kernels.cuda.elementwise:greater_equal"),
           name="cuda")
add_kernel("logical_and", "gpu", ALL, LazyKernel("minipaddle.framework.kernels.cuda.elementwise:logical_and"),
           name="cuda")
add_kernel("logical_or", "gpu", ALL, LazyKernel("minipaddle.framework.kernels.cuda.elementwise:logical_or"),
           name="cuda")
add_kernel("logical_xor", "gpu", ALL, LazyKernel("minipaddle.framework.kernels.cuda.elementwise:logical_xor"),
           name="cuda")
add_kernel("logical_not", "gpu", ALL, LazyKernel("minipaddle.framework.kernels.cuda.elementwise:logical_not"),
           name="cuda")
add_kernel("isnan", "gpu", NUMERIC, LazyKernel("minipaddle.framework.kernels.cuda.elementwise:isnan"), name="cuda")
add_kernel("isinf", "gpu", NUMERIC, LazyKernel("minipaddle.framework.kernels.cuda.elementwise:isinf"), name="cuda")
add_kernel("isfinite", "gpu", NUMERIC, LazyKernel("minipaddle.framework.kernels.cuda.elementwise:isfinite"),
           name="cuda")
add_kernel("bitwise_and", "gpu", INTS_AND_BOOL, LazyKernel("minipaddle.framework.kernels.cuda.elementwise:bitwise_and"),
           name="cuda")
add_kernel("bitwise_or", "gpu", INTS_AND_BOOL, LazyKernel("minipaddle.framework.kernels.cuda.elementwise:bitwise_or"),
           name="cuda")
add_kernel("bitwise_xor", "gpu", INTS_AND_BOOL, LazyKernel("minipaddle.framework.kernels.cuda.elementwise:bitwise_xor"),
           name="cuda")
add_kernel("bitwise_not", "gpu", INTS_AND_BOOL, LazyKernel("minipaddle.framework.kernels.cuda.elementwise:bitwise_not"),
           name="cuda")

# ---- activations (kernels/cuda/activation.py) ----
add_kernel("relu", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.activation:relu"), name="cuda")
add_kernel("relu_grad", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.activation:relu_grad"),
           name="cuda")
add_kernel("relu6", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.activation:relu6"), name="cuda")
add_kernel("sigmoid", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.activation:sigmoid"), name="cuda")
add_kernel("silu", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.activation:silu"), name="cuda")
add_kernel("gelu", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.activation:gelu"), name="cuda")
add_kernel("hardswish", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.activation:hardswish"),
           name="cuda")
add_kernel("mish", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.activation:mish"), name="cuda")
add_kernel("tanhshrink", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.activation:tanhshrink"),
           name="cuda")
add_kernel("softsign", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.activation:softsign"), name="cuda")
add_kernel("log_sigmoid", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.activation:log_sigmoid"),
           name="cuda")
add_kernel("leaky_relu", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.activation:leaky_relu"),
           name="cuda")
add_kernel("elu", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.activation:elu"), name="cuda")
add_kernel("softplus", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.activation:softplus"), name="cuda")
add_kernel("hardsigmoid", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.activation:hardsigmoid"),
           name="cuda")
add_kernel("clip", "gpu", NUMERIC, LazyKernel("minipaddle.framework.kernels.cuda.activation:clip"), name="cuda")
add_kernel("hardtanh", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.activation:hardtanh"), name="cuda")
add_kernel("selu", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.activation:selu"), name="cuda")
add_kernel("celu", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.activation:celu"), name="cuda")
add_kernel("hardshrink", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.activation:hardshrink"),
           name="cuda")
add_kernel("softshrink", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.activation:softshrink"),
           name="cuda")
add_kernel("thresholded_relu", "gpu", FLOATS,
           LazyKernel("minipaddle.framework.kernels.cuda.activation:thresholded_relu"), name="cuda")

# ---- reductions (kernels/cuda/reduction.py); amax/amin compute what max/min do ----
add_kernel("sum", "gpu", ALL, LazyKernel("minipaddle.framework.kernels.cuda.reduction:sum"), name="cuda")
add_kernel("mean", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.reduction:mean"), name="cuda")
add_kernel("max", "gpu", NUMERIC, LazyKernel("minipaddle.framework.kernels.cuda.reduction:max"), name="cuda")
add_kernel("min", "gpu", NUMERIC, LazyKernel("minipaddle.framework.kernels.cuda.reduction:min"), name="cuda")
add_kernel("amax", "gpu", NUMERIC, LazyKernel("minipaddle.framework.kernels.cuda.reduction:max"), name="cuda")
add_kernel("amin", "gpu", NUMERIC, LazyKernel("minipaddle.framework.kernels.cuda.reduction:min"), name="cuda")
add_kernel("prod", "gpu", NUMERIC, LazyKernel("minipaddle.framework.kernels.cuda.reduction:prod"), name="cuda")
add_kernel("argmax", "gpu", NUMERIC, LazyKernel("minipaddle.framework.kernels.cuda.reduction:argmax"), name="cuda")
add_kernel("argmin", "gpu", NUMERIC, LazyKernel("minipaddle.framework.kernels.cuda.reduction:argmin"), name="cuda")
add_kernel("var", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.reduction:var"), name="cuda")
add_kernel("std", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.reduction:std"), name="cuda")

# ---- softmax (kernels/cuda/softmax.py) ----
add_kernel("softmax", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.softmax:softmax"), name="cuda")
add_kernel("log_softmax", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.softmax:log_softmax"),
           name="cuda")

# ---- random ops: Philox4x32-10 (kernels/cuda/random.py) ----
add_kernel("dropout", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.random:dropout"), name="cuda")
add_kernel("alpha_dropout", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.random:alpha_dropout"),
           name="cuda")
add_kernel("rrelu", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.random:rrelu"), name="cuda")

# ---- matmul (kernels/cuda/matmul.py): the progression, each step a candidate of its own ----
# Priorities follow the H100 measurement at 4096^2 (benchmarks/results/gpu_matmul.json): the fastest is
# the default; the autotuner may pick another per shape. The tiled kernels compute in float32 tiles.
add_kernel("matmul", "gpu", ("float32",), LazyKernel("minipaddle.framework.kernels.cuda.matmul:matmul_cuda_bankfree"),
           name="cuda_bankfree", priority=4)
add_kernel("matmul", "gpu", ("float32",), LazyKernel("minipaddle.framework.kernels.cuda.matmul:matmul_cuda_prefetch"),
           name="cuda_prefetch", priority=3)
add_kernel("matmul", "gpu", ("float32",), LazyKernel("minipaddle.framework.kernels.cuda.matmul:matmul_cuda_regblock"),
           name="cuda_regblock", priority=2)
add_kernel("matmul", "gpu", ("float32",), LazyKernel("minipaddle.framework.kernels.cuda.matmul:matmul_cuda_tiled"),
           name="cuda_tiled", priority=1)
add_kernel("matmul", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.matmul:matmul_cuda_naive"),
           name="cuda_naive")

# ---- copies: broadcast_to, expand, expand_as, transpose (kernels/cuda/manipulation.py) ----
add_kernel("broadcast_to", "gpu", ALL, LazyKernel("minipaddle.framework.kernels.cuda.manipulation:broadcast_to"),
           name="cuda")
add_kernel("expand", "gpu", ALL, LazyKernel("minipaddle.framework.kernels.cuda.manipulation:expand"), name="cuda")
add_kernel("expand_as", "gpu", ALL, LazyKernel("minipaddle.framework.kernels.cuda.manipulation:expand_as"),
           name="cuda")
add_kernel("transpose", "gpu", ALL, LazyKernel("minipaddle.framework.kernels.cuda.manipulation:transpose"),
           name="cuda")

# ---- views and strided copies: reshape, tile, flip, concat, stack, split, slice, pad (kernels/cuda/strided.py) ----
add_kernel("reshape", "gpu", ALL, LazyKernel("minipaddle.framework.kernels.cuda.strided:reshape"), name="cuda")
add_kernel("squeeze", "gpu", ALL, LazyKernel("minipaddle.framework.kernels.cuda.strided:squeeze"), name="cuda")
add_kernel("unsqueeze", "gpu", ALL, LazyKernel("minipaddle.framework.kernels.cuda.strided:unsqueeze"), name="cuda")
add_kernel("flatten", "gpu", ALL, LazyKernel("minipaddle.framework.kernels.cuda.strided:flatten"), name="cuda")
add_kernel("tile", "gpu", ALL, LazyKernel("minipaddle.framework.kernels.cuda.strided:tile"), name="cuda")
add_kernel("flip", "gpu", ALL, LazyKernel("minipaddle.framework.kernels.cuda.strided:flip"), name="cuda")
add_kernel("concat", "gpu", ALL, LazyKernel("minipaddle.framework.kernels.cuda.strided:concat"), name="cuda")
add_kernel("stack", "gpu", ALL, LazyKernel("minipaddle.framework.kernels.cuda.strided:stack"), name="cuda")
add_kernel("split", "gpu", ALL, LazyKernel("minipaddle.framework.kernels.cuda.strided:split"), name="cuda")
add_kernel("chunk", "gpu", ALL, LazyKernel("minipaddle.framework.kernels.cuda.strided:chunk"), name="cuda")
add_kernel("slice", "gpu", ALL, LazyKernel("minipaddle.framework.kernels.cuda.strided:slice"), name="cuda")
add_kernel("strided_slice", "gpu", ALL, LazyKernel("minipaddle.framework.kernels.cuda.strided:strided_slice"),
           name="cuda")
add_kernel("strided_slice_grad", "gpu", ALL,
           LazyKernel("minipaddle.framework.kernels.cuda.strided:strided_slice_grad"), name="cuda")
add_kernel("pad", "gpu", ALL, LazyKernel("minipaddle.framework.kernels.cuda.strided:pad"), name="cuda")
add_kernel("pad_grad", "gpu", NUMERIC, LazyKernel("minipaddle.framework.kernels.cuda.strided:pad_grad"), name="cuda")

# ---- indexing: each pick and its atomic scatter-add gradient (kernels/cuda/indexing.py) ----
add_kernel("getitem", "gpu", ALL, LazyKernel("minipaddle.framework.kernels.cuda.indexing:getitem"), name="cuda")
add_kernel("getitem_grad", "gpu", NUMERIC, LazyKernel("minipaddle.framework.kernels.cuda.indexing:getitem_grad"),
           name="cuda")
add_kernel("index_put", "gpu", ALL, LazyKernel("minipaddle.framework.kernels.cuda.indexing:index_put"), name="cuda")
add_kernel("gather", "gpu", ALL, LazyKernel("minipaddle.framework.kernels.cuda.indexing:gather"), name="cuda")
add_kernel("index_select", "gpu", ALL, LazyKernel("minipaddle.framework.kernels.cuda.indexing:gather"), name="cuda")
add_kernel("gather_grad", "gpu", NUMERIC, LazyKernel("minipaddle.framework.kernels.cuda.indexing:gather_grad"),
           name="cuda")
add_kernel("gather_nd", "gpu", ALL, LazyKernel("minipaddle.framework.kernels.cuda.indexing:gather_nd"), name="cuda")
add_kernel("gather_nd_grad", "gpu", NUMERIC,
           LazyKernel("minipaddle.framework.kernels.cuda.indexing:gather_nd_grad"), name="cuda")
add_kernel("scatter", "gpu", NUMERIC, LazyKernel("minipaddle.framework.kernels.cuda.indexing:scatter"), name="cuda")
add_kernel("take_along_axis", "gpu", ALL, LazyKernel("minipaddle.framework.kernels.cuda.indexing:take_along_axis"),
           name="cuda")
add_kernel("take_along_axis_grad", "gpu", NUMERIC,
           LazyKernel("minipaddle.framework.kernels.cuda.indexing:take_along_axis_grad"), name="cuda")
add_kernel("one_hot", "gpu", ("int32", "int64"), LazyKernel("minipaddle.framework.kernels.cuda.indexing:one_hot"),
           name="cuda")
add_kernel("embedding", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.indexing:embedding"),
           name="cuda")
add_kernel("embedding_grad", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.indexing:embedding_grad"),
           name="cuda")

# ---- running sums (kernels/cuda/cumulative.py) ----
add_kernel("cumsum", "gpu", NUMERIC, LazyKernel("minipaddle.framework.kernels.cuda.cumulative:cumsum"), name="cuda")

# ---- kernels made of other GPU kernels (kernels/cuda/composed.py) ----
add_kernel("any", "gpu", ALL, LazyKernel("minipaddle.framework.kernels.cuda.composed:any"), name="cuda_composed")
add_kernel("all", "gpu", ALL, LazyKernel("minipaddle.framework.kernels.cuda.composed:all"), name="cuda_composed")
add_kernel("isclose", "gpu", FLOATS,
           LazyKernel("minipaddle.framework.kernels.cuda.composed:isclose"), name="cuda_composed")
add_kernel("logsumexp", "gpu", FLOATS,
           LazyKernel("minipaddle.framework.kernels.cuda.composed:logsumexp"), name="cuda_composed")
add_kernel("p_norm", "gpu", FLOATS,
           LazyKernel("minipaddle.framework.kernels.cuda.composed:p_norm"), name="cuda_composed")
add_kernel("bmm", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.composed:bmm"), name="cuda_composed")
add_kernel("mv", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.composed:mv"), name="cuda_composed")
add_kernel("dot", "gpu", NUMERIC, LazyKernel("minipaddle.framework.kernels.cuda.composed:dot"), name="cuda_composed")
add_kernel("t", "gpu", ALL, LazyKernel("minipaddle.framework.kernels.cuda.composed:t"), name="cuda_composed")
add_kernel("roll", "gpu", ALL, LazyKernel("minipaddle.framework.kernels.cuda.composed:roll"), name="cuda_composed")
add_kernel("tril", "gpu", ALL, LazyKernel("minipaddle.framework.kernels.cuda.composed:tril"), name="cuda")
add_kernel("triu", "gpu", ALL, LazyKernel("minipaddle.framework.kernels.cuda.composed:triu"), name="cuda")
add_kernel("masked_select", "gpu", ALL,
           LazyKernel("minipaddle.framework.kernels.cuda.composed:masked_select"), name="cuda_composed")
add_kernel("masked_select_grad", "gpu", NUMERIC,
           LazyKernel("minipaddle.framework.kernels.cuda.composed:masked_select_grad"),
           name="cuda_composed")
add_kernel("nonzero", "gpu", ALL,
           LazyKernel("minipaddle.framework.kernels.cuda.composed:nonzero"), name="cuda_composed")
add_kernel("floor_divide", "gpu", ("int32", "int64"),
           LazyKernel("minipaddle.framework.kernels.cuda.composed:floor_divide_int"), name="cuda")
add_kernel("remainder", "gpu", ("int32", "int64"),
           LazyKernel("minipaddle.framework.kernels.cuda.composed:remainder_int"), name="cuda")

# ---- training: convolution, pooling, normalization, the fused loss (kernels/cuda/conv.py, pooling.py, norm.py,
# loss.py) ----
CONV_FLOATS = ("float32", "float64")
add_kernel("conv2d", "gpu", CONV_FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.conv:conv2d"),
           name="cuda_im2col", priority=1)
add_kernel("conv2d", "gpu", CONV_FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.conv_direct:conv2d"),
           name="cuda_direct")   # an autotune candidate: one thread per output, no column buffer
add_kernel("conv2d_transpose", "gpu", CONV_FLOATS,
           LazyKernel("minipaddle.framework.kernels.cuda.conv:conv2d_transpose"), name="cuda_col2im")
add_kernel("conv2d_grad_filter", "gpu", CONV_FLOATS,
           LazyKernel("minipaddle.framework.kernels.cuda.conv:conv2d_grad_filter"), name="cuda_im2col")
POOL_FLOATS = ("float32", "float64")
add_kernel("max_pool2d", "gpu", POOL_FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.pooling:max_pool2d"),
           name="cuda")
add_kernel("adaptive_max_pool2d", "gpu", POOL_FLOATS,
           LazyKernel("minipaddle.framework.kernels.cuda.pooling:adaptive_max_pool2d"), name="cuda")
add_kernel("max_pool2d_grad", "gpu", POOL_FLOATS,
           LazyKernel("minipaddle.framework.kernels.cuda.pooling:max_pool2d_grad"), name="cuda")
add_kernel("avg_pool2d", "gpu", POOL_FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.pooling:avg_pool2d"),
           name="cuda")
add_kernel("adaptive_avg_pool2d", "gpu", POOL_FLOATS,
           LazyKernel("minipaddle.framework.kernels.cuda.pooling:adaptive_avg_pool2d"), name="cuda")
add_kernel("avg_pool2d_grad", "gpu", POOL_FLOATS,
           LazyKernel("minipaddle.framework.kernels.cuda.pooling:avg_pool2d_grad"), name="cuda")
NORM_FLOATS = ("float32", "float64")
add_kernel("batch_norm", "gpu", NORM_FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.norm:batch_norm"),
           name="cuda_composed")
add_kernel("batch_norm_grad", "gpu", NORM_FLOATS,
           LazyKernel("minipaddle.framework.kernels.cuda.norm:batch_norm_grad"), name="cuda_composed")
add_kernel("batch_norm_update", "gpu", NORM_FLOATS,
           LazyKernel("minipaddle.framework.kernels.cuda.norm:batch_norm_update"), name="cuda_composed")
add_kernel("layer_norm", "gpu", NORM_FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.norm:layer_norm"),
           name="cuda_composed")
add_kernel("layer_norm_grad", "gpu", NORM_FLOATS,
           LazyKernel("minipaddle.framework.kernels.cuda.norm:layer_norm_grad"), name="cuda_composed")
add_kernel("cross_entropy_with_softmax", "gpu", ("float32", "float64"),
           LazyKernel("minipaddle.framework.kernels.cuda.loss:cross_entropy_with_softmax"), name="cuda")
add_kernel("cross_entropy_with_softmax_grad", "gpu", ("float32", "float64"),
           LazyKernel("minipaddle.framework.kernels.cuda.loss:cross_entropy_with_softmax_grad"), name="cuda")
add_kernel("linear", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.linear:linear"), name="cuda")
add_kernel("group_norm", "gpu", NORM_FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.norm:group_norm"),
           name="cuda_composed")
add_kernel("group_norm_grad", "gpu", NORM_FLOATS,
           LazyKernel("minipaddle.framework.kernels.cuda.norm:group_norm_grad"), name="cuda_composed")


def register_fused_elementwise() -> None:
    """The fusion pass's op (static/passes/fusion.py registers it, after this module loads) gets its GPU kernel:
    the generated numba.cuda kernel of kernels/cuda/fused.py."""
    add_kernel("fused_elementwise", "gpu", ("float32", "float64"),
               LazyKernel("minipaddle.framework.kernels.cuda.fused:fused_elementwise_kernel"), name="cuda")


# ---- resizing and prelu, composed of permute, matmul and elementwise kernels (kernels/cuda/resize.py) ----
add_kernel("interpolate", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.resize:interpolate"),
           name="cuda_composed")
add_kernel("interpolate_grad", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.resize:interpolate_grad"),
           name="cuda_composed")
add_kernel("prelu", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.resize:prelu"), name="cuda_composed")

# ---- element moves and bce_loss (kernels/cuda/rearrange.py) ----
add_kernel("pixel_shuffle", "gpu", ALL, LazyKernel("minipaddle.framework.kernels.cuda.rearrange:pixel_shuffle"),
           name="cuda_composed")
add_kernel("pixel_unshuffle", "gpu", ALL, LazyKernel("minipaddle.framework.kernels.cuda.rearrange:pixel_unshuffle"),
           name="cuda_composed")
add_kernel("channel_shuffle", "gpu", ALL, LazyKernel("minipaddle.framework.kernels.cuda.rearrange:channel_shuffle"),
           name="cuda_composed")
add_kernel("bce_loss", "gpu", FLOATS, LazyKernel("minipaddle.framework.kernels.cuda.rearrange:bce_loss"), name="cuda")

# ---- the rest of training on the GPU: unfold/fold (kernels/cuda/patches.py) ----
add_kernel("unfold", "gpu", ("float32", "float64"), LazyKernel("minipaddle.framework.kernels.cuda.patches:unfold"),
           name="cuda_im2col")
add_kernel("fold", "gpu", ("float32", "float64"), LazyKernel("minipaddle.framework.kernels.cuda.patches:fold"),
           name="cuda_col2im")

# ---- conv3d: vol2col, the GPU matmul, col2vol (kernels/cuda/conv3d.py) ----
add_kernel("conv3d", "gpu", ("float32", "float64"), LazyKernel("minipaddle.framework.kernels.cuda.conv3d:conv3d"),
           name="cuda_vol2col")
add_kernel("conv3d_transpose", "gpu", ("float32", "float64"),
           LazyKernel("minipaddle.framework.kernels.cuda.conv3d:conv3d_transpose"), name="cuda_col2vol")
add_kernel("conv3d_grad_filter", "gpu", ("float32", "float64"),
           LazyKernel("minipaddle.framework.kernels.cuda.conv3d:conv3d_grad_filter"), name="cuda_vol2col")

# ---- 3-D pooling, one thread per output (kernels/cuda/pooling3d.py) ----
add_kernel("max_pool3d", "gpu", ("float32", "float64"),
           LazyKernel("minipaddle.framework.kernels.cuda.pooling3d:max_pool3d"), name="cuda")
add_kernel("max_pool3d_grad", "gpu", ("float32", "float64"),
           LazyKernel("minipaddle.framework.kernels.cuda.pooling3d:max_pool3d_grad"), name="cuda")
add_kernel("avg_pool3d", "gpu", ("float32", "float64"),
           LazyKernel("minipaddle.framework.kernels.cuda.pooling3d:avg_pool3d"), name="cuda")
add_kernel("avg_pool3d_grad", "gpu", ("float32", "float64"),
           LazyKernel("minipaddle.framework.kernels.cuda.pooling3d:avg_pool3d_grad"), name="cuda")

# ---- sort, argsort, topk: bitonic sorts of every row (kernels/cuda/sorting.py) ----
add_kernel("sort", "gpu", ALL, LazyKernel("minipaddle.framework.kernels.cuda.sorting:sort"), name="cuda_bitonic")
add_kernel("argsort", "gpu", ALL, LazyKernel("minipaddle.framework.kernels.cuda.sorting:argsort"), name="cuda_bitonic")
add_kernel("topk", "gpu", NUMERIC, LazyKernel("minipaddle.framework.kernels.cuda.sorting:topk"), name="cuda_bitonic")
