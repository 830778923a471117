"""Shape manipulation: reshape, transpose, squeeze, unsqueeze, flatten, expand, broadcast_to,
concat, stack, split, chunk, slice, strided_slice, tile, flip, roll, pad, tril, triu.

Ops that only re-view memory (reshape, transpose, squeeze, ...) return numpy views; the
output's `_base` points at the input's storage owner so in-place writes bump one version
counter for both.
"""
from __future__ import annotations

import numpy as np

from ..dispatch import dispatch
from ..errors import invalid_argument
from ..registry import MetaTensor, add_kernel, register_op
from ..tensor import Tensor
from .common import ALL, as_tensor


def _as_int_list(op: str, arg: str, value) -> list[int]:
    if isinstance(value, Tensor):
        value = value._data.tolist()
    if isinstance(value, (int, np.integer)):
        value = [value]
    if not isinstance(value, (list, tuple)):
        raise invalid_argument(op, f"'{arg}' got {type(value).__name__}, expected a list of ints.")
    out = []
    for v in value:
        if isinstance(v, Tensor):
            v = v.item()
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool):
            raise invalid_argument(op, f"'{arg}' got {value!r}, expected a list of ints.")
        out.append(int(v))
    return out


def view_of(out: Tensor, x: Tensor) -> Tensor:
    """Mark `out` as sharing x's storage when the kernel returned a view."""
    if out._data.base is not None and np.shares_memory(out._data, x._data):
        out._base = x if x._base is None else x._base
    return out


# ---- reshape ------------------------------------------------------------------------
def reshape_meta(x, shape=()) -> MetaTensor:
    size = int(np.prod(x.shape)) if -1 not in x.shape else -1
    out = list(shape)
    unknown = [i for i, n in enumerate(out) if n == -1]
    if len(unknown) > 1:
        raise invalid_argument("reshape", f"shape {list(shape)} has more than one -1.")
    for i, n in enumerate(out):
        if n == 0:  # Paddle: 0 copies the input's dim at that position
            if i >= len(x.shape):
                raise invalid_argument("reshape", f"shape {list(shape)} has 0 at position {i}, but the input "
                                                  f"has only {len(x.shape)} dims.")
            out[i] = x.shape[i]
        elif n < -1:
            raise invalid_argument("reshape", f"shape {list(shape)} has a negative dim {n}.")
    if size >= 0:
        known = int(np.prod([n for n in out if n != -1]))
        if unknown:
            if known == 0 or size % known:
                raise invalid_argument("reshape", f"cannot reshape {list(x.shape)} ({size} elements) to "
                                                  f"{list(shape)}.")
            out[unknown[0]] = size // known
        elif known != size:
            raise invalid_argument("reshape", f"cannot reshape {list(x.shape)} ({size} elements) to "
                                              f"{list(shape)} ({known} elements).",
                                   hint="the number of elements must stay the same; use -1 for one dim.")
    return MetaTensor(tuple(out), x.dtype)


def reshape_grad(node, dout):
    return reshape(dout, list(node.input_metas[0][0]))


def reshape_kernel(x, shape=()):
    return x.reshape(shape)


RESHAPE = register_op("reshape", inputs=("x",), infer_meta=reshape_meta, backward=reshape_grad,
                      attrs={"shape": (tuple, ())})
add_kernel("reshape", "cpu", ALL, reshape_kernel, name="numpy")


def reshape(x, shape, name=None) -> Tensor:
    """Same data, new shape; -1 infers one dim, 0 keeps the input's dim."""
    x = as_tensor("reshape", "x", x)
    shape = tuple(_as_int_list("reshape", "shape", shape))
    out = dispatch(RESHAPE, (x,), {"shape": shape})
    return view_of(out, x)


# ---- broadcast_to --------------------------------------------------------------------
def broadcast_to_meta(x, shape=()) -> MetaTensor:
    if len(shape) < len(x.shape):
        raise invalid_argument("broadcast_to", f"shape {list(shape)} has fewer dims than x {list(x.shape)}.")
    lead = len(shape) - len(x.shape)
    out = list(shape)
    for i, n in enumerate(x.shape):
        target = shape[lead + i]
        if target == -1:
            out[lead + i] = n
        elif n != target and n != 1:
            raise invalid_argument("broadcast_to", f"cannot broadcast x of shape {list(x.shape)} to "
                                                   f"{list(shape)}: dim {lead + i} is {n}, expected 1 or {target}.")
    return MetaTensor(tuple(out), x.dtype)


def broadcast_to_grad(node, dout):
    return dout  # the engine sums the broadcast axes back to the input's shape


def broadcast_to_kernel(x, shape=()):
    target = tuple(x.shape[i - (len(shape) - x.ndim)] if n == -1 else n for i, n in enumerate(shape))
    return np.array(np.broadcast_to(x, target))  # a real copy: broadcast views are read-only


BROADCAST_TO = register_op("broadcast_to", inputs=("x",), infer_meta=broadcast_to_meta,
                           backward=broadcast_to_grad, attrs={"shape": (tuple, ())})
add_kernel("broadcast_to", "cpu", ALL, broadcast_to_kernel, name="numpy")


def broadcast_to(x, shape, name=None) -> Tensor:
    x = as_tensor("broadcast_to", "x", x)
    return dispatch(BROADCAST_TO, (x,), {"shape": tuple(_as_int_list("broadcast_to", "shape", shape))})


__all__ = ["reshape", "broadcast_to"]
TENSOR_METHODS = ["reshape", "broadcast_to"]
