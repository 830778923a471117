"""Errors in converted code, reported against the user's own file and line.

An exception raised while a converted function builds its Program (or while the Program runs)
travels through generated code in `<to_static:...>` files. `remap(error)` finds the innermost
converted frame, maps its line back to the user's source (ast_transformer.ORIGINS), and raises
the same kind of error with a window of the user's source (the line marked `>`) and the
converted line beneath:

    InvalidArgument: matmul: x's last dim (3) must equal y's first dim (4).

      In converted code, at /home/me/model.py, line 12, in forward:
            if x.mean() > 0:
        >       y = paddle.matmul(x, self.w)
            return y
      converted line (<to_static:model.Net.forward>, line 9):
            y = _jst.convert_call(paddle.matmul)(x, self.w)
"""
from __future__ import annotations

import linecache
import re
import traceback

from .ast_transformer import ORIGINS, origin_of

__all__ = ["remap", "user_location", "rewrite_sources"]

_TAG = re.compile(r"(<to_static:.*?>):(\d+)")
WINDOW = 2  # lines of user source shown above and below the failing one


def user_location(filename: str, lineno: int) -> str | None:
    """`file:line` of the user's source for a converted line, or None."""
    where = origin_of(filename, lineno)
    return None if where is None else f"{where[0]}:{where[1]}"


def _rewrite_text(text: str) -> str:
    return _TAG.sub(lambda m: user_location(m.group(1), int(m.group(2))) or m.group(0), text)


def rewrite_sources(program) -> None:
    """Point every op's `source` that names converted code at the user's line instead."""
    for block in program.blocks:
        for op in block.ops:
            if op.source and op.source.startswith("<to_static:"):
                op.source = _rewrite_text(op.source)


def _window(path: str, line: int) -> list[str]:
    out = []
    for n in range(max(1, line - WINDOW), line + WINDOW + 1):
        text = linecache.getline(path, n)
        if not text:
            continue
        out.append(f"    {'>' if n == line else ' '} {n:4d}  {text.rstrip()}")
    return out


def describe(error: BaseException) -> str | None:
    """The 'In converted code' report for `error`'s innermost converted frame, or None."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename in ORIGINS]
    if not frames:
        return None
    frame = frames[-1]
    where = origin_of(frame.filename, frame.lineno)
    if where is None:
        return None
    path, line = where
    func = ORIGINS[frame.filename].original.__qualname__
    lines = [f"  In converted code, at {path}, line {line}, in {func}:"] + _window(path, line)
    converted = linecache.getline(frame.filename, frame.lineno).strip()
    lines += [f"  converted line ({frame.filename}, line {frame.lineno}):", f"        {converted}"]
    return "\n".join(lines)


def remap(error: BaseException) -> BaseException:
    """`error` as the same kind of error whose message shows the user's source (see the module doc)."""
    if getattr(error, "_jst_mapped", False):
        return error
    report = describe(error)
    message = _rewrite_text(str(error))
    if report is None and message == str(error):
        return error
    text = message + ("\n\n" + report if report else "")
    try:
        new = type(error)(text)
    except Exception:  # an exception type with a different constructor: keep it as it is
        return error
    new._jst_mapped = True
    new.__traceback__ = error.__traceback__
    return new
