"""paddle.incubate.autograd: derivatives of a *function* (`vjp`, `jvp`, `Jacobian`, `Hessian`).

    def f(x):
        return paddle.matmul(x, x)
    y, vjp = paddle.incubate.autograd.vjp(f, x, v)    # v^T J, one backward pass
    y, jvp = paddle.incubate.autograd.jvp(f, x, v)    # J v, two backward passes (see jvp)
    J = paddle.incubate.autograd.Jacobian(f, x)       # lazy rows, over every x flattened and joined

Unlike paddle.grad, these are stateless: each call runs `func` on fresh copies of the inputs, so
only the paths through `func` count, never how the inputs themselves were computed.
"""
from __future__ import annotations

from typing import Callable

from ...autograd.functional import Jacobian as _LazyJacobian
from ...framework.autograd import grad
from ...framework.creation import zeros_like
from ...framework.errors import invalid_argument, invalid_type, precondition_not_met
from ...framework.ops.elementwise import assign
from ...framework.ops.joining import concat, split
from ...framework.tensor import Tensor

__all__ = ["vjp", "jvp", "Jacobian", "Hessian"]


def vjp(func: Callable, xs, v=None):
    """The vector-Jacobian product `v^T J` of `func` at `xs`: returns `(func(xs), vjp)`.

    One forward and one backward pass (reverse mode's natural product). `v` matches func's output
    (None: ones); the result matches `xs` (a Tensor, or a tuple for a list of inputs).

        >>> x = paddle.ones([2, 2])
        >>> _, g = paddle.incubate.autograd.vjp(lambda x: paddle.matmul(x, x), x)   # [[4, 4], [4, 4]]
    """
    _check_inputs("vjp", func, xs, v)
    xs = _separate(xs)
    ys = func(*xs) if isinstance(xs, tuple) else func(xs)
    _check_v_shape("vjp", v, ys, "func's output")
    return ys, _grad(ys, xs, v)


def jvp(func: Callable, xs, v=None):
    """The Jacobian-vector product `J v` of `func` at `xs`: returns `(func(xs), jvp)`.

    `v` matches `xs` (None: ones); the result matches func's output.

    How (the double-vjp trick): minipaddle has reverse mode only, which gives `u^T J` for any `u`.
    Take a dummy cotangent `u` (zeros; its value never matters) and build `g(u) = u^T J` with
    create_graph=True. `g` is linear in `u`, so its vjp with respect to `u` along `v` is
    `d(u^T J v)/du = J v`. Cost: one forward pass and two backward passes, the second running
    through the graph the first one recorded, so roughly 2-3x a vjp, and every backward rule on
    the path must itself be differentiable (minipaddle's are, being written in minipaddle ops).
    A forward-mode jvp would take one pass; for many outputs and few inputs Jacobian rows by
    vjp are the cheaper way to the whole matrix.

        >>> x = paddle.ones([2, 2])
        >>> v = paddle.to_tensor([[1.0, 0.0], [0.0, 0.0]])
        >>> _, t = paddle.incubate.autograd.jvp(lambda x: paddle.matmul(x, x), x, v)   # [[2, 1], [1, 0]]
    """
    _check_inputs("jvp", func, xs, v)
    xs = _separate(xs)
    ys = func(*xs) if isinstance(xs, tuple) else func(xs)
    _check_v_shape("jvp", v, xs, "xs")
    u = _zeros_with_grad(ys)        # the dummy cotangent
    u_t_jacobian = _grad(ys, xs, u)  # u^T J, a function of u recorded in the graph
    return ys, _grad(u_t_jacobian, u, v)


class Jacobian:
    """The Jacobian of `func` at `xs`, every input flattened and joined (and so every output).

    Rows are computed when indexed and cached (as paddle.autograd.Jacobian). Shape (M, N), or
    (B, M, N) with `is_batched=True` where the first axis of every input and output is a batch.

        >>> J = paddle.incubate.autograd.Jacobian(lambda x, y: x * y, [x, y])
        >>> J[:]    # [M, 2M]: d(x*y)/dx next to d(x*y)/dy
    """

    def __init__(self, func: Callable, xs, is_batched: bool = False) -> None:
        _check_inputs("Jacobian", func, xs)
        flat_x, pieces = _flat_input("Jacobian", xs, is_batched)
        flat_y = _flatten("Jacobian", func(*pieces), is_batched)
        self._jacobian = _LazyJacobian(flat_y, flat_x, is_batched)

    @property
    def shape(self) -> tuple:
        return tuple(self._jacobian.shape)

    def __getitem__(self, index) -> Tensor:
        return self._jacobian[index]


class Hessian:
    """The Hessian of a one-value `func` at `xs` (every input flattened and joined): shape (N, N),
    or (B, N, N) with `is_batched=True` (func then gives one value per sample, shape [B, 1]).

    The gradient is computed now; each Hessian row, one more backward pass, when indexed.

        >>> H = paddle.incubate.autograd.Hessian(lambda x: paddle.sum(x * x), x)
        >>> H[:]    # 2 * identity
    """

    def __init__(self, func: Callable, xs, is_batched: bool = False) -> None:
        _check_inputs("Hessian", func, xs)
        flat_x, pieces = _flat_input("Hessian", xs, is_batched)
        flat_y = _flatten("Hessian", func(*pieces), is_batched)
        values = flat_y.shape[-1]
        if values != 1:
            raise precondition_not_met("Hessian", f"func gave {values} values{' per sample' * is_batched}; a "
                                                  "Hessian needs a function with one value "
                                                  f"({'[B, 1] when batched' if is_batched else 'shape [1] or []'}).",
                                       hint="reduce the output, e.g. return paddle.sum(...).")
        gradient = _grad(flat_y, flat_x)   # [N] or [B, N]: one gradient row per sample
        self.symbolic = _LazyJacobian(gradient, flat_x, is_batched)

    @property
    def shape(self) -> tuple:
        return tuple(self.symbolic.shape)

    def __getitem__(self, index) -> Tensor:
        return self.symbolic[index]


