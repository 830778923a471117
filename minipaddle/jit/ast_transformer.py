"""Turn a Python function into its converted twin: source -> AST -> transformers -> code.

`convert_function(fn)` parses `fn`'s source, runs the transformer pipeline, unparses the result
(that text is `fn.code`), compiles it under a filename like `<to_static:mymodule.forward>`
registered in `linecache` (so tracebacks show the converted lines), and builds a function with
`fn`'s globals and its very closure cells. `ORIGINS` maps each such filename's lines back to the
user's file and line: error messages and the `op.source` of built ops use it.
"""
from __future__ import annotations

import ast
import inspect
import linecache
import textwrap
import types
from dataclasses import dataclass, field

from ..framework.errors import unimplemented
from .transformers import transform
from .transformers.utils import JST

__all__ = ["ConvertedFunction", "convert_function", "ORIGINS", "origin_of", "UnsupportedSyntax"]

DOCS = "docs/dy2static.md (supported syntax)"


class UnsupportedSyntax(Exception):
    """Raised (as an Unimplemented error) for code the converter cannot turn into a Program."""


@dataclass
class ConvertedFunction:
    original: types.FunctionType
    function: types.FunctionType
    code: str
    filename: str
    source_file: str
    line_map: dict = field(default_factory=dict)   # compiled line -> line in source_file
    code_offset: int = 0                           # compiled line = line of `code` + code_offset

    def source_map(self) -> dict[int, int]:
        """{line of `code` (1-based): line in source_file} -- what the debugger links side by side."""
        n = self.code.count("\n") + 1
        out = {}
        for line in range(1, n + 1):
            where = origin_of(self.filename, line + self.code_offset)
            if where is not None:
                out[line] = where[1]
        return out


ORIGINS: dict[str, ConvertedFunction] = {}   # `<to_static:...>` filename -> its conversion


def origin_of(filename: str, lineno: int) -> tuple[str, int] | None:
    """(user file, user line) for a line of converted code, or None if `filename` is not converted code."""
    conv = ORIGINS.get(filename)
    if conv is None:
        return None
    line = conv.line_map.get(lineno)
    if line is None:  # a generated line with no own place: the nearest mapped line above it
        below = [n for n in conv.line_map if n <= lineno]
        line = conv.line_map[max(below)] if below else None
    return None if line is None else (conv.source_file, line)


_UNSUPPORTED = ((ast.Yield, "yield (generators)"), (ast.YieldFrom, "yield from"), (ast.AsyncFunctionDef, "async def"),
                (ast.Await, "await"))


def _unsupported(what: str, source_file: str, line: int):
    return unimplemented("to_static", f"'{what}' is not supported in converted code ({source_file}, line {line}).",
                         hint=f"see the table in {DOCS}; mark the function with @paddle.jit.not_to_static to run "
                              "it as Python.")


def _check_supported(func: ast.FunctionDef, source_file: str, first_line: int) -> None:
    declared: dict[str, ast.AST] = {}
    for node in ast.walk(func):
        for kind, what in _UNSUPPORTED:
            if isinstance(node, kind):
                raise _unsupported(what, source_file, first_line + node.lineno - 1)
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            declared.update((name, node) for name in node.names)
    # a global/nonlocal name rebound inside if/while/for would be rebound in a generated branch function
    for node in ast.walk(func):
        if isinstance(node, (ast.If, ast.While, ast.For)):
            for sub in ast.walk(node):
                if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store) and sub.id in declared:
                    kind = "global" if isinstance(declared[sub.id], ast.Global) else "nonlocal"
                    raise _unsupported(f"{kind} {sub.id} rebound inside if/while/for", source_file,
                                       first_line + sub.lineno - 1)


