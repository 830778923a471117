"""Saving and loading static programs: inference models and training state. JSON + .npz, no pickle.

    paddle.static.save_inference_model("out/mnist", [x], [logits], exe)
        -> out/mnist.pdmodel.json     the program, pruned to what `logits` needs, plus feed/fetch names
           out/mnist.pdiparams.npz    the parameters it reads (np.load(allow_pickle=False) reads them back)
    program, feed_names, fetch_vars = paddle.static.load_inference_model("out/mnist", exe)

`static.save(program, path)` / `static.load(program, path)` keep every persistable variable
(parameters in `.pdparams.npz`, optimizer state in `.pdopt.npz`) for resuming training.
Files can come from someone else, so every read is checked and a bad file gives a clear error.
"""
from __future__ import annotations

import json
import os
import zipfile

import numpy as np

from ..errors import invalid_argument, not_found, precondition_not_met
from .executor import Executor, global_scope
from .program import Program, var_names

FORMAT = "minipaddle.inference_model"


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
    """Write `path_prefix.pdmodel.json` (the pruned program) and `path_prefix.pdiparams.npz` (its parameters)."""
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


def write_model_files(path_prefix: str, program: Program, feeds: list, fetches: list, params: dict, kind: str) -> None:
    directory = os.path.dirname(path_prefix)
    if directory:
        os.makedirs(directory, exist_ok=True)
    meta = {"format": FORMAT, "version": 1, "program": program.to_dict(), "feed": feeds, "fetch": fetches,
            "params": {n: {"shape": list(a.shape), "dtype": str(a.dtype)} for n, a in params.items()}}
    with open(f"{path_prefix}.pdmodel.json", "w", encoding="utf-8") as f:
        json.dump(meta, f)
    np.savez(f"{path_prefix}.{kind}.npz", **{n: np.ascontiguousarray(a) for n, a in params.items()})


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
    return meta


def read_params_npz(api: str, path: str) -> dict:
    if not os.path.exists(path):
        raise not_found(api, f"no parameter file {path!r}.")
    try:
        with np.load(path, allow_pickle=False) as npz:
            return {k: npz[k] for k in npz.files}
    except (zipfile.BadZipFile, ValueError, OSError, EOFError) as e:
        raise invalid_argument(api, f"{path!r} is not a readable .npz parameter file ({type(e).__name__}: {e}); "
                                    "the file is corrupted or not written by minipaddle.") from None


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
    """[program, feed_target_names, fetch_targets]; the parameters go into the global scope."""
    api = "load_inference_model"
    meta = read_model_json(api, f"{path_prefix}.pdmodel.json")
    program = Program.from_dict(meta.get("program"))
    values = read_params_npz(api, f"{path_prefix}.pdiparams.npz")
    check_params(api, meta.get("params", {}), values, f"{path_prefix}.pdiparams.npz")
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


def save(program: Program, model_path: str, protocol: int = 4, **configs) -> None:
    """Training state: parameters -> `model_path.pdparams.npz`, other persistables (optimizer
    accumulators, lr) -> `model_path.pdopt.npz`, the program -> `model_path.pdmodel.json`."""
    api = "static.save"
    if not isinstance(program, Program):
        raise invalid_argument(api, f"program must be a static.Program, got {type(program).__name__}.")
    scope = global_scope()
    persist = {v.name: v for v in program.list_vars() if v.persistable}
    values = _scope_values(api, scope, sorted(persist))
    params = {n: a for n, a in values.items() if persist[n].is_parameter}
    opt = {n: a for n, a in values.items() if not persist[n].is_parameter}
    write_model_files(model_path, program, [], [], params, "pdparams")
    np.savez(f"{model_path}.pdopt.npz", **opt)


def load(program: Program, model_path: str, executor: Executor | None = None, var_list=None) -> None:
    """Load what `static.save` wrote into the global scope, checking names, shapes and dtypes."""
    api = "static.load"
    values = read_params_npz(api, f"{model_path}.pdparams.npz")
    if os.path.exists(f"{model_path}.pdopt.npz"):
        values.update(read_params_npz(api, f"{model_path}.pdopt.npz"))
    wanted = {v.name: v for v in program.list_vars() if v.persistable}
    if var_list is not None:
        names = set(var_names(api, "var_list", var_list))
        wanted = {k: v for k, v in wanted.items() if k in names}
    scope = global_scope()
    for name, var in wanted.items():
        if name not in values:
            if var.is_parameter:
                raise invalid_argument(api, f"the saved state has no value for parameter {name!r}.",
                                       hint="the files were saved from a different program.")
            continue
        a = values[name]
        want = var._data
        if a.dtype != want.dtype or len(a.shape) != len(want.shape) or any(
                d != -1 and d != s for d, s in zip(want.shape, a.shape)):
            raise invalid_argument(api, f"saved {name!r} is {a.dtype}{list(a.shape)}, the program expects "
                                        f"{want.dtype}{list(want.shape)}.")
        scope._set(name, a)
