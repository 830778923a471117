"""paddle.save / paddle.load: state dicts, optimizer state and nested containers, never pickle.

A pickle file runs code when it is loaded, so a checkpoint downloaded from someone else could do
anything. minipaddle writes one zip file at exactly `path` instead, laid out as numpy's `.npz`
(`np.load(path)` opens it for a look), holding one `.npy` member per array plus a JSON member
that describes the structure:

    __minipaddle__.json   {"format": "minipaddle.save", "version": 1,
                           "root": <node>,
                           "arrays": {"a0": {"dtype": "float32", "shape": [4, 2], "sha256": "..."}, ...}}
    a0.npy, a1.npy, ...   the arrays (numpy's .npy format; object arrays are never written nor read)

Nodes of the tree:
    {"type": "dict", "items": [[<key node>, <value node>], ...]}    (keys: str, int, float, bool, None)
    {"type": "list" | "tuple", "items": [<node>, ...]}
    {"type": "tensor", "array": "a0", "name": "linear_0.w_0", "stop_gradient": false}
    {"type": "ndarray" | "numpy_scalar", "array": "a1"}
    {"type": "int" | "bool" | "str", "value": ...}
    {"type": "float", "value": "0.1"}       (repr, so nan and inf survive JSON)
    {"type": "none"}

Loading checks everything before it returns anything: the zip's CRCs, that every member is
expected (a stray pickle payload or a `../` path is refused), each array's dtype, shape and sha256.
What loading allocates is bounded by the file's real size: members are stored uncompressed and must
lie inside the file, an array is read straight into its final buffer, and the JSON member is capped
in size and nesting depth (bounded_json). Writing goes to a temporary file that is renamed over
`path` (save_unit), so a crash never leaves half a checkpoint. Parameters come back as Tensors, as in
Paddle.

The sha256 of the JSON member is the archive's *digest*: it pins every array (through their
sha256s) and the structure, so a manifest that lists it pins the whole file. A multi-file save
(Model.save, jit.save, static.save) records its files' digests in the file it writes last.
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import struct
import zipfile

import numpy as np

from . import bounded_json
from .errors import invalid_argument
from .save_unit import SaveUnit
from .tensor import Tensor

__all__ = ["save", "load"]

FORMAT = "minipaddle.save"
VERSION = 1
META = "__minipaddle__.json"
_SCALAR_TYPES = {"int": int, "bool": bool, "str": str}
_KEY_TYPES = ("str", "int", "float", "bool", "none")
# each dict adds 3 JSON levels ({"type", "items": [[key, value]]}), so this keeps any file paddle.save
# writes within what bounded_json lets paddle.load read
MAX_CONTAINER_DEPTH = bounded_json.MAX_DEPTH // 3 - 1
_READ_CHUNK = 4 << 20    # arrays are read in pieces this big straight into their buffer (no second copy)


class _Writer:
    """Turns a Python object into (JSON tree, arrays), refusing anything that would need pickle."""

    def __init__(self) -> None:
        self.arrays: dict[str, np.ndarray] = {}
        self.specs: dict[str, dict] = {}
        self._open: set[int] = set()   # containers being walked, to catch cycles

    def add_array(self, array: np.ndarray, where: str) -> str:
        if array.dtype.hasobject or array.dtype.kind not in "biufcSU":
            raise invalid_argument("paddle.save", f"{where} is an array of dtype {array.dtype}, which cannot be "
                                                  "saved without pickle.",
                                   hint="convert it to a numeric dtype first.")
        array = array if array.flags.c_contiguous else np.ascontiguousarray(array)
        key = f"a{len(self.arrays)}"
        self.arrays[key] = array
        self.specs[key] = {"dtype": array.dtype.str if array.dtype.kind in "SU" else array.dtype.name,
                           "shape": list(array.shape), "sha256": hashlib.sha256(array.data).hexdigest()}
        return key

    def node(self, obj, where: str) -> dict:
        if isinstance(obj, Tensor):
            return {"type": "tensor", "array": self.add_array(obj._data, where), "name": obj.name,
                    "stop_gradient": bool(obj.stop_gradient)}
        if isinstance(obj, np.ndarray):
            return {"type": "ndarray", "array": self.add_array(obj, where)}
        if isinstance(obj, np.generic):
            return {"type": "numpy_scalar", "array": self.add_array(np.asarray(obj), where)}
        if obj is None:
            return {"type": "none"}
        if isinstance(obj, bool):
            return {"type": "bool", "value": obj}
        if isinstance(obj, int):
            return {"type": "int", "value": int(obj)}
        if isinstance(obj, float):
            return {"type": "float", "value": repr(float(obj))}
        if isinstance(obj, str):
            return {"type": "str", "value": obj}
        if isinstance(obj, (dict, list, tuple)):
            return self.container(obj, where)
        raise _unsupported(obj, where)

    def container(self, obj, where: str) -> dict:
        if id(obj) in self._open:
            raise invalid_argument("paddle.save", f"{where} contains itself; a cyclic structure cannot be saved.")
        if len(self._open) >= MAX_CONTAINER_DEPTH:
            raise invalid_argument("paddle.save", f"{where} is nested more than {MAX_CONTAINER_DEPTH} containers "
                                                  "deep; paddle.load reads no deeper (a file nested without limit "
                                                  "could exhaust the stack), so it is not saved.",
                                   hint="flatten the structure, e.g. with keys like 'a/b/c'.")
        self._open.add(id(obj))
        try:
            if isinstance(obj, dict):
                items = []
                for k, v in obj.items():
                    if not (k is None or isinstance(k, (str, int, float, bool))):
                        raise invalid_argument("paddle.save", f"{where} has a key of type {type(k).__name__}; "
                                                              "keys must be str, int, float, bool or None.")
                    items.append([self.node(k, where), self.node(v, f"{where}[{k!r}]")])
                return {"type": "dict", "items": items}
            kind = "tuple" if isinstance(obj, tuple) else "list"
            return {"type": kind, "items": [self.node(v, f"{where}[{i}]") for i, v in enumerate(obj)]}
        finally:
            self._open.discard(id(obj))


def _unsupported(obj, where: str) -> Exception:
    kind = type(obj).__name__
    if callable(getattr(obj, "state_dict", None)):
        return invalid_argument("paddle.save", f"{where} is a {kind}; objects are not saved whole (that would "
                                               "need pickle).",
                                hint=f"save its state instead: paddle.save({kind.lower()}.state_dict(), path), and "
                                     "restore with set_state_dict(paddle.load(path)).")
    if callable(obj):
        return invalid_argument("paddle.save", f"{where} is a {kind}; functions and classes cannot be saved "
                                               "without pickle.", hint="save data only (tensors, arrays, numbers).")
    return invalid_argument("paddle.save", f"{where} is a {kind}, which cannot be saved.",
                            hint="supported: Tensor, numpy arrays and scalars, int, float, bool, str, None, and "
                                 "dicts, lists and tuples of these.")


def _encode_meta(api: str, meta: dict) -> bytes:
    """The JSON member, refused if loading would refuse it: every file written loads back."""
    text = json.dumps(meta, separators=(",", ":")).encode("utf-8")
    try:
        bounded_json.check(text, "the structure's description")
    except ValueError as err:
        raise invalid_argument(api, f"{err} Loading would refuse it, so it is not saved.",
                               hint="keep long lists of numbers as a numpy array or Tensor (stored as an array, "
                                    "not as JSON).") from None
    return text


def _write_zip(fileobj, text: bytes, arrays: dict[str, np.ndarray]) -> str:
    """Write the archive (`text`: the JSON member); return its digest (the sha256 of the JSON member)."""
    with zipfile.ZipFile(fileobj, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
        zf.writestr(META, text)
        for key, array in arrays.items():
            with zf.open(f"{key}.npy", "w", force_zip64=array.nbytes > (1 << 31) - (1 << 20)) as member:
                np.lib.format.write_array(member, array, allow_pickle=False)
    return hashlib.sha256(text).hexdigest()


def save(obj, path, protocol: int = 4, **configs) -> None:
    """Save `obj` (a state dict, optimizer state, Tensor, array, or nested dict/list/tuple of them) at `path`.

    >>> paddle.save(model.state_dict(), "checkpoints/model.pdparams")    # doctest: +SKIP

    `protocol` is accepted for Paddle compatibility (2..4) and changes nothing: no pickle is written.
    """
    if not isinstance(protocol, int) or not 2 <= protocol <= 4:
        raise invalid_argument("paddle.save", f"protocol must be an int in [2, 4], got {protocol!r}.")
    unknown = set(configs) - {"use_binary_format", "keep_name_table"}
    if unknown:
        raise invalid_argument("paddle.save", f"unknown config(s) {sorted(unknown)}.")
    writer = _Writer()
    root = writer.node(obj, "obj")  # every error is raised here, before a file is touched
    text = _encode_meta("paddle.save", {"format": FORMAT, "version": VERSION, "root": root,
                                        "arrays": writer.specs})
    if hasattr(path, "write"):
        _write_zip(path, text, writer.arrays)
        return
    path = os.fspath(path)
    dirname, filename = os.path.split(path)
    if not filename:
        raise invalid_argument("paddle.save", f"path must name a file (dirname/filename), got {path!r}.")
    if os.path.isdir(path):
        raise invalid_argument("paddle.save", f"{path!r} is a directory, expected a file name.")
    if dirname:
        os.makedirs(dirname, exist_ok=True)
    _atomic_write(path, text, writer.arrays)


def _atomic_write(path: str, text: bytes, arrays: dict[str, np.ndarray]) -> str:
    """Write to a temporary file beside `path`, then rename it over `path` (atomic on POSIX); a one-file
    SaveUnit, so temporary files a killed save left are removed too. Returns the archive's digest."""
    with SaveUnit("paddle.save") as unit:
        return unit.add(path, lambda f: _write_zip(f, text, arrays))


