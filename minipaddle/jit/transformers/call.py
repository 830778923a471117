"""CallTransformer: `f(x)` -> `_jst.convert_call(f)(x)`, so user functions and layers called from
converted code are converted too; `len(x)` -> `_jst.convert_len(x)`. Calls of a few builtins
(range, isinstance, super, ...) are left as they are."""
from __future__ import annotations

import ast

from .utils import JST, jst_call, located

__all__ = ["CallTransformer"]

_LEAVE_ALONE = {"range", "enumerate", "zip", "isinstance", "issubclass", "super", "type", "getattr", "setattr",
                "hasattr", "list", "tuple", "dict", "set", "str", "repr", "min", "max", "abs", "sorted",
                "reversed", "iter", "next", "map", "filter", "locals", "globals", "vars", "id", "hash",
                "callable", "any", "all", "sum", "round", "divmod", "format", "object", "slice", "open",
                "ValueError", "TypeError", "RuntimeError", "NotImplementedError", "KeyError", "IndexError"}


class CallTransformer(ast.NodeTransformer):
    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == JST:
            return node
        if isinstance(func, ast.Name) and func.id in _LEAVE_ALONE:
            return node
        if isinstance(func, ast.Name) and func.id == "len" and len(node.args) == 1:
            return located(jst_call("convert_len", node.args), node)
        node.func = located(jst_call("convert_call", [func]), func)
        return node
