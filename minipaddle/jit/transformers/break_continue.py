"""BreakContinueTransformer: `break` / `continue` become flags, so a loop can be one `while` op.

    while i < n:                     __break_0 = False
        if x[i] > 0:                 while not __break_0 and i < n:
            break           ->           if x[i] > 0:
        i += 1                               __break_0 = True
                                         if not __break_0:
                                             i += 1

`continue` works the same way with a flag reset at the top of each iteration. The statements a
for-loop rewrite appends to the body (the counter increment, `jst_tail`) always run.
"""
from __future__ import annotations

import ast

from .utils import located, parse_expr, parse_stmts, unique

__all__ = ["BreakContinueTransformer"]


def _own(stmts: list[ast.stmt], kind) -> bool:
    """Whether `stmts` hold a `kind` (Break/Continue) that belongs to the enclosing loop."""
    todo = list(stmts)
    while todo:
        cur = todo.pop()
        if isinstance(cur, kind):
            return True
        if isinstance(cur, (ast.While, ast.For, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        todo.extend(ast.iter_child_nodes(cur))
    return False


class BreakContinueTransformer(ast.NodeTransformer):
    def visit_While(self, node: ast.While):
        self.generic_visit(node)
        if node.orelse:
            return node
        tail = getattr(node, "jst_tail", 0)
        body, kept = (node.body[:-tail], node.body[-tail:]) if tail else (node.body, [])
        has_break, has_continue = _own(body, ast.Break), _own(body, ast.Continue)
        if not (has_break or has_continue):
            return node
        brk = unique("break") if has_break else None
        cont = unique("continue") if has_continue else None
        flags = [f for f in (brk, cont) if f]
        guard = f"not {flags[0]}" if len(flags) == 1 else f"not ({brk} or {cont})"
        new_body = self._rewrite(body, brk, cont, guard)
        if cont:
            new_body = located(parse_stmts(f"{cont} = False"), node) + new_body
        node.body = new_body + kept
        out: list[ast.stmt] = []
        if brk:
            out += located(parse_stmts(f"{brk} = False"), node)
            node.test = located(ast.BoolOp(op=ast.And(), values=[parse_expr(f"not {brk}"), node.test]), node.test)
        return out + [node]

    def _rewrite(self, stmts, brk, cont, guard) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for i, stmt in enumerate(stmts):
            if isinstance(stmt, ast.Break):
                return out + located(parse_stmts(f"{brk} = True"), stmt)
            if isinstance(stmt, ast.Continue):
                return out + located(parse_stmts(f"{cont} = True"), stmt)
            if not (_own([stmt], ast.Break) or _own([stmt], ast.Continue)):
                out.append(stmt)
                continue
            for field in ("body", "orelse", "finalbody"):
                sub = getattr(stmt, field, None)
                if isinstance(sub, list) and sub:
                    setattr(stmt, field, self._rewrite(sub, brk, cont, guard))
            for handler in getattr(stmt, "handlers", []):
                handler.body = self._rewrite(handler.body, brk, cont, guard)
            out.append(stmt)
            rest = stmts[i + 1:]
            if rest:
                wrapper = located(parse_stmts(f"if {guard}:\n    pass")[0], rest[0])
                wrapper.body = self._rewrite(rest, brk, cont, guard)
                out.append(wrapper)
            return out
        return out
