"""JSON from files that may come from someone else: size and nesting depth checked before parsing.

Python's json module happily builds whatever a file describes: a 1 GB document becomes several GB
of Python objects (`[[],[],...]` costs about 26 bytes of memory per byte of text), and a document
nested 2,000 levels deep ends in a RecursionError (and code that walks the result recursively fails
deeper still). Every JSON minipaddle reads from a saved model goes through `loads` here, which
counts first -- size, nesting depth, containers and values -- and refuses, with a clear reason,
before anything is allocated; the same `check` runs when saving, so every file written reads back:

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

__all__ = ["MAX_JSON_BYTES", "MAX_DEPTH", "MAX_CONTAINERS", "MAX_VALUES", "check", "loads", "load_file",
           "nesting_depth"]

# a ResNet-50 program is 0.4 MB, 200 deep at most 12, 8.6k containers, 18k values: these leave ~100x room
MAX_JSON_BYTES = 64 << 20   # a model program or archive description is far smaller
MAX_DEPTH = 200             # programs nest a few levels per block; paddle.save trees 3 per container
MAX_CONTAINERS = 1_000_000  # [ and {: an empty one costs ~80 bytes as a Python object
MAX_VALUES = 4_000_000      # separators (commas): each a number or string of ~30 bytes as an object
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_CHUNK = 1 << 18   # bytes counted at a time: a few MB of temporaries whatever the size


def measure(data: bytes) -> tuple[int, int, int]:
    """(deepest nesting, containers, commas) of a JSON text, brackets and commas inside strings not
    counted. Counted with numpy over chunks (a running sum of +1 for an opening bracket, -1 for a
    closing one), so a large document costs a few passes over its bytes and no Python objects."""
    bare = _STRING.sub(b'""', data)
    codes = np.frombuffer(bare, dtype=np.uint8)
    depth = deepest = containers = commas = 0
    for start in range(0, len(codes), _CHUNK):
        chunk = codes[start:start + _CHUNK]
        opening = (chunk == ord("[")) | (chunk == ord("{"))
        step = opening.astype(np.int32)
        step -= ((chunk == ord("]")) | (chunk == ord("}"))).astype(np.int32)
        running = np.cumsum(step, dtype=np.int32)   # within one chunk: |sum| <= _CHUNK
        if len(running):
            deepest = max(deepest, depth + int(running.max()))
            depth += int(running[-1])
        containers += int(opening.sum())
        commas += int((chunk == ord(",")).sum())
    return deepest, containers, commas


def nesting_depth(data: bytes) -> int:
    """The deepest nesting of [ and { in a JSON text (see `measure`)."""
    return measure(data)[0]


def check(data: bytes, what: str, max_bytes: int | None = None) -> None:
    """Raise ValueError, naming `what`, if `data` is more JSON than minipaddle reads."""
    max_bytes = MAX_JSON_BYTES if max_bytes is None else max_bytes
    if len(data) > max_bytes:
        raise ValueError(f"{what} is {len(data)} bytes of JSON; at most {max_bytes} are read (corrupted or "
                         "hostile file).")
    depth, containers, commas = measure(data)
    if depth > MAX_DEPTH:
        raise ValueError(f"{what} is nested {depth} levels deep; at most {MAX_DEPTH} are allowed (corrupted or "
                         "hostile file).")
    if containers > MAX_CONTAINERS or commas > MAX_VALUES:
        raise ValueError(f"{what} holds {containers} lists/objects and {commas + 1} values; at most "
                         f"{MAX_CONTAINERS} and {MAX_VALUES} are read (each becomes a Python object: corrupted "
                         "or hostile file).")


def _no_duplicates(pairs: list) -> dict:
    out = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"key {key[:60]!r} appears twice in one object")
        out[key] = value
    return out


def loads(data: bytes, what: str):
    """Parse `data` (UTF-8 JSON) after `check`ing it; `what` names it in errors (ValueError)."""
    check(data, what)
    try:
        return json.loads(data.decode("utf-8"), object_pairs_hook=_no_duplicates)
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ValueError(f"{what} is not valid JSON ({err}).") from None
    except ValueError as err:
        raise ValueError(f"{what} is not valid JSON ({err}).") from None
    except RecursionError:   # the depth check above makes this unreachable for well-formed text
        raise ValueError(f"{what} is nested too deeply to read (corrupted or hostile file).") from None


def load_file(path: str, what: str | None = None):
    """`loads` of the file at `path`, its size checked before a byte is read."""
    what = what or repr(path)
    size = os.path.getsize(path)
    if size > MAX_JSON_BYTES:
        raise ValueError(f"{what} is {size} bytes of JSON; at most {MAX_JSON_BYTES} are read (corrupted or "
                         "hostile file).")
    with open(path, "rb") as f:
        return loads(f.read(MAX_JSON_BYTES + 1), what)
