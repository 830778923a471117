"""NoGradTransformer: names assigned in a `with paddle.no_grad():` block stop gradients after it.

    with paddle.no_grad():          with paddle.no_grad():
        y = x * 3          ->           y = x * 3
                                    y = _jst.convert_stop_gradient(y)

While a Program is built, no_grad changes nothing (ops are only recorded); the Program later runs
with autograd on, so without this the gradient would flow through `y` where eagerly it did not.
"""
from __future__ import annotations

import ast

from .utils import located, parse_stmts, stored_names

__all__ = ["NoGradTransformer"]


def _is_no_grad(item: ast.withitem) -> bool:
    expr = item.context_expr
    func = expr.func if isinstance(expr, ast.Call) else expr
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name == "no_grad"


class NoGradTransformer(ast.NodeTransformer):
    def visit_With(self, node: ast.With):
        self.generic_visit(node)
        if not any(_is_no_grad(item) for item in node.items):
            return node
        names = sorted(stored_names(node.body))
        marks = [parse_stmts(f"{n} = _jst.convert_stop_gradient({n})")[0] for n in names]
        return [node] + located(marks, node)
