"""The op registry, after Paddle's PHI library and ops.yaml.

An operator is declared once as an `OpDef`: its inputs, typed attributes, outputs, the
`infer_meta` function that checks arguments and computes output shapes/dtypes, and the
`backward` rule written with minipaddle ops (so grads of grads come free). Kernels are
registered separately under a `KernelKey(backend, dtype)`; several named kernels may
serve one key and `select_kernel` picks one -- the single place the autotuner drives.

    ADD = register_op("add", inputs=("x", "y"), infer_meta=binary_meta, backward=add_grad)

    @register_kernel("add", "cpu", FLOATS, name="numpy")
    def add_numpy(x, y):
        return np.add(x, y)
"""
from __future__ import annotations

import inspect
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, NamedTuple

import numpy as np

from .errors import not_found, unimplemented


class KernelKey(NamedTuple):
    backend: str        # "cpu" | "gpu" (a Place's backend)
    dtype: np.dtype     # the dtype of the op's first tensor input (PHI's kernel dtype)


class MetaTensor(NamedTuple):
    """What infer_meta says of one output: shape (-1 for unknown in static mode) and dtype."""
    shape: tuple
    dtype: np.dtype


class LazyKernel:
    """A kernel named by "module:function", imported on first use.

    numba kernels live in modules that import numba (~0.4 s); naming them lazily keeps
    `import minipaddle` fast and leaves numba's start-up to the first op that needs it.
    """

    def __init__(self, target: str) -> None:
        self.target = target
        self._fn = None

    def resolve(self) -> Callable:
        if self._fn is None:
            import importlib
            module, _, name = self.target.partition(":")
            self._fn = getattr(importlib.import_module(module), name)
        return self._fn

    def __call__(self, *args, **kwargs):
        return self.resolve()(*args, **kwargs)

    @property
    def __wrapped__(self):  # inspect.unwrap shows the real kernel's source
        return self.resolve()


_tuple_new = tuple.__new__


def new_meta(shape: tuple, dtype: np.dtype) -> MetaTensor:
    """MetaTensor(shape, dtype) at half the cost: infer_meta runs on every op call."""
    return _tuple_new(MetaTensor, (shape, dtype))


@dataclass
class Kernel:
    """One implementation of an op for one backend and some dtypes."""
    op: str
    backend: str
    name: str
    fn: Callable
    priority: int = 0   # the default choice is the highest priority until tuned

    def source_location(self) -> str:
        target = inspect.unwrap(self.fn)
        target = getattr(target, "py_func", target)
        try:
            file = inspect.getsourcefile(target)
            line = inspect.getsourcelines(target)[1]
        except (TypeError, OSError):
            return "<built-in>"
        return f"{file}:{line}"


@dataclass
class Attr:
    name: str
    type: Any
    default: Any


@dataclass
class OpDef:
    """One operator, declared once; eager mode, static mode and the jit all run it."""
    name: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    attrs: tuple[Attr, ...]
    infer_meta: Callable[..., Any]
    backward: Callable[..., Any] | None
    save: tuple[str, ...]          # input/output names the backward rule reads
    differentiable_inputs: tuple[int, ...] | range  # input positions that can receive a gradient
    kernels: dict[KernelKey, list[Kernel]] = field(default_factory=dict)
    # cache: KernelKey -> chosen Kernel.fn; cleared when kernels are added or tuned
    _chosen: dict = field(default_factory=dict, repr=False)
    doc: str = ""
    kernel_input: int = 0   # which input's dtype picks the kernel (PHI's kernel key)
    variadic: bool = False  # the one input takes a list of tensors (concat, stack)
    attr_defaults: dict = field(default_factory=dict, repr=False)  # name -> default, for grad nodes
    _save_index: dict = field(default_factory=dict, repr=False)
    node_info: Callable[[list, dict], dict] | None = field(default=None, repr=False)  # for the debugger


OPS: dict[str, OpDef] = {}
_GRAD_NODE_NAMES = {"op", "attrs", "saved", "next_edges", "input_metas", "out_metas", "tensor_hooks",
                    "freed", "seq", "name", "unpack", "repack", "release", "add_hook", "needs_grad"}


