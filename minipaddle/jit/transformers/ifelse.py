"""IfElseTransformer: `if/elif/else` becomes `convert_ifelse` with a function per branch.

    if x.mean() > 0:                 def __true_fn_2(y):
        y = x * 2                        y = x * 2
    else:                    ->          return (y,)
        y = -x                       def __false_fn_3(y):
                                         y = -x
                                         return (y,)
                                     (y,) = _jst.convert_ifelse(x.mean() > 0, __true_fn_2, __false_fn_3, (y,))

The names passed in and out are those a branch assigns that are read later (or read inside a
branch before being assigned); names first bound inside get an `UndefinedVar` placeholder
before the `if` (create_variable). `elif` is an `if` inside the else branch, so it nests.
A branch holding `return`/`break`/`continue` that the earlier passes could not turn into flags
stays a Python `if`. A conditional expression `a if c else b` becomes
`_jst.convert_ifelse(c, lambda: a, lambda: b)`.
"""
from __future__ import annotations

import ast

from .create_variable import undefined_inits
from .utils import (FunctionScoped, contains, exposed_reads, jst_call, located, loads_outside, make_function,
                    name_tuple, stored_names, unique, unsafe_keyword)

__all__ = ["IfElseTransformer"]


class IfElseTransformer(FunctionScoped):
    def visit_If(self, node: ast.If):
        if not self.stack or contains(node, (ast.Return, ast.Yield, ast.YieldFrom, ast.Global, ast.Nonlocal)) \
                or contains(node, (ast.Break, ast.Continue), stop_at_loops=True):
            self.generic_visit(node)
            return node
        assigned = stored_names(node.body) | stored_names(node.orelse)
        read_first = exposed_reads(node.body)[0] | exposed_reads(node.orelse)[0]
        live = loads_outside(self.func, node) | read_first
        names = sorted(n for n in assigned if n in live)
        true_fn, false_fn = unique("true_fn"), unique("false_fn")
        true_def = make_function(true_fn, names, node.body, names, node)
        false_def = make_function(false_fn, names, node.orelse, names, node.orelse[0] if node.orelse else node)
        call = jst_call("convert_ifelse", [node.test, ast.Name(id=true_fn, ctx=ast.Load()),
                                           ast.Name(id=false_fn, ctx=ast.Load()), name_tuple(names, ast.Load),
                                           ast.Tuple(elts=[ast.Constant(value=n) for n in names], ctx=ast.Load())],
                        unsafe_keyword(node.body + node.orelse))
        stmt = ast.Assign(targets=[name_tuple(names, ast.Store)], value=call) if names else ast.Expr(value=call)
        inits = undefined_inits(self.func, node, names)
        self.visit_FunctionDef(true_def)
        self.visit_FunctionDef(false_def)
        return inits + [true_def, false_def, located(stmt, node)]

    def visit_IfExp(self, node: ast.IfExp):
        self.generic_visit(node)
        return located(jst_call("convert_ifelse", [node.test, _thunk(node.body), _thunk(node.orelse)]), node)


def _thunk(expr: ast.expr) -> ast.Lambda:
    args = ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                         defaults=[])
    return ast.Lambda(args=args, body=expr)
