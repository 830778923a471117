"""Shape manipulation: reshape, transpose, squeeze, unsqueeze, flatten, expand, broadcast_to,
tile, flip, roll, tril, triu -- and, from joining.py, concat, stack, split, chunk, slice,
strided_slice, pad.

Ops that only re-view memory (reshape, transpose, squeeze, unsqueeze, flatten, slice) return
numpy views; the output's `_base` points at the input's storage owner so in-place writes bump
one version counter for both. Every other op returns a fresh array.

All of these ops are linear in x, so each backward rule is another manipulation op applied to
`dout` (transpose's is the inverse transpose, tile's a reshape + sum, ...): grads of grads are
those same ops again, which is why `create_graph=True` works through all of them.
"""
from __future__ import annotations

import numpy as np

from ..dispatch import dispatch
from ..errors import invalid_argument
from ..gpu import is_device_array, shares_memory
from ..registry import MetaTensor, add_kernel, new_meta, register_op
from ..tensor import Tensor
from .common import ALL, as_tensor, normalize_axis


# ---- argument helpers shared by this family ------------------------------------------
def as_int_list(op: str, arg: str, value) -> list[int]:
    if isinstance(value, Tensor):
        value = value._data.tolist()
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
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


def as_int(op: str, arg: str, value) -> int:
    """An int argument that may also come as a 1-element Tensor (Paddle accepts both)."""
    if isinstance(value, Tensor):
        if value._data.size != 1:
            raise invalid_argument(op, f"'{arg}' got a Tensor with {value._data.size} elements, expected one int.")
        value = value._data.item()
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
        raise invalid_argument(op, f"'{arg}' got {type(value).__name__}, expected an int.")
    return int(value)


def view_of(out: Tensor, x: Tensor) -> Tensor:
    """Mark `out` as sharing x's storage when the kernel returned a view."""
    data = out._data
    if is_device_array(data):  # GPU: reshape and contiguous slices are views too (kernels/cuda/strided.py)
        shared = shares_memory(data, x._data)
    else:
        shared = data.base is not None and np.shares_memory(data, x._data)
    if shared:
        out._base = x if x._base is None else x._base
    return out


def norm_axes(op: str, axes, ndim: int, *, unique: bool = True) -> tuple[int, ...]:
    out = tuple(normalize_axis(op, a, ndim) for a in axes)
    if unique and len(set(out)) != len(out):
        raise invalid_argument(op, f"axis {list(axes)} names the same axis twice.")
    return out


def _prod(dims) -> int:
    """Product of dims, -1 (unknown, static mode) if any is unknown."""
    dims = tuple(dims)
    return -1 if -1 in dims else int(np.prod(dims, dtype=np.int64))


def _unary_op(name: str, meta, grad, attrs: dict, kernel, dtypes=ALL):
    op = register_op(name, inputs=("x",), infer_meta=meta, backward=grad, attrs=attrs)
    add_kernel(name, "cpu", dtypes, kernel, name="numpy")
    return op


# ---- reshape ------------------------------------------------------------------------
def reshape_meta(x, shape=()) -> MetaTensor:
    size = _prod(x.shape)
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
    if 0 in shape:  # Paddle's 0 means "keep this dim"; numpy's would mean size 0
        shape = reshape_meta(x, shape).shape
    return x.reshape(shape)


RESHAPE = _unary_op("reshape", reshape_meta, reshape_grad, {"shape": (tuple, ())}, reshape_kernel)


def reshape(x, shape, name=None) -> Tensor:
    """Same data, new shape; -1 infers one dim, 0 keeps the input's dim."""
    x = as_tensor("reshape", "x", x)
    shape = tuple(as_int_list("reshape", "shape", shape))
    return view_of(dispatch(RESHAPE, (x,), {"shape": shape}), x)