def save_in_unit(unit: SaveUnit, obj, path: str, manifest: dict | None = None) -> str:
    """paddle.save of `obj` as one file of a multi-file save; `manifest` ({suffix: digest} of the unit's
    other files, e.g. {".pdparams": ...}) goes into this file's JSON. Returns this file's digest."""
    writer = _Writer()
    meta = {"format": FORMAT, "version": VERSION, "root": writer.node(obj, "obj"), "arrays": writer.specs}
    if manifest is not None:
        meta["manifest"] = {"files": dict(manifest)}
    text = _encode_meta(unit.api, meta)
    return unit.add(path, lambda f: _write_zip(f, text, writer.arrays))


# ---- loading ---------------------------------------------------------------------------
class _Corrupt(Exception):
    """Raised inside the reader; load() turns it into an InvalidArgument naming the file."""


def load(path, return_numpy: bool = False, **configs):
    """Load what `paddle.save` wrote. Tensors come back as Tensors (numpy arrays with return_numpy=True).

    >>> model.set_state_dict(paddle.load("checkpoints/model.pdparams"))    # doctest: +SKIP

    A truncated, corrupted or tampered file raises InvalidArgument naming the file and the problem;
    nothing is returned in part.
    """
    unknown = set(configs) - {"keep_name_table"}
    if unknown:
        raise invalid_argument("paddle.load", f"unknown config(s) {sorted(unknown)}.")
    if hasattr(path, "read"):
        name, source = "<file object>", io.BytesIO(path.read())
    else:
        name = source = os.fspath(path)
        if not os.path.exists(name):
            raise invalid_argument("paddle.load", f"no file at {name!r}.")
        if os.path.isdir(name):
            raise invalid_argument("paddle.load", f"{name!r} is a directory, expected a file written by "
                                                  "paddle.save.")
    return _read_checked("paddle.load", name, source, return_numpy)[0]


