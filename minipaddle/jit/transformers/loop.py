"""Loops: `for` over range / a sequence becomes a `while`; a `while` becomes `convert_while_loop`.

ForToWhileTransformer (runs first, so break/continue see one loop form):

    for i in range(n):           __it_0, __stop_0, __step_0 = _jst.convert_range(n)
        body             ->      while _jst.convert_range_cond(__it_0, __stop_0, __step_0):
                                     i = __it_0
                                     body
                                     __it_0 = __it_0 + __step_0

`for x in seq` / `for k, x in enumerate(seq)` index `seq` the same way (a tensor by its first dim;
`convert_index` reads row i with a `getitem_dynamic` op when the length is only known at run time).

LoopTransformer: the loop variables are the names the body assigns that are read before being
assigned in an iteration, read by the condition, or read after the loop (liveness); they become
the parameters and results of two functions:

    def __cond_1(i, s):          def __body_1(i, s):
        return i < n                 s = s + x[i]; i = i + 1
                                     return (i, s)
    (i, s) = _jst.convert_while_loop(__cond_1, __body_1, (i, s))

At run time a tensor condition builds a `while` op; a Python one just loops.
"""
from __future__ import annotations

import ast

from .create_variable import undefined_inits
from .utils import (FunctionScoped, exposed_reads, located, loads_outside, make_function, name_tuple, parse_expr,
                    parse_stmts, stored_names, unique, jst_call, unsafe_keyword)

__all__ = ["ForToWhileTransformer", "LoopTransformer"]


def _call_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        return node.func.id
    return None


class ForToWhileTransformer(ast.NodeTransformer):
    def visit_For(self, node: ast.For):
        self.generic_visit(node)
        if node.orelse:
            return node
        kind = _call_name(node.iter)
        it = unique("it")
        if kind == "range" and 1 <= len(node.iter.args) <= 3:
            stop, step = unique("stop"), unique("step")
            head = parse_stmts(f"{it}, {stop}, {step} = {_src(jst_call('convert_range', node.iter.args))}")
            test = parse_expr(f"_jst.convert_range_cond({it}, {stop}, {step})")
            first = ast.Assign(targets=[node.target], value=ast.Name(id=it, ctx=ast.Load()))
            incr = parse_stmts(f"{it} = {it} + {step}")
        elif kind == "enumerate" and len(node.iter.args) in (1, 2) and isinstance(node.target, ast.Tuple) \
                and len(node.target.elts) == 2:
            seq, n = unique("seq"), unique("len")
            start = _src(node.iter.args[1]) if len(node.iter.args) == 2 else "0"
            head = parse_stmts(f"{seq} = _jst.convert_iterable({_src(node.iter.args[0])})\n"
                               f"{n} = _jst.convert_len({seq})\n{it} = 0")
            test = parse_expr(f"{it} < {n}")
            first = ast.Assign(targets=[node.target],
                               value=parse_expr(f"({it} + {start}, _jst.convert_index({seq}, {it}))"))
            incr = parse_stmts(f"{it} = {it} + 1")
        elif kind is None or kind not in ("zip", "reversed", "sorted", "iter", "map", "filter"):
            seq, n = unique("seq"), unique("len")
            head = parse_stmts(f"{seq} = _jst.convert_iterable({_src(node.iter)})\n"
                               f"{n} = _jst.convert_len({seq})\n{it} = 0")
            test = parse_expr(f"{it} < {n}")
            first = ast.Assign(targets=[node.target], value=parse_expr(f"_jst.convert_index({seq}, {it})"))
            incr = parse_stmts(f"{it} = {it} + 1")
        else:
            return node
        loop = ast.While(test=test, body=[first, *node.body, *incr], orelse=[])
        loop.jst_tail = len(incr)
        return located(head + [loop], node)


def _src(node: ast.AST) -> str:
    return ast.unparse(node)


class LoopTransformer(FunctionScoped):
    """Top-down, so the liveness of an inner loop is read on plain Python inside the outer body function."""

    def visit_While(self, node: ast.While):
        if node.orelse or not self.stack:
            self.generic_visit(node)
            return node
        assigned = stored_names(node.body)
        exposed, _ = exposed_reads(node.body)
        live = exposed | _loads(node.test) | loads_outside(self.func, node)
        names = sorted(n for n in assigned if n in live)
        cond_fn, body_fn = unique("cond"), unique("body")
        cond_def = make_function(cond_fn, names, [ast.Return(value=node.test)], None, node)
        body_def = make_function(body_fn, names, node.body, names, node)
        call = jst_call("convert_while_loop", [ast.Name(id=cond_fn, ctx=ast.Load()),
                                               ast.Name(id=body_fn, ctx=ast.Load()), name_tuple(names, ast.Load),
                                               ast.Tuple(elts=[ast.Constant(value=n) for n in names], ctx=ast.Load())],
                            unsafe_keyword(node.body))
        if names:
            stmt = ast.Assign(targets=[name_tuple(names, ast.Store)], value=call)
        else:
            stmt = ast.Expr(value=call)
        inits = undefined_inits(self.func, node, names)
        self.visit_FunctionDef(cond_def)
        self.visit_FunctionDef(body_def)
        return inits + [cond_def, body_def, located(stmt, node)]


def _loads(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