# ---- broadcast_to, expand, expand_as --------------------------------------------------
def _expanded_shape(op: str, xshape: tuple, shape: tuple) -> tuple:
    """Paddle's expand rule: align right; -1 keeps x's dim; only size-1 dims may grow."""
    if len(shape) < len(xshape):
        raise invalid_argument(op, f"shape {list(shape)} has fewer dims ({len(shape)}) than x "
                                   f"{list(xshape)} ({len(xshape)}).")
    lead = len(shape) - len(xshape)
    for i, target in enumerate(shape[:lead]):
        if target < 0:
            raise invalid_argument(op, f"shape {list(shape)}: the new leading dim {i} is {target}, expected "
                                       "a size >= 0.", hint="-1 (keep the dim) only applies to x's own dims.")
    out = list(shape)
    for i, n in enumerate(xshape):
        target = shape[lead + i]
        if target == -1:
            out[lead + i] = n
        elif target < -1:
            raise invalid_argument(op, f"shape {list(shape)} has a negative size {target} at dim {lead + i}.")
        elif n != target and n != 1 and n != -1:
            raise invalid_argument(op, f"cannot expand x of shape {list(xshape)} to {list(shape)}: dim "
                                       f"{lead + i} is {n}, expected 1 or {target}.",
                                   hint="only dims of size 1 can be expanded.")
    return tuple(out)


def broadcast_to_meta(x, shape=()) -> MetaTensor:
    if len(shape) == len(x.shape) and x.shape == shape:
        return new_meta(shape, x.dtype)  # nothing to check: the common case in backward rules
    return new_meta(_expanded_shape("broadcast_to", x.shape, shape), x.dtype)


def expand_meta(x, shape=()) -> MetaTensor:
    return MetaTensor(_expanded_shape("expand", x.shape, shape), x.dtype)


def expand_as_meta(x, y) -> MetaTensor:
    return MetaTensor(_expanded_shape("expand_as", x.shape, y.shape), x.dtype)


def expand_grad(node, dout):
    return dout  # the engine sums the broadcast axes back to the input's shape


def expand_as_grad(node, dout):
    return dout, None


def broadcast_to_kernel(x, shape=()):
    target = _expanded_shape("expand", x.shape, shape) if -1 in shape else shape  # resolve -1: keep x's dim
    return _broadcast_copy(x, target)


def _broadcast_copy(x: np.ndarray, shape: tuple) -> np.ndarray:
    # a real copy (numpy's broadcast views are read-only); assigning into a new buffer
    # broadcasts in C, where np.broadcast_to costs microseconds of Python per call
    out = np.empty(shape, x.dtype)
    out[...] = x
    return out


def expand_as_kernel(x, y):
    return _broadcast_copy(x, y.shape)


BROADCAST_TO = _unary_op("broadcast_to", broadcast_to_meta, expand_grad, {"shape": (tuple, ())},
                         broadcast_to_kernel)
EXPAND = _unary_op("expand", expand_meta, expand_grad, {"shape": (tuple, ())}, broadcast_to_kernel)
EXPAND_AS = register_op("expand_as", inputs=("x", "y"), infer_meta=expand_as_meta, backward=expand_as_grad,
                        differentiable_inputs=(0,))
add_kernel("expand_as", "cpu", ALL, expand_as_kernel, name="numpy")


def broadcast_to(x, shape, name=None) -> Tensor:
    """x broadcast to `shape` (a copy): `broadcast_to(ones([3]), [2, 3])` has shape [2, 3]."""
    x = as_tensor("broadcast_to", "x", x)
    return dispatch(BROADCAST_TO, (x,), {"shape": tuple(as_int_list("broadcast_to", "shape", shape))})


def expand(x, shape, name=None) -> Tensor:
    """Expand size-1 dims of x to `shape`; -1 keeps a dim. `expand(ones([3, 1]), [2, -1, 4])`: [2, 3, 4]."""
    x = as_tensor("expand", "x", x)
    return dispatch(EXPAND, (x,), {"shape": tuple(as_int_list("expand", "shape", shape))})


def expand_as(x, y, name=None) -> Tensor:
    """Expand x to y's shape (y's values are not read; y gets no gradient)."""
    x = as_tensor("expand_as", "x", x)
    y = as_tensor("expand_as", "y", y)
    return dispatch(EXPAND_AS, (x, y))


# ---- transpose, .T --------------------------------------------------------------------
def transpose_meta(x, perm=()) -> MetaTensor:
    ndim = len(x.shape)
    if len(perm) != ndim:
        raise invalid_argument("transpose", f"perm {list(perm)} has {len(perm)} entries, expected {ndim} "
                                            f"(one per dim of x with shape {list(x.shape)}).")
    axes = tuple(p + ndim if -ndim <= p < 0 else p for p in perm)
    if sorted(axes) != list(range(ndim)):
        raise invalid_argument("transpose", f"perm {list(perm)} is not a permutation of the dims "
                                            f"0..{ndim - 1}.", hint="name every dim exactly once.")
    return MetaTensor(tuple(x.shape[p] for p in axes), x.dtype)


