"""The package's structure, checked on every run instead of trimmed by hand (ARCHITECTURE.md, STYLE.md):

    * the core (minipaddle/framework) imports nothing above it, not even inside a function;
    * no module-level import cycles;
    * no `from x import _private` across packages (a private name is its own package's business);
    * files of at most 500 lines and functions of at most 60, unless listed below with the reason.

Each KNOWN_* list is debt that exists today, each entry with why: the check fails on anything new, and
on an entry that no longer applies (so the lists only shrink). Fixing one means deleting its line.
"""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "minipaddle"
CORE = "minipaddle.framework"
MAX_FILE_LINES = 500
MAX_FUNCTION_LINES = 60

# The debt of today, each with why; the architecture issue (15) removes most of it.
KNOWN_UPWARD: dict[tuple[str, str], str] = {
}
# module-level import cycles, each as the sorted tuple of its modules
KNOWN_CYCLES: dict[tuple[str, ...], str] = {
}
# (importing module, imported module, private name)
KNOWN_PRIVATE: dict[tuple[str, str, str], str] = {
}
KNOWN_LONG_FILES: dict[str, str] = {
    "minipaddle/framework/ops/elementwise.py": "every elementwise op spelled out: a real def for each public "
    "function and each infer_meta (STYLE: go-to-definition lands on it), not built in a factory",
    "minipaddle/framework/ops/activation.py": "the activations Paddle has, each with its infer_meta, grad and "
    "kernels written out",
    "minipaddle/framework/ops/reduction.py": "every reduction spelled out with its own infer_meta and public def "
    "(STYLE: go-to-definition), not built in a factory",
    "minipaddle/framework/ops/manipulation.py": "the reshape/transpose family, each op with its own infer_meta",
    "minipaddle/jit/io.py": "jit.save/load with every converted method and the old file names",
    "minipaddle/framework/static/program.py": "Program, Block, Variable, Operator and their cloning in one place",
    "minipaddle/hapi/model.py": "paddle.Model's one class (prepare/fit/evaluate/predict/save/load)",
    "minipaddle/optimizer/lr.py": "Paddle's lr schedulers, one small class each",
    "minipaddle/visualizer/graph.py": "the four graph views and the budget; one concept, views.ts mirrors it",
    "minipaddle/visualizer/html.py": "the whole static page of a trace",
    "minipaddle/visualizer/program.py": "static programs in the trace document: collector, runs, pass diffs",
    "minipaddle/visualizer/trace.py": "the Trace reader, its checks and the document's assembly",
}
KNOWN_LONG_FUNCTIONS: dict[str, str] = {
}


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


MODULES = _modules()


def _resolve(module: str, node: ast.ImportFrom | ast.Import, is_package: bool) -> list[tuple[str, list[str]]]:
    """(imported module, names taken from it) for one import statement, absolute names."""
    if isinstance(node, ast.Import):
        return [(a.name, []) for a in node.names]
    base = module if is_package else module.rpartition(".")[0]
    for _ in range(node.level - 1):
        base = base.rpartition(".")[0]
    target = (f"{base}.{node.module}" if node.module else base) if node.level else (node.module or "")
    out = [(target, [a.name for a in node.names])]
    for a in node.names:  # `from . import x` may import the submodule x
        if f"{target}.{a.name}" in MODULES:
            out.append((f"{target}.{a.name}", []))
    return out


