"""Saving and loading static programs: inference models and training state. JSON + archives, no pickle.

    paddle.static.save_inference_model("out/mnist", [x], [logits], exe)
        -> out/mnist.json         the program, pruned to what `logits` needs, plus feed/fetch names
           out/mnist.pdiparams    the parameters it reads
    program, feed_names, fetch_vars = paddle.static.load_inference_model("out/mnist", exe)

`static.save(program, path)` / `static.load(program, path)` keep every persistable variable
(parameters in `path.pdparams`, optimizer state in `path.pdopt`, the program in `path.json`) for
resuming training. These are the names Paddle 3 (PIR) writes. Inside they are minipaddle's safe
formats: the `.json` is JSON with a sha256 of its content, and `.pdiparams` / `.pdparams` / `.pdopt`
are `paddle.save` archives ({name: array}, a sha256 per array; `np.load` opens them for a look).

The `.json` is also the save's *manifest*: under "files" it lists the digest of every other file of
the save, keyed by its suffix after the prefix (".pdiparams"; static.save: ".pdparams", ".pdopt"),
so renaming a model's files together keeps it loadable while pairing files of different saves is
refused. The files are written as a unit (save_unit): temporary files, then renames, the manifest
last. Files can come from someone else, so every read is checked (JSON size and depth too) and a
damaged file is refused whole with a clear error naming it. Files with minipaddle's older names
(`.pdmodel.json`, `.pdiparams.npz`) are still read.
"""
from __future__ import annotations

import hashlib
import json
import os
import zipfile

import numpy as np

from .. import bounded_json, gpu
from ..errors import invalid_argument, not_found, precondition_not_met
from ..io import read_arrays_digest, write_arrays
from ..save_unit import SaveUnit
from .executor import Executor, global_scope
from .program import Program, var_names

FORMAT = "minipaddle.inference_model"
MODEL_SUFFIX = ".json"            # what Paddle 3 (PIR) writes; Paddle 2 wrote .pdmodel
OLD_MODEL_SUFFIX = ".pdmodel.json"    # minipaddle's earlier names, still read
OLD_SUFFIX_NPZ = ".npz"
VERSION = 2    # 2: the JSON lists the digests of the save's other files ("files"); 1 had no manifest


# ---- file names -----------------------------------------------------------------------------------
def model_path(prefix: str) -> str:
    """The program file of a saved model: `prefix.json`, else the older `prefix.pdmodel.json`."""
    new, old = prefix + MODEL_SUFFIX, prefix + OLD_MODEL_SUFFIX
    return old if not os.path.exists(new) and os.path.exists(old) else new


def params_path(prefix: str, kind: str = "pdiparams") -> str:
    """The parameter file: `prefix.pdiparams` (kind), else the older `prefix.pdiparams.npz`."""
    new, old = f"{prefix}.{kind}", f"{prefix}.{kind}{OLD_SUFFIX_NPZ}"
    return old if not os.path.exists(new) and os.path.exists(old) else new


def read_params(api: str, path: str, manifest: dict | None = None, suffix: str = ".pdiparams") -> dict:
    """{name: array} from a parameter file (an older `.npz` one too). With the `manifest` of the save's
    JSON, the file must be the one it lists under `suffix`."""
    if path.endswith(OLD_SUFFIX_NPZ):
        if manifest is not None:   # an older-format file cannot be checked: it would bypass the manifest
            raise invalid_argument(api, f"the save's manifest lists a {suffix!r} file, but only {path!r} (an "
                                        "older-format file it cannot check) is there.",
                                   hint="the files come from different saves: save the model again.")
        return read_params_npz(api, path)
    digest = None
    if manifest is not None:
        digest = manifest.get(suffix)
        if not isinstance(digest, str):
            raise invalid_argument(api, f"the save's manifest lists no {suffix!r} file, so {path!r} cannot be "
                                        "checked against it (corrupted or tampered).")
    return read_arrays_digest(api, path, digest)[0]


def _checksum(meta: dict) -> str:
    body = {k: v for k, v in meta.items() if k != "sha256"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode("utf-8")).hexdigest()