def transpose_grad(node, dout):
    ndim = len(node.perm)
    inverse = np.argsort([p % ndim for p in node.perm])
    return transpose(dout, [int(p) for p in inverse])


def transpose_kernel(x, perm=()):
    return np.transpose(x, perm)  # a view


TRANSPOSE = _unary_op("transpose", transpose_meta, transpose_grad, {"perm": (tuple, ())}, transpose_kernel)


def transpose(x, perm, name=None) -> Tensor:
    """Permute the dims: out.shape[i] == x.shape[perm[i]]. A view of x."""
    x = as_tensor("transpose", "x", x)
    perm = tuple(as_int_list("transpose", "perm", perm))
    return view_of(dispatch(TRANSPOSE, (x,), {"perm": perm}), x)


# Tensor.T (attached by tensor_methods.py); paddle.t, for at most 2 dims, lives in linalg.py.
T = property(lambda self: transpose(self, list(range(self.ndim))[::-1]),
             doc="x with its dims reversed (Paddle's Tensor.T).")


# ---- squeeze, unsqueeze, flatten: reshapes that add or drop dims -----------------------
def _squeezed_shape(shape: tuple, axis) -> tuple:
    if not axis:  # None or []: Paddle drops every size-1 dim
        return tuple(n for n in shape if n != 1)
    drop = {a for a in norm_axes("squeeze", axis, len(shape), unique=False) if len(shape) and shape[a] == 1}
    return tuple(n for i, n in enumerate(shape) if i not in drop)


def squeeze_meta(x, axis=None) -> MetaTensor:
    return MetaTensor(_squeezed_shape(x.shape, axis), x.dtype)


def _unsqueezed_shape(shape: tuple, axis: tuple) -> tuple:
    """Paddle inserts the axes one after another, each counted in the shape built so far."""
    out = list(shape)
    for a in axis:
        rank = len(out)
        if not -(rank + 1) <= a <= rank:
            raise invalid_argument("unsqueeze", f"axis {a} is out of range when inserting into a {rank}-D "
                                                f"shape {out}; expected {-(rank + 1)} <= axis <= {rank}.")
        out.insert(a + rank + 1 if a < 0 else a, 1)
    return tuple(out)


def unsqueeze_meta(x, axis=()) -> MetaTensor:
    return MetaTensor(_unsqueezed_shape(x.shape, axis), x.dtype)


def _flattened_shape(shape: tuple, start_axis: int, stop_axis: int) -> tuple:
    ndim = len(shape)
    start = normalize_axis("flatten", start_axis, ndim)
    stop = normalize_axis("flatten", stop_axis, ndim)
    if ndim == 0:
        return (1,)  # Paddle flattens a 0-D tensor to shape [1]
    if start > stop:
        raise invalid_argument("flatten", f"start_axis ({start_axis}) comes after stop_axis ({stop_axis}) "
                                          f"for a {ndim}-D tensor.", hint="expected start_axis <= stop_axis.")
    return shape[:start] + (_prod(shape[start:stop + 1]),) + shape[stop + 1:]


def flatten_meta(x, start_axis=0, stop_axis=-1) -> MetaTensor:
    return MetaTensor(_flattened_shape(x.shape, start_axis, stop_axis), x.dtype)


def back_to_input_shape(node, dout):
    return reshape(dout, list(node.input_metas[0][0]))


def squeeze_kernel(x, axis=None):
    return x.reshape(_squeezed_shape(x.shape, axis))


def unsqueeze_kernel(x, axis=()):
    return x.reshape(_unsqueezed_shape(x.shape, axis))


def flatten_kernel(x, start_axis=0, stop_axis=-1):
    return x.reshape(_flattened_shape(x.shape, start_axis, stop_axis))  # a view unless x is strided


SQUEEZE = _unary_op("squeeze", squeeze_meta, back_to_input_shape, {"axis": (tuple, None)}, squeeze_kernel)
UNSQUEEZE = _unary_op("unsqueeze", unsqueeze_meta, back_to_input_shape, {"axis": (tuple, ())},
                      unsqueeze_kernel)
