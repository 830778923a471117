"""paddle.tensor.creation: making tensors from data, shapes and ranges."""
from __future__ import annotations

from ..framework.ops.building import diag, diagflat, meshgrid
from ..framework.creation import (arange, empty, empty_like, eye, full, full_like, linspace, ones, ones_like,
                                  to_tensor, zeros, zeros_like)
from ..framework.ops.elementwise import assign
from ..framework.ops.manipulation import tril, triu

__all__ = ["arange", "assign", "diag", "diagflat", "empty", "empty_like", "eye", "full", "full_like", "linspace",
           "meshgrid", "ones", "ones_like", "to_tensor", "tril", "triu", "zeros", "zeros_like"]