def _parse(fn: types.FunctionType) -> tuple[ast.FunctionDef, str, int]:
    try:
        source = inspect.getsource(fn)
        source_file = inspect.getsourcefile(fn) or fn.__code__.co_filename
    except (OSError, TypeError) as e:
        raise unimplemented("to_static", f"the source of {fn.__qualname__} is not available ({e}).",
                            hint="to_static converts functions defined in files or notebook cells.") from None
    first_line = fn.__code__.co_firstlineno
    tree = ast.parse(textwrap.dedent(source))
    func = tree.body[0] if tree.body else None
    if not isinstance(func, ast.FunctionDef):
        raise unimplemented("to_static", f"{fn.__qualname__} is not a plain `def` (a lambda or an "
                                         f"{type(func).__name__}).", hint=f"see {DOCS}.")
    return func, source_file, first_line


def convert_function(fn: types.FunctionType) -> ConvertedFunction:
    """Convert `fn` (a plain Python function) and return its twin and the converted source."""
    func, source_file, first_line = _parse(fn)
    _check_supported(func, source_file, first_line)
    name = func.name
    transform(func)
    freevars = list(fn.__code__.co_freevars)
    factory = ast.FunctionDef(
        name="__jst_factory", decorator_list=[], returns=None, type_params=[],
        args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=a) for a in [JST] + freevars], vararg=None,
                           kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
        body=[func, ast.Return(value=ast.Name(id=name, ctx=ast.Load()))])
    module = ast.Module(body=[factory], type_ignores=[])
    ast.copy_location(factory, func)
    ast.fix_missing_locations(module)
    code_text = ast.unparse(module)
    line_map = _line_map(module, ast.parse(code_text), first_line)
    filename = f"<to_static:{fn.__module__}.{fn.__qualname__}>"
    lines = [line + "\n" for line in code_text.splitlines()]
    linecache.cache[filename] = (len(code_text), None, lines, filename)
    module_code = compile(code_text, filename, "exec")
    inner = _inner_code(module_code, name)
    function = types.FunctionType(inner, fn.__globals__, fn.__name__, fn.__defaults__, _closure(inner, fn))
    function.__kwdefaults__ = fn.__kwdefaults__
    function.__qualname__ = fn.__qualname__
    function.__doc__ = fn.__doc__
    function.__module__ = fn.__module__
    code, offset = _user_code(code_text, name)
    conv = ConvertedFunction(fn, function, code, filename, source_file, line_map, offset)
    ORIGINS[filename] = conv
    return conv


def _user_code(code_text: str, name: str) -> tuple[str, int]:
    """The converted `def` alone (without the factory that supplies `_jst` and the closure), and how
    many lines of the compiled text come before it."""
    tree = ast.parse(code_text)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return ast.unparse(node), node.lineno - 1
    return code_text, 0


def _line_map(transformed: ast.Module, reparsed: ast.Module, first_line: int) -> dict[int, int]:
    """Walk the transformed tree (which kept user line numbers) beside its re-parsed text in step:
    each converted line maps to the user line of the first statement (else expression) on it."""
    out: dict[int, int] = {}
    weak: dict[int, int] = {}
    for old, new in zip(ast.walk(transformed), ast.walk(reparsed)):
        if type(old) is not type(new):
            break
        if getattr(new, "lineno", None) is None or getattr(old, "lineno", None) is None:
            continue
        target = out if isinstance(old, ast.stmt) else weak
        target.setdefault(new.lineno, first_line + old.lineno - 1)
    for line, user in weak.items():
        out.setdefault(line, user)
    return out


def _inner_code(module_code: types.CodeType, name: str) -> types.CodeType:
    factory = next(c for c in module_code.co_consts if isinstance(c, types.CodeType) and c.co_name == "__jst_factory")
    return next(c for c in factory.co_consts if isinstance(c, types.CodeType) and c.co_name == name)


def _closure(inner: types.CodeType, fn: types.FunctionType) -> tuple | None:
    from . import convert_operators
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    out = []
    for var in inner.co_freevars:
        if var == JST:
            out.append(types.CellType(convert_operators))
        elif var in cells:
            out.append(cells[var])
        else:
            out.append(types.CellType())
    return tuple(out) or None
