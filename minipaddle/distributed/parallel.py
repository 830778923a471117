"""paddle.DataParallel in one process: the model itself, under Paddle's wrapper names.

With several processes Paddle's DataParallel all-reduces gradients after backward; with one there is
nothing to reduce, so the wrapper only forwards calls. Parameters are named `_layers.weight` (the
wrapped layer is the sublayer `_layers`, as in Paddle) while `state_dict()` uses the wrapped model's
own names, so a checkpoint saved from either loads into the other.
"""
from __future__ import annotations

from ..framework.errors import invalid_argument
from ..nn.layer.layers import Layer

__all__ = ["DataParallel"]


class DataParallel(Layer):
    """`paddle.DataParallel(model)`: run `model` data-parallel (here: in this one process)."""

    def __init__(self, layers: Layer, strategy=None, comm_buffer_size: int = 25, last_comm_buffer_size: int = 1,
                 find_unused_parameters: bool = False, group=None) -> None:
        super().__init__()
        if not isinstance(layers, Layer):
            raise invalid_argument("DataParallel", f"layers must be a paddle.nn.Layer, got {type(layers).__name__}.")
        self._layers = layers

    def forward(self, *inputs, **kwargs):
        return self._layers(*inputs, **kwargs)

    def state_dict(self, *args, **kwargs):
        return self._layers.state_dict(*args, **kwargs)

    def set_state_dict(self, state_dict: dict, use_structured_name: bool = True):
        return self._layers.set_state_dict(state_dict, use_structured_name)

    set_dict = set_state_dict
    load_dict = set_state_dict
