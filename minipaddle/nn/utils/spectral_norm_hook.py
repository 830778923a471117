"""spectral_norm: divide a layer's weight by its largest singular value (Miyato et al. 2018).

`spectral_norm(layer)` renames the parameter `weight` to `weight_orig` and keeps two buffers, `weight_u`
and `weight_v`: estimates of the top left/right singular vectors of the weight seen as a matrix
(dim `dim` first, the rest flattened). Before each forward in training mode, `n_power_iterations` steps
of power iteration refine them (without gradient); then

    sigma = u . (W v)          layer.weight = weight_orig / sigma

and gradients flow through sigma into weight_orig. In eval mode u and v stay as they are.
"""
from __future__ import annotations

import numpy as np

from ...framework.errors import invalid_argument, precondition_not_met
from ...framework.tensor import Tensor

__all__ = ["spectral_norm", "SpectralNorm"]


def _normalize(x: np.ndarray, eps: float) -> np.ndarray:
    return x / max(float(np.sqrt(np.sum(x * x))), eps)


class SpectralNorm:
    """The forward pre-hook that sets `layer.<name>` to weight_orig / sigma."""

    def __init__(self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12) -> None:
        if isinstance(n_power_iterations, bool) or not isinstance(n_power_iterations, int) or n_power_iterations <= 0:
            raise invalid_argument("spectral_norm", f"n_power_iterations must be a positive int, got "
                                                    f"{n_power_iterations!r}.")
        self.name, self.dim, self.n_power_iterations, self.eps = name, dim, n_power_iterations, eps

    def reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        """The weight as a [shape[dim], -1] matrix."""
        if self.dim != 0:
            weight = weight.transpose([self.dim] + [d for d in range(len(weight.shape)) if d != self.dim])
        return weight.reshape([weight.shape[0], -1])

    def _power_iteration(self, matrix: np.ndarray, u: Tensor, v: Tensor) -> None:
        """Refine u and v in place: v = normalize(W^T u), u = normalize(W v), n_power_iterations times."""
        uu, vv = u._data, v._data
        for _ in range(self.n_power_iterations):
            vv[...] = _normalize(matrix.T @ uu, self.eps)
            uu[...] = _normalize(matrix @ vv, self.eps)
        u._bump_version()
        v._bump_version()

    def compute_weight(self, layer, do_power_iteration: bool) -> Tensor:
        from ... import dot, mv
        weight = getattr(layer, self.name + "_orig")
        u, v = getattr(layer, self.name + "_u"), getattr(layer, self.name + "_v")
        matrix = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            self._power_iteration(matrix.numpy(), u, v)
            u, v = u.clone(), v.clone()   # what sigma saved for backward must not change at the next iteration
        sigma = dot(u, mv(matrix, v))
        return weight / sigma

    def __call__(self, layer, inputs) -> None:
        object.__setattr__(layer, self.name, self.compute_weight(layer, do_power_iteration=layer.training))

    @staticmethod
    def apply(layer, name: str, n_power_iterations: int, dim: int, eps: float) -> "SpectralNorm":
        from ... import no_grad, normal
        for hook in layer._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise precondition_not_met("spectral_norm", f"the parameter '{name}' already has a spectral_norm "
                                                            "hook.")
        weight = layer._parameters.get(name)
        if weight is None:
            raise invalid_argument("spectral_norm", f"{type(layer).__name__} has no parameter named '{name}'.")
        rank = len(weight.shape)
        if isinstance(dim, bool) or not isinstance(dim, int) or not -rank <= dim < rank:
            raise invalid_argument("spectral_norm", f"dim got {dim!r}, expected an int in [-{rank}, {rank}).")
        fn = SpectralNorm(name, n_power_iterations, dim % rank, eps)
        h, w = fn.reshape_weight_to_matrix(weight).shape
        with no_grad():
            u = Tensor._wrap(_normalize(normal(0.0, 1.0, shape=[h]).numpy().astype(weight.numpy().dtype), eps))
            v = Tensor._wrap(_normalize(normal(0.0, 1.0, shape=[w]).numpy().astype(weight.numpy().dtype), eps))
        del layer._parameters[name]
        layer.add_parameter(name + "_orig", weight)
        with no_grad():
            object.__setattr__(layer, name, weight * 1.0)
        layer.register_buffer(name + "_u", u)
        layer.register_buffer(name + "_v", v)
        layer.register_forward_pre_hook(fn)
        return fn


def spectral_norm(layer, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim: int | None = None):
    """Normalize `layer.<name>` by its spectral norm before every forward; returns the layer.

    `dim` (the output-channel axis) defaults to 1 for Linear and transposed convolutions (their weights
    are [in, out, ...]) and to 0 otherwise.
    """
    from ... import nn
    if dim is None:
        transposed = tuple(getattr(nn, n) for n in ("Conv1DTranspose", "Conv2DTranspose", "Conv3DTranspose",
                                                    "Linear") if hasattr(nn, n))
        dim = 1 if isinstance(layer, transposed) else 0
    SpectralNorm.apply(layer, name, n_power_iterations, dim, eps)
    return layer
