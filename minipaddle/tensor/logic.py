"""paddle.tensor.logic: comparisons, logical and bitwise ops."""
from __future__ import annotations

from ..framework.ops.compare import (all, allclose, any, bitwise_and, bitwise_not, bitwise_or, bitwise_xor,  # noqa: A004
                                     equal, equal_all, greater_equal, greater_than, isclose, less_equal, less_than,
                                     logical_and, logical_not, logical_or, logical_xor, not_equal)

__all__ = ["all", "allclose", "any", "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "equal",
           "equal_all", "greater_equal", "greater_than", "isclose", "less_equal", "less_than", "logical_and",
           "logical_not", "logical_or", "logical_xor", "not_equal"]
