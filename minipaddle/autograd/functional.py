"""paddle.autograd.jacobian and paddle.autograd.hessian: derivative matrices computed row by row, on demand.

    x = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    J = paddle.autograd.jacobian(x * x, x)    # nothing is computed yet
    J[0]                                      # row 0: one paddle.grad call, cached
    J[:, 1:3]                                 # the other two rows, then the columns asked for

Reverse mode gives one row of a Jacobian per backward pass: row i is the gradient of ys[i]. So the
object keeps ys and xs, and `J[...]` runs `paddle.grad(ys[i], xs, create_graph=True)` for just the
rows the index selects, caching each row. With create_graph=True the entries are themselves
differentiable, which is how `hessian` works: the Jacobian of the gradient.

Shapes (Paddle's): without a batch axis ys and xs are 0-D or 1-D and J is [M, N] (a 0-D side drops
its axis); with batch_axis=0 they are [B, ...] and J is [B, M, N], each sample's rows computed
together (samples must not depend on each other).
"""
from __future__ import annotations

from ..framework.autograd import grad
from ..framework.creation import zeros_like
from ..framework.errors import invalid_argument, invalid_type
from ..framework.ops.index_parsing import IndexOutOfRange
from ..framework.ops.joining import stack
from ..framework.tensor import Tensor

__all__ = ["jacobian", "hessian", "Jacobian", "Hessian"]


def _gradient(y: Tensor, x: Tensor) -> Tensor:
    """d(sum y)/dx, still differentiable (create_graph=True); zeros where y does not depend on x."""
    if not (y.stop_gradient or x.stop_gradient):
        (g,) = grad(y, x, create_graph=True, allow_unused=True)
        if g is not None:
            return g
    zeros = zeros_like(x)
    zeros.stop_gradient = x.stop_gradient
    return zeros


