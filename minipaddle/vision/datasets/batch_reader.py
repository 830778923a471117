"""Read a CIFAR batch file -- a pickle -- without unpickling it.

Python's pickle module runs whatever code a file names, so a downloaded pickle must never reach
`pickle.load`. CIFAR's batches are pickled dicts of plain values and one numpy array; this module
walks the pickle's opcodes itself and understands only that: dicts, lists, tuples, ints, floats,
strings, bytes, None/True/False, and numpy arrays of numeric dtypes. The only "globals" it accepts
are the ones such a file names -- numpy's array and dtype reconstructors and `_codecs.encode` (how
Python 3 writes bytes in protocol 2) -- and it builds those values itself instead of calling them.
Any other opcode or global is refused with an error naming it.

    read_pickled_batch(open("data_batch_1", "rb").read())
    -> {b"batch_label": b"training batch 1 of 5", b"labels": [6, 9, ...],
        b"data": uint8 array [10000, 3072], b"filenames": [...]}
"""
from __future__ import annotations

import struct

import numpy as np

from ...framework.errors import invalid_argument

__all__ = ["read_pickled_batch", "UnsafePickle"]

_RECONSTRUCT = {("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct")}
_ALLOWED_GLOBALS = _RECONSTRUCT | {("numpy", "ndarray"), ("numpy", "dtype"), ("_codecs", "encode")}


class UnsafePickle(ValueError):
    """The file holds something a CIFAR batch does not: it is refused, never executed."""


class _Global:
    def __init__(self, module: str, name: str) -> None:
        self.key = (module, name)


class _ArrayBuilder:
    """numpy's `_reconstruct(ndarray, (0,), b'b')`: an empty array that BUILD fills."""
    array = None


class _DtypeBuilder:
    """numpy's `dtype(descr, align, copy)`: a dtype whose byte order BUILD sets."""

    def __init__(self, descr) -> None:
        descr = descr.decode("latin1") if isinstance(descr, bytes) else descr
        if not isinstance(descr, str):
            raise UnsafePickle(f"a numpy dtype described by {type(descr).__name__}")
        dtype = np.dtype(descr)
        if dtype.kind not in "biuf":
            raise UnsafePickle(f"a numpy array of dtype {descr!r} (only numeric arrays are read)")
        self.dtype = dtype

    def build(self, state) -> None:
        order = state[1] if isinstance(state, tuple) and len(state) > 1 else "|"
        order = order.decode("latin1") if isinstance(order, bytes) else order
        if order in ("<", ">"):
            self.dtype = self.dtype.newbyteorder(order)


class _Mark:
    pass


_MARK = _Mark()