def load_verified(api: str, path: str, return_numpy: bool = False, digest: str | None = None) -> tuple:
    """(object, manifest, digest) of a paddle.save file: `manifest` is the {suffix: digest} this file
    lists for the other files of its save (None if it lists none); with `digest`, the file must be
    the one a manifest named (else a clear error: the files come from different saves)."""
    if not os.path.isfile(path):
        raise invalid_argument(api, f"no file at {path!r}.")
    obj, meta, got = _read_checked(api, path, path, return_numpy)
    if digest is not None and got != digest:
        raise invalid_argument(api, f"{path!r} is not the file its save's manifest lists: the files come from "
                                    "different saves (a save interrupted between its renames, or a file copied "
                                    "in from elsewhere).", hint="save again, or restore the files together.")
    manifest = meta.get("manifest")
    if manifest is not None:
        files = manifest.get("files") if isinstance(manifest, dict) else None
        if not isinstance(files, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                  for k, v in files.items()):
            raise invalid_argument(api, f"cannot load {path!r}: its manifest is malformed (tampered).")
        manifest = files
    return obj, manifest, got


def _read_checked(api: str, name: str, source, return_numpy: bool) -> tuple:
    """_read with every failure turned into InvalidArgument naming the file."""
    try:
        return _read(source, return_numpy)
    except _Corrupt as err:
        raise invalid_argument(api, f"cannot load {name!r}: {err}") from None
    except _DAMAGED_ZIP as err:
        raise invalid_argument(api, f"cannot load {name!r}: the file is damaged or truncated "
                                    f"({type(err).__name__}: {err}).") from None


