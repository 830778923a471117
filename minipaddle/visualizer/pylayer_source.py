"""The source of a PyLayer class, as its node in the trace shows it (attrs of the PyLayer's op node).

    pylayer_source(Cube) == {"pylayer": "__main__.Cube", "forward_source": "def forward(ctx, x): ...",
                             "backward_source": "def backward(ctx, g): ...",
                             "source": {"file": ..., "line": 12, "cell": 3}}

The learner wrote one op with a forward and a backward of their own: the debugger shows both, and
where forward is written (the notebook cell, when it was defined in one).
"""
from __future__ import annotations

import inspect
import textwrap
import weakref

from .program import cell_of


def pylayer_source(cls) -> dict:
    """{"pylayer", "forward_source", "backward_source", "source"} of a PyLayer class, read once per class
    (the source of a class defined in a notebook cell is in linecache, where IPython puts every cell)."""
    cached = _pylayer_sources.get(cls)
    if cached is not None:
        return cached
    forward, path, line = _text_of(cls.forward)
    backward = _text_of(cls.backward)[0]
    source = {"file": path, "line": int(line)}
    cell = cell_of(path) if path else None
    if cell is not None:
        source["cell"] = cell
    info = {"pylayer": f"{cls.__module__}.{cls.__qualname__}", "forward_source": forward,
            "backward_source": backward, "source": source}
    _pylayer_sources[cls] = info
    return info


_pylayer_sources: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # PyLayer class -> its source attrs


def _text_of(fn) -> tuple[str, str | None, int]:
    """(the dedented source of `fn`, its file, the line of its `def`); ("", file, line) when unreadable."""
    fn = inspect.unwrap(fn)
    code = getattr(fn, "__code__", None)
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        return "", None if code is None else code.co_filename, 0 if code is None else code.co_firstlineno
    offset = next((i for i, line in enumerate(lines) if line.lstrip().startswith(("def ", "async def "))), 0)
    path = code.co_filename if code is not None else inspect.getsourcefile(fn)
    return textwrap.dedent("".join(lines)), path, first + offset