def register_op(
    name: str,
    *,
    inputs: tuple[str, ...],
    infer_meta: Callable,
    backward: Callable | None = None,
    outputs: tuple[str, ...] = ("out",),
    attrs: dict[str, tuple[Any, Any]] | None = None,
    save: tuple[str, ...] = (),
    differentiable_inputs: tuple[int, ...] | None = None,
    kernel_input: int = 0,
    variadic: bool = False,
    doc: str = "",
    node_info: Callable[[list, dict], dict] | None = None,
) -> OpDef:
    """Declare an operator. `attrs` maps name -> (type, default).

    `node_info(arrays, attrs) -> dict`, optional: what the debugger shows on this op's node beyond its
    inputs, for ops whose inputs alone do not show what they mean (a sparse matrix given as three
    vectors). Only the trace recorder calls it, once per recorded call, with the inputs' storage
    arrays and the attrs (defaults filled in); it returns {"title": str, "rows": [[label, text], ...],
    "grid": {"shape": [r, c], "values": [r * c numbers]} or None} (grid: at most 32 x 32, drawn as a
    heat map). An exception it raises is noted in the trace, never raised to the program.
    """
    if name in OPS:
        raise ValueError(f"op {name!r} is already registered")
    attr_list = tuple(Attr(k, t, d) for k, (t, d) in (attrs or {}).items())
    if variadic:  # concat, stack: any number of tensors come in as one named input
        differentiable_inputs = range(sys.maxsize) if backward is not None else ()
    elif differentiable_inputs is None:
        differentiable_inputs = tuple(range(len(inputs))) if backward is not None else ()
    else:
        differentiable_inputs = tuple(differentiable_inputs)
    op = OpDef(name, tuple(inputs), tuple(outputs), attr_list, infer_meta, backward,
               tuple(save), differentiable_inputs, doc=doc, kernel_input=kernel_input, variadic=variadic,
               attr_defaults={a.name: a.default for a in attr_list}, node_info=node_info)
    clash = set(op.attr_defaults) & _GRAD_NODE_NAMES
    if clash:  # backward rules read attrs as node.<attr>; these names are the node's own
        raise ValueError(f"op {name!r}: attribute names {sorted(clash)} are reserved by GradNode")
    for key in save:  # ctx.<key> in the backward rule: which input or output dispatch saves for it
        if key in inputs:
            op._save_index[key] = ("input", inputs.index(key))
        elif key in outputs:
            op._save_index[key] = ("output", outputs.index(key))
        else:
            raise ValueError(f"op {name!r}: saved name {key!r} is neither an input nor an output")
    OPS[name] = op
    return op


def get_op(name: str) -> OpDef:
    try:
        return OPS[name]
    except KeyError:
        raise not_found("registry", f"no op named {name!r}.",
                        hint=f"{len(OPS)} ops are registered; see minipaddle.framework.ops.list_ops().") from None


def register_kernel(op_name: str, backend: str, dtypes, *, name: str, priority: int = 0):
    """Decorator: register `fn` as kernel `name` of `op_name` for each dtype in `dtypes`."""
    def decorate(fn: Callable) -> Callable:
        add_kernel(op_name, backend, dtypes, fn, name=name, priority=priority)
        return fn
    return decorate


def add_kernel(op_name: str, backend: str, dtypes, fn: Callable, *, name: str, priority: int = 0) -> None:
    op = get_op(op_name)
    for dt in dtypes:
        key = KernelKey(backend, np.dtype(dt))
        bucket = op.kernels.setdefault(key, [])
        bucket[:] = [k for k in bucket if k.name != name]
        bucket.append(Kernel(op_name, backend, name, fn, priority))
        bucket.sort(key=lambda k: -k.priority)
    op._chosen.clear()


# Overrides set by the autotuner (or a user) per (op, key): the kernel name to run.
_preferred: dict[tuple[str, KernelKey], str] = {}


def set_preferred_kernel(op_name: str, key: KernelKey, kernel_name: str | None) -> None:
    """Make `kernel_name` the kernel `select_kernel` returns for `key` (None: back to default)."""
    op = get_op(op_name)
    if kernel_name is None:
        _preferred.pop((op_name, key), None)
    else:
        names = [k.name for k in op.kernels.get(key, ())]
        if kernel_name not in names:
            raise not_found(op_name, f"no kernel {kernel_name!r} for {key.backend}/{key.dtype}; have {names}.")
        _preferred[(op_name, key)] = kernel_name
    op._chosen.clear()


def preferred_kernel(op_name: str, key: KernelKey) -> str | None:
    """The kernel name set for (op, key) by the autotuner or `set_preferred_kernel`, else None (the
    debugger reads it to say why a kernel ran)."""
    return _preferred.get((op_name, key)) if _preferred else None