# what zipfile raises on damaged headers: besides BadZipFile, a flipped version byte gives
# NotImplementedError, a flipped flag RuntimeError ("encrypted"), a damaged name KeyError
_DAMAGED_ZIP = (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, ValueError, NotImplementedError,
                RuntimeError, KeyError, struct.error)


def _read(source, return_numpy: bool) -> tuple:
    """(object, meta, digest) of an archive, everything checked."""
    if not zipfile.is_zipfile(source):
        raise _Corrupt(_not_a_zip_reason(source))
    with zipfile.ZipFile(source) as zf:
        names = zf.namelist()
        if len(set(names)) != len(names):
            raise _Corrupt("the archive lists a member twice (tampered).")
        if META not in names:
            raise _Corrupt(f"no {META} member; this is not a file written by paddle.save.")
        _check_sizes(zf, _real_size(source))
        meta, digest = _read_meta(zf)
        expected = {META} | {f"{key}.npy" for key in meta["arrays"]}
        stray = sorted(set(names) - expected)
        if stray:
            raise _Corrupt(f"unexpected member(s) {stray}; only the arrays the JSON lists are allowed "
                           "(minipaddle never loads pickle or other payloads).")
        arrays = {key: _read_array(zf, key, spec) for key, spec in meta["arrays"].items()}
    return _build(meta["root"], arrays, return_numpy), meta, digest


def _real_size(source) -> int:
    if isinstance(source, str):
        return os.path.getsize(source)
    return len(source.getbuffer())


def _check_sizes(zf: zipfile.ZipFile, real_size: int) -> None:
    """Every member is stored (never compressed) and lies inside the file, so what loading allocates is
    bounded by the file's real size: a forged header cannot make it reserve more."""
    for info in zf.infolist():
        if info.compress_type != zipfile.ZIP_STORED or info.file_size != info.compress_size:
            raise _Corrupt(f"member {info.filename!r} is compressed or its sizes disagree; paddle.save stores "
                           "members uncompressed (tampered).")
        if info.header_offset + info.compress_size > real_size:
            raise _Corrupt(f"member {info.filename!r} claims {info.file_size} bytes, past the end of the "
                           f"{real_size}-byte file (truncated or tampered).")


