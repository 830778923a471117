"""IndexTransformer: `x[i]` (one plain index) -> `_jst.convert_index(x, i)`.

A loop counter becomes a Variable once its loop is a `while` op, and `x[i]` with a Variable index
then has to be a `gather` of row i; on anything else `convert_index` is plain `x[i]`. Slices,
tuples of indices and stores (`x[i] = v`) are left as they are.
"""
from __future__ import annotations

import ast

from .utils import jst_call, located

__all__ = ["IndexTransformer"]


class IndexTransformer(ast.NodeTransformer):
    def visit_Subscript(self, node: ast.Subscript):
        self.generic_visit(node)
        index = node.slice
        if not isinstance(node.ctx, ast.Load) or isinstance(index, (ast.Slice, ast.Tuple, ast.Constant)):
            return node
        return located(jst_call("convert_index", [node.value, index]), node)
