"""Ops that build a bigger tensor out of smaller ones: kron, diag, diagflat, meshgrid, repeat_interleave.

    paddle.kron(a, b)                       # every a[i, j] * b, tiled: shape [a0*b0, a1*b1]
    paddle.diag(v) / paddle.diag(m)         # a vector onto a diagonal, or a matrix's diagonal out
    paddle.meshgrid(x, y)                   # coordinate grids, 'ij' indexing
    paddle.repeat_interleave(x, 2, axis=0)  # each row twice: [a, a, b, b]

Every gradient gathers back what the forward spread out: a sum over the copies (kron, meshgrid,
repeat_interleave) or the entries on the diagonal (diag).
"""
from __future__ import annotations

import numpy as np

from ..dispatch import dispatch
from ..errors import invalid_argument
from ..registry import MetaTensor, add_kernel, register_op
from ..tensor import Tensor
from .common import ALL, NUMERIC, as_tensor, normalize_axis, same_dtype

INT64 = np.dtype("int64")


# ---- kron ----------------------------------------------------------------------------------------
def _aligned(xs: tuple, ys: tuple) -> tuple[tuple, tuple]:
    n = max(len(xs), len(ys))
    return (1,) * (n - len(xs)) + tuple(xs), (1,) * (n - len(ys)) + tuple(ys)


def kron_meta(x, y) -> MetaTensor:
    same_dtype("kron", x, y)
    xs, ys = _aligned(x.shape, y.shape)
    return MetaTensor(tuple(-1 if -1 in (a, b) else a * b for a, b in zip(xs, ys)), x.dtype)


def kron_backward(node, dout):
    """out viewed as [x0, y0, x1, y1, ...] is x[:, None, :, None] * y[None, :, None, :]: sum out the other."""
    from .manipulation import reshape
    from .reduction import sum as reduce_sum
    xs, ys = _aligned(node.input_metas[0][0], node.input_metas[1][0])
    n = len(xs)
    d = reshape(dout, [s for pair in zip(xs, ys) for s in pair])
    x_spread = reshape(node.x, [s for a in xs for s in (a, 1)])
    y_spread = reshape(node.y, [s for b in ys for s in (1, b)])
    dx = reduce_sum(d * y_spread, axis=list(range(1, 2 * n, 2))) if n else d * y_spread
    dy = reduce_sum(d * x_spread, axis=list(range(0, 2 * n, 2))) if n else d * x_spread
    return reshape(dx, list(node.input_metas[0][0])), reshape(dy, list(node.input_metas[1][0]))


KRON = register_op("kron", inputs=("x", "y"), infer_meta=kron_meta, backward=kron_backward, save=("x", "y"))
add_kernel("kron", "cpu", NUMERIC, np.kron, name="numpy")


def kron(x, y, name=None) -> Tensor:
    """Kronecker product: out is x's shape times y's (dim by dim), block (i, j) = x[i, j] * y."""
    return dispatch(KRON, (as_tensor("kron", "x", x), as_tensor("kron", "y", y)))


# ---- diag, diagflat -------------------------------------------------------------------------------
def _diagonal_positions(shape: tuple, offset: int) -> np.ndarray:
    """[2, L] int64: the (row, col) of each entry on diagonal `offset` of a matrix of `shape`."""
    rows, cols = shape
    start_r, start_c = max(-offset, 0), max(offset, 0)
    length = max(min(rows - start_r, cols - start_c), 0)
    return np.stack([np.arange(start_r, start_r + length), np.arange(start_c, start_c + length)]).astype(INT64)


def diag_meta(x, offset=0, padding_value=0.0) -> MetaTensor:
    if len(x.shape) > 2:
        raise invalid_argument("diag", f"x has shape {list(x.shape)}, expected a 0-D, 1-D (vector) or 2-D "
                                       "(matrix) tensor.", hint="for batches of matrices use paddle.diagonal.")
    if len(x.shape) == 2:
        if -1 in x.shape:
            return MetaTensor((-1,), x.dtype)
        return MetaTensor((_diagonal_positions(tuple(x.shape), offset).shape[1],), x.dtype)
    n = 1 if len(x.shape) == 0 else x.shape[0]
    size = -1 if n == -1 else n + abs(offset)
    return MetaTensor((size, size), x.dtype)


def diag_kernel(x, offset=0, padding_value=0.0):
    if x.ndim == 2:
        return np.diagonal(x, offset).copy()
    v = x.reshape(-1)
    out = np.full((len(v) + abs(offset),) * 2, padding_value, dtype=x.dtype)
    rows, cols = _diagonal_positions(out.shape, offset)
    out[rows, cols] = v
    return out


def diag_backward(node, dout):
    from .index_parsing import ADVANCED
    from .indexing import INDEX_PUT
    from .manipulation import reshape
    shape = node.input_metas[0][0]
    if len(shape) < 2:   # the vector was spread onto a diagonal: read it back
        return reshape(dispatch(DIAG, (dout,), {"offset": node.offset, "padding_value": 0.0}), list(shape))
    where = Tensor._wrap(_diagonal_positions(shape, node.offset))
    zeros = Tensor._wrap(np.zeros(shape, dout._data.dtype))
    return dispatch(INDEX_PUT, (zeros, dout, where), {"index": (ADVANCED, ADVANCED)})


