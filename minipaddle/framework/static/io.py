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
Every file is written to a temporary file and renamed into place, so a crash never leaves half a
model. Files can come from someone else, so every read is checked and a damaged file is refused
whole with a clear error. Files with minipaddle's older names (`.pdmodel.json`, `.pdiparams.npz`)
are still read.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
import zipfile

import numpy as np

from ..errors import invalid_argument, not_found, precondition_not_met
from ..io import read_arrays, write_arrays
from .executor import Executor, global_scope
from .program import Program, var_names

FORMAT = "minipaddle.inference_model"
MODEL_SUFFIX = ".json"            # what Paddle 3 (PIR) writes; Paddle 2 wrote .pdmodel
OLD_MODEL_SUFFIX = ".pdmodel.json"    # minipaddle's earlier names, still read
OLD_SUFFIX_NPZ = ".npz"


# ---- file names -----------------------------------------------------------------------------------
def model_path(prefix: str) -> str:
    """The program file of a saved model: `prefix.json`, else the older `prefix.pdmodel.json`."""
    new, old = prefix + MODEL_SUFFIX, prefix + OLD_MODEL_SUFFIX
    return old if not os.path.exists(new) and os.path.exists(old) else new


def params_path(prefix: str, kind: str = "pdiparams") -> str:
    """The parameter file: `prefix.pdiparams` (kind), else the older `prefix.pdiparams.npz`."""
    new, old = f"{prefix}.{kind}", f"{prefix}.{kind}{OLD_SUFFIX_NPZ}"
    return old if not os.path.exists(new) and os.path.exists(old) else new


def read_params(api: str, path: str) -> dict:
    """{name: array} from a parameter file (an older `.npz` one too)."""
    return read_params_npz(api, path) if path.endswith(OLD_SUFFIX_NPZ) else read_arrays(api, path)


def _checksum(meta: dict) -> str:
    body = {k: v for k, v in meta.items() if k != "sha256"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode("utf-8")).hexdigest()


def write_json(path: str, meta: dict) -> None:
    """Write `meta` (with a sha256 of its content) to a temporary file, then rename it over `path`."""
    meta = dict(meta)
    meta["sha256"] = _checksum(meta)
    directory = os.path.dirname(path) or "."
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(meta, f)
            f.flush()
            os.fsync(f.fileno())
        mask = os.umask(0o022)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


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
    return {n: values[n] for n in names}


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
                      extra_arrays: dict | None = None) -> None:
    """`path_prefix.json` (the program, feed/fetch names, what each parameter is) and `path_prefix.<kind>`
    (the parameters, plus `extra_arrays` the JSON does not list). `extra` adds keys to the JSON."""
    meta = {"format": FORMAT, "version": 1, "program": program.to_dict(), "feed": feeds, "fetch": fetches,
            "params": {n: {"shape": list(a.shape), "dtype": str(a.dtype)} for n, a in params.items()}}
    meta.update(extra or {})
    arrays = {n: np.ascontiguousarray(a) for n, a in {**params, **(extra_arrays or {})}.items()}
    write_arrays(api, f"{path_prefix}.{kind}", arrays)
    write_json(f"{path_prefix}{MODEL_SUFFIX}", meta)


def read_model_json(api: str, path: str, format: str = FORMAT, what: str = "a minipaddle model file") -> dict:  # noqa: A002
    """A JSON object whose "format" is `format`; a missing, corrupted or foreign file is a clear error."""
    if not os.path.exists(path):
        raise not_found(api, f"no model file {path!r}.", hint="pass the same path_prefix save_inference_model got.")
    try:
        with open(path, encoding="utf-8") as f:
            meta = json.load(f)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise invalid_argument(api, f"{path!r} is not valid JSON ({e}); the file is corrupted.") from None
    if not isinstance(meta, dict) or meta.get("format") != format:
        raise invalid_argument(api, f"{path!r} is not {what} (format {format!r} expected).")
    if "sha256" in meta and meta["sha256"] != _checksum(meta):   # older files have none
        raise invalid_argument(api, f"{path!r} does not match its sha256: the file is corrupted or was edited.")
    return meta


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
    values = read_params(api, params_file)
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
    write_arrays(api, f"{model_path}.pdopt", opt)
    write_model_files(model_path, program, [], [], params, "pdparams", api=api)


def load_program_state(model_path: str, var_list=None) -> dict:
    """`paddle.static.load_program_state(path)`: {name: array} of what `static.save` wrote."""
    api = "static.load_program_state"
    model_path = strip_suffix(model_path, (".pdparams", ".pdopt", MODEL_SUFFIX))
    values = read_params(api, params_path(model_path, "pdparams"))
    opt = params_path(model_path, "pdopt")
    if os.path.exists(opt):
        values.update(read_params(api, opt))
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
    values = read_params(api, params_path(model_path, "pdparams"))
    opt = params_path(model_path, "pdopt")
    if os.path.exists(opt):
        values.update(read_params(api, opt))
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