FLATTEN = _unary_op("flatten", flatten_meta, back_to_input_shape,
                    {"start_axis": (int, 0), "stop_axis": (int, -1)}, flatten_kernel)


def squeeze(x, axis=None, name=None) -> Tensor:
    """Drop size-1 dims: all of them (axis None or []) or those named in axis (others are left alone)."""
    x = as_tensor("squeeze", "x", x)
    axis = None if axis is None else tuple(as_int_list("squeeze", "axis", axis))
    return view_of(dispatch(SQUEEZE, (x,), {"axis": axis}), x)


def unsqueeze(x, axis, name=None) -> Tensor:
    """Insert size-1 dims at `axis` (an int or a list, inserted in order). A view of x."""
    x = as_tensor("unsqueeze", "x", x)
    return view_of(dispatch(UNSQUEEZE, (x,), {"axis": tuple(as_int_list("unsqueeze", "axis", axis))}), x)


def flatten(x, start_axis=0, stop_axis=-1, name=None) -> Tensor:
    """Merge dims start_axis..stop_axis into one: flatten(ones([2, 3, 4]), 1) has shape [2, 12]."""
    x = as_tensor("flatten", "x", x)
    attrs = {"start_axis": as_int("flatten", "start_axis", start_axis),
             "stop_axis": as_int("flatten", "stop_axis", stop_axis)}
    return view_of(dispatch(FLATTEN, (x,), attrs), x)


# ---- tile ----------------------------------------------------------------------------
def tile_meta(x, repeat_times=()) -> MetaTensor:
    if any(r <= 0 for r in repeat_times):
        raise invalid_argument("tile", f"repeat_times {list(repeat_times)} has a value <= 0, expected "
                                       "positive ints.")
    n = max(len(x.shape), len(repeat_times))
    shape = (1,) * (n - len(x.shape)) + tuple(x.shape)
    reps = (1,) * (n - len(repeat_times)) + tuple(repeat_times)
    return MetaTensor(tuple(-1 if s == -1 else s * r for s, r in zip(shape, reps)), x.dtype)


def tile_grad(node, dout):
    from .reduction import sum as reduce_sum
    x_shape = node.input_metas[0][0]
    n = len(dout.shape)
    shape = (1,) * (n - len(x_shape)) + tuple(x_shape)
    reps = (1,) * (n - len(node.repeat_times)) + tuple(node.repeat_times)
    # out dim i holds reps[i] copies of shape[i]: view it as [reps[i], shape[i]] and sum the copies
    pairs = [d for r, s in zip(reps, shape) for d in (r, s)]
    g = reshape(dout, pairs)
    if n:
        g = reduce_sum(g, axis=list(range(0, 2 * n, 2)))
    return reshape(g, list(x_shape))


def tile_kernel(x, repeat_times=()):
    return np.tile(x, repeat_times)


TILE = _unary_op("tile", tile_meta, tile_grad, {"repeat_times": (tuple, ())}, tile_kernel)


def tile(x, repeat_times, name=None) -> Tensor:
    """Repeat x along each dim: tile(x of shape [2, 3], [2, 1]) has shape [4, 3]."""
    x = as_tensor("tile", "x", x)
    return dispatch(TILE, (x,), {"repeat_times": tuple(as_int_list("tile", "repeat_times", repeat_times))})


# ---- flip, roll ----------------------------------------------------------------------
def flip_meta(x, axis=()) -> MetaTensor:
    norm_axes("flip", axis, len(x.shape))
    return MetaTensor(x.shape, x.dtype)


def flip_grad(node, dout):
    return flip(dout, list(node.axis))


def flip_kernel(x, axis=()):
    if x.ndim == 0:  # axis 0 / -1 of a 0-D tensor: nothing to reverse
        return x.copy()
    return np.flip(x, axis).copy()  # np.flip is a view; Paddle's flip makes new memory


FLIP = _unary_op("flip", flip_meta, flip_grad, {"axis": (tuple, ())}, flip_kernel)