# What a missing kernel of a kind means (numpy kind letters): said in the error, so a learner knows why
_WHY_NO_KERNEL = {"c": " Like Paddle, minipaddle has no complex kernel for this op (complex numbers have no "
                       "order: no max, sort or floor); use paddle.abs(x), paddle.real(x) or paddle.imag(x) first.",
                  "V": " bfloat16 has kernels for the common math (computed in float32); this op has none."}


def select_kernel(op: OpDef, key: KernelKey) -> Kernel:
    """The one place that picks which kernel runs: the preferred one, else top priority."""
    bucket = op.kernels.get(key)
    if not bucket:
        have = sorted(f"{k.backend}/{k.dtype}" for k in op.kernels)
        what = _WHY_NO_KERNEL.get(key.dtype.kind, "")
        if key.backend == "gpu" and any(k.backend == "cpu" and k.dtype == key.dtype for k in op.kernels):
            raise unimplemented(op.name, f"no GPU kernel for dtype {key.dtype} yet (the CPU has one).",
                                hint="run this op on the CPU: x.cpu(), then .cuda() on its result.")
        raise unimplemented(
            op.name, f"no kernel registered for backend '{key.backend}' and dtype {key.dtype}.{what}",
            hint=f"registered: {', '.join(have) or 'none'}. Cast the input with .astype(...).")
    wanted = _preferred.get((op.name, key))
    if wanted is not None:
        for k in bucket:
            if k.name == wanted:
                return k
    return bucket[0]


# Set by the autotuner while kernel tuning is on (framework/autotune.py): kernel_hook(op, key, fn) returns
# what runs instead of `fn` -- for an op with several kernels, a stand-in that picks one per shape class.
# It is consulted only when the per-key cache misses, so with autotune off the op path is unchanged.
kernel_hook: Callable[[OpDef, KernelKey, Callable], Callable] | None = None


def kernel_fn(op: OpDef, key: KernelKey) -> Callable:
    """select_kernel's function, cached per key: this is on every op call's path."""
    fn = op._chosen.get(key)
    if fn is None:
        fn = select_kernel(op, key).fn
        resolve = getattr(fn, "resolve", None)
        if resolve is not None:  # a LazyKernel: import its module now, call the function directly after
            fn = resolve()
        if kernel_hook is not None:
            fn = kernel_hook(op, key, fn)
        op._chosen[key] = fn
    return fn



# The array types a kernel may return as they are: numpy's, and the GPU's device array once the GPU
# backend loads (framework/gpu.py adds it to both sets). Anything else (a numpy scalar, a Python
# number) is wrapped as a numpy array.
ARRAY_TYPES: set = {np.ndarray}
DEVICE_ARRAY_TYPES: set = set()


def backend_of(array) -> str:
    """The backend whose kernels take `array`: "gpu" for a device array, else "cpu"."""
    return "gpu" if type(array) in DEVICE_ARRAY_TYPES else "cpu"


def run_kernel(op: OpDef, arrays, attrs: dict, backend: str = "cpu", metas=None):
    """The one place an op computes on arrays: pick the kernel for (backend, dtype) and run it.

    Eager dispatch, the static Executor, constant folding and fusion's reference path all call
    this; `backend` is the inputs' place (`Place.backend`: "cpu" or "gpu"). Returns an array or a
    tuple of arrays; a kernel's scalar result becomes an array of the dtype infer_meta gave (`metas`).

    Eager dispatch (dispatch.py) writes this function's CPU path out in its own body: it runs on
    every op call, and the call itself costs a tenth of a tiny add. It is these same three steps:
    the cached kernel for the key, the call, `kernel_output` for whatever is not an ndarray.
    """
    fn = op._chosen.get((backend, arrays[op.kernel_input].dtype))
    if fn is None:
        fn = kernel_fn(op, KernelKey(backend, arrays[op.kernel_input].dtype))
    result = fn(*arrays, **attrs) if attrs else fn(*arrays)
    if type(result) is np.ndarray:
        return result
    return kernel_output(result, metas)


def kernel_output(result, metas):
    """A kernel's result as array(s) a Tensor can hold: arrays of ARRAY_TYPES pass as they are, a
    scalar (np.float32(3.0) from a full reduction) becomes a 0-D array of infer_meta's dtype."""
    if type(result) is tuple:
        return tuple(r if type(r) in ARRAY_TYPES else np.asarray(r, dtype=m.dtype) for r, m in zip(result, metas))
    if type(result) in ARRAY_TYPES:
        return result
    return np.asarray(result, dtype=None if metas is None else metas.dtype)
