"""JSON from files that may come from someone else: size and nesting depth checked before parsing.

Python's json module happily builds whatever a file describes: a 1 GB document becomes several GB
of Python objects, and a document nested 2,000 levels deep ends in a RecursionError (and code that
walks the result recursively fails deeper still). Every JSON minipaddle reads from a saved model
goes through `loads` here, which refuses, with a clear reason, before anything is allocated:

    >>> loads(b'{"a": [1, 2]}', "model.json")
    {'a': [1, 2]}
    >>> loads(b"[" * 2000 + b"]" * 2000, "model.json")
    Traceback (most recent call last):
    ...
    ValueError: model.json is nested 2000 levels deep; at most 200 are allowed (corrupted or hostile file).

Duplicate keys are refused too: `{"a": 1, "a": 2}` means different things to different readers.
"""
from __future__ import annotations

import json
import os
import re

import numpy as np

__all__ = ["MAX_JSON_BYTES", "MAX_DEPTH", "loads", "load_file", "nesting_depth"]

MAX_JSON_BYTES = 64 << 20   # a model program or archive description is far smaller
MAX_DEPTH = 200             # programs nest a few levels per block; paddle.save trees 3 per container
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_CHUNK = 1 << 20


def nesting_depth(data: bytes) -> int:
    """The deepest nesting of [ and { in a JSON text, brackets inside strings not counted.

    Counted with numpy over chunks (a running sum of +1 for an opening bracket, -1 for a closing
    one), so a large document costs a few passes over its bytes and no Python objects."""
    bare = _STRING.sub(b'""', data)
    codes = np.frombuffer(bare, dtype=np.uint8)
    depth, deepest = 0, 0
    for start in range(0, len(codes), _CHUNK):
        chunk = codes[start:start + _CHUNK]
        step = ((chunk == ord("[")) | (chunk == ord("{"))).astype(np.int32)
        step -= ((chunk == ord("]")) | (chunk == ord("}"))).astype(np.int32)
        running = np.cumsum(step, dtype=np.int64) + depth
        if len(running):
            deepest = max(deepest, int(running.max()))
            depth = int(running[-1])
    return deepest


def _no_duplicates(pairs: list) -> dict:
    out = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"key {key[:60]!r} appears twice in one object")
        out[key] = value
    return out


def loads(data: bytes, what: str, max_bytes: int = MAX_JSON_BYTES, max_depth: int = MAX_DEPTH):
    """Parse `data` (UTF-8 JSON) after checking its size and depth; `what` names it in errors (ValueError)."""
    if len(data) > max_bytes:
        raise ValueError(f"{what} is {len(data)} bytes of JSON; at most {max_bytes} are read (corrupted or "
                         "hostile file).")
    depth = nesting_depth(data)
    if depth > max_depth:
        raise ValueError(f"{what} is nested {depth} levels deep; at most {max_depth} are allowed (corrupted or "
                         "hostile file).")
    try:
        return json.loads(data.decode("utf-8"), object_pairs_hook=_no_duplicates)
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ValueError(f"{what} is not valid JSON ({err}).") from None
    except ValueError as err:
        raise ValueError(f"{what} is not valid JSON ({err}).") from None
    except RecursionError:   # the depth check above makes this unreachable for well-formed text
        raise ValueError(f"{what} is nested too deeply to read (corrupted or hostile file).") from None


def load_file(path: str, what: str | None = None, max_bytes: int = MAX_JSON_BYTES):
    """`loads` of the file at `path`, its size checked before a byte is read."""
    what = what or repr(path)
    size = os.path.getsize(path)
    if size > max_bytes:
        raise ValueError(f"{what} is {size} bytes of JSON; at most {max_bytes} are read (corrupted or hostile "
                         "file).")
    with open(path, "rb") as f:
        return loads(f.read(max_bytes + 1), what, max_bytes)