def flip(x, axis, name=None) -> Tensor:
    """Reverse the order of elements along `axis` (an int or a list of ints)."""
    x = as_tensor("flip", "x", x)
    return dispatch(FLIP, (x,), {"axis": tuple(as_int_list("flip", "axis", axis))})


def roll_meta(x, shifts=(), axis=None) -> MetaTensor:
    if axis is None:
        if len(shifts) != 1:
            raise invalid_argument("roll", f"shifts {list(shifts)} must be a single int when axis is None "
                                           "(x is rolled as if flattened).")
    else:
        if len(shifts) != len(axis):
            raise invalid_argument("roll", f"shifts {list(shifts)} and axis {list(axis)} differ in length; "
                                           "expected one shift per axis.")
        norm_axes("roll", axis, len(x.shape), unique=False)
    return MetaTensor(x.shape, x.dtype)


def roll_grad(node, dout):
    return roll(dout, [-s for s in node.shifts], None if node.axis is None else list(node.axis))


def roll_kernel(x, shifts=(), axis=None):
    if axis is None:
        return np.roll(x, shifts[0])
    if x.ndim == 0:
        return x.copy()
    return np.roll(x, shifts, axis)


ROLL = _unary_op("roll", roll_meta, roll_grad, {"shifts": (tuple, ()), "axis": (tuple, None)}, roll_kernel)


def roll(x, shifts, axis=None, name=None) -> Tensor:
    """Shift elements along `axis` cyclically (over the flattened tensor when axis is None)."""
    x = as_tensor("roll", "x", x)
    attrs = {"shifts": tuple(as_int_list("roll", "shifts", shifts)),
             "axis": None if axis is None else tuple(as_int_list("roll", "axis", axis))}
    return dispatch(ROLL, (x,), attrs)


# ---- tril, triu ----------------------------------------------------------------------
def tril_meta(x, diagonal=0) -> MetaTensor:
    if len(x.shape) < 2:
        raise invalid_argument("tril", f"x has shape {list(x.shape)}, expected at least 2 dims (the last two).")
    return MetaTensor(x.shape, x.dtype)


def triu_meta(x, diagonal=0) -> MetaTensor:
    if len(x.shape) < 2:
        raise invalid_argument("triu", f"x has shape {list(x.shape)}, expected at least 2 dims (the last two).")
    return MetaTensor(x.shape, x.dtype)


def tril_grad(node, dout):
    return tril(dout, node.diagonal)


def triu_grad(node, dout):
    return triu(dout, node.diagonal)


def tril_kernel(x, diagonal=0):
    return np.tril(x, diagonal)


def triu_kernel(x, diagonal=0):
    return np.triu(x, diagonal)


TRIL = _unary_op("tril", tril_meta, tril_grad, {"diagonal": (int, 0)}, tril_kernel)
TRIU = _unary_op("triu", triu_meta, triu_grad, {"diagonal": (int, 0)}, triu_kernel)


def tril(x, diagonal=0, name=None) -> Tensor:
    """Keep the lower triangle (j - i <= diagonal) of the last two dims, zero the rest."""
    x = as_tensor("tril", "x", x)
    return dispatch(TRIL, (x,), {"diagonal": as_int("tril", "diagonal", diagonal)})


def triu(x, diagonal=0, name=None) -> Tensor:
    """Keep the upper triangle (j - i >= diagonal) of the last two dims, zero the rest."""
    x = as_tensor("triu", "x", x)
    return dispatch(TRIU, (x,), {"diagonal": as_int("triu", "diagonal", diagonal)})


# The joining/slicing half of the family builds on the helpers above.
from .joining import chunk, concat, pad, slice, split, stack, strided_slice  # noqa: E402

def reshape_(x, shape, name=None) -> Tensor:
    """`paddle.reshape_(x, shape)`: x itself takes the new shape (same storage) and is returned."""
    x = as_tensor("reshape_", "x", x)
    return x.reshape_(shape)   # Tensor.reshape_ is installed by tensor_methods.py


__all__ = ["broadcast_to", "chunk", "concat", "expand", "expand_as", "flatten", "flip", "pad", "reshape", "reshape_",
           "roll", "slice", "split", "squeeze", "stack", "strided_slice", "tile", "transpose", "tril", "triu",
           "unsqueeze"]
TENSOR_METHODS = [n for n in __all__ if n not in ("pad", "reshape_")] + ["T"]
