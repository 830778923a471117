"""paddle.jit.save / paddle.jit.load: one save format for dygraph and static models.

    paddle.jit.save(model, "out/mnist", input_spec=[InputSpec([None, 1, 28, 28], "float32", "image")])
      -> out/mnist.json          the inference Program (static.load_inference_model reads these two files
         out/mnist.pdiparams     and its parameters           as they are), plus under "jit": structured
                                 parameter names, the output structure and, when the model trains
                                 differently (dropout), the training Program
         out/mnist.infer.json    each other @to_static method of the Layer (here `infer`), as Paddle 3
         out/mnist.infer.pdiparams   names them; the loaded model has them as methods (`model.infer(x)`)
    model = paddle.jit.load("out/mnist")      # a TranslatedLayer: run it, fine-tune it

These are the file names Paddle 3.3.1 writes (see static/io.py for what is inside them; files with
minipaddle's older names, `.pdmodel.json` / `.pdiparams.npz` / `.pdinfo.json`, are still read).
All of them are one save (save_unit): written to temporary files, then renamed, `<path>.json` last;
its manifest lists the digest of every other file (each method's `.json` lists its own `.pdiparams`),
and jit.load checks every file against it before building anything.

A plain Layer (or function) is traced: called once under `program_guard` on `static.data` made from
`input_spec`, in eval mode for the saved Program and in train mode for the training variant -- fine
for models without data-dependent Python control flow. A `@to_static` function or Layer gives its
Program through `get_concrete_program(*input_spec)`, cond/while ops included; with no input_spec,
the Program its calls built (one built in train mode is saved for inference as Paddle does: dropout off,
batch norm on its running statistics). No pickle: the files
may come from someone else, so every read is checked and a bad file gives a clear error.
"""
from __future__ import annotations

import inspect
import json
import os
import warnings

import numpy as np

from ..framework.errors import invalid_argument, not_found
from ..framework.parameter import Parameter
from ..framework.static import builder
from ..framework.static import io as static_io
from ..framework.save_unit import SaveUnit
from ..framework.static.program import Program, Variable
from ..framework.tensor import Tensor
from ..nn.layer.layers import Layer
from .input_spec import InputSpec
from .translated_layer import TranslatedLayer

__all__ = ["save", "load"]

INFO_FORMAT = "minipaddle.jit_info"
# Paddle's jit.save configs that mean something here; clip_extra and combine_params are no-ops (ops
# carry no extra attrs; parameters are always one .npz)
_KNOWN_CONFIGS = ("output_spec", "skip_prune_program", "clip_extra", "combine_params")


# ---- what a traced model is -------------------------------------------------------------------------
class Traced:
    """A Program built from a model, with its feeds, fetches and the Tensors behind its persistables."""

    def __init__(self, program: Program, feed_names: list[str], fetch_names: list[str], structure: str,
                 values: dict[str, Tensor], structured: dict[str, tuple[str, str]]) -> None:
        self.program, self.feed_names, self.fetch_names = program, feed_names, fetch_names
        self.structure = structure
        self.values = values          # var name -> the model's Parameter / buffer Tensor
        self.structured = structured  # var name -> (structured name, 'parameter' | 'buffer')


def _specs(api: str, input_spec) -> list[InputSpec]:
    if input_spec is None:
        raise invalid_argument(api, "input_spec is needed to build a Program from a plain Layer or function.",
                               hint="pass input_spec=[paddle.static.InputSpec([None, 784], 'float32', 'x')], "
                                    "or decorate forward with @paddle.jit.to_static(input_spec=...).")
    if not isinstance(input_spec, (list, tuple)):
        input_spec = [input_spec]
    out = []
    for i, spec in enumerate(input_spec):
        if isinstance(spec, InputSpec):
            out.append(spec)
        elif isinstance(spec, Tensor):
            out.append(InputSpec.from_tensor(spec))
        elif isinstance(spec, np.ndarray):
            out.append(InputSpec.from_numpy(spec))
        else:
            raise invalid_argument(api, f"input_spec[{i}] is a {type(spec).__name__}, expected an InputSpec or "
                                        "a Tensor.")
    return out


