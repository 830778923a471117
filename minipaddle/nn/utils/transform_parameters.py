"""parameters_to_vector / vector_to_parameters: all parameters as one flat vector, and back."""
from __future__ import annotations

import numpy as np

from ...framework import gpu
from ...framework.errors import invalid_argument
from ...framework.ops.common import follow_place
from ...framework.tensor import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _tensors(api: str, parameters) -> list:
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    parameters = list(parameters)
    if not parameters:
        raise invalid_argument(api, "parameters is empty, expected a list of Tensors.")
    for i, p in enumerate(parameters):
        if not isinstance(p, Tensor):
            raise invalid_argument(api, f"parameters[{i}] is a {type(p).__name__}, expected a Tensor.")
    return parameters



def parameters_to_vector(parameters, name: str | None = None) -> Tensor:
    """The parameters flattened and concatenated, as a new 1-D Tensor (a copy, stop_gradient=False).

    >>> parameters_to_vector(paddle.nn.Linear(10, 15).parameters()).shape       # doctest: +SKIP
    [165]
    """
    parameters = _tensors("parameters_to_vector", parameters)
    dtype = parameters[0]._data.dtype
    out = Tensor._wrap(np.concatenate([gpu.to_host(p._data).reshape(-1).astype(dtype, copy=False) for p in parameters]))
    out = follow_place(out, parameters[0])  # made where the parameters live
    out.stop_gradient = False
    return out


def vector_to_parameters(vec: Tensor, parameters, name: str | None = None) -> None:
    """Copy consecutive slices of the 1-D `vec` into the parameters, in order (vec may be longer)."""
    api = "vector_to_parameters"
    if not isinstance(vec, Tensor) or len(vec.shape) != 1:
        got = f"shape {list(vec.shape)}" if isinstance(vec, Tensor) else type(vec).__name__
        raise invalid_argument(api, f"vec must be a 1-D Tensor, got {got}.")
    parameters = _tensors(api, parameters)
    total = sum(p._data.size for p in parameters)
    if total > vec.shape[0]:
        raise invalid_argument(api, f"vec has {vec.shape[0]} elements but the parameters need {total}.")
    data, start = vec._data, 0
    for p in parameters:
        n = p._data.size
        values = data[start:start + n].reshape(tuple(p._data.shape))
        if type(p._data) is np.ndarray:
            p._data[...] = gpu.to_host(values)
        else:
            p._data.copy_to_device(values)   # a host or device slice: numba copies either way
        p._bump_version()
        start += n
