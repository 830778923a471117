"""paddle.tensor.manipulation: reshaping, joining, splitting, gathering and casting tensors."""
from __future__ import annotations

from ..framework.ops.building import repeat_interleave
from ..framework.ops.counting import unique
from ..framework.ops.elementwise import cast
from ..framework.ops.indexing import gather, gather_nd, index_select, masked_fill, scatter
from ..framework.ops.manipulation import (broadcast_to, chunk, concat, expand, expand_as, flatten, flip, reshape,
                                          reshape_, roll, slice, split, squeeze, stack, strided_slice, tile,
                                          unsqueeze)
from ..framework.ops.sorting import put_along_axis, take_along_axis

__all__ = ["broadcast_to", "cast", "chunk", "concat", "expand", "expand_as", "flatten", "flip", "gather", "gather_nd",
           "index_select", "masked_fill", "put_along_axis", "repeat_interleave", "reshape", "reshape_", "roll",
           "scatter", "slice", "split", "squeeze", "stack", "strided_slice", "take_along_axis", "tile", "unique",
           "unsqueeze"]