def _imports(top_level_only: bool) -> dict[str, list[tuple[str, list[str], int]]]:
    """module -> [(imported minipaddle module, names, line)] (only statements at module level if asked)."""
    found: dict[str, list] = {}
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        nodes = tree.body if top_level_only else list(ast.walk(tree))
        if top_level_only:  # also imports under a module-level `if` / `try`
            nodes = [n for stmt in tree.body for n in ast.walk(stmt)
                     if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
        entries = []
        for node in nodes:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for target, names in _resolve(module, node, path.name == "__init__.py"):
                    if target == "minipaddle" or target.startswith("minipaddle."):
                        entries.append((target, names, node.lineno))
        found[module] = entries
    return found


def _package_of(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 1 else module


def _check(found: dict, known: dict, what: str) -> None:
    new = sorted(k for k in found if k not in known)
    gone = sorted(k for k in known if k not in found)
    message = []
    if new:
        message.append(f"new {what} (fix it, or list it in tests/test_structure.py with the reason):\n  "
                       + "\n  ".join(f"{k}: {found[k]}" for k in new))
    if gone:
        message.append(f"{what} listed in tests/test_structure.py that no longer exist (delete the lines):\n  "
                       + "\n  ".join(map(str, gone)))
    assert not message, "\n".join(message)


def test_the_core_imports_nothing_built_on_it():
    found = {}
    for module, entries in _imports(top_level_only=False).items():
        if module != CORE and not module.startswith(CORE + "."):
            continue
        for target, _, line in entries:
            if target != CORE and not target.startswith(CORE + ".") and target != "minipaddle":
                found[(module, target)] = f"line {line}"
    _check(found, KNOWN_UPWARD, "imports from the core upward")


def test_no_module_level_import_cycles():
    graph = {m: {t for t, _, _ in entries if t in MODULES and t != m}
             for m, entries in _imports(top_level_only=True).items()}
    # strongly connected components (Tarjan): every component of more than one module is a cycle
    index, low, stack, on_stack, cycles, counter = {}, {}, [], set(), {}, [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles[tuple(sorted(component))] = "cycle"

    import sys
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        for v in sorted(graph):
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)
    # a package's __init__ importing its own submodules, which import the package back, is how Python
    # packages are built: only cycles that are not just "a package and its children" count
    real = {c: r for c, r in cycles.items()
            if not all(m == c[0] or m.startswith(c[0] + ".") for m in c)}
    _check(real, KNOWN_CYCLES, "module-level import cycles")


def test_no_private_names_imported_across_packages():
    found = {}
    for module, entries in _imports(top_level_only=False).items():
        for target, names, line in entries:
            if _package_of(target) == _package_of(module):
                continue
            for name in names:
                if name.startswith("_") and not name.startswith("__"):
                    found[(module, target, name)] = f"line {line}"
    _check(found, KNOWN_PRIVATE, "private names imported across packages")


def test_files_and_functions_stay_small_unless_listed_with_a_reason():
    files, functions = {}, {}
    for path in MODULES.values():
        text = path.read_text(encoding="utf-8")
        rel = str(path.relative_to(PACKAGE.parent))
        lines = text.count("\n")
        if lines > MAX_FILE_LINES:
            files[rel] = f"{lines} lines"
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    functions[f"{rel}:{node.name}"] = f"{length} lines"
    _check(files, KNOWN_LONG_FILES, f"files over {MAX_FILE_LINES} lines")
    _check(functions, KNOWN_LONG_FUNCTIONS, f"functions over {MAX_FUNCTION_LINES} lines")


def test_the_public_api_is_imported_by_name_where_a_learner_lands():
    # `paddle.add` must be a real import of the real def (go-to-definition works), never a namespace
    # filled at run time: every op family's public function is bound in minipaddle under its name
    import minipaddle
    from minipaddle.framework.ops import public_api
    text = (PACKAGE / "__init__.py").read_text(encoding="utf-8")
    assert "globals()" not in text and ".update(" not in text
    missing = sorted(name for name, fn in public_api().items()
                     if getattr(minipaddle, name, None) is not fn and not _shadowed_on_purpose(name))
    assert not missing, f"public op functions not imported by name in minipaddle/__init__.py: {missing}"


def _shadowed_on_purpose(name: str) -> bool:
    """Names minipaddle binds to another object of the same meaning (creation's shape/numel, ...)."""
    import minipaddle
    from minipaddle.framework import creation
    return getattr(minipaddle, name, None) is getattr(creation, name, object())
