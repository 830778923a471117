"""Helpers the transformers share: name analysis (which names a statement reads and writes,
which reads are "exposed" before any write), unique generated names, small AST builders."""
from __future__ import annotations

import ast
import itertools

_counter = itertools.count()

JST = "_jst"  # the name generated code uses for minipaddle.jit.convert_operators


def unique(prefix: str) -> str:
    """A fresh generated name, e.g. `__true_fn_3`."""
    return f"__{prefix}_{next(_counter)}"


def parse_stmts(source: str) -> list[ast.stmt]:
    return ast.parse(source).body


def parse_expr(source: str) -> ast.expr:
    return ast.parse(source, mode="eval").body


def jst_call(func: str, args: list[ast.expr], keywords: list[ast.keyword] | None = None) -> ast.Call:
    """`_jst.<func>(*args)` as an AST node."""
    target = ast.Attribute(value=ast.Name(id=JST, ctx=ast.Load()), attr=func, ctx=ast.Load())
    return ast.Call(func=target, args=args, keywords=keywords or [])


def name_tuple(names: list[str], ctx) -> ast.expr:
    return ast.Tuple(elts=[ast.Name(id=n, ctx=ctx()) for n in names], ctx=ctx())


def located(new, old: ast.AST):
    """Give `new` (a node or a list of nodes, and every child without a place) `old`'s source place."""
    for node in (new if isinstance(new, list) else [new]):
        for sub in ast.walk(node):
            if "lineno" in sub._attributes and getattr(sub, "lineno", None) is None:
                ast.copy_location(sub, old)
    return new


# ---- reads and writes -----------------------------------------------------------------------
def stored_names(nodes) -> set[str]:
    """Every plain name bound anywhere in `nodes` (assignment targets, for targets, augmented
    assignment, nested def names); nested function bodies are not entered."""
    out: set[str] = set()
    for node in _as_list(nodes):
        for sub in _walk_no_defs(node):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                out.add(sub.id)
            elif isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out.add(sub.name)  # a def binds its name (its body is not entered)
    return out


def loaded_names(nodes) -> set[str]:
    """Every plain name read anywhere in `nodes`, nested function bodies included."""
    out: set[str] = set()
    for node in _as_list(nodes):
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
                out.add(sub.id)
            elif isinstance(sub, ast.AugAssign) and isinstance(sub.target, ast.Name):
                out.add(sub.target.id)
    return out


def _as_list(nodes) -> list:
    return nodes if isinstance(nodes, list) else [nodes]


def _walk_no_defs(node):
    """ast.walk that does not enter nested function/class bodies or lambdas/comprehensions."""
    todo = [node]
    while todo:
        cur = todo.pop()
        yield cur
        if cur is not node and isinstance(cur, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda,
                                                ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            continue
        todo.extend(ast.iter_child_nodes(cur))


def exposed_reads(stmts: list[ast.stmt]) -> tuple[set[str], set[str]]:
    """(names read before any write on some path through `stmts`, names written on every path)."""
    defined: set[str] = set()
    exposed: set[str] = set()
    for stmt in stmts:
        reads, defs = _stmt_flow(stmt)
        exposed |= reads - defined
        defined |= defs
    return exposed, defined


def _stmt_flow(stmt: ast.stmt) -> tuple[set[str], set[str]]:
    if isinstance(stmt, ast.If):
        r1, d1 = exposed_reads(stmt.body)
        r2, d2 = exposed_reads(stmt.orelse)
        return loaded_names(stmt.test) | r1 | r2, d1 & d2
    if isinstance(stmt, ast.While):
        r1, _ = exposed_reads(stmt.body)
        r2, _ = exposed_reads(stmt.orelse)
        return loaded_names(stmt.test) | r1 | r2, set()
    if isinstance(stmt, ast.For):
        r1, _ = exposed_reads(stmt.body)
        return loaded_names(stmt.iter) | (r1 - stored_names(stmt.target)), set()
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
        inner = loaded_names(stmt.body) - {a.arg for a in stmt.args.args}
        return inner | loaded_names(stmt.args.defaults), {stmt.name}
    if isinstance(stmt, ast.AugAssign):
        return loaded_names(stmt) | stored_names(stmt.target), stored_names(stmt.target)
    if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
        return loaded_names(stmt), stored_names(stmt)
    return loaded_names(stmt), stored_names(stmt)


def names_bound_before(func: ast.FunctionDef, target: ast.AST) -> set[str]:
    """Names bound (arguments, assignments) in `func` textually before `target`."""
    args = func.args
    bound = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    bound |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    found = [False]

    def visit(node):
        if found[0]:
            return
        if node is target:
            found[0] = True
            return
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node is not func:
            bound.add(node.name)
            return
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):  # value before target
            if node.value is not None:
                visit(node.value)
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                visit(t)
            return
        for child in ast.iter_child_nodes(node):
            visit(child)

    for stmt in func.body:
        visit(stmt)
    return bound