def _resolve(value):
    """Builders become their values, containers are walked."""
    if isinstance(value, _ArrayBuilder):
        if value.array is None:
            raise UnsafePickle("a numpy array that was never filled")
        return value.array
    if isinstance(value, _DtypeBuilder):
        return value.dtype
    if isinstance(value, dict):
        return {_resolve(k): _resolve(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolve(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_resolve(v) for v in value)
    if isinstance(value, _Global):
        raise UnsafePickle(f"a bare reference to {'.'.join(value.key)}")
    return value


def _reduce(func, args):
    if not isinstance(func, _Global) or not isinstance(args, tuple):
        raise UnsafePickle("a call of something that is not an allowed numpy/codecs function")
    if func.key == ("_codecs", "encode"):
        text, encoding = args if len(args) == 2 else (args[0], "utf-8")
        if not isinstance(text, str) or encoding not in ("latin1", "latin-1"):
            raise UnsafePickle("_codecs.encode of something other than latin1 text")
        return text.encode("latin1")
    if func.key in _RECONSTRUCT:
        if not args or not isinstance(args[0], _Global) or args[0].key != ("numpy", "ndarray"):
            raise UnsafePickle("numpy _reconstruct of a class other than numpy.ndarray")
        return _ArrayBuilder()
    if func.key == ("numpy", "dtype"):
        return _DtypeBuilder(args[0])
    raise UnsafePickle(f"a call of {'.'.join(func.key)}")


def _build(target, state) -> None:
    if isinstance(target, _DtypeBuilder):
        target.build(state)
        return
    if not isinstance(target, _ArrayBuilder) or not isinstance(state, tuple) or len(state) != 5:
        raise UnsafePickle("BUILD of something other than a numpy array or dtype")
    _version, shape, dtype, fortran, raw = state
    if not isinstance(dtype, _DtypeBuilder) or not isinstance(raw, (bytes, str)):
        raise UnsafePickle("a numpy array without a numeric dtype and raw bytes")
    raw = raw.encode("latin1") if isinstance(raw, str) else raw
    shape = tuple(int(s) for s in shape)
    count = int(np.prod(shape)) if shape else 1
    if len(raw) != count * dtype.dtype.itemsize:
        raise UnsafePickle(f"a numpy array of shape {list(shape)} with {len(raw)} bytes of data")
    array = np.frombuffer(raw, dtype=dtype.dtype, count=count).reshape(shape, order="F" if fortran else "C")
    target.array = array.copy()


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data, self.pos = data, 0

    def take(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise UnsafePickle("a truncated file")
        chunk = self.data[self.pos:self.pos + n]
        self.pos += n
        return chunk

    def line(self) -> str:
        end = self.data.find(b"\n", self.pos)
        if end < 0:
            raise UnsafePickle("a truncated file")
        text = self.data[self.pos:end].decode("utf-8")
        self.pos = end + 1
        return text

    def unpack(self, fmt: str):
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))[0]


def _pop_mark(stack: list) -> list:
    for i in range(len(stack) - 1, -1, -1):
        if stack[i] is _MARK:
            items = stack[i + 1:]
            del stack[i:]
            return items
    raise UnsafePickle("a MARK-less collection")


# Opcodes that push one value, as data: (a struct format) or (length format, whether it is text).
_NUMBERS = {b"J": "<i", b"K": "<B", b"M": "<H", b"G": ">d"}               # BININT, BININT1, BININT2, BINFLOAT
_SIZED = {b"U": ("<B", False), b"T": ("<i", False),                       # SHORT_BINSTRING, BINSTRING (py2 str)
          b"C": ("<B", False), b"B": ("<I", False),                       # SHORT_BINBYTES, BINBYTES
          b"X": ("<I", True), b"\x8c": ("<B", True)}                      # BINUNICODE, SHORT_BINUNICODE
_CONSTANTS = {b"N": None, b"\x88": True, b"\x89": False}
_EMPTY = {b"}": dict, b"]": list, b")": tuple}
_MEMO_PUT = {b"q": "<B", b"r": "<I"}                                       # BINPUT, LONG_BINPUT
_MEMO_GET = {b"h": "<B", b"j": "<I"}                                       # BINGET, LONG_BINGET


def _global(module: str, name: str) -> _Global:
    if (module, name) not in _ALLOWED_GLOBALS:
        raise UnsafePickle(f"a reference to {module}.{name}")
    return _Global(module, name)


def _structure_op(op: bytes, r: _Reader, stack: list, memo: dict) -> None:
    """The opcodes that build containers, call the allowed reconstructors, or only frame the stream."""
    if op == b"\x80":                                  # PROTO
        r.take(1)
    elif op == b"\x95":                                # FRAME (protocol 4): only a length
        r.take(8)
    elif op == b"(":
        stack.append(_MARK)
    elif op == b"t":
        stack.append(tuple(_pop_mark(stack)))
    elif op in (b"\x85", b"\x86", b"\x87"):            # TUPLE1/2/3
        n = op[0] - 0x84
        items = tuple(stack[-n:])
        del stack[-n:]
        stack.append(items)
    elif op == b"a":
        value = stack.pop()
        stack[-1].append(value)
    elif op == b"e":
        items = _pop_mark(stack)
        stack[-1].extend(items)
    elif op in (b"s", b"u"):                           # SETITEM, SETITEMS
        items = [stack.pop(-2), stack.pop()] if op == b"s" else _pop_mark(stack)
        for key, value in zip(items[::2], items[1::2]):
            stack[-1][key] = value
    elif op == b"\x8a":                                # LONG1
        stack.append(int.from_bytes(r.take(r.unpack("<B")), "little", signed=True))
    elif op == b"\x94":                                # MEMOIZE
        memo[len(memo)] = stack[-1]
    elif op == b"c":                                   # GLOBAL module\nname\n
        stack.append(_global(r.line(), r.line()))
    elif op == b"\x93":                                # STACK_GLOBAL
        name, module = stack.pop(), stack.pop()
        stack.append(_global(module, name))
    elif op == b"R":                                   # REDUCE: only the allowed reconstructors, built here
        args, func = stack.pop(), stack.pop()
        stack.append(_reduce(func, args))
    elif op == b"b":                                   # BUILD
        state = stack.pop()
        _build(stack[-1], state)
    else:
        raise UnsafePickle(f"the pickle opcode {op!r} at byte {r.pos - 1}")


def read_pickled_batch(data: bytes, what: str = "file"):
    """The value of a pickle that holds only plain data and numeric numpy arrays (a CIFAR batch)."""
    r = _Reader(data)
    stack: list = []
    memo: dict = {}
    try:
        while True:
            op = r.take(1)
            if op == b".":                             # STOP ends the pickle
                break
            if op in _NUMBERS:
                stack.append(r.unpack(_NUMBERS[op]))
            elif op in _SIZED:
                length, is_text = _SIZED[op]
                raw = r.take(r.unpack(length))
                stack.append(raw.decode("utf-8") if is_text else raw)
            elif op in _CONSTANTS:
                stack.append(_CONSTANTS[op])
            elif op in _EMPTY:
                stack.append(_EMPTY[op]())
            elif op in _MEMO_PUT:
                memo[r.unpack(_MEMO_PUT[op])] = stack[-1]
            elif op in _MEMO_GET:
                stack.append(memo[r.unpack(_MEMO_GET[op])])
            else:
                _structure_op(op, r, stack, memo)
        if len(stack) != 1:
            raise UnsafePickle("a pickle that leaves no single value")
        return _resolve(stack[0])
    except UnsafePickle as e:
        raise invalid_argument("read_pickled_batch", f"{what} holds {e}, which a CIFAR batch never does; it was "
                                                     "refused without being unpickled.") from None
    except (IndexError, KeyError, TypeError, ValueError, AttributeError, struct.error, UnicodeDecodeError) as e:
        raise invalid_argument("read_pickled_batch", f"{what} is not a well-formed pickled batch "
                                                     f"({type(e).__name__}: {e}).") from None