def write_json(unit: SaveUnit, path: str, meta: dict) -> str:
    """Write `meta`, with a sha256 of its content, as a file of `unit`; return that sha256 (its digest).
    A JSON that loading would refuse (too large or too deeply nested) is refused here, before any file
    of the save is renamed into place."""
    meta = dict(meta)
    meta["sha256"] = _checksum(meta)
    text = json.dumps(meta).encode("utf-8")
    try:
        bounded_json.check(text, os.path.basename(path))
    except ValueError as err:
        raise invalid_argument(unit.api, f"{err} Loading would refuse it, so it is not saved.",
                               hint="large constants belong in parameters (paddle.create_parameter), not in "
                                    "the program.") from None

    def write(f) -> str:
        f.write(text)
        return meta["sha256"]
    return unit.add(path, write)


def prune(program: Program, feed_names: list[str], fetch_names: list[str]) -> Program:
    """A for_test copy of `program` keeping only the global-block ops the fetches need (feeds are inputs)."""
    pruned = program.clone(for_test=True)
    gb = pruned.global_block()
    need = set(fetch_names)
    keep = []
    for op in reversed(gb.ops):
        outs = op.output_names()
        if any(n in need for n in outs) and not all(n in feed_names for n in outs):
            keep.append(op)
            need.update(n for n in op.input_names() if n not in feed_names)
    gb.ops = keep[::-1]
    used = set(feed_names) | set(fetch_names)
    for block in pruned.blocks:
        for op in block.ops:
            used.update(op.input_names())
            used.update(op.output_names())
    gb.vars = {k: v for k, v in gb.vars.items() if k in used}
    pruned._bump()
    return pruned


def _scope_values(api: str, scope, names: list[str]) -> dict:
    values = scope.values()
    missing = [n for n in names if n not in values]
    if missing:
        raise precondition_not_met(api, f"persistable variables {missing[:5]} have no value in the scope.",
                                   hint="run the startup program (and train) before saving.")
    return {n: gpu.to_host(values[n]) for n in names}  # a GPU Executor's values are device arrays


def save_inference_model(path_prefix: str, feed_vars, fetch_vars, executor: Executor, program: Program | None = None,
                         **kwargs) -> None:
    """Write `path_prefix.json` (the pruned program) and `path_prefix.pdiparams` (its parameters)."""
    from .builder import default_main_program
    api = "save_inference_model"
    if not isinstance(path_prefix, str) or not path_prefix or path_prefix.endswith(os.sep):
        raise invalid_argument(api, f"path_prefix must be a file prefix like 'out/model', got {path_prefix!r}.")
    program = default_main_program() if program is None else program
    feed_names = var_names(api, "feed_vars", feed_vars)
    fetch_names = var_names(api, "fetch_vars", fetch_vars)
    for n in feed_names + fetch_names:
        if program.global_block()._find_var_recursive(n) is None:
            raise not_found(api, f"variable {n!r} is not in the program.")
    pruned = prune(program, feed_names, fetch_names)
    persist = sorted({v.name for v in pruned.list_vars() if v.persistable})
    params = _scope_values(api, kwargs.get("scope") or global_scope(), persist)
    write_model_files(path_prefix, pruned, feed_names, fetch_names, params, "pdiparams")


def write_model_files(path_prefix: str, program: Program, feeds: list, fetches: list, params: dict, kind: str,
                      extra: dict | None = None, api: str = "save_inference_model",
                      extra_arrays: dict | None = None, unit: SaveUnit | None = None,
                      manifest: dict | None = None) -> str:
    """`path_prefix.json` (the program, feed/fetch names, what each parameter is) and `path_prefix.<kind>`
    (the parameters, plus `extra_arrays` the JSON does not list). `extra` adds keys to the JSON;
    `manifest` ({suffix: digest}) lists further files of the save. The JSON is written last, as the
    manifest; with `unit` both are files of that save (committed by its owner), else a save of their
    own. Returns the JSON's digest."""
    if unit is None:
        with SaveUnit(api) as own:
            return write_model_files(path_prefix, program, feeds, fetches, params, kind, extra, api, extra_arrays,
                                     own, manifest)
    meta = {"format": FORMAT, "version": VERSION, "program": program.to_dict(), "feed": feeds, "fetch": fetches,
            "params": {n: {"shape": list(a.shape), "dtype": str(a.dtype)} for n, a in params.items()}}
    meta.update(extra or {})
    arrays = {n: np.ascontiguousarray(a) for n, a in {**params, **(extra_arrays or {})}.items()}
    files = dict(manifest or {})
    files[f".{kind}"] = write_arrays(api, f"{path_prefix}.{kind}", arrays, unit)
    meta["files"] = files
    return write_json(unit, f"{path_prefix}{MODEL_SUFFIX}", meta)