DIAG = register_op("diag", inputs=("x",), infer_meta=diag_meta, backward=diag_backward,
                   attrs={"offset": (int, 0), "padding_value": (float, 0.0)})
add_kernel("diag", "cpu", ALL, diag_kernel, name="numpy")


def diag(x, offset: int = 0, padding_value=0, name=None) -> Tensor:
    """A vector (or 0-D) x: the square matrix with x on diagonal `offset` (> 0 above, < 0 below), padded
    with `padding_value`. A matrix x: its diagonal `offset`, as a vector."""
    x = as_tensor("diag", "x", x)
    if not isinstance(offset, (int, np.integer)) or isinstance(offset, bool):
        raise invalid_argument("diag", f"offset got {type(offset).__name__}, expected an int.")
    return dispatch(DIAG, (x,), {"offset": int(offset), "padding_value": padding_value})


def diagflat_meta(x, offset=0) -> MetaTensor:
    n = -1 if -1 in x.shape else int(np.prod(x.shape, dtype=np.int64))
    size = -1 if n == -1 else n + abs(offset)
    return MetaTensor((size, size), x.dtype)


def diagflat_kernel(x, offset=0):
    return np.diagflat(x, offset)


def diagflat_backward(node, dout):
    from .manipulation import reshape
    diagonal = dispatch(DIAG, (dout,), {"offset": node.offset, "padding_value": 0.0})
    return reshape(diagonal, list(node.input_metas[0][0]))


DIAGFLAT = register_op("diagflat", inputs=("x",), infer_meta=diagflat_meta, backward=diagflat_backward,
                       attrs={"offset": (int, 0)})
add_kernel("diagflat", "cpu", ALL, diagflat_kernel, name="numpy")


def diagflat(x, offset: int = 0, name=None) -> Tensor:
    """The square matrix with x, flattened, on diagonal `offset`."""
    x = as_tensor("diagflat", "x", x)
    if not isinstance(offset, (int, np.integer)) or isinstance(offset, bool):
        raise invalid_argument("diagflat", f"offset got {type(offset).__name__}, expected an int.")
    return dispatch(DIAGFLAT, (x,), {"offset": int(offset)})


# ---- meshgrid --------------------------------------------------------------------------------------
def meshgrid_meta(*xs) -> tuple:
    for i, x in enumerate(xs):
        if len(x.shape) > 1:
            raise invalid_argument("meshgrid", f"x[{i}] has shape {list(x.shape)}, expected a 0-D or 1-D tensor.")
        if x.dtype != xs[0].dtype:
            raise invalid_argument("meshgrid", f"x[{i}] has dtype {x.dtype} but x[0] has dtype {xs[0].dtype}; "
                                               "expected one dtype.")
    shape = tuple(x.shape[0] if len(x.shape) else 1 for x in xs)
    return tuple(MetaTensor(shape, x.dtype) for x in xs)


def meshgrid_kernel(*xs):
    return tuple(np.ascontiguousarray(g) for g in np.meshgrid(*[x.reshape(-1) for x in xs], indexing="ij"))


def meshgrid_backward(node, *douts):
    """Grid i repeats x[i] along every other axis: its gradient sums those axes out."""
    from .manipulation import reshape
    from .reduction import sum as reduce_sum
    n = len(douts)
    grads = []
    for i, d in enumerate(douts):
        others = [a for a in range(n) if a != i]
        g = reduce_sum(d, axis=others) if others else d
        grads.append(reshape(g, list(node.input_metas[i][0])))
    return tuple(grads)


MESHGRID = register_op("meshgrid", inputs=("x",), infer_meta=meshgrid_meta, backward=meshgrid_backward,
                       variadic=True)
add_kernel("meshgrid", "cpu", ALL, meshgrid_kernel, name="numpy")


