"""bfloat16 kernels of the nn ops: each op's float32 kernel on widened inputs, rounded back.

bfloat16 keeps float32's 8 exponent bits and only 8 bits of mantissa, so widening it to float32 is
exact and one rounding at the end is all bfloat16 costs. The elementwise ops, sum, mean and matmul
register their bfloat16 kernels where they are defined; the ops below (what a network's forward and
backward run: linear, activations, softmax and cross entropy, convolution, pooling, normalization)
get theirs here, from whatever kernel serves float32, under that kernel's name: `describe("conv2d")`
lists a bfloat16 `im2col` whose source is the float32 im2col kernel it wraps.

Only ops that return new arrays are listed: a kernel that updates an input in place (batch norm's
running statistics) would update the widened copy, not the bfloat16 tensor.
"""
from __future__ import annotations

import numpy as np

from ..kernels.cpu.elementwise import upcast_bfloat16
from ..registry import KernelKey, OPS, add_kernel, select_kernel

VIA_FLOAT32 = (
    "linear", "relu_grad", "relu6", "leaky_relu", "gelu", "silu", "elu", "celu", "selu", "mish", "softplus",
    "hardswish", "hardsigmoid", "hardtanh", "log_sigmoid", "prelu", "clip", "erf",
    "softmax", "log_softmax", "logsumexp", "cross_entropy_with_softmax", "cross_entropy_with_softmax_grad",
    "bce_loss", "dropout", "embedding", "embedding_grad", "getitem_grad", "gather_grad",
    "layer_norm", "layer_norm_grad", "group_norm", "group_norm_grad",
    "conv2d", "conv2d_grad_filter", "conv2d_transpose", "max_pool2d", "max_pool2d_grad", "avg_pool2d",
    "avg_pool2d_grad", "adaptive_avg_pool2d", "adaptive_max_pool2d",
    "isnan", "isinf", "isfinite", "p_norm", "t", "bmm",
)


def register_bfloat16_kernels(names=VIA_FLOAT32) -> None:
    """For each op named, a bfloat16 kernel: the default float32 kernel, computed in float32."""
    float32 = KernelKey("cpu", np.dtype("float32"))
    bfloat16 = KernelKey("cpu", np.dtype("bfloat16"))
    for name in names:
        op = OPS[name]
        if bfloat16 in op.kernels or float32 not in op.kernels:
            continue
        kernel = select_kernel(op, float32)
        add_kernel(name, "cpu", ("bfloat16",), upcast_bfloat16(kernel.fn), name=kernel.name)
