"""Products with a sparse operand: matmul, mv, addmm, masked_matmul.

sparse x dense is one registered op, `sparse_csr_dense_matmul(crows, cols, values, y)`, with a numba
kernel (kernels.py) and a backward rule in minipaddle ops. A registered op rather than a chain of
existing ops because the chain (gather y's rows, scale, scatter-add) would hold an [nnz, n]
intermediate and run several passes; the loop reads each stored entry once. Its gradients:

    d values[k] = <dout[row_k, :], y[col_k, :]>     dout @ y^T sampled on x's pattern (masked_matmul)
    d y         = x^T @ dout                        the same op on x's transposed CSR arrays

Both are written with differentiable ops, so grads of grads work too. sparse x sparse multiplies
through the dense product and keeps the entries the two patterns can reach (simple, O(m*n) memory).
"""
from __future__ import annotations

import numpy as np

from ..framework.creation import to_tensor
from ..framework.dispatch import dispatch
from ..framework.errors import invalid_argument, unimplemented
from ..framework.ops.indexing import index_select
from ..framework.ops.joining import stack
from ..framework.ops.manipulation import reshape
from ..framework.ops.reduction import sum as reduce_sum
from ..framework.registry import LazyKernel, add_kernel, new_meta, register_op
from ..framework.tensor import Tensor
from .conversion import coo_to_csr, csr_entry_rows, linear_keys, to_dense, to_sparse_coo, to_sparse_csr
from .tensor import SparseCooTensor, SparseCsrTensor, SparseTensor


# ---- the op: CSR x dense ------------------------------------------------------------------------
def csr_dense_matmul_meta(crows, cols, values, y, n_rows=0):
    return new_meta((n_rows, y.shape[1]), values.dtype)


def csr_dense_matmul_grad(node, dout):
    crows, cols = node.crows.numpy(), node.cols.numpy()
    rows = np.repeat(np.arange(node.n_rows, dtype=np.int64), np.diff(crows))
    d_values = d_y = None
    if node.needs_grad(2):
        d_values = _sampled_product(dout, node.y, rows, cols, transpose_y=True)
    if node.needs_grad(3):
        n_cols = node.input_metas[3][0][0]
        order = np.lexsort((rows, cols))         # x^T in CSR: entries by column, then row
        t_crows = np.concatenate([[0], np.cumsum(np.bincount(cols, minlength=n_cols))]).astype(np.int64)
        t_values = index_select(node.values, to_tensor(order))
        d_y = _csr_dense(to_tensor(t_crows), to_tensor(rows[order]), t_values, dout, n_cols)
    return None, None, d_values, d_y


def csr_dense_matmul_info(arrays: list, attrs: dict) -> dict:
    """The debugger's picture of the sparse operand (register_op's node_info): its shape, how many entries it
    stores, and where: the pattern as at most 32 x 32 blocks, each the fraction of its entries stored. The
    op's inputs alone are three vectors; this is the matrix a learner has in mind."""
    crows, cols, _, y = arrays
    n_rows, n_cols, nnz = int(attrs["n_rows"]), int(y.shape[0]), int(cols.shape[0])
    total = n_rows * n_cols
    percent = 100.0 * nnz / total if total else 0.0
    rows = [["sparse matrix", f"[{n_rows}, {n_cols}] CSR"],
            ["nnz", f"{nnz} of {total} ({percent:.1f}%)" if percent >= 0.1 or nnz == 0 else
             f"{nnz} of {total} ({percent:.1g}%)"]]
    grid = None
    if isinstance(crows, np.ndarray) and total:  # on the GPU the indices stay there: no pattern
        per_row = np.diff(crows)
        rows.append(["stored per row", f"min {per_row.min()} · mean {per_row.mean():.1f} · max {per_row.max()}"])
        grid = csr_pattern_grid(crows, cols, n_rows, n_cols)
        (grid_rows, grid_cols), exact = grid["shape"], n_rows % grid["shape"][0] == n_cols % grid["shape"][1] == 0
        block = f"{'' if exact else 'up to '}{-(-n_rows // grid_rows)} × {-(-n_cols // grid_cols)}"
        rows.append(["pattern", f"{grid_rows} × {grid_cols} cells, each a block of {block} entries shaded by the "
                                "fraction stored"])
    return {"title": "sparse operand x", "rows": rows, "grid": grid}