def meshgrid(*args, name=None) -> list[Tensor]:
    """Coordinate grids of 1-D tensors x0..xk ('ij' indexing): grid i has shape [len(x0), ..., len(xk)]
    and holds x_i along axis i. Pass the tensors as arguments or as one list."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    if not args:
        raise invalid_argument("meshgrid", "got no tensors, expected one or more 1-D tensors.")
    xs = tuple(as_tensor("meshgrid", f"x[{i}]", x) for i, x in enumerate(args))
    out = dispatch(MESHGRID, xs)
    return list(out) if isinstance(out, tuple) else [out]


# ---- repeat_interleave -------------------------------------------------------------------------------
def _repeat_counts(op: str, repeats, length: int) -> tuple:
    if len(repeats) == 1:
        return tuple(repeats) * length if length >= 0 else tuple(repeats)
    if length >= 0 and len(repeats) != length:
        raise invalid_argument(op, f"repeats has {len(repeats)} entries but x has {length} along the axis; "
                                   "expected one count per entry (or a single int).")
    return tuple(repeats)


def repeat_interleave_meta(x, repeats=(1,), axis=None) -> MetaTensor:
    if axis is None:
        length = -1 if -1 in x.shape else int(np.prod(x.shape, dtype=np.int64))
        counts = _repeat_counts("repeat_interleave", repeats, length)
        return MetaTensor((-1 if length == -1 else sum(counts),), x.dtype)
    length = x.shape[axis]
    counts = _repeat_counts("repeat_interleave", repeats, length)
    shape = list(x.shape)
    shape[axis] = -1 if length == -1 else sum(counts)
    return MetaTensor(tuple(shape), x.dtype)


def repeat_interleave_kernel(x, repeats=(1,), axis=None):
    return np.repeat(x, repeats[0] if len(repeats) == 1 else np.asarray(repeats), axis=axis)


def repeat_interleave_backward(node, dout):
    from .manipulation import reshape
    shape = node.input_metas[0][0]
    axis = 0 if node.axis is None else node.axis
    length = int(np.prod(shape, dtype=np.int64)) if node.axis is None else shape[axis]
    grad = dispatch(REPEAT_INTERLEAVE_GRAD, (dout,),
                    {"repeats": _repeat_counts("repeat_interleave", node.repeats, length), "axis": axis})
    return reshape(grad, list(shape))


def repeat_interleave_grad_meta(dout, repeats=(1,), axis=0) -> MetaTensor:
    shape = list(dout.shape)
    shape[axis] = len(repeats)
    return MetaTensor(tuple(shape), dout.dtype)


def repeat_interleave_grad_kernel(dout, repeats=(1,), axis=0):
    """Sum each run of repeated copies back into one entry (a run of 0 copies sums to 0)."""
    ends = np.cumsum(repeats)
    zero = np.zeros_like(np.take(dout, [0], axis=axis)) if dout.shape[axis] else None
    running = np.cumsum(dout, axis=axis, dtype=dout.dtype)
    if zero is None:
        shape = list(dout.shape)
        shape[axis] = len(repeats)
        return np.zeros(shape, dout.dtype)
    running = np.concatenate([zero, running], axis=axis)
    at_ends = np.take(running, ends, axis=axis)
    at_starts = np.take(running, ends - np.asarray(repeats), axis=axis)
    return at_ends - at_starts


def repeat_interleave_grad_backward(node, ddx):
    return dispatch(REPEAT_INTERLEAVE, (ddx,), {"repeats": tuple(node.repeats), "axis": node.axis})


REPEAT_INTERLEAVE = register_op("repeat_interleave", inputs=("x",), infer_meta=repeat_interleave_meta,
                                backward=repeat_interleave_backward,
                                attrs={"repeats": (tuple, (1,)), "axis": (int, None)})
REPEAT_INTERLEAVE_GRAD = register_op("repeat_interleave_grad", inputs=("dout",),
                                     infer_meta=repeat_interleave_grad_meta,
                                     backward=repeat_interleave_grad_backward,
                                     attrs={"repeats": (tuple, (1,)), "axis": (int, 0)})
add_kernel("repeat_interleave", "cpu", ALL, repeat_interleave_kernel, name="numpy")
add_kernel("repeat_interleave_grad", "cpu", NUMERIC, repeat_interleave_grad_kernel, name="numpy")


def repeat_interleave(x, repeats, axis=None, name=None) -> Tensor:
    """Repeat each entry along `axis` (None: of the flattened x) `repeats` times: an int, or a 1-D int
    Tensor/list with one count per entry. repeat_interleave([a, b], [1, 2]) is [a, b, b]."""
    op = "repeat_interleave"
    x = as_tensor(op, "x", x)
    if isinstance(repeats, Tensor):
        if repeats._data.dtype.kind not in "iu" or repeats._data.ndim > 1:
            raise invalid_argument(op, f"repeats is a {repeats._data.dtype} tensor of shape {repeats.shape}, "
                                       "expected an int or a 1-D integer tensor.")
        repeats = repeats._data.reshape(-1).tolist()
    elif isinstance(repeats, (int, np.integer)) and not isinstance(repeats, bool):
        repeats = [int(repeats)]
    elif not (isinstance(repeats, (list, tuple)) and all(isinstance(r, (int, np.integer)) for r in repeats)):
        raise invalid_argument(op, f"repeats got {type(repeats).__name__}, expected an int or a 1-D integer "
                                   "tensor.")
    if any(r < 0 for r in repeats):
        raise invalid_argument(op, f"repeats {list(repeats)} has a negative count, expected counts >= 0.")
    if axis is not None:
        axis = normalize_axis(op, axis, x._data.ndim)
    return dispatch(REPEAT_INTERLEAVE, (x,), {"repeats": tuple(int(r) for r in repeats), "axis": axis})


__all__ = ["diag", "diagflat", "kron", "meshgrid", "repeat_interleave"]
TENSOR_METHODS = ["diag", "diagflat", "kron", "repeat_interleave"]
