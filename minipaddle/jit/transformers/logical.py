"""LogicalTransformer: `a and b`, `a or b`, `not a` and chained comparisons become runtime calls.

`a and b` -> `_jst.convert_logical_and(lambda: a, lambda: b)`: on Python values it is Python's
`and` (b is not evaluated when a decides, so short-circuit is kept); on tensors it is
`paddle.logical_and`. `a < b < c` becomes `(a < b) and (b < c)` first.
"""
from __future__ import annotations

import ast

from .utils import jst_call, located

__all__ = ["LogicalTransformer"]


def _thunk(expr: ast.expr) -> ast.Lambda:
    args = ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                         defaults=[])
    return ast.Lambda(args=args, body=expr)


class LogicalTransformer(ast.NodeTransformer):
    def visit_BoolOp(self, node: ast.BoolOp):
        self.generic_visit(node)
        func = "convert_logical_and" if isinstance(node.op, ast.And) else "convert_logical_or"
        result = node.values[0]
        for value in node.values[1:]:
            result = jst_call(func, [_thunk(result), _thunk(value)])
        return located(result, node)

    def visit_UnaryOp(self, node: ast.UnaryOp):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return located(jst_call("convert_logical_not", [node.operand]), node)
        return node

    def visit_Compare(self, node: ast.Compare):
        self.generic_visit(node)
        middles = node.comparators[:-1]
        if len(node.ops) == 1 or not all(isinstance(m, (ast.Name, ast.Constant)) for m in middles):
            return node
        lefts = [node.left] + middles
        parts = [ast.Compare(left=left, ops=[op], comparators=[right])
                 for left, op, right in zip(lefts, node.ops, node.comparators)]
        return self.visit_BoolOp(located(ast.BoolOp(op=ast.And(), values=parts), node))