def _arg_names(fn, count: int) -> list[str]:
    """The forward's parameter names (Paddle names feeds after them), else input_0, input_1, ..."""
    try:
        params = [p.name for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    return [params[i] if i < len(params) else f"input_{i}" for i in range(count)]


def _flatten_outputs(api: str, outs) -> tuple[list[Variable], str]:
    if isinstance(outs, Variable):
        return [outs], "single"
    if isinstance(outs, (list, tuple)) and outs and all(isinstance(o, Variable) for o in outs):
        return list(outs), type(outs).__name__
    raise invalid_argument(api, f"the model returned {type(outs).__name__}; a saved model must return a Tensor "
                                "or a list/tuple of Tensors.")


def _owner_names(layer) -> dict[int, tuple[str, str]]:
    """id(tensor) -> (structured name, kind) for a Layer's parameters and persistable buffers."""
    names: dict[int, tuple[str, str]] = {}
    if isinstance(layer, Layer):
        for name, p in layer.named_parameters():
            names.setdefault(id(p), (name, "parameter"))
        for name, b in layer.state_dict().items():
            names.setdefault(id(b), (name, "parameter" if isinstance(b, Parameter) else "buffer"))
    return names


def _buffers_as_parameters(layer) -> list[tuple[Layer, str, Tensor, Parameter, str]]:
    """Swap each persistable buffer for a frozen Parameter holding a copy of it, so the static builder lifts
    it as a persistable variable (saved in the .npz) instead of baking it in as a constant. A copy: a
    train-mode trace may try to update running statistics in place, and must not touch the model's."""
    swapped = []
    if isinstance(layer, Layer):
        for path, sub in layer.named_sublayers(include_self=True):
            for name, buf in list(sub._buffers.items()):
                if buf is None or name in sub._non_persistable_buffer_names or isinstance(buf, Parameter):
                    continue
                frozen = Parameter(buf._data.copy(), name=f"{sub._full_name}.{name}", trainable=False)
                sub._buffers[name] = frozen
                swapped.append((sub, name, buf, frozen, f"{path}.{name}" if path else name))
    return swapped


def trace_program(api: str, fn, specs: list[InputSpec], layer=None, names: list[str] | None = None) -> Traced:
    """Call `fn` once under a fresh program_guard on static.data variables made from `specs`."""
    main, startup = Program(), Program()
    names = names or [s.name or n for s, n in zip(specs, _arg_names(fn, len(specs)))]
    swapped = _buffers_as_parameters(layer)
    try:
        with builder.program_guard(main, startup):
            feeds = [builder.data(n, list(s.shape), s.np_dtype) for n, s in zip(names, specs)]
            outs, structure = _flatten_outputs(api, fn(*feeds))
    finally:
        for sub, name, buf, _, _ in swapped:
            sub._buffers[name] = buf
    tensors: dict[str, Tensor] = {}
    structured: dict[str, tuple[str, str]] = {}
    if isinstance(layer, Layer):
        for sname, p in layer.named_parameters():
            tensors.setdefault(p.name, p)
            structured.setdefault(p.name, (sname, "parameter"))
        for _, _, buf, frozen, path in swapped:
            tensors[frozen.name], structured[frozen.name] = buf, (path, "buffer")
    persist = [v.name for v in main.global_block().vars.values() if v.persistable]
    layer_order = {n: i for i, n in enumerate(tensors)}   # the layer's own order, as its state_dict lists them
    persist.sort(key=lambda n: layer_order.get(n, len(layer_order)))
    missing = [n for n in persist if n not in tensors]
    if missing:  # parameters a function reaches by closure: their values are the startup program's
        tensors.update(_startup_values(startup, missing))
    values = {n: tensors.get(n) for n in persist}
    structured = {n: structured.get(n, (n, "parameter")) for n in persist}
    return Traced(main, names, [o.name for o in outs], structure, values, structured)


def _startup_values(startup: Program, names: list[str]) -> dict[str, Tensor]:
    from ..framework.static.executor import Executor, Scope
    scope = Scope()
    Executor().run(startup, scope=scope)
    found = scope.values()
    return {n: Tensor._wrap(found[n]) for n in names if n in found}


def _set_mode(layer, training: bool) -> list:
    if not isinstance(layer, Layer):
        return []
    modes = [(sub, sub.training) for sub in layer.sublayers(include_self=True)]
    layer.train() if training else layer.eval()
    return modes


def _restore_mode(modes: list) -> None:
    for sub, was in modes:
        sub.__dict__["training"] = was


# ---- getting a Program out of what the user passed ---------------------------------------------
def _static_function(obj):
    """The @to_static function behind `obj` (a StaticFunction, or a Layer whose forward is one), else None."""
    if hasattr(obj, "get_concrete_program"):
        return obj
    forward = getattr(obj, "forward", None) if isinstance(obj, Layer) else None
    return forward if hasattr(forward, "get_concrete_program") else None


def _from_static_function(api: str, static_fn, specs, layer) -> Traced:
    """The Program H-jit-convert's StaticFunction builds (cond/while included) as a Traced."""
    specs = specs or getattr(static_fn, "_input_spec", None)  # else the decorator's input_spec
    if specs:
        got = static_fn.get_concrete_program(*specs)
    else:  # neither: a Program built by an earlier call, in the layer's current train/eval mode if there is one
        got = _cached_program(static_fn, layer)
    concrete = got[0] if isinstance(got, tuple) else got
    program = concrete.main_program
    feeds = [v.name for v in concrete.inputs if isinstance(v, Variable)]
    outs, structure = _flatten_outputs(api, concrete.outputs)
    out_spec = getattr(concrete, "_out_spec", None)  # (structure, leaves): what the function returned
    if out_spec is not None and out_spec[0] is None:
        structure = "single"
    elif out_spec is not None and out_spec[0][0] in (tuple, list):
        structure = out_spec[0][0].__name__
    elif len(outs) == 1:  # a concrete program lists its outputs even when there is one
        structure = "single"
    tensors = {p.name: p for p in getattr(concrete, "parameters", None) or []}
    tensors.update(getattr(concrete, "buffers", None) or {})   # a closure's batch norm statistics too
    if isinstance(layer, Layer):
        tensors.update({p.name: p for p in layer.parameters() + layer.buffers()})
    own = _owner_names(layer)
    values, structured = {}, {}
    for var in program.global_block().vars.values():
        if var.persistable and var.name in tensors:
            values[var.name] = tensors[var.name]
            kind = "parameter" if var.is_parameter else "buffer"
            structured[var.name] = own.get(id(tensors[var.name]), (var.name, kind))
    return Traced(program, feeds, [o.name for o in outs], structure, values, structured)


def _cached_program(static_fn, layer):
    """The Program built for the layer's current mode, else (as Paddle) the last one built in any mode."""
    training = getattr(layer, "training", None)
    cache = getattr(static_fn, "program_cache", {})
    if training is not None:
        for key, concrete in cache.items():
            if isinstance(key, tuple) and key and key[-1] == training:
                return concrete
    if cache:
        return list(cache.values())[-1]
    name = getattr(static_fn, "__name__", "forward")
    raise invalid_argument("jit.save", f"no Program for {name}(): it was never called and has no input_spec.",
                           hint=f"call {name}(...) once before saving, or give @to_static an input_spec"
                                + (" (or pass input_spec to jit.save)." if name == "forward" else "."))


def _build(api: str, obj, specs, training: bool) -> Traced:
    modes = _set_mode(obj, training)
    try:
        static_fn = _static_function(obj)
        if static_fn is not None:
            return _from_static_function(api, static_fn, specs, obj if isinstance(obj, Layer) else None)
        if not callable(obj):
            raise invalid_argument(api, f"expected a Layer or a function, got {type(obj).__name__}.")
        fn = obj.forward if isinstance(obj, Layer) else obj
        specs = _specs(api, specs)
        names = [s.name or n for s, n in zip(specs, _arg_names(fn, len(specs)))]
        return trace_program(api, obj, specs, obj if isinstance(obj, Layer) else None, names=names)
    finally:
        _restore_mode(modes)


def _signature(program: Program) -> list:
    return [(b.idx, op.type, json.dumps(op.to_dict()["attrs"], sort_keys=True)) for b in program.blocks
            for op in b.ops]


def _check_path(api: str, path) -> str:
    if not isinstance(path, str) or not path or path.endswith(("/", os.sep)) or os.path.isdir(path):
        raise invalid_argument(api, f"path must be a file prefix like 'out/model', got {path!r}.",
                               hint="the files written are <path>.json and <path>.pdiparams (and "
                                    "<path>.<method>.json / .pdiparams for other @to_static methods).")
    return path


# ---- save ----------------------------------------------------------------------------------------
def save(layer, path: str, input_spec=None, **configs) -> None:
    """`paddle.jit.save(layer_or_fn, path, input_spec=None)`: write the inference Program, its
    parameters and jit's sidecar (see the module docstring)."""
    api = "jit.save"
    _check_path(api, path)
    unknown = sorted(set(configs) - set(_KNOWN_CONFIGS))
    if unknown:
        raise invalid_argument(api, f"unknown config(s) {unknown}.", hint=f"known: {list(_KNOWN_CONFIGS)}.")
    if builder.in_static_mode():
        raise invalid_argument(api, "jit.save runs in dygraph mode.", hint="call paddle.disable_static() first.")
    if isinstance(layer, TranslatedLayer):
        _save_translated(path, layer)
        return
    specs = list(input_spec) if isinstance(input_spec, (list, tuple)) else input_spec
    methods = _static_methods(layer)
    if methods and specs is not None:
        raise invalid_argument(api, f"the Layer has other @to_static methods {sorted(methods)}, so input_spec must "
                                    f"be None (each method is saved with its own input_spec or Program), got "
                                    f"{type(input_spec).__name__}.",
                               hint="give each method's @to_static its input_spec, or call each once before saving.")
    saved_methods = {name: _build_method(api, layer, name) for name in methods}   # every error before any file
    infer = _build(api, layer, specs, training=False)
    if configs.get("output_spec") is not None:
        infer.fetch_names, infer.structure = _pick_outputs(api, infer, configs["output_spec"])
    if configs.get("skip_prune_program"):
        infer.program = infer.program.clone(for_test=True)
    try:
        train = _build(api, layer, specs, training=True)
    except Exception as e:  # noqa: BLE001 - a train-only code path the tracer cannot build
        warnings.warn(f"jit.save: the model could not be traced in train mode ({type(e).__name__}: "
                      f"{str(e).splitlines()[0][:200]}); the loaded model trains with its inference program "
                      "(no dropout; batch norm uses and keeps its running statistics).", stacklevel=2)
        train = None
    # the training variant is kept only where it differs from inference (dropout, batch norm); the
    # inference Program may itself have been built in train mode (the only one a call built)
    infer_sig = _signature(infer.program if infer.program._is_test else infer.program.clone(for_test=True))
    if train is not None and _signature(train.program) == infer_sig:
        train = None
    _write_model(api, path, infer, train, saved_methods)


def _static_methods(layer) -> list[str]:
    """The names of a Layer's @to_static methods other than forward (Paddle saves each of them)."""
    from .program_translator import StaticFunction
    if not isinstance(layer, Layer):
        return []
    found = []
    for name in dir(type(layer)):
        if name != "forward" and isinstance(inspect.getattr_static(type(layer), name, None), StaticFunction):
            found.append(name)
    return found


def _build_method(api: str, layer, name: str) -> Traced:
    """A @to_static method's inference Program: its decorator's input_spec, else the Program a call built."""
    modes = _set_mode(layer, False)
    try:
        return _from_static_function(api, getattr(layer, name), None, layer)
    finally:
        _restore_mode(modes)


def _pick_outputs(api: str, traced: Traced, output_spec) -> tuple[list[str], str]:
    """output_spec as indices into the model's outputs (a dygraph Tensor cannot name a Program variable)."""
    picks = list(output_spec) if isinstance(output_spec, (list, tuple)) else [output_spec]
    count = len(traced.fetch_names)
    for p in picks:
        if isinstance(p, bool) or not isinstance(p, int) or not 0 <= p < count:
            raise invalid_argument(api, f"output_spec holds {p!r}; expected indices of the model's {count} "
                                        "output(s).", hint="e.g. output_spec=[0] keeps the first output.")
    names = [traced.fetch_names[p] for p in picks]
    return names, "single" if len(names) == 1 else traced.structure


def _values(api: str, traced: Traced, names) -> dict[str, np.ndarray]:
    out = {}
    for n in names:
        t = traced.values.get(n)
        if t is None:
            raise invalid_argument(api, f"the program reads persistable variable {n!r}, which has no value.",
                                   hint="a function's parameters must belong to a Layer passed to jit.save.")
        out[n] = np.asarray(t._data if isinstance(t, Tensor) else t)
    return out


def _write_model(api: str, path: str, infer: Traced, train: Traced | None,
                 methods: dict[str, Traced] | None = None) -> None:
    """<path>.json + <path>.pdiparams (jit's extra information inside the JSON, under "jit"), and
    <path>.<name>.json + .pdiparams for each other method."""
    methods = methods or {}
    pruned = infer.program if infer.program._is_test else static_io.prune(infer.program, infer.feed_names,
                                                                           infer.fetch_names)
    persist = sorted({v.name for v in pruned.list_vars() if v.persistable})
    train_persist = sorted({v.name for v in train.program.list_vars() if v.persistable}) if train else []
    order = list(infer.values) + [n for n in (train.values if train else {}) if n not in infer.values]
    wanted = set(persist) | set(train_persist)
    params = _values(api, _merged(infer, train), [n for n in order if n in wanted])
    extra = {n: params[n] for n in train_persist if n not in persist}
    info = _info(infer, train, params, sorted(extra))
    info["methods"] = sorted(methods)
    with SaveUnit(api) as unit:
        manifest = {}
        for name in sorted(methods):   # the methods first: the main file, written last, lists them
            manifest[f".{name}{static_io.MODEL_SUFFIX}"] = _write_method(api, f"{path}.{name}", methods[name], unit)
        # the inference parameters are what the JSON lists (load_inference_model reads them); parameters only
        # the training program reads (rare) travel in the same archive, listed under jit.train.extra_params
        static_io.write_model_files(path, pruned, infer.feed_names, infer.fetch_names,
                                    {n: params[n] for n in persist}, "pdiparams", extra={"jit": info}, api=api,
                                    extra_arrays=extra, unit=unit, manifest=manifest)


def _info(infer: Traced, train: Traced | None, params: dict, extra: list[str]) -> dict:
    structured = {**(train.structured if train else {}), **infer.structured}
    return {"format": INFO_FORMAT, "version": 1, "feed": infer.feed_names, "fetch": infer.fetch_names,
            "output_structure": infer.structure,
            "persistables": {n: {"structured_name": structured.get(n, (n, "parameter"))[0],
                                 "kind": structured.get(n, (n, "parameter"))[1],
                                 "trainable": not _var(infer, train, n).stop_gradient} for n in params},
            "train": None if train is None else {"program": train.program.to_dict(), "fetch": train.fetch_names,
                                                 "extra_params": extra}}


def _write_method(api: str, prefix: str, traced: Traced, unit: SaveUnit) -> str:
    pruned = traced.program if traced.program._is_test else static_io.prune(traced.program, traced.feed_names,
                                                                             traced.fetch_names)
    persist = [n for n in traced.values if n in {v.name for v in pruned.list_vars() if v.persistable}]
    params = _values(api, traced, persist)
    missing = sorted({v.name for v in pruned.list_vars() if v.persistable} - set(params))
    if missing:
        raise invalid_argument(api, f"{os.path.basename(prefix)}: the program reads persistable variables "
                                    f"{missing[:5]}, which have no value.")
    return static_io.write_model_files(prefix, pruned, traced.feed_names, traced.fetch_names, params, "pdiparams",
                                       extra={"jit": _info(traced, None, params, [])}, api=api, unit=unit)


def _merged(infer: Traced, train: Traced | None) -> Traced:
    if train is None:
        return infer
    return Traced(infer.program, infer.feed_names, infer.fetch_names, infer.structure,
                  {**train.values, **infer.values}, {**train.structured, **infer.structured})


def _var(infer: Traced, train: Traced | None, name: str) -> Variable:
    for traced in (infer, train):
        if traced is not None and name in traced.program.global_block().vars:
            return traced.program.global_block().vars[name]
    raise not_found("jit.save", f"variable {name!r} is in neither program.")


def _save_translated(path: str, layer: TranslatedLayer) -> None:
    """Re-save a loaded (maybe fine-tuned) model: its programs with the current parameter values."""
    values = dict(layer._persistables)
    owner = {id(t): (name, "buffer" if not isinstance(t, Parameter) else "parameter")
             for name, t in layer.state_dict().items()}
    structured = {n: owner.get(id(t), (n, "parameter")) for n, t in values.items()}
    infer = Traced(layer._infer_program, layer._feed_names, layer._fetch_names, layer._output_structure, values,
                   structured)
    train = None
    if layer._train_program is not None:
        train = Traced(layer._train_program, layer._feed_names, layer._train_fetch_names, layer._output_structure,
                       values, structured)
    methods = {name: Traced(m.program, m.feed_names, m.fetch_names, m.output_structure, values, structured)
               for name, m in layer._methods.items()}
    _write_model("jit.save", path, infer, train, methods)


# ---- load ----------------------------------------------------------------------------------------
def load(path: str, **configs) -> TranslatedLayer:
    """`paddle.jit.load(path)`: the saved model as a TranslatedLayer, with each saved @to_static method
    as a method of it (also reads what `static.save_inference_model` wrote; parameters are then named
    by their variable names)."""
    api = "jit.load"
    _check_path(api, path)
    if configs:  # Paddle's model_filename / params_filename: the file names here always follow `path`
        raise invalid_argument(api, f"unsupported config(s) {sorted(configs)}.",
                               hint="pass the same path prefix jit.save got; the files are <path>.json and "
                                    "<path>.pdiparams.")
    program, meta, arrays = static_io.read_inference_files(api, path)
    model_file, params_file = static_io.model_path(path), static_io.params_path(path)
    expected = meta.get("params", {})
    feeds, fetches = _names_in(api, program, meta, "feed"), _names_in(api, program, meta, "fetch")
    info = _read_info(api, path, meta, model_file)
    persistables = info.get("persistables") or {}
    if not isinstance(persistables, dict):
        raise invalid_argument(api, f"{model_file}: 'persistables' is malformed; the file is corrupted.")
    # the saved model's own order (fc1.weight, fc1.bias, ...) where the sidecar has it
    order = [n for n in persistables if n in expected] + [n for n in expected if n not in persistables]
    values = {n: arrays[n] for n in order}
    train = _load_train(api, path, info["train"], values, arrays, params_file) if info.get("train") else None
    _name_unnamed(program, values, persistables)
    layer = TranslatedLayer(program, feeds, fetches, values, persistables, train,
                            info.get("output_structure", "single" if len(fetches) == 1 else "list"))
    methods = info.get("methods") or []
    if not isinstance(methods, list) or not all(isinstance(m, str) and m.isidentifier() for m in methods):
        raise invalid_argument(api, f"{model_file}: 'methods' is malformed; the file is corrupted.")
    manifest = static_io.manifest_of(api, meta, model_file)
    for name in methods:
        _load_method(api, layer, path, name, manifest)
    return layer  # in train mode, as Paddle's: call .eval() before inference


def _name_unnamed(program: Program, values: dict, persistables: dict) -> None:
    gb = program.global_block()
    for n in values:
        if n not in persistables:  # no sidecar entry: name it after its variable
            persistables[n] = {"structured_name": n, "kind": "parameter",
                               "trainable": not gb.vars[n].stop_gradient if n in gb.vars else True}


def _load_method(api: str, layer: TranslatedLayer, path: str, name: str, manifest: dict | None) -> None:
    """<path>.<name>.json / .pdiparams as `layer.<name>`, sharing the parameters both programs read; the
    method's JSON must be the one the main file's manifest lists."""
    prefix = f"{path}.{name}"
    if manifest is not None and f".{name}{static_io.MODEL_SUFFIX}" not in manifest:
        raise invalid_argument(api, f"{static_io.model_path(path)!r} lists method {name!r} but its manifest has "
                                    "no file for it; the file is corrupted.")
    program, meta, arrays = static_io.read_inference_files(api, prefix)
    static_io.check_json_digest(api, meta, static_io.model_path(prefix), manifest,
                                f".{name}{static_io.MODEL_SUFFIX}")
    feeds, fetches = _names_in(api, program, meta, "feed"), _names_in(api, program, meta, "fetch")
    info = meta.get("jit") if isinstance(meta.get("jit"), dict) else {}
    persistables = info.get("persistables") or {}
    if not isinstance(persistables, dict):
        raise invalid_argument(api, f"{static_io.model_path(prefix)}: 'persistables' is malformed; the file is "
                                    "corrupted.")
    values = {n: arrays[n] for n in meta.get("params", {})}
    _name_unnamed(program, values, persistables)
    layer._add_method(name, program, feeds, fetches, values, persistables,
                      info.get("output_structure", "single" if len(fetches) == 1 else "list"))


def _names_in(api: str, program: Program, meta: dict, key: str) -> list[str]:
    names = meta.get(key)
    gb = program.global_block()
    if not isinstance(names, list) or not all(isinstance(n, str) and n in gb.vars for n in names):
        raise invalid_argument(api, f"the model file's {key!r} list ({names!r}) names variables the program "
                                    "lacks; the file is corrupted.")
    return names


def _read_info(api: str, path: str, meta: dict, model_file: str) -> dict:
    """jit's extra information: inside the model JSON, or (older files) in the <path>.pdinfo.json sidecar."""
    if "jit" in meta:
        info = meta["jit"]
        if not isinstance(info, dict) or info.get("format") != INFO_FORMAT:
            raise invalid_argument(api, f"{model_file}: 'jit' is malformed; the file is corrupted.")
        return info
    file = f"{path}.pdinfo.json"
    if not os.path.exists(file):
        return {}  # written by static.save_inference_model: no structured names, no training variant
    return static_io.read_model_json(api, file, INFO_FORMAT, "a minipaddle jit sidecar")


def _load_train(api: str, path: str, train: dict, values: dict, arrays: dict,
                params_file: str) -> tuple[Program, list[str]]:
    if not isinstance(train, dict) or "program" not in train:
        raise invalid_argument(api, f"{path}: jit's 'train' entry is malformed; the file is corrupted.")
    try:
        program = Program.from_dict(train["program"])
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise invalid_argument(api, f"{path}: the training program is malformed ({e}); the file is "
                                    "corrupted.") from None
    extra = train.get("extra_params") or []
    if extra:
        if not all(n in arrays for n in extra) and os.path.exists(f"{path}.pdtrain.npz"):  # older files
            params_file = f"{path}.pdtrain.npz"
            arrays = static_io.read_params_npz(api, params_file)
        for n in extra:
            if n not in arrays:
                raise invalid_argument(api, f"{params_file} has no array {n!r}; the files do not belong "
                                            "together.")
            values[n] = arrays[n]
    fetch = _names_in(api, program, train, "fetch")
    return program, fetch