class Jacobian:
    """The Jacobian of `ys` with respect to `xs`, computed lazily by rows (see the module docstring).

    Index it like a Tensor with ints and slices: `J[:]`, `J[i]`, `J[:, j]`, `J[:, 1:3]`
    (batched: `J[:, i, :]`). `J.shape` is known without computing anything. Arithmetic
    (`J + 1`, `J @ v`) and Tensor attributes (`J.numpy()`) use the whole matrix.
    """

    def __init__(self, ys: Tensor, xs: Tensor, is_batched: bool = False) -> None:
        api = "jacobian"
        for arg, t in (("ys", ys), ("xs", xs)):
            if not isinstance(t, Tensor):
                raise invalid_type(api, f"{arg} is {type(t).__name__}, expected a Tensor (or a tuple of Tensors).")
        lo, hi = (1, 2) if is_batched else (0, 1)
        for arg, t in (("xs", xs), ("ys", ys)):
            if not lo <= t.ndim <= hi:
                raise invalid_argument(api, f"{arg} is {t.ndim}-D (shape {t.shape}); expected {lo}-D or {hi}-D "
                                            f"{'with' if is_batched else 'without'} a batch axis.",
                                       hint="flatten it first, e.g. y.reshape([-1])" if not is_batched
                                       else "flatten each sample, e.g. y.reshape([B, -1])")
        if is_batched and ys.shape[0] != xs.shape[0]:
            raise invalid_argument(api, f"batch sizes differ: ys has {ys.shape[0]} samples, xs has {xs.shape[0]}.")
        self.is_batched = is_batched
        self._xs = xs
        self._ys_shape = ys.shape
        self._xs_shape = xs.shape
        if is_batched:
            self._ys = ys.reshape([ys.shape[0], -1])                  # [B, M]
            self._inner_shape = [xs.shape[0], self._ys.shape[1], _numel(xs.shape[1:])]
            self.shape = [xs.shape[0], *ys.shape[1:2], *xs.shape[1:2]]
        else:
            self._ys = ys.reshape([-1])                               # [M]
            self._inner_shape = [self._ys.shape[0], _numel(xs.shape)]
            self.shape = [*ys.shape[:1], *xs.shape[:1]]
        self._rows: dict[int, Tensor] = {}   # row index -> the row, once computed

    # ---- rows: the unit of work -------------------------------------------------------------
    @property
    def _lazy_axis(self) -> int:
        return 1 if self.is_batched else 0

    def _row(self, i: int) -> Tensor:
        """Row i (the gradient of ys[i], flattened): one paddle.grad call the first time, then cached."""
        row = self._rows.get(i)
        if row is None:
            if self.is_batched:
                g = _gradient(self._ys[:, i], self._xs)               # each sample's row at once: [B, ...]
                row = g.reshape([g.shape[0], -1])
            else:
                row = _gradient(self._ys[i], self._xs).reshape([-1])
            self._rows[i] = row
        return row

    # ---- indexing ---------------------------------------------------------------------------
    def __getitem__(self, index) -> Tensor:
        index = self._full_index(index)
        lazy = self._lazy_axis
        rows = index[lazy]
        rest = index[:lazy] + index[lazy + 1:]
        if isinstance(rows, int):
            return self._row(rows)[rest]
        wanted = list(range(*rows.indices(self._inner_shape[lazy])))
        if not wanted:
            raise invalid_argument("Jacobian", f"the index {rows} selects no rows of a Jacobian of shape "
                                               f"{self.shape}.")
        block = stack([self._row(i) for i in wanted], axis=lazy)
        return block[index[:lazy] + (slice(None),) + index[lazy + 1:]]

    def _full_index(self, index) -> tuple:
        """The index as one int or slice per axis of the inner (never squeezed) shape, checked."""
        if not self.shape:
            raise IndexOutOfRange("IndexOutOfRange: Jacobian: both ys and xs are 0-D, so the Jacobian is 0-D and "
                                  "has nothing to index. Hint: use it whole, e.g. J.numpy() or J * 1.")
        index = index if isinstance(index, tuple) else (index,)
        if len(index) > len(self.shape):
            raise IndexOutOfRange(f"IndexOutOfRange: Jacobian: got {len(index)} indices for a Jacobian of shape "
                                  f"{self.shape} ({len(self.shape)} axes).")
        index = index + (slice(None),) * (len(self.shape) - len(index))
        # the axes a 0-D ys/xs (or a 1-D batched one) does not have: index 0 of a length-1 axis drops them
        if self.is_batched:
            keep = [True, len(self._ys_shape) > 1, len(self._xs_shape) > 1]
        else:
            keep = [len(self._ys_shape) > 0, len(self._xs_shape) > 0]
        given = iter(index)
        full = tuple(next(given) if k else 0 for k in keep)
        return tuple(_check_axis_index(i, n, axis) for axis, (i, n) in enumerate(zip(full, self._inner_shape)))

    # ---- the whole matrix -------------------------------------------------------------------
    def _evaluate_all(self) -> Tensor:
        if not self.shape:
            return self._row(0).reshape([])
        return self[:]

    def __getattr__(self, name: str):
        # Paddle's Jacobian hands Tensor attributes (J.numpy(), J.T, ...) to the whole matrix
        if name.startswith("_"):
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        return getattr(self._evaluate_all(), name)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(shape={self.shape}, rows computed: {sorted(self._rows)})"

    def __add__(self, other):
        return self._evaluate_all() + _whole(other)

    def __sub__(self, other):
        return self._evaluate_all() - _whole(other)

    def __mul__(self, other):
        return self._evaluate_all() * _whole(other)

    def __truediv__(self, other):
        return self._evaluate_all() / _whole(other)

    def __pow__(self, other):
        return self._evaluate_all() ** _whole(other)

    def __matmul__(self, other):
        return self._evaluate_all() @ _whole(other)

    def __neg__(self):
        return -self._evaluate_all()


class Hessian(Jacobian):
    """The Hessian of a scalar `ys`: the (lazy) Jacobian of its gradient. Made by `paddle.autograd.hessian`."""


def _numel(shape) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def _whole(value):
    return value._evaluate_all() if isinstance(value, Jacobian) else value


