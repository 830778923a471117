"""PrintTransformer: `print(...)` -> `_jst.convert_print(...)`."""
from __future__ import annotations

import ast

from .utils import jst_call, located

__all__ = ["PrintTransformer"]

class PrintTransformer(ast.NodeTransformer):
    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "print":
            return located(jst_call("convert_print", node.args, node.keywords), node)
        return node