def read_model_json(api: str, path: str, format: str = FORMAT, what: str = "a minipaddle model file") -> dict:  # noqa: A002
    """A JSON object whose "format" is `format`, its sha256 checked; a missing, corrupted or foreign file
    is a clear error. Only files with minipaddle's older names (`.pdmodel.json`, `.pdinfo.json`) may
    lack the sha256; a current file must carry it and, from version 2, its save's manifest."""
    if not os.path.exists(path):
        raise not_found(api, f"no model file {path!r}.", hint="pass the same path_prefix save_inference_model got.")
    try:
        meta = bounded_json.load_file(path, repr(path))
    except ValueError as e:
        raise invalid_argument(api, f"cannot load {path!r}: {e} The file is corrupted.") from None
    if not isinstance(meta, dict) or meta.get("format") != format:
        raise invalid_argument(api, f"{path!r} is not {what} (format {format!r} expected).")
    older = path.endswith((OLD_MODEL_SUFFIX, ".pdinfo.json"))
    if "sha256" not in meta and not older:
        raise invalid_argument(api, f"{path!r} carries no sha256 (every file jit.save / save_inference_model / "
                                    "static.save writes has one): the file is corrupted or was edited.")
    if "sha256" in meta and meta["sha256"] != _checksum(meta):
        raise invalid_argument(api, f"{path!r} does not match its sha256: the file is corrupted or was edited.")
    if format == FORMAT and not older and meta.get("version") not in (1, VERSION):
        raise invalid_argument(api, f"{path!r} has format version {meta.get('version')!r}; this minipaddle reads "
                                    f"1 and {VERSION}.")
    return meta


def manifest_of(api: str, meta: dict, path: str) -> dict | None:
    """{suffix: digest} of the save's other files, from its JSON (None for files older than manifests)."""
    if meta.get("version") != VERSION or meta.get("format") != FORMAT:
        return None
    files = meta.get("files")
    if not isinstance(files, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in files.items()):
        raise invalid_argument(api, f"{path!r}: its manifest ('files') is missing or malformed; the file is "
                                    "corrupted.")
    return files


def check_json_digest(api: str, meta: dict, path: str, manifest: dict | None, suffix: str) -> None:
    """A JSON file of a save (a jit method's) must be the one the save's manifest lists under `suffix`."""
    if manifest is None:
        return
    if manifest.get(suffix) != meta.get("sha256"):
        raise invalid_argument(api, f"{path!r} is not the file its save's manifest lists: the files come from "
                                    "different saves (a save interrupted between its renames, or a file copied "
                                    "in from elsewhere).", hint="save again, or restore the files together.")


def read_params_npz(api: str, path: str) -> dict:
    """{name: array} from an older `.npz` parameter file (np.savez), each array's size checked against
    the bytes it really has before numpy allocates it."""
    if not os.path.exists(path):
        raise not_found(api, f"no parameter file {path!r}.")
    try:
        _check_npz_sizes(path)
        with np.load(path, allow_pickle=False) as npz:
            return {k: npz[k] for k in npz.files}
    except (zipfile.BadZipFile, ValueError, OSError, EOFError) as e:
        raise invalid_argument(api, f"{path!r} is not a readable .npz parameter file ({type(e).__name__}: {e}); "
                                    "the file is corrupted or not written by minipaddle.") from None


