"""EarlyReturnTransformer: `if c: return a` followed by more code -> the code moves into the else.

    if x > 0:               if x > 0:
        return x * 2   ->       return x * 2
    y = x - 1               else:
    return y                    y = x - 1
                                return y

Both branches then end in a return, so the return transformer needs no "already returned" flag
for them and a tensor condition can become one `cond` op.
"""
from __future__ import annotations

import ast

__all__ = ["EarlyReturnTransformer"]


def ends_with_return(stmts: list[ast.stmt]) -> bool:
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, ast.Return):
        return True
    return isinstance(last, ast.If) and ends_with_return(last.body) and ends_with_return(last.orelse)


def _fold(stmts: list[ast.stmt]) -> list[ast.stmt]:
    for i, stmt in enumerate(stmts):
        rest = stmts[i + 1:]
        if not isinstance(stmt, ast.If) or not rest:
            continue
        if ends_with_return(stmt.body) and not ends_with_return(stmt.orelse):
            stmt.orelse = _fold(stmt.orelse + rest)
            return stmts[:i + 1]
        if ends_with_return(stmt.orelse) and not ends_with_return(stmt.body):
            stmt.body = _fold(stmt.body + rest)
            return stmts[:i + 1]
    return stmts


class EarlyReturnTransformer(ast.NodeTransformer):
    def generic_visit(self, node):
        super().generic_visit(node)
        for field in ("body", "orelse"):
            stmts = getattr(node, field, None)
            if isinstance(stmts, list) and stmts and isinstance(stmts[0], ast.stmt):
                setattr(node, field, _fold(stmts))
        return node