# ---- flat archives of named arrays (model parameters) --------------------------------------------
def write_arrays(api: str, path: str, arrays: dict[str, np.ndarray], unit: SaveUnit | None = None) -> str:
    """Write {name: array} at `path` in paddle.save's archive (a sha256 per array), atomically, or as a
    file of `unit`; returns the archive's digest.

    jit.save, static.save_inference_model and static.save keep their parameters this way."""
    writer = _Writer()
    items = []
    for name, array in arrays.items():
        items.append([writer.node(str(name), api), writer.node(np.asarray(array), f"{api}: {name!r}")])
    meta = {"format": FORMAT, "version": VERSION, "root": {"type": "dict", "items": items},
            "arrays": writer.specs}
    dirname = os.path.dirname(path)
    if dirname:
        os.makedirs(dirname, exist_ok=True)
    text = _encode_meta(api, meta)
    if unit is not None:
        return unit.add(path, lambda f: _write_zip(f, text, writer.arrays))
    return _atomic_write(path, text, writer.arrays)


def read_arrays(api: str, path: str, digest: str | None = None) -> dict[str, np.ndarray]:
    """{name: array} from what `write_arrays` wrote; a damaged file is refused whole, naming it and why.
    With `digest` (from a manifest), the file must be that one."""
    return read_arrays_digest(api, path, digest)[0]


def read_arrays_digest(api: str, path: str, digest: str | None = None) -> tuple[dict[str, np.ndarray], str]:
    """(read_arrays(...), the file's digest)."""
    if not os.path.isfile(path):
        raise invalid_argument(api, f"no parameter file {path!r}.")
    root, _, got = load_verified(api, path, return_numpy=True, digest=digest)
    if not isinstance(root, dict) or not all(isinstance(k, str) and isinstance(v, np.ndarray)
                                             for k, v in root.items()):
        raise invalid_argument(api, f"{path!r} is a paddle.save file but not a parameter file "
                                    "({name: array}).")
    return root, got


def _not_a_zip_reason(source) -> str:
    if isinstance(source, str):
        with open(source, "rb") as f:
            head = f.read(2)
    else:
        source.seek(0)
        head = source.read(2)
        source.seek(0)
    if head[:1] == b"\x80":
        return ("it is a pickle file (for example one written by PaddlePaddle itself); minipaddle never loads "
                "pickle, since loading it can run arbitrary code.")
    if head == b"PK":
        return "the zip archive is truncated or damaged."
    return "it is not a zip archive written by paddle.save (wrong file, or damaged)."


def _read_meta(zf: zipfile.ZipFile) -> tuple[dict, str]:
    """The JSON member (size and depth checked before parsing) and its digest."""
    size = zf.getinfo(META).file_size
    if size > bounded_json.MAX_JSON_BYTES:
        raise _Corrupt(f"the {META} member claims {size} bytes; at most {bounded_json.MAX_JSON_BYTES} are read "
                       "(tampered).")
    text = zf.read(META)
    try:
        meta = bounded_json.loads(text, f"the {META} member")
    except ValueError as err:
        raise _Corrupt(str(err)) from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise _Corrupt(f"the {META} member does not describe a {FORMAT!r} file.")
    if meta.get("version") != VERSION:
        raise _Corrupt(f"format version {meta.get('version')!r} is not supported (this minipaddle reads "
                       f"version {VERSION}).")
    if not isinstance(meta.get("arrays"), dict) or "root" not in meta:
        raise _Corrupt(f"the {META} member lacks 'root' or 'arrays'.")
    return meta, hashlib.sha256(text).hexdigest()


