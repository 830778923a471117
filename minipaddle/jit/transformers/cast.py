"""CastTransformer: `int(x)` / `float(x)` / `bool(x)` -> `_jst.convert_var_dtype(x, "int")`: a cast op on
a Variable, Python's conversion on anything else."""
from __future__ import annotations

import ast

from .utils import jst_call, located

__all__ = ["CastTransformer"]

class CastTransformer(ast.NodeTransformer):
    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id in ("int", "float", "bool") \
                and len(node.args) == 1 and not node.keywords:
            return located(jst_call("convert_var_dtype", [node.args[0], ast.Constant(value=node.func.id)]), node)
        return node
