"""paddle.tensor.search: finding positions -- arg max/min, sorting, top-k, where, nonzero."""
from __future__ import annotations

from ..framework.ops.counting import bucketize, searchsorted
from ..framework.ops.elementwise import where
from ..framework.ops.indexing import masked_select, nonzero
from ..framework.ops.reduction import argmax, argmin
from ..framework.ops.sorting import argsort, sort, topk

__all__ = ["argmax", "argmin", "argsort", "bucketize", "masked_select", "nonzero", "searchsorted", "sort", "topk",
           "where"]