def _check_npz_sizes(path: str) -> None:
    real = os.path.getsize(path)
    with zipfile.ZipFile(path) as zf:
        for info in zf.infolist():
            if info.compress_type != zipfile.ZIP_STORED or info.header_offset + info.compress_size > real:
                raise ValueError(f"member {info.filename!r} is compressed or lies past the end of the file")
            with zf.open(info) as f:
                version = np.lib.format.read_magic(f)
                read_header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                               else np.lib.format.read_array_header_2_0)
                shape, _, dtype = read_header(f)
            if int(np.prod(shape, dtype=np.int64)) * dtype.itemsize > info.file_size:
                raise ValueError(f"member {info.filename!r} claims shape {list(shape)}, more than its "
                                 f"{info.file_size} bytes")


def check_params(api: str, expected: dict, values: dict, path: str) -> None:
    for name, spec in expected.items():
        if name not in values:
            raise invalid_argument(api, f"{path!r} has no array {name!r}, which the model needs.",
                                   hint="the .npz and .json files do not belong together.")
        a = values[name]
        if list(a.shape) != list(spec["shape"]) or str(a.dtype) != spec["dtype"]:
            raise invalid_argument(api, f"{path!r}: {name!r} is {a.dtype}{list(a.shape)}, the model expects "
                                        f"{spec['dtype']}{spec['shape']}.",
                                   hint="the .npz and .json files do not belong together.")


def load_inference_model(path_prefix: str, executor: Executor, **kwargs) -> list:
    """[program, feed_target_names, fetch_targets]; the parameters go into the global scope.

    `path_prefix` is what save_inference_model got (`out/mnist`); `out/mnist.json` works too."""
    api = "load_inference_model"
    if not isinstance(path_prefix, str) or not path_prefix:
        raise invalid_argument(api, f"path_prefix must be a file prefix like 'out/model', got {path_prefix!r}.")
    prefix = strip_suffix(path_prefix, (MODEL_SUFFIX, ".pdmodel", ".pdiparams"))
    program, meta, values = read_inference_files(api, prefix)
    scope = kwargs.get("scope") or global_scope()
    for name, value in values.items():
        scope._set(name, value)
    gb = program.global_block()
    try:
        fetch = [gb.var(n) for n in meta["fetch"]]
        feeds = [gb.var(n).name for n in meta["feed"]]
    except (KeyError, TypeError) as e:
        raise invalid_argument(api, f"the model file names feeds/fetches the program lacks ({e}).") from None
    return [program, feeds, fetch]


def strip_suffix(path: str, suffixes: tuple) -> str:
    """'out/m.json' -> 'out/m' when a model was saved at 'out/m' (the prefix is what names the files)."""
    for suffix in sorted(suffixes, key=len, reverse=True):
        if path.endswith(suffix) and not os.path.exists(model_path(path)):
            return path[: -len(suffix)]
    return path


def read_inference_files(api: str, prefix: str, model_file: str | None = None,
                         params_file: str | None = None) -> tuple:
    """(program, meta, {name: array}) of an inference model, every file checked against the others."""
    model_file = model_file or model_path(prefix)
    meta = read_model_json(api, model_file)
    program = _program_from(api, meta, model_file)
    params_file = params_file or params_path(prefix)
    values = read_params(api, params_file, manifest_of(api, meta, model_file))
    expected = meta.get("params", {})
    if not isinstance(expected, dict):
        raise invalid_argument(api, f"{model_file}: 'params' is malformed; the file is corrupted.")
    check_params(api, expected, values, params_file)
    return program, meta, values


def _program_from(api: str, meta: dict, path: str) -> Program:
    try:
        return Program.from_dict(meta.get("program"))
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise invalid_argument(api, f"{path!r} holds a malformed program ({type(e).__name__}: {e}); the file is "
                                    "corrupted.") from None


