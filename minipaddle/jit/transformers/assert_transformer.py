"""AssertTransformer: `assert test, msg` -> `_jst.convert_assert(test, msg)` (checked now for Python
values; a Variable cannot be checked while the program is built)."""
from __future__ import annotations

import ast

from .utils import jst_call, located

__all__ = ["AssertTransformer"]

class AssertTransformer(ast.NodeTransformer):
    def visit_Assert(self, node: ast.Assert):
        self.generic_visit(node)
        args = [node.test] + ([node.msg] if node.msg is not None else [])
        return located(ast.Expr(value=jst_call("convert_assert", args)), node)