def contains(nodes, kinds, stop_at_loops: bool = False, stop_at_defs: bool = True) -> bool:
    """Whether a node of `kinds` occurs in `nodes` (not looking into nested defs / loops if asked)."""
    todo = list(_as_list(nodes))
    while todo:
        cur = todo.pop()
        if isinstance(cur, kinds):
            return True
        if stop_at_defs and isinstance(cur, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if stop_at_loops and isinstance(cur, (ast.While, ast.For)):
            continue
        todo.extend(ast.iter_child_nodes(cur))
    return False


def loads_outside(func: ast.FunctionDef, node: ast.AST) -> set[str]:
    """Names read in `func` anywhere but inside `node` (a conservative "live after `node`")."""
    out: set[str] = set()
    todo = list(func.body)
    while todo:
        cur = todo.pop()
        if cur is node:
            continue
        if isinstance(cur, ast.Name) and isinstance(cur.ctx, ast.Load):
            out.add(cur.id)
        elif isinstance(cur, ast.AugAssign) and isinstance(cur.target, ast.Name):
            out.add(cur.target.id)
        todo.extend(ast.iter_child_nodes(cur))
    return out


def make_function(name: str, params: list[str], body: list[ast.stmt], returns: list[str] | None,
                  where: ast.AST) -> ast.FunctionDef:
    """`def name(*params): body; return (returns...)` placed at `where`'s line."""
    args = ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p in params], vararg=None, kwonlyargs=[],
                         kw_defaults=[], kwarg=None, defaults=[])
    body = list(body) or ([] if returns is not None else [ast.Pass()])
    if returns is not None:
        body.append(ast.Return(value=name_tuple(returns, ast.Load)))
    func = ast.FunctionDef(name=name, args=args, body=body, decorator_list=[], returns=None, type_params=[])
    return located(func, where)


class FunctionScoped(ast.NodeTransformer):
    """A transformer that knows the innermost function it is in (`self.func`)."""

    def __init__(self) -> None:
        self.stack: list[ast.FunctionDef] = []

    @property
    def func(self) -> ast.FunctionDef:
        return self.stack[-1]

    def visit_FunctionDef(self, node: ast.FunctionDef):
        self.stack.append(node)
        try:
            self.generic_visit(node)
        finally:
            self.stack.pop()
        return node


_PADDLE_ROOTS = {"paddle", "minipaddle", "F", "nn", "static"}


def graph_unsafe(stmts: list[ast.stmt]) -> list[tuple[str, int]]:
    """Constructs that cannot live in a branch/body built as a sub-block (both branches are built):
    `try`, `raise` (building both branches would raise while building, and an enclosing `except` would
    then silently pick its own path), and `with` over a context that is not paddle's own (no_grad & co.
    are fine). Each comes with its line, counted from the converted function's first line (1)."""
    found: dict[str, int] = {}
    todo = list(stmts)
    while todo:
        cur = todo.pop()
        if isinstance(cur, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(cur, ast.Try):
            found.setdefault("try", cur.lineno)
        if isinstance(cur, ast.Raise):
            found.setdefault("raise", cur.lineno)
        if isinstance(cur, ast.With):
            roots = [_root_name(item.context_expr) for item in cur.items]
            if not all(r in _PADDLE_ROOTS for r in roots):
                found.setdefault("with", cur.lineno)
        todo.extend(ast.iter_child_nodes(cur))
    return sorted(found.items(), key=lambda item: item[1])


def _root_name(expr: ast.expr) -> str | None:
    while isinstance(expr, (ast.Call, ast.Attribute)):
        expr = expr.func if isinstance(expr, ast.Call) else expr.value
    return expr.id if isinstance(expr, ast.Name) else None


def unsafe_keyword(stmts: list[ast.stmt]) -> list[ast.keyword]:
    found = graph_unsafe(stmts)
    if not found:
        return []
    return [ast.keyword(arg="unsupported", value=ast.Tuple(
        elts=[ast.Tuple(elts=[ast.Constant(value=what), ast.Constant(value=line)], ctx=ast.Load())
              for what, line in found], ctx=ast.Load()))]
