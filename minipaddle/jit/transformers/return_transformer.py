"""ReturnTransformer: one exit per function, so a return under a tensor condition can be a graph value.

Every `return v` nested in control flow becomes `__return_value = v; __return_flag = True`
(plus `break` inside a loop); the statements after a compound statement that may have returned
run under `if not __return_flag:`, and the function ends with `return __return_value`.
"""
from __future__ import annotations

import ast

from .utils import located, parse_stmts, unique

__all__ = ["ReturnTransformer"]


def _nested_return(stmts: list[ast.stmt]) -> bool:
    """A return somewhere other than as the function's last top-level statement."""
    for i, stmt in enumerate(stmts):
        if isinstance(stmt, ast.Return) and i == len(stmts) - 1:
            continue
        for sub in _walk_stmt(stmt):
            if isinstance(sub, ast.Return):
                return True
    return False


def _walk_stmt(node):
    """The nodes of a statement, not entering function or class definitions (their returns are their own)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
        return
    todo = [node]
    while todo:
        cur = todo.pop()
        yield cur
        for child in ast.iter_child_nodes(cur):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                todo.append(child)


def _has_return(node) -> bool:
    return any(isinstance(sub, ast.Return) for sub in _walk_stmt(node))


class ReturnTransformer(ast.NodeTransformer):
    def __init__(self) -> None:
        self.value = self.flag = ""

    def visit_FunctionDef(self, node: ast.FunctionDef):
        """Nested user functions get their own single exit, innermost first."""
        self.generic_visit(node)
        self.transform_function(node)
        return node

    def transform_function(self, func: ast.FunctionDef) -> None:
        if not _nested_return(func.body):
            return
        self.value, self.flag = unique("return_value"), unique("return_flag")
        head = parse_stmts(f"{self.value} = None\n{self.flag} = False")
        body = self._rewrite(func.body, in_loop=False)
        func.body = located(head, func.body[0]) + body + located(
            [ast.Return(value=ast.Name(id=self.value, ctx=ast.Load()))], func.body[-1])

    def _rewrite(self, stmts: list[ast.stmt], in_loop: bool) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for i, stmt in enumerate(stmts):
            if isinstance(stmt, ast.Return):
                value = stmt.value if stmt.value is not None else ast.Constant(value=None)
                new = [ast.Assign(targets=[ast.Name(id=self.value, ctx=ast.Store())], value=value),
                       *parse_stmts(f"{self.flag} = True")] + ([ast.Break()] if in_loop else [])
                return out + located(new, stmt)
            if not _has_return(stmt):
                out.append(stmt)
                continue
            is_loop = isinstance(stmt, (ast.While, ast.For))
            for field in ("body", "orelse", "finalbody"):
                sub = getattr(stmt, field, None)
                if isinstance(sub, list) and sub:
                    setattr(stmt, field, self._rewrite(sub, in_loop or (is_loop and field == "body")))
            for handler in getattr(stmt, "handlers", []):
                handler.body = self._rewrite(handler.body, in_loop)
            out.append(stmt)
            rest = stmts[i + 1:]
            if in_loop and is_loop:
                out += located(parse_stmts(f"if {self.flag}:\n    break"), stmt)
                out += self._rewrite(rest, in_loop)
            elif rest:
                guard = located(parse_stmts(f"if not {self.flag}:\n    pass")[0], rest[0])
                guard.body = self._rewrite(rest, in_loop)
                out.append(guard)
            return out
        return out
