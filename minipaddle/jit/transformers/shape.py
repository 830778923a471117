"""TensorShapeTransformer: `x.shape` -> `_jst.convert_shape(x)`."""
from __future__ import annotations

import ast

from .utils import jst_call, located

__all__ = ["TensorShapeTransformer"]

class TensorShapeTransformer(ast.NodeTransformer):
    def visit_Attribute(self, node: ast.Attribute):
        self.generic_visit(node)
        if node.attr == "shape" and isinstance(node.ctx, ast.Load):
            return located(jst_call("convert_shape", [node.value]), node)
        return node