def save(program: Program, model_path: str, protocol: int = 4, **configs) -> None:
    """Training state: parameters -> `model_path.pdparams`, other persistables (optimizer
    accumulators, lr) -> `model_path.pdopt`, the program -> `model_path.json` (Paddle 3's names)."""
    api = "static.save"
    if not isinstance(program, Program):
        raise invalid_argument(api, f"program must be a static.Program, got {type(program).__name__}.")
    if not isinstance(model_path, str) or not model_path or model_path.endswith(("/", os.sep)):
        raise invalid_argument(api, f"model_path must be a file prefix like 'out/model', got {model_path!r}.")
    scope = global_scope()
    persist = {v.name: v for v in program.list_vars() if v.persistable}
    values = _scope_values(api, scope, sorted(persist))
    params = {n: a for n, a in values.items() if persist[n].is_parameter}
    opt = {n: a for n, a in values.items() if not persist[n].is_parameter}
    with SaveUnit(api) as unit:   # .pdopt, .pdparams, then the .json that lists both
        opt_digest = write_arrays(api, f"{model_path}.pdopt", opt, unit)
        write_model_files(model_path, program, [], [], params, "pdparams", api=api, unit=unit,
                          manifest={".pdopt": opt_digest})


def _read_training_state(api: str, model_path: str) -> dict:
    """{name: array} of `.pdparams` + `.pdopt`, both checked against the `.json` manifest static.save
    wrote beside them (files with the older names have none)."""
    params_file, opt = params_path(model_path, "pdparams"), params_path(model_path, "pdopt")
    model_file = model_path + MODEL_SUFFIX
    manifest = None
    if os.path.exists(model_file):
        manifest = manifest_of(api, read_model_json(api, model_file), model_file)
    elif not params_file.endswith(OLD_SUFFIX_NPZ):
        raise not_found(api, f"no {model_file!r} beside {params_file!r}: static.save writes it last, as the "
                             "manifest of the save, so the save was interrupted or the file is missing.",
                        hint="save again, or copy the .json with the .pdparams / .pdopt files.")
    values = read_params(api, params_file, manifest, ".pdparams")
    if os.path.exists(opt):
        values.update(read_params(api, opt, manifest, ".pdopt"))
    elif manifest is not None and ".pdopt" in manifest:
        raise not_found(api, f"no {opt!r}, which the save's manifest lists.",
                        hint="copy the .pdopt file with the others.")
    return values


def load_program_state(model_path: str, var_list=None) -> dict:
    """`paddle.static.load_program_state(path)`: {name: array} of what `static.save` wrote."""
    api = "static.load_program_state"
    model_path = strip_suffix(model_path, (".pdparams", ".pdopt", MODEL_SUFFIX))
    values = _read_training_state(api, model_path)
    if var_list is not None:
        names = set(var_names(api, "var_list", var_list))
        values = {k: v for k, v in values.items() if k in names}
    return values


def set_program_state(program: Program, state_dict: dict) -> None:
    """`paddle.static.set_program_state(program, state)`: the same as `program.set_state_dict(state)`."""
    program.set_state_dict(state_dict)


def load(program: Program, model_path: str, executor: Executor | None = None, var_list=None) -> None:
    """Load what `static.save` wrote into the global scope, checking names, shapes and dtypes."""
    api = "static.load"
    if not isinstance(program, Program):
        raise invalid_argument(api, f"program must be a static.Program, got {type(program).__name__}.")
    model_path = strip_suffix(model_path, (".pdparams", ".pdopt", MODEL_SUFFIX))
    values = _read_training_state(api, model_path)
    wanted = {v.name: v for v in program.list_vars() if v.persistable}
    if var_list is not None:
        names = set(var_names(api, "var_list", var_list))
        wanted = {k: v for k, v in wanted.items() if k in names}
    checked = {}
    for name, var in wanted.items():
        if name not in values:
            if var.is_parameter:
                raise invalid_argument(api, f"the saved state has no value for parameter {name!r}.",
                                       hint="the files were saved from a different program.")
            continue
        checked[name] = check_value(api, var, values[name], f"saved {name!r}")
    scope = global_scope()
    for name, value in checked.items():   # nothing is set unless everything fits
        scope._set(name, value)


def check_value(api: str, var, value: np.ndarray, what: str) -> np.ndarray:
    """`value` if it fits `var` (dtype, rank, every known dim), else a clear error."""
    want = var._data
    if value.dtype != want.dtype or len(value.shape) != len(want.shape) or any(
            d != -1 and d != s for d, s in zip(want.shape, value.shape)):
        raise invalid_argument(api, f"{what} is {value.dtype}{list(value.shape)}, the program expects "
                                    f"{want.dtype}{list(want.shape)}.")
    return value