def _read_array(zf: zipfile.ZipFile, key: str, spec) -> np.ndarray:
    if not isinstance(spec, dict) or not {"dtype", "shape", "sha256"} <= set(spec):
        raise _Corrupt(f"array {key!r} has an incomplete description.")
    try:
        dtype = np.dtype(spec["dtype"])
        shape = tuple(int(s) for s in spec["shape"])
    except (TypeError, ValueError):
        raise _Corrupt(f"array {key!r} has an invalid dtype or shape in the JSON.") from None
    if dtype.hasobject or dtype.kind not in "biufcSU":
        raise _Corrupt(f"array {key!r} has dtype {dtype}, which is never loaded (it could hold pickled objects).")
    member = f"{key}.npy"
    with zf.open(member) as f:
        version = np.lib.format.read_magic(f)
        header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                  else np.lib.format.read_array_header_2_0)(f)
        file_shape, fortran, file_dtype = header
        if file_dtype != dtype or tuple(file_shape) != shape:
            raise _Corrupt(f"array {key!r} is stored as {file_dtype} {list(file_shape)} but described as "
                           f"{dtype} {list(shape)} (tampered).")
        nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        if zf.getinfo(member).file_size < nbytes:
            raise _Corrupt(f"array {key!r} is shorter than its shape {list(shape)} needs (truncated).")
        data = _allocate(key, nbytes)
        if _read_into(f, data) != nbytes or f.read(1):
            raise _Corrupt(f"array {key!r} has the wrong number of bytes (truncated or tampered).")
    if hashlib.sha256(data).hexdigest() != spec["sha256"]:
        raise _Corrupt(f"array {key!r} does not match its sha256 (corrupted or tampered).")
    array = np.frombuffer(data, dtype=dtype).reshape(shape, order="F" if fortran else "C")
    return np.ascontiguousarray(array) if fortran else array


def _allocate(key: str, nbytes: int) -> bytearray:
    try:
        return bytearray(nbytes)
    except MemoryError:
        raise MemoryError(f"array {key!r} needs {nbytes} bytes ({nbytes / 2**30:.2f} GiB), which could not be "
                          "allocated; the file holds them, but this machine (or its memory limit) cannot.") from None


def _read_into(f, data: bytearray) -> int:
    """Fill `data` from `f` in pieces: a zip member's readinto would otherwise read the whole array into
    a temporary bytes object first, doubling the peak memory of a load."""
    view = memoryview(data)
    pos = 0
    while pos < len(data):
        got = f.readinto(view[pos:pos + _READ_CHUNK])
        if not got:
            break
        pos += got
    return pos


def _build(node, arrays: dict[str, np.ndarray], return_numpy: bool):
    if not isinstance(node, dict) or not isinstance(node.get("type"), str):
        raise _Corrupt(f"a structure node is malformed: {str(node)[:80]!r}.")
    kind = node["type"]
    if kind in ("tensor", "ndarray", "numpy_scalar"):
        array = arrays.get(node.get("array"))
        if array is None:
            raise _Corrupt(f"a {kind} refers to array {node.get('array')!r}, which the file does not list.")
        if kind == "numpy_scalar":
            return array[()]
        if kind == "ndarray" or return_numpy:
            return array
        t = Tensor._wrap(array)
        t.stop_gradient = bool(node.get("stop_gradient", True))
        if isinstance(node.get("name"), str):
            t.name = node["name"]
        return t
    if kind == "dict":
        items = node.get("items")
        if not isinstance(items, list) or not all(isinstance(i, list) and len(i) == 2 and isinstance(i[0], dict)
                                                  and i[0].get("type") in _KEY_TYPES for i in items):
            raise _Corrupt("a dict node's items are malformed.")
        return {_build(k, arrays, return_numpy): _build(v, arrays, return_numpy) for k, v in items}
    if kind in ("list", "tuple"):
        if not isinstance(node.get("items"), list):
            raise _Corrupt(f"a {kind} node's items are malformed.")
        values = [_build(v, arrays, return_numpy) for v in node["items"]]
        return tuple(values) if kind == "tuple" else values
    return _scalar(kind, node)


def _scalar(kind: str, node: dict):
    if kind == "none":
        return None
    if kind == "float":
        try:
            return float(node["value"])
        except (KeyError, TypeError, ValueError):
            raise _Corrupt(f"a float node holds {node.get('value')!r}.") from None
    expected = _SCALAR_TYPES.get(kind)
    if expected is None:
        raise _Corrupt(f"unknown node type {kind!r}.")
    value = node.get("value")
    if type(value) is not expected:
        raise _Corrupt(f"a {kind} node holds {value!r}.")
    return value
