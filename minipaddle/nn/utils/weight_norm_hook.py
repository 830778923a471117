"""weight_norm: write a layer's weight as w = g * v / ||v|| (Salimans & Kingma 2016), learning g and v.

`weight_norm(layer, name="weight", dim=0)` removes the parameter `weight` and adds `weight_v` (same
shape, the direction) and `weight_g` (one scale per slice along `dim`, or a single scale for
dim=None/-1). A forward pre-hook recomputes `layer.weight` from them before every forward, so
gradients flow into g and v. `remove_weight_norm` folds them back into one parameter.

    ||v|| along dim 0 of a [4, 3] v:  sqrt(sum over every axis but 0 of v ** 2), shape [4]
"""
from __future__ import annotations

from ...framework.errors import invalid_argument, precondition_not_met
from ...framework.tensor import Tensor

__all__ = ["weight_norm", "remove_weight_norm", "WeightNorm"]


def norm_except_dim(p: Tensor, dim: int) -> Tensor:
    """The L2 norm of `p` over every axis but `dim` (shape [p.shape[dim]]); over all axes (0-D) when dim=-1."""
    from ... import sqrt
    axes = [a for a in range(len(p.shape)) if a != dim] if dim != -1 else None
    return sqrt((p * p).sum(axis=axes))


def _weight_norm(v: Tensor, g: Tensor, dim: int) -> Tensor:
    """g * v / ||v||, with g broadcast along `dim`."""
    from ... import maximum, to_tensor
    shape = list(v.shape)
    if dim == -1:
        return v / (norm_except_dim(v, -1) + 1e-12) * g
    keep = [1] * len(shape)
    keep[dim] = shape[dim]
    norm = norm_except_dim(v, dim).reshape(keep)
    direction = v / maximum(norm, to_tensor(1e-12, dtype=v.dtype))   # F.normalize's epsilon, as Paddle
    return direction * g.reshape(keep)


class WeightNorm:
    """The forward pre-hook: before each forward, `layer.<name>` = g * v / ||v||."""

    def __init__(self, name: str, dim: int) -> None:
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, layer) -> Tensor:
        return _weight_norm(getattr(layer, self.name + "_v"), getattr(layer, self.name + "_g"), self.dim)

    @staticmethod
    def apply(layer, name: str, dim: int | None) -> "WeightNorm":
        from ... import no_grad
        for hook in layer._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise precondition_not_met("weight_norm", f"the parameter '{name}' already has a weight_norm hook.")
        if layer._parameters.get(name) is None:
            have = sorted(k for k, p in layer._parameters.items() if p is not None)
            raise invalid_argument("weight_norm", f"{type(layer).__name__} has no parameter named '{name}' "
                                                  f"(it has {have}).")
        w = layer._parameters[name]
        rank = len(w.shape)
        dim = -1 if dim is None else dim
        if not isinstance(dim, int) or not -rank <= dim < rank:
            raise invalid_argument("weight_norm", f"dim got {dim!r}, expected an int in [-{rank}, {rank}) for the "
                                                  f"{rank}-D parameter '{name}' (or None: one norm for all of it).")
        if dim != -1:
            dim = (dim + rank) % rank
        fn = WeightNorm(name, dim)
        del layer._parameters[name]
        with no_grad():
            g_value = norm_except_dim(w, dim)
        v = layer.create_parameter(list(w.shape), dtype=w.dtype)
        layer.add_parameter(name + "_v", v)
        g = layer.create_parameter(list(g_value.shape), dtype=w.dtype)
        layer.add_parameter(name + "_g", g)
        v.set_value(w.numpy())
        g.set_value(g_value.numpy())
        with no_grad():
            object.__setattr__(layer, name, fn.compute_weight(layer))
        layer.register_forward_pre_hook(fn)
        return fn

    def remove(self, layer) -> None:
        from ... import no_grad
        with no_grad():
            w_value = self.compute_weight(layer)
        layer.__dict__.pop(self.name, None)
        del layer._parameters[self.name + "_g"]
        del layer._parameters[self.name + "_v"]
        w = layer.create_parameter(list(w_value.shape), dtype=w_value.dtype)
        layer.add_parameter(self.name, w)
        w.set_value(w_value.numpy())

    def __call__(self, layer, inputs) -> None:
        object.__setattr__(layer, self.name, self.compute_weight(layer))


def weight_norm(layer, name: str = "weight", dim: int | None = 0):
    """Reparametrize `layer.<name>` as g * v / ||v|| (norm over every axis but `dim`); returns the layer.

    >>> fc = weight_norm(paddle.nn.Linear(3, 4))      # parameters: bias, weight_v [3, 4], weight_g [3]
    """
    WeightNorm.apply(layer, name, dim)
    return layer


def remove_weight_norm(layer, name: str = "weight"):
    """Undo weight_norm: one parameter `name` again, holding g * v / ||v||."""
    for key, hook in list(layer._forward_pre_hooks.items()):
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(layer)
            del layer._forward_pre_hooks[key]
            return layer
    raise invalid_argument("remove_weight_norm", f"weight_norm of '{name}' not found in {type(layer).__name__}.")
