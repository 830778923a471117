"""The GEMM epilogue, a fusion pass step: a `linear` whose result only elementwise ops read becomes a
`matmul` and an `add` of the bias, so the bias add joins those ops' fused loop.

`linear` adds its bias in place after the product: one more pass over the result before the activation
reads it again. Split, the generated loop reads the product and the bias row and applies the activation
in the same pass (`relu(x @ W + b)`: the product, then one loop), which is what Paddle's
fuse_gemm_epilogue pass does with cuBLASLt's epilogues. A result the backward reads (GELU's input, kept
for its gradient) or a matmul reads is left to `linear`: the loop would have to store it anyway.
"""
from __future__ import annotations

from typing import Callable

from ..program import Block, Operator
from .common import is_persistable, readers, writers

SUFFIX = "@GEMM"


def split_linear_bias(block: Block, fetched, signature: Callable) -> list[tuple[Operator, Operator, Operator]]:
    """Split each 2-D `linear` whose result only elementwise ops the fusion pass takes (`signature(block,
    writers, op)` is not None) of its own role read, and no fetch, into matmul + add: (linear, matmul, add)
    for each."""
    written, read_by = writers(block), readers(block)
    new_ops, split = [], []
    for op in block.ops:
        if op.type != "linear" or not _only_fused_readers(block, op, written, read_by, fetched, signature):
            new_ops.append(op)
            continue
        out = op.output_names()[0]
        var = block._find_var_recursive(out)
        product = block.program._unique_name(out + SUFFIX)
        block.create_var(product, var._data.shape, var._data.dtype)
        matmul = Operator(block, "matmul", {"x": op.inputs["x"], "y": op.inputs["weight"]}, {"Out": [product]},
                          {"transpose_x": False, "transpose_y": False}, source=op.source, role=op.role)
        bias_add = Operator(block, "add", {"x": [product], "y": op.inputs["bias"]}, {"Out": [out]}, {},
                            source=op.source, role=op.role)
        new_ops += [matmul, bias_add]
        split.append((op, matmul, bias_add))
    if split:
        block.ops = new_ops
        block.program._bump()
    return split


def _only_fused_readers(block: Block, op: Operator, written: dict, read_by: dict, fetched, signature) -> bool:
    out = op.output_names()[0]
    var = block._find_var_recursive(out)
    x = block._find_var_recursive(op.inputs["x"][0])
    if (var is None or x is None or len(x._data.shape) != 2 or var._data.dtype.name not in ("float32", "float64")
            or len(written.get(out, ())) != 1 or is_persistable(block, out) or (fetched and out in fetched)):
        return False
    reads = read_by.get(out, ())
    if not reads:
        return False
    for r in reads:
        sig = signature(block, written, block.ops[r])   # (shape, dtype, role) of an op the fusion pass takes
        if sig is None or sig[2] != op.role or tuple(sig[0]) != tuple(var._data.shape):
            return False
    return True