def _check_axis_index(index, size: int, axis: int):
    """A positive int within range, or a slice; anything else is an error naming the axis."""
    if isinstance(index, slice):
        return index
    if index is Ellipsis:
        raise IndexOutOfRange("IndexOutOfRange: Jacobian: Ellipsis (...) is not supported, as in Paddle. "
                              "Hint: write the slices out, e.g. J[:, :, j].")
    if hasattr(index, "__index__") and not isinstance(index, (bool, Tensor)):
        i = int(index)
        if not -size <= i < size:
            raise IndexOutOfRange(f"IndexOutOfRange: Jacobian: index {i} is out of range for axis {axis} "
                                  f"of size {size}.")
        return i + size if i < 0 else i
    raise invalid_type("Jacobian", f"index {index!r} ({type(index).__name__}) is not supported; expected ints "
                                   "and slices.")


def _is_sequence(value) -> bool:
    return isinstance(value, (list, tuple))


def jacobian(ys, xs, batch_axis: int | None = None):
    """The Jacobian of `ys` with respect to `xs`, as a lazy `Jacobian` (rows computed when indexed).

    Tuples give nested tuples: `jacobian((y1, y2), (x1, x2))[i][j]` is dyi/dxj; one of them a tuple
    gives a flat tuple. `batch_axis=0`: the first axis of ys and xs is a batch, and J is [B, M, N].

        >>> x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
        >>> J = paddle.autograd.jacobian(x * x, x)
        >>> J[:]        # [[2, 0], [0, 4]]
    """
    if batch_axis is not None and batch_axis != 0:
        raise invalid_argument("jacobian", f"batch_axis must be None or 0, got {batch_axis!r}.")
    is_batched = batch_axis is not None
    if _is_sequence(ys) and _is_sequence(xs):
        return tuple(tuple(Jacobian(y, x, is_batched) for x in xs) for y in ys)
    if _is_sequence(ys):
        return tuple(Jacobian(y, xs, is_batched) for y in ys)
    if _is_sequence(xs):
        return tuple(Jacobian(ys, x, is_batched) for x in xs)
    return Jacobian(ys, xs, is_batched)


def hessian(ys: Tensor, xs, batch_axis: int | None = None):
    """The Hessian of a one-element `ys` with respect to `xs`, as a lazy `Hessian`.

    The gradient of ys is computed now (one paddle.grad call per x, create_graph=True); each row of
    the Hessian, one more paddle.grad call, when indexed. A tuple `xs = (x1, x2)` gives blocks:
    `H[i][j]` is d2y/dxi dxj. `batch_axis=0`: ys is one value per sample ([B] or [B, 1]) and H is [B, N, N].

        >>> x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
        >>> H = paddle.autograd.hessian((x ** 3).sum(), x)
        >>> H[:]        # [[6, 0], [0, 12]]
    """
    api = "hessian"
    if not isinstance(ys, Tensor):
        raise invalid_type(api, f"ys is {type(ys).__name__}, expected a Tensor.")
    if batch_axis is None:
        if ys.size != 1:
            raise invalid_argument(api, f"ys has {ys.size} elements (shape {ys.shape}); a Hessian needs one "
                                        "(batch_axis=None).", hint="reduce it first, e.g. y.sum().")
        ys = ys.reshape([])
    elif isinstance(batch_axis, int) and not isinstance(batch_axis, bool):
        if batch_axis != 0:
            raise invalid_argument(api, f"batch_axis must be None or 0, got {batch_axis}.")
        if ys.ndim == 0 or ys.size != ys.shape[0]:
            raise invalid_argument(api, f"ys has shape {ys.shape}; with batch_axis=0 it must hold one value "
                                        "per sample ([B] or [B, 1]).")
        ys = ys.reshape([-1])
    else:
        raise invalid_argument(api, f"batch_axis must be None or an int, got {type(batch_axis).__name__}.")
    is_batched = batch_axis is not None
    if _is_sequence(xs):
        grads = [_gradient(ys, x) for x in xs]
        return tuple(tuple(Hessian(g, x, is_batched) for x in xs) for g in grads)
    return Hessian(_gradient(ys, xs), xs, is_batched)
