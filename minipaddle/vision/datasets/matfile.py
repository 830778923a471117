"""Read the numeric arrays of a MATLAB v5 .mat file (what Flowers' imagelabels.mat and setid.mat are).

A v5 file is a 128-byte header, then data elements, each a tag (type, byte count) and its bytes,
padded to 8 bytes; a tag whose upper half is set is a "small element" holding up to 4 bytes in the tag
itself. A variable is a miMATRIX element (possibly inside a zlib-compressed miCOMPRESSED one) made of
sub-elements: array flags (the class), dimensions, the name, and the real part, stored column-major in
any numeric type, converted to the class's dtype. Only numeric matrices are read; cells, structs,
sparse and complex arrays are refused with a clear error (scipy.io.loadmat reads everything, but
minipaddle does not depend on scipy).

    read_mat("setid.mat") -> {"trnid": uint16 array [1, 1020], "valid": ..., "tstid": ...}
"""
from __future__ import annotations

import zlib

import numpy as np

from ...framework.errors import invalid_argument

__all__ = ["read_mat"]

_MI_TYPES = {1: "i1", 2: "u1", 3: "i2", 4: "u2", 5: "i4", 6: "u4", 7: "f4", 9: "f8", 12: "i8", 13: "u8"}
_MI_MATRIX, _MI_COMPRESSED = 14, 15
_CLASSES = {6: "f8", 7: "f4", 8: "i1", 9: "u1", 10: "i2", 11: "u2", 12: "i4", 13: "u4", 14: "i8", 15: "u8"}


def _elements(data: bytes, endian: str, what: str):
    """(type, payload) of each data element in `data`."""
    pos = 0
    while pos + 8 <= len(data):
        kind, size = np.frombuffer(data, f"{endian}u4", 2, pos)
        kind, size = int(kind), int(size)
        if kind >> 16:                                   # small element: 2-byte type, 2-byte size, 4 data bytes
            kind, size = kind & 0xFFFF, kind >> 16
            yield kind, data[pos + 4:pos + 4 + size]
            pos += 8
            continue
        start = pos + 8
        if start + size > len(data):
            raise invalid_argument("read_mat", f"{what} is truncated (an element of {size} bytes at byte {pos}).")
        yield kind, data[start:start + size]
        pos = start + size + (0 if kind == _MI_COMPRESSED else (-size) % 8)


def _matrix(payload: bytes, endian: str, what: str) -> tuple[str, np.ndarray]:
    parts = list(_elements(payload, endian, what))
    if len(parts) < 4:
        raise invalid_argument("read_mat", f"{what} holds a malformed matrix.")
    flags = np.frombuffer(parts[0][1], f"{endian}u4")
    cls, complex_flag = int(flags[0]) & 0xFF, bool(int(flags[0]) & 0x800)
    name = parts[2][1].decode("latin1")
    if cls not in _CLASSES or complex_flag:
        raise invalid_argument("read_mat", f"{what}: variable {name!r} is not a real numeric matrix (class {cls}); "
                                           "only numeric arrays are read.")
    dims = tuple(int(d) for d in np.frombuffer(parts[1][1], f"{endian}i4"))
    kind, raw = parts[3]
    if kind not in _MI_TYPES:
        raise invalid_argument("read_mat", f"{what}: variable {name!r} is stored as MAT type {kind}, which is not "
                                           "a number type.")
    values = np.frombuffer(raw, f"{endian}{_MI_TYPES[kind]}")
    if values.size != int(np.prod(dims)):
        raise invalid_argument("read_mat", f"{what}: variable {name!r} has {values.size} values for dims "
                                           f"{list(dims)}.")
    return name, values.astype(_CLASSES[cls]).reshape(dims, order="F")


def read_mat(path: str) -> dict[str, np.ndarray]:
    """name -> array for every numeric matrix of a MATLAB v5 file."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 128 or data[126:128] not in (b"IM", b"MI"):
        raise invalid_argument("read_mat", f"{path} is not a MATLAB 5.0 .mat file (no 'IM'/'MI' marker in its "
                                           "128-byte header).", hint="MATLAB v7.3 files are HDF5: not read here.")
    endian = "<" if data[126:128] == b"IM" else ">"
    out = {}
    for kind, payload in _elements(data[128:], endian, path):
        if kind == _MI_COMPRESSED:
            try:
                payload = zlib.decompress(payload)
            except zlib.error as e:
                raise invalid_argument("read_mat", f"{path} holds a damaged compressed element ({e}).") from None
            kind, payload = next(_elements(payload, endian, path))
        if kind == _MI_MATRIX:
            name, array = _matrix(payload, endian, path)
            out[name] = array
    return out