def csr_pattern_grid(crows: np.ndarray, cols: np.ndarray, n_rows: int, n_cols: int, max_cells: int = 32) -> dict:
    """A CSR matrix's occupancy, downsampled to at most max_cells x max_cells blocks: each block's fraction
    of stored entries (duplicates counted once at most: capped at 1)."""
    grid_rows, grid_cols = min(n_rows, max_cells), min(n_cols, max_cells)
    # matrix row i lies in grid row i * grid_rows // n_rows, so grid row k starts at row ceil(k * n_rows / grid_rows);
    # CSR keeps a row block's entries contiguous: crows at those rows splits the entries by grid row
    first_rows = -(-np.arange(grid_rows + 1) * n_rows // grid_rows)
    entry_cell_rows = np.repeat(np.arange(grid_rows, dtype=np.int64), np.diff(np.asarray(crows)[first_rows]))
    cell = entry_cell_rows * grid_cols + np.asarray(cols, dtype=np.int64) * grid_cols // n_cols
    counts = np.bincount(cell, minlength=grid_rows * grid_cols)
    block_rows = np.diff(first_rows)
    block_cols = np.bincount(np.arange(n_cols) * grid_cols // n_cols, minlength=grid_cols)
    fraction = np.minimum(counts / np.outer(block_rows, block_cols).reshape(-1), 1.0)
    return {"shape": [grid_rows, grid_cols], "values": np.round(fraction, 3).tolist()}


SPARSE_CSR_DENSE_MATMUL = register_op(
    "sparse_csr_dense_matmul", inputs=("crows", "cols", "values", "y"), attrs={"n_rows": (int, 0)},
    infer_meta=csr_dense_matmul_meta, backward=csr_dense_matmul_grad, save=("crows", "cols", "values", "y"),
    differentiable_inputs=(2, 3), kernel_input=2, node_info=csr_dense_matmul_info,
    doc="CSR matrix [n_rows, k] (crows, cols, values) @ dense y [k, n] -> dense [n_rows, n].")
add_kernel("sparse_csr_dense_matmul", "cpu", ("float32", "float64"),
           LazyKernel("minipaddle.sparse.kernels:csr_dense_matmul"), name="numba_csr")


def _csr_dense(crows: Tensor, cols: Tensor, values: Tensor, y: Tensor, n_rows: int) -> Tensor:
    return dispatch(SPARSE_CSR_DENSE_MATMUL, (crows, cols, values, y), {"n_rows": int(n_rows)})


def _sampled_product(x: Tensor, y: Tensor, rows: np.ndarray, cols: np.ndarray, transpose_y=False) -> Tensor:
    """(x @ y)[rows[k], cols[k]] for every k, without forming x @ y: row of x . column of y."""
    y_columns = y if transpose_y else y.t()      # row c of y_columns is column c of y
    picked = index_select(x, to_tensor(rows)) * index_select(y_columns, to_tensor(cols))
    return reduce_sum(picked, axis=-1)


# ---- the public functions ---------------------------------------------------------------------
def _check_product(op: str, x, y) -> None:
    xs, ys = list(x.shape), list(y.shape)
    if len(xs) not in (2, 3) or len(ys) != len(xs):
        raise unimplemented(op, f"x and y must both be 2-D matrices or both 3-D batches, got x of shape {xs} "
                                f"and y of shape {ys}.", hint="reshape the dense operand to match.")
    if xs[-1] != ys[-2]:
        raise invalid_argument(op, f"x's last dim ({xs[-1]}) must equal y's second-to-last dim ({ys[-2]}); "
                                   f"got x of shape {xs} and y of shape {ys}.")
    if len(xs) == 3 and xs[0] != ys[0]:
        raise invalid_argument(op, f"x and y must have the same batch size, got x of shape {xs} and y of "
                                   f"shape {ys}.")
    if x.dtype != y.dtype:
        raise invalid_argument(op, f"x ({x.dtype}) and y ({y.dtype}) must have the same dtype.",
                               hint="cast one of them: paddle.sparse.cast(x, value_dtype=...) or y.astype(...).")


def matmul(x, y, name=None):
    """x @ y with x sparse (a matrix, or a 3-D batch times a 3-D dense batch): sparse @ dense is dense,
    sparse @ sparse keeps x's layout.

    >>> a = paddle.sparse.sparse_csr_tensor([0, 1, 2], [1, 0], [2.0, 3.0], [2, 2])   # doctest: +SKIP
    >>> paddle.sparse.matmul(a, paddle.ones([2, 3])).numpy()                          # doctest: +SKIP
    array([[2., 2., 2.], [3., 3., 3.]], dtype=float32)
    """
    if not isinstance(x, SparseTensor):
        raise unimplemented("sparse.matmul", f"x must be a sparse tensor, got {type(x).__name__}.",
                            hint="use paddle.matmul for dense @ dense.")
    _check_product("sparse.matmul", x, y)
    if isinstance(y, SparseTensor):
        return _sparse_sparse(x, y)
    csr = coo_to_csr(x) if isinstance(x, SparseCooTensor) else x
    if csr.ndim == 2:
        return _csr_dense(csr.crows(), csr.cols(), csr.values(), y, x.shape[0])
    return _batched_csr_dense(csr, y)


def _batched_csr_dense(x: SparseCsrTensor, y: Tensor) -> Tensor:
    """A batch of CSR matrices times a batch of dense ones: one product per matrix, stacked."""
    batch, rows = x.shape[0], x.shape[1]
    crows = x.crows().numpy().reshape(batch, rows + 1)
    start = 0
    products = []
    for b in range(batch):
        stop = start + int(crows[b, -1])
        products.append(_csr_dense(to_tensor(crows[b]), to_tensor(x.cols().numpy()[start:stop]),
                                   x.values()[start:stop], y[b], rows))
        start = stop
    return stack(products)


def _sparse_sparse(x: SparseTensor, y: SparseTensor) -> SparseTensor:
    if x.ndim != 2:
        raise unimplemented("sparse.matmul", f"sparse @ sparse takes 2-D matrices, got shapes {x.shape} and "
                                             f"{y.shape}.", hint="multiply the matrices of the batch one by one.")
    if x.is_sparse_coo() != y.is_sparse_coo():
        raise unimplemented("sparse.matmul", "x and y must have the same layout (both COO or both CSR).",
                            hint="convert one with to_sparse_coo(2) or to_sparse_csr().")
    product = matmul(x, to_dense(y))
    # the pattern: every (i, j) some x[i, p] != stored and y[p, j] stored can reach
    reach = _pattern_matrix(x) @ _pattern_matrix(y)
    index = np.stack(np.nonzero(reach)).astype(np.int64).reshape(2, -1)
    shape = [x.shape[0], y.shape[1]]
    values = index_select(reshape(product, [-1]), to_tensor(linear_keys(index, shape)))
    out = SparseCooTensor(to_tensor(index), values, shape)
    return out if isinstance(x, SparseCooTensor) else to_sparse_csr(out)


def _pattern_matrix(x: SparseTensor) -> np.ndarray:
    index = to_sparse_coo(x, 2).indices().numpy()
    occupied = np.zeros(x.shape, dtype=np.float64)
    occupied[tuple(index)] = 1.0
    return occupied


def mv(x, vec, name=None) -> Tensor:
    """Sparse matrix [m, n] times dense vector [n] -> dense [m]."""
    if len(vec.shape) != 1:
        raise invalid_argument("sparse.mv", f"vec must be 1-D, got shape {vec.shape}.")
    return reshape(matmul(x, reshape(vec, [-1, 1])), [-1])


def addmm(input, x, y, beta: float = 1.0, alpha: float = 1.0, name=None):
    """beta * input + alpha * (x @ y), x sparse (the result is dense when y is)."""
    product = matmul(x, y)
    if isinstance(product, SparseTensor):
        from .binary import add, multiply
        return add(multiply(input, beta), multiply(product, alpha))
    return input * beta + product * alpha


def masked_matmul(x: Tensor, y: Tensor, mask, name=None):
    """(x @ y) computed only where `mask` (sparse) stores an entry; the result has mask's pattern.

    The sampled dense-dense product (SDDMM) of attention with a sparse pattern: each stored (i, j)
    costs one dot product of x's row i and y's column j.
    """
    if not isinstance(mask, SparseTensor):
        raise invalid_argument("masked_matmul", f"mask must be a sparse tensor, got {type(mask).__name__}.")
    _check_product("masked_matmul", x, y)
    if len(x.shape) != 2:
        raise unimplemented("masked_matmul", f"x and y must be 2-D, got shapes {list(x.shape)} and {list(y.shape)}.")
    if mask.shape != [x.shape[0], y.shape[1]]:
        raise invalid_argument("masked_matmul", f"mask's shape {mask.shape} must be x @ y's shape "
                                                f"{[x.shape[0], y.shape[1]]} (x {x.shape}, y {y.shape}).")
    if isinstance(mask, SparseCsrTensor):
        _, rows = csr_entry_rows(mask.crows().numpy(), mask.shape)
        return mask._with_values(_sampled_product(x, y, rows, mask.cols().numpy()))
    rows, cols = mask.indices().numpy()
    return mask._with_values(_sampled_product(x, y, rows, cols))
