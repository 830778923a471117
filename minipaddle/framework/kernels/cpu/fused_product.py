"""A skinny matrix product computed inside a fused elementwise loop (a GEMM prologue).

When the contracted dim K of a 2-D `matmul` is small, its product costs K multiply-adds an element:
less than a GEMM call and the round trip of an M x N result through memory. The fusion pass then
lets the loop that reads the product compute it (`product = [K, transpose_x, transpose_y]` in the fused
op's attrs; input kinds 'L' and 'R' for the two operands). The backward of a narrow output layer is
the case it is for: `relu_grad(h, dout @ W^T)` with K the number of classes is one loop, as Paddle's
fused_gemm_epilogue_grad computes dX with the activation's gradient in one cuBLASLt call.

On the CPU the row loop reads row r's K left values into scalars, and the element loop computes its
element as K multiply-adds written out, in the op's dtype as a float32 GEMM does (the contiguous j loop
vectorizes); a transposed right operand is copied contiguous once per call. On the GPU a thread sums
its own element's K products.
"""
from __future__ import annotations

import numpy as np

SMALL_K = 16   # the widest K computed in the loop: beyond it a BLAS GEMM is faster


def operand_fits(a, kind: str, shape: tuple, product) -> bool:
    """Does `a` have the shape a product operand of kind 'L' (left) or 'R' (right) needs for an output of
    `shape` (M, N)?"""
    if len(shape) != 2 or len(a.shape) != 2:
        return False
    k, tx, ty = product
    m, n = shape
    if kind == "L":
        return tuple(a.shape) == ((k, m) if tx else (m, k))
    return tuple(a.shape) == ((n, k) if ty else (k, n))


def expression(out: str, args: list, product) -> str:
    k, tx, ty = product
    left, right = args[0] + (".T" if tx else ""), args[1] + (".T" if ty else "")
    return f"{out} = matmul({left}, {right}, k={k})"


def cpu_loads(input_kinds: list, product, dtype: np.dtype) -> list[str]:
    """Lines before the row loop: the row length and the right operand as K contiguous rows."""
    k, _, ty = product
    right = f"x{input_kinds.index('R')}"
    lines = [f"    row = {right}.size // {k}"]
    if ty:
        return lines + [f"    rt = np.empty({k} * row, np.{dtype.name})", "    for j in range(row):",
                        f"        for k in range({k}):", f"            rt[k * row + j] = {right}[j * {k} + k]"]
    return lines + [f"    rt = {right}"]


def cpu_row(input_kinds: list, product) -> list[str]:
    """Lines in the row loop, before the element loop: row r's K left values, as scalars."""
    k, tx, _ = product
    left = f"x{input_kinds.index('L')}"
    return [f"        pa{q} = {left}[{q} * (out0.size // row) + r]" if tx else f"        pa{q} = {left}[r * {k} + {q}]"
            for q in range(k)]


def cpu_element(out: str, product) -> str:
    """The element loop's line: the product's element j of row r, K multiply-adds written out (the j
    loop vectorizes; summed in order k = 0, 1, ..., as a plain dot product)."""
    terms = " + ".join(f"pa{q} * rt[{q} * row + j]" for q in range(product[0]))
    return f"        {out} = {terms}"


def cuda_lines(out: str, input_kinds: list, product, dtype: np.dtype) -> list[str]:
    """Lines in the grid-stride loop: this thread's element of the product into `out`."""
    k, tx, ty = product
    left, right = f"x{input_kinds.index('L')}", f"x{input_kinds.index('R')}"
    lines = [f"        n_row = {right}.size // {k}", "        r = i // n_row", "        j = i - r * n_row",
             f"        {out} = np.{dtype.name}(0)", f"        for k in range({k}):"]
    a = f"{left}[k * (out0.size // n_row) + r]" if tx else f"{left}[r * {k} + k]"
    b = f"{right}[j * {k} + k]" if ty else f"{right}[k * n_row + j]"
    return lines + [f"            {out} += {a} * {b}"]


def output_shape(arrays, input_kinds, product) -> tuple | None:
    """(M, N): the product's shape, from its operands (a loop with no full-size input takes it from them)."""
    left, right = arrays[input_kinds.index("L")], arrays[input_kinds.index("R")]
    if len(left.shape) != 2 or len(right.shape) != 2:
        return None
    _, tx, ty = product
    return (left.shape[1] if tx else left.shape[0], right.shape[0] if ty else right.shape[1])
