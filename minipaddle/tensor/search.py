"""paddle.tensor.search: finding positions -- arg max/min, sorting, top-k, where, nonzero."""
from __future__ import annotations

from ..framework.ops.elementwise import where
from ..framework.ops.indexing import masked_select, nonzero
from ..framework.ops.reduction import argmax, argmin
from ..framework.ops.sorting import argsort, sort, topk

__all__ = ["argmax", "argmin", "argsort", "masked_select", "nonzero", "sort", "topk", "where"]