# ---- helpers ---------------------------------------------------------------------------------
def _as_tuple(value) -> tuple:
    return tuple(value) if isinstance(value, (list, tuple)) else (value,)


def _grad(ys, xs, v=None):
    """paddle.grad(ys, xs, v, create_graph=True), with zeros for an x that ys does not reach.

    A single Tensor `xs` gives a single Tensor back, a sequence a tuple."""
    ys_list, xs_list = _as_tuple(ys), _as_tuple(xs)
    v_list = (None,) * len(ys_list) if v is None else _as_tuple(v)
    live = [(y, g) for y, g in zip(ys_list, v_list) if not y.stop_gradient]   # the others carry no gradient
    wanted = [x for x in xs_list if not x.stop_gradient]
    found: dict[int, Tensor] = {}
    if live and wanted:
        grads = grad([y for y, _ in live], wanted, [g for _, g in live], create_graph=True, allow_unused=True)
        found = {id(x): g for x, g in zip(wanted, grads) if g is not None}
    out = []
    for x in xs_list:
        g = found.get(id(x))
        if g is None:
            g = zeros_like(x)
            g.stop_gradient = x.stop_gradient
        out.append(g)
    return tuple(out) if isinstance(xs, (list, tuple)) else out[0]


def _separate(xs):
    """Fresh inputs for func: a copy still joined to the graph (x needs grad), else a new leaf."""
    if isinstance(xs, (list, tuple)):
        return tuple(_separate(x) for x in xs)
    if not xs.stop_gradient:
        return assign(xs)
    leaf = xs.detach()
    leaf.stop_gradient = False
    return leaf


def _zeros_with_grad(ys):
    if isinstance(ys, (list, tuple)):
        return tuple(_zeros_with_grad(y) for y in ys)
    u = zeros_like(ys)
    u.stop_gradient = False
    return u


def _flat_input(api: str, xs, is_batched: bool):
    """One flat input holding every x ([N], or [B, N] batched) and the x's cut back out of it.

    func runs on the pieces, so one gradient with respect to the flat input is a whole Jacobian row."""
    xs = _as_tuple(xs)
    if is_batched:
        for i, x in enumerate(xs):
            if x.ndim == 0 or x.shape[0] != xs[0].shape[0]:
                raise invalid_argument(api, f"xs[{i}] has shape {x.shape}; with is_batched=True every input "
                                            f"needs the same first (batch) axis, here {xs[0].shape[:1]}.")
    flats = [x.reshape([x.shape[0], -1]) if is_batched else x.reshape([-1]) for x in xs]
    flat = concat(flats, axis=-1)
    if flat.stop_gradient:
        flat = flat.detach()
        flat.stop_gradient = False
    cut = split(flat, [f.shape[-1] for f in flats], axis=-1)
    return flat, [c.reshape(x.shape) for c, x in zip(cut, xs)]


def _flatten(api: str, ys, is_batched: bool) -> Tensor:
    """func's outputs, each flattened ([B, -1] when batched) and joined."""
    ys = _as_tuple(ys)
    for i, y in enumerate(ys):
        if not isinstance(y, Tensor):
            raise invalid_type(api, f"func's output {i} is {type(y).__name__}, expected a Tensor.")
    return concat([y.reshape([y.shape[0], -1]) if is_batched else y.reshape([-1]) for y in ys], axis=-1)


def _check_inputs(api: str, func, xs, v=None) -> None:
    if not callable(func):
        raise invalid_type(api, f"func is {type(func).__name__}, expected a callable.")
    if not isinstance(xs, (Tensor, list, tuple)):
        raise invalid_type(api, f"xs is {type(xs).__name__}, expected a Tensor or a list of Tensors.")
    if isinstance(xs, (list, tuple)) and not all(isinstance(x, Tensor) for x in xs):
        raise invalid_type(api, f"xs holds {[type(x).__name__ for x in xs]}; every element must be a Tensor.")
    if v is not None and not isinstance(v, (Tensor, list, tuple)):
        raise invalid_type(api, f"v is {type(v).__name__}, expected a Tensor, a list of Tensors or None.")
    if isinstance(v, (list, tuple)) and not all(isinstance(e, Tensor) for e in v):
        raise invalid_type(api, f"v holds {[type(e).__name__ for e in v]}; every element must be a Tensor.")


def _check_v_shape(api: str, v, refs, what: str) -> None:
    """v must match `refs` one to one, shape for shape (Paddle raises RuntimeError here)."""
    if v is None:
        return
    v, refs = _as_tuple(v), _as_tuple(refs)
    if len(v) != len(refs):
        raise precondition_not_met(api, f"v holds {len(v)} Tensors but {what} has {len(refs)}; expected one "
                                        "per Tensor.")
    for i, (e, ref) in enumerate(zip(v, refs)):
        if e.shape != ref.shape:
            raise precondition_not_met(api, f"v[{i}] has shape {e.shape}, expected {what}'s shape {ref.shape}.")
