"""The IDX file format of MNIST and Fashion-MNIST: read (gzip or raw) and write, with clear errors on bad files.

An IDX file is: two zero bytes, a type code (0x08 = uint8, ...), the number of dimensions, then
each dimension as a big-endian uint32, then the values, row-major, big-endian. MNIST's images
start with the magic number 0x00000803 (uint8, 3 dims: N, 28, 28), its labels with 0x00000801.
"""
from __future__ import annotations

import gzip
import os
import zlib

import numpy as np

from ...framework.errors import invalid_argument

__all__ = ["read_idx", "write_idx"]

_IDX_TYPES = {0x08: np.dtype("u1"), 0x09: np.dtype("i1"), 0x0B: np.dtype(">i2"), 0x0C: np.dtype(">i4"),
              0x0D: np.dtype(">f4"), 0x0E: np.dtype(">f8")}
_TYPE_CODES = {d.newbyteorder("=") if d.itemsize > 1 else d: c for c, d in _IDX_TYPES.items()}


def read_idx(path: str | os.PathLike) -> np.ndarray:
    """The array stored in an IDX file (`.gz` or not: gzip is recognised by its first bytes)."""
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as e:
            raise invalid_argument("read_idx", f"{path} is gzip-compressed but cannot be decompressed ({e}); the "
                                               "file is probably truncated or corrupt.",
                                   hint="place a fresh copy of the file.") from None
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0 or raw[2] not in _IDX_TYPES:
        magic = raw[:4].hex() if raw else "(empty file)"
        raise invalid_argument("read_idx", f"{path} does not start with an IDX magic number: got 0x{magic}, "
                                           "expected 0x0000TTDD (e.g. 0x00000803 for MNIST images, 0x00000801 for "
                                           "labels).", hint="is this really an (uncompressed or gzip) IDX file?")
    ndim = raw[3]
    header = 4 + 4 * ndim
    if len(raw) < header:
        raise invalid_argument("read_idx", f"{path} is truncated: {len(raw)} bytes, shorter than its own header "
                                           f"({header} bytes for {ndim} dims).")
    dims = [int(d) for d in np.frombuffer(raw, dtype=">u4", count=ndim, offset=4)]
    dtype = _IDX_TYPES[raw[2]]
    expected = header + int(np.prod(dims, dtype=np.int64)) * dtype.itemsize
    if len(raw) != expected:
        raise invalid_argument("read_idx", f"{path} has {len(raw)} bytes, but its header (dims {dims}, "
                                           f"{dtype.name}) needs exactly {expected}: the file is "
                                           f"{'truncated' if len(raw) < expected else 'longer than it says'}.")
    return np.frombuffer(raw, dtype=dtype, offset=header).reshape(dims).astype(dtype.newbyteorder("="))


def write_idx(path: str | os.PathLike, array: np.ndarray) -> None:
    """Write `array` as an IDX file, gzip-compressed when `path` ends in `.gz`."""
    array = np.asarray(array)
    code = _TYPE_CODES.get(array.dtype)
    if code is None:
        raise invalid_argument("write_idx", f"dtype {array.dtype} has no IDX type code; expected one of "
                                            "uint8, int8, int16, int32, float32, float64.")
    header = bytes([0, 0, code, array.ndim]) + np.asarray(array.shape, dtype=">u4").tobytes()
    data = header + np.ascontiguousarray(array, dtype=_IDX_TYPES[code]).tobytes()
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "wb") as f:
        f.write(data)
