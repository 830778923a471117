"""create_variable: names first bound inside control flow get a placeholder before it.

    if x.mean() > 0:             y = _jst.UndefinedVar('y')
        y = x * 2        ->      def __true_fn_0(y): ...
    ...                          (y,) = _jst.convert_ifelse(..., (y,), ('y',))

The branch and loop functions take the names they change as parameters, so each such name needs a
value before the `if` / `while` even when Python would bind it only inside. The loop and if/else
transformers call `undefined_inits` for the names they pass; using an UndefinedVar raises an error
naming the variable.
"""
from __future__ import annotations

import ast

from .utils import JST, located, names_bound_before, parse_stmts

__all__ = ["undefined_inits"]


def undefined_inits(func: ast.FunctionDef, node: ast.AST, names: list[str]) -> list[ast.stmt]:
    """`name = _jst.UndefinedVar('name')` for each of `names` not bound before `node` (create_variable)."""
    bound = names_bound_before(func, node)
    return located([parse_stmts(f"{n} = {JST}.UndefinedVar({n!r})")[0] for n in names if n not in bound], node)
