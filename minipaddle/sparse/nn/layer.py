"""paddle.sparse.nn layers: each remembers its settings and calls paddle.sparse.nn.functional."""
from __future__ import annotations

from ...nn.layer.layers import Layer
from . import functional as F

__all__ = ["ReLU", "ReLU6", "LeakyReLU", "Softmax"]


class ReLU(Layer):
    """max(x, 0) on a sparse tensor's stored values."""

    def forward(self, x):
        return F.relu(x)


class ReLU6(Layer):
    def forward(self, x):
        return F.relu6(x)


class LeakyReLU(Layer):
    def __init__(self, negative_slope: float = 0.01, name=None) -> None:
        super().__init__()
        self._negative_slope = negative_slope

    def forward(self, x):
        return F.leaky_relu(x, self._negative_slope)

    def extra_repr(self) -> str:
        return f"negative_slope={self._negative_slope}"


class Softmax(Layer):
    """Softmax over each row's stored entries (axis=-1)."""

    def __init__(self, axis: int = -1, name=None) -> None:
        super().__init__()
        self._axis = axis

    def forward(self, x):
        return F.softmax(x, self._axis)
