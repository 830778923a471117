"""Fused elementwise kernels: one numba loop generated from a chain of scalar primitives.

The fusion pass (framework/static/passes/fusion.py) turns a DAG of elementwise ops such as
`multiply -> gelu -> add` into one `fused_elementwise` op. Its kernel is *generated source*: the
primitives' own definitions (ops/primitives.py, copied verbatim) and one loop that calls them in
order, so each element is read once, kept in a register through the whole chain and written once:

    @njit(cache=True, nogil=True, error_model="numpy")   # numpy semantics: x / 0 is inf, no check
    def fused_3f2a9c01d4e5b6a7(x0, x1, out0):
        s1 = x1[0]                                  # a scalar input is read once
        for i in range(out0.size):
            t0 = np.float32(prim_multiply(x0[i], s1))
            t1 = np.float32(prim_gelu(t0))          # each step rounds to the op's dtype, as unfused
            out0[i] = t1

`generate_source` writes that text (print it: `op.attrs["source"]`); `load_kernel` saves it to a
file in the cache directory (`$MINIPADDLE_FUSED_CACHE`, else `$XDG_CACHE_HOME/minipaddle/fused`,
else `~/.cache/minipaddle/fused`), imports it and keeps the function in a module-level dict keyed
by the source's hash. numba's `cache=True` needs a real file; with one, a new process loads the
compiled machine code instead of compiling again. numba is imported only when a kernel loads.
`generate_cuda_source` writes the GPU's kernel from the same steps and primitives (no GPU needed to
write it; kernels/cuda/fused.py compiles and launches it).
"""
from __future__ import annotations

import hashlib
import importlib.util
import inspect
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Callable

import numpy as np

from ...ops import primitives as P
from ...errors import invalid_argument
from ..numba_cache import minipaddle_cache_dir
from .fast_math import FAST_F32, HELPERS, POW_LITERALS

# ---- primitives for ops that have none in primitives.py (their eager kernels are numpy calls) ----


def elementwise_pow(x, y):
    return x ** y


def scale(x, s, b):
    return x * s + b


def scale_bias_first(x, s, b):
    return (x + b) * s


def assign(x):
    return x


# op type -> (primitive, names of the attributes passed after the tensor arguments)
_UNARY = ("neg", "abs", "exp", "log", "log1p", "sqrt", "rsqrt", "square", "sin", "cos", "tanh", "erf",
          "sign", "floor", "ceil", "round", "relu", "relu6", "sigmoid", "silu", "hardswish", "mish",
          "tanhshrink", "softsign")
_BINARY = ("add", "subtract", "multiply", "divide", "maximum", "minimum", "relu_grad")
RULES: dict[str, tuple[Callable, tuple[str, ...]]] = {name: (getattr(P, name), ()) for name in _UNARY + _BINARY}
RULES.update({
    "elementwise_pow": (elementwise_pow, ()),
    "assign": (assign, ()),
    "leaky_relu": (P.leaky_relu, ("negative_slope",)),
    "elu": (P.elu, ("alpha",)),
    "softplus": (P.softplus, ("beta", "threshold")),
    "hardsigmoid": (P.hardsigmoid, ("slope", "offset")),
    "hardtanh": (P.clip, ("min", "max")),
    "clip": (P.clip, ("min", "max")),
    "gelu": (P.gelu, ()),      # approximate=True picks gelu_tanh (see primitive_for)
    "scale": (scale, ("scale", "bias")),
})
BINARY_OPS = frozenset(_BINARY + ("elementwise_pow",))

# Ops whose math is a scalar libm call (or an int round trip) inside a numba loop, where numpy's
# kernel is SIMD. float32, 262144 elements, generated loop / registry kernel (numpy), in ms:
#   exp 1.8 / 1.1, log 2.6 / 0.5, tanh 10.3 / 1.3, sigmoid 4.6 / 1.1, sin 4.2 / 0.8,
#   floor 0.42 / 0.045, round 3.3 / 0.5     -- against add, multiply, divide, relu, clip, sqrt,
#   x ** 2, scale: 0.04-0.1 in both (memory-bound: fusing them saves whole passes over memory).
# numba has no SIMD math without Intel's SVML, so fusing these costs more than the memory traffic it
# saves; the fusion pass leaves them out unless a numba loop is already their chosen kernel.
SLOW_IN_LOOP = frozenset({"exp", "log", "log1p", "tanh", "sin", "cos", "sigmoid", "floor", "ceil", "round"})


def slow_in_loop(op_type: str, dtype) -> bool:
    """True when a generated loop computes `op_type` slower than numpy (float32 has FAST_F32 math)."""
    if op_type not in SLOW_IN_LOOP:
        return False
    return not (np.dtype(dtype) == np.float32 and op_type in FAST_F32)


def fusable_type(op_type: str) -> bool:
    """True when the fusion pass knows the scalar math of `op_type`."""
    return op_type in RULES


def primitive_for(op_type: str, attrs: dict, dtype=None, args=()) -> tuple[Callable, list]:
    """The primitive that computes `op_type` and the attribute values it takes after the tensors
    (float32: the vectorizable FAST_F32 math; `x ** 2.0` & co. with a literal exponent: a multiply)."""
    fn, names = RULES[op_type]
    if op_type == "gelu" and attrs.get("approximate"):
        fn = P.gelu_tanh
    if op_type == "scale" and not attrs.get("bias_after_scale", True):
        fn = scale_bias_first
    if dtype is not None and np.dtype(dtype) == np.float32:
        key = "gelu_tanh" if fn is P.gelu_tanh else op_type
        fn = FAST_F32.get(key, fn)
    if op_type == "elementwise_pow" and len(args) == 2 and args[1].startswith("="):
        fn = POW_LITERALS.get(float(args[1][1:]), fn)
    values = []
    for name in names:
        value = attrs.get(name)
        if value is None and op_type == "clip":  # an open bound
            value = -np.inf if name == "min" else np.inf
        values.append(float(value))
    return fn, values


# ---- code generation ---------------------------------------------------------------------------


def _literal(value: float, dtype: np.dtype) -> str:
    text = repr(float(value))
    if text in ("inf", "-inf", "nan"):
        text = {"inf": "math.inf", "-inf": "-math.inf", "nan": "math.nan"}[text]
    return f"np.{dtype.name}({text})"


def _primitive_source(fn: Callable) -> str:
    """The primitive's own source, renamed prim_<name> (abs/round would shadow builtins)."""
    text = inspect.getsource(fn)
    return re.sub(r"^def (\w+)\(", r"def prim_\1(", text, count=1, flags=re.M).rstrip() + "\n"


def _constants(fns) -> list[str]:
    """Module constants the primitives read (SQRT_HALF, ...), written into the generated module."""
    lines = []
    for fn in fns:
        for name in fn.__code__.co_names:
            value = fn.__globals__.get(name)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                line = f"{name} = {value!r}"
                if line not in lines:
                    lines.append(line)
    return lines


def generate_source(steps: list[dict], input_kinds: list[str], outputs: list[str], dtype,
                    row_sums: tuple = ()) -> tuple[str, str]:
    """(kernel name, module source) of the loop computing `steps`.

    steps: [{"type", "attrs", "args": ["x0" | "t3" | "=0.5", ...], "out": "t4"}] in program order; inputs
    are x0, x1, ... (kind "s": one element, read once before the loop; "r": a row repeated along the
    leading dims, a bias, read in place; "p": one value per channel, (C, 1, 1), which fit_inputs expands
    to its row C x H x W, then read as a row), "=<number>" a constant written into the loop; outputs
    name the temps stored. row_sums: indices into `outputs` whose sums over the leading dims are stored
    too, after them (a bias gradient: summed in the same pass, in float64).
    """
    dtype = np.dtype(dtype)
    prims, body, expr = [], [], []
    for step in steps:
        fn, values = primitive_for(step["type"], step["attrs"], dtype, step["args"])
        if fn not in prims:
            prims.append(fn)
        args = [_arg(a, input_kinds, dtype) for a in step["args"]] + [_literal(v, dtype) for v in values]
        body.append(f"        {step['out']} = np.{dtype.name}(prim_{fn.__name__}({', '.join(args)}))")
        shown = [a[1:] if a.startswith("=") else a for a in step["args"]] + [repr(v) for v in values]
        expr.append(f"{step['out']} = {fn.__name__}({', '.join(shown)})")
    n_in, n_out = len(input_kinds), len(outputs)
    params = [f"x{i}" for i in range(n_in)] + [f"out{j}" for j in range(n_out + len(row_sums))]
    loads = [f"    s{i} = x{i}[0]" for i, k in enumerate(input_kinds) if k == "s"]
    rows = [i for i, k in enumerate(input_kinds) if k in "rp"]   # (a plane input arrives as a row: fit_inputs)
    nested = bool(rows or row_sums)
    if nested:  # a row input (a bias) is read in place, a row sum accumulated: i = r * row + j
        loads += [f"    row = {f'x{rows[0]}' if rows else f'out{n_out}'}.size"]
        loads += [f"    acc{k} = np.zeros(row, np.float64)" for k in range(len(row_sums))]
        loads += ["    for r in range(out0.size // row):", "        base = r * row", "        for j in range(row):",
                  "            i = base + j"]
        body = ["    " + line for line in body]
    stores = [("    " if nested else "") + f"        out{j}[i] = {name}" for j, name in enumerate(outputs)]
    stores += [f"            acc{k}[j] += {outputs[j]}" for k, j in enumerate(row_sums)]
    stores += [line for k in range(len(row_sums))
               for line in ("    for j in range(row):", f"        out{n_out + k}[j] = acc{k}[j]")]
    expr += [f"out{j} = {name}" for j, name in enumerate(outputs)]
    expr += [f"out{n_out + k} = row_sum({outputs[j]})" for k, j in enumerate(row_sums)]
    expression = "; ".join(expr)
    digest = hashlib.sha1(f"{dtype.name}|{input_kinds}|{expression}".encode()).hexdigest()[:16]
    kernel_name = f"fused_{digest}"
    head = [f'"""Generated by minipaddle\'s fusion pass ({dtype.name}); inputs {", ".join(input_kinds)}.', "",
            *[f"    {e}" for e in expr], '"""', "import math", "", "import numpy as np",
            "from numba import njit", ""]
    consts = _constants(prims)
    helpers = [h for name, h in HELPERS.items() if any(name in fn.__code__.co_names for fn in prims)]
    parts = ["\n".join(head) + ("\n" + "\n".join(consts) + "\n" if consts else "")]
    parts += [f'\n@njit(inline="always")\n{inspect.getsource(h).rstrip()}\n' for h in helpers]
    parts += [f'\n@njit(inline="always")\n{_primitive_source(fn)}' for fn in prims]
    loop = [f"\n@njit(cache=True, nogil=True, error_model=\"numpy\")\ndef {kernel_name}({', '.join(params)}):", *loads,
            *([] if nested else ["    for i in range(out0.size):"]), *body, *stores]
    parts.append("\n".join(loop) + "\n")
    return kernel_name, "\n".join(parts)


def generate_cuda_source(steps: list[dict], input_kinds: list[str], outputs: list[str], dtype) -> tuple[str, str]:
    """(kernel name, module source) of a numba.cuda kernel computing the same `steps` as
    `generate_source`: the same primitives (as device functions), one element per thread in a
    grid-stride loop (kernels/cuda/fused.py shows one, compiles and launches it). Needs no GPU to write.
    """
    dtype = np.dtype(dtype)
    prims, body, expr = [], [], []
    for step in steps:
        # no FAST_F32 math here: a GPU has fast float32 tanh/exp/erf of its own
        fn, values = primitive_for(step["type"], step["attrs"], None, step["args"])
        if fn not in prims:
            prims.append(fn)
        args = [_cuda_arg(a, input_kinds, dtype) for a in step["args"]] + [_literal(v, dtype) for v in values]
        body.append(f"        {step['out']} = np.{dtype.name}(prim_{fn.__name__}({', '.join(args)}))")
        shown = [a[1:] if a.startswith("=") else a for a in step["args"]] + [repr(v) for v in values]
        expr.append(f"{step['out']} = {fn.__name__}({', '.join(shown)})")
    expr += [f"out{j} = {name}" for j, name in enumerate(outputs)]
    digest = hashlib.sha1(f"cuda|{dtype.name}|{input_kinds}|{'; '.join(expr)}".encode()).hexdigest()[:16]
    kernel_name = f"fused_{digest}_cuda"
    params = [f"x{i}" for i in range(len(input_kinds))] + [f"out{j}" for j in range(len(outputs))]
    loads = [f"    s{i} = x{i}[0]" if k == "s" else f"    n{i} = x{i}.size"
             for i, k in enumerate(input_kinds) if k in "srp"]
    head = [f'"""Generated by minipaddle\'s fusion pass ({dtype.name}, CUDA); inputs {", ".join(input_kinds)}.', "",
            *[f"    {e}" for e in expr], '"""', "import math", "", "import numpy as np", "from numba import cuda", ""]
    # float32 computes in float32, as the GPU's elementwise kernels do (cuda/launch.float32_variant)
    narrow = _float32_literals if dtype == np.float32 else str
    consts = [narrow(line) for line in _constants(prims)]
    parts = ["\n".join(head) + ("\n" + "\n".join(consts) + "\n" if consts else "")]
    parts += [f"\n@cuda.jit(device=True)\n{narrow(_primitive_source(fn))}" for fn in prims]
    loop = [f"\n@cuda.jit(cache=True)\ndef {kernel_name}({', '.join(params)}):", *loads,
            "    for i in range(cuda.grid(1), out0.size, cuda.gridsize(1)):", *body,
            *[f"        out{j}[i] = {name}" for j, name in enumerate(outputs)]]
    parts.append("\n".join(loop) + "\n")
    return kernel_name, "\n".join(parts)


_FLOAT_LITERAL = re.compile(r"(?<![\w.])(\d+\.\d*(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+)(?![\w.])")


def _float32_literals(text: str) -> str:
    """`0.5 * x` -> `np.float32(0.5) * x`: float32 math stays float32 (a Python float is a float64 to numba)."""
    return _FLOAT_LITERAL.sub(r"np.float32(\1)", text)


def _cuda_arg(name: str, input_kinds: list[str], dtype: np.dtype) -> str:
    if name.startswith("="):
        return _literal(float(name[1:]), dtype)
    if name.startswith("x"):
        i = int(name[1:])
        return {"s": f"s{i}", "r": f"{name}[i % n{i}]", "p": f"{name}[i % n{i}]"}.get(input_kinds[i], f"{name}[i]")
    return name


def _arg(name: str, input_kinds: list[str], dtype: np.dtype) -> str:
    if name.startswith("="):  # a scalar constant, written into the loop as a literal
        return _literal(float(name[1:]), dtype)
    if name.startswith("x"):
        i = int(name[1:])
        return {"s": f"s{i}", "r": f"{name}[j]", "p": f"{name}[j]"}.get(input_kinds[i], f"{name}[i]")
    return name


# ---- compiling and caching ---------------------------------------------------------------------

_KERNELS: dict[str, Callable] = {}   # kernel name (a hash of the expression) -> the jitted loop


def cache_dir() -> Path:
    """Where generated kernel files (and numba's compiled code beside them) are kept."""
    return minipaddle_cache_dir("fused", "MINIPADDLE_FUSED_CACHE")


def load_kernel(kernel_name: str, source: str) -> Callable:
    """The jitted loop for `source`: from the in-process dict, else written to a file and imported."""
    fn = _KERNELS.get(kernel_name)
    if fn is not None:
        return fn
    folder = cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{kernel_name}.py"
    try:
        current = path.read_text()
    except OSError:
        current = None
    if current != source:  # write-then-rename: a concurrent reader never sees half a file
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            f.write(source)
        os.replace(tmp, path)
    module_name = f"minipaddle_fused.{kernel_name}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    fn = _KERNELS[kernel_name] = getattr(module, kernel_name)
    return fn


# ---- the op's kernel ---------------------------------------------------------------------------


def fit_inputs(arrays, input_kinds, dtype: np.dtype, expand: Callable) -> tuple | None:
    """(output shape, the inputs as the generated loop reads them: 1-D) or None when the arrays do not fit
    `input_kinds` (another dtype, a broadcast among full inputs): then the unfused ops run instead.
    `expand(a, shape)` makes a broadcast ("b") input full size on the arrays' own device."""
    if "a" not in input_kinds:
        return None
    shape = arrays[input_kinds.index("a")].shape   # (plain loops: this runs on every call of a fused op)
    flat = []
    row_size = None
    for a, kind in zip(arrays, input_kinds):
        if a.dtype != dtype:
            return None
        if kind == "a":
            if a.shape != shape:
                return None
            flat.append(a.reshape(-1))
        elif kind == "r" or kind == "p":
            row = a.shape
            while row and row[0] == 1:
                row = row[1:]
            if not row or len(row) >= len(shape):
                return None
            tail = shape[len(shape) - len(row):]
            if kind == "p":  # one value per channel, (C, 1, 1): the row it repeats along, C x H x W
                if row[0] != tail[0] or any(d != 1 for d in row[1:]):
                    return None
                a = expand(a.reshape(row), tail)
            elif tail != row:
                return None
            if row_size is not None and a.size != row_size:  # one inner loop: every row input as long
                return None
            row_size = a.size
            flat.append(a.reshape(-1))
        elif kind == "s":
            if a.size != 1 or len(a.shape) > len(shape):
                return None
            flat.append(a.reshape(1))
        else:
            try:
                flat.append(expand(a, shape).reshape(-1))
            except ValueError:
                return None
    return shape, flat


def _expand_host(a: np.ndarray, shape: tuple) -> np.ndarray:
    return np.ascontiguousarray(np.broadcast_to(a, shape))


def fused_elementwise_kernel(*arrays, kernel_name: str = "", source: str = "", cuda_source: str = "",
                             expression: str = "", input_kinds=(), steps=(), outputs=(), dtype=None, row_sums=(),
                             row_dims=1, row_axes=(), row_keepdim=False, out=None):
    """Run the generated loop; inputs it cannot take as they are (another dtype, a broadcast among
    full inputs) run the original ops one by one instead, so the answer is always the unfused one.
    `out`: arrays (C-contiguous, the output shape and dtype) to store into instead of new ones; the
    row sums (of the outputs `row_sums` names, over all but the last `row_dims` dims, then over the
    row's own `row_axes`: a conv bias's H and W; `row_keepdim`: the summed dims kept as 1s) come after them."""
    dt = np.dtype(dtype)
    fitted = fit_inputs(arrays, input_kinds, dt, _expand_host)
    if fitted is None:
        result = run_unfused(arrays, steps, outputs, dt)
        if out is not None:
            for o, r in zip(out, result):
                o[...] = r
            result = tuple(out)
        result += tuple(row_sum(result[j], row_dims, row_axes, row_keepdim) for j in row_sums)
    else:
        shape, flat = fitted
        fn = _KERNELS.get(kernel_name) or load_kernel(kernel_name, source)
        result = tuple(out) if out is not None else tuple(np.empty(shape, dt) for _ in outputs)
        result += tuple(np.zeros(shape[len(shape) - row_dims:], dt) for _ in row_sums)
        if not row_sums or result[-1].size:  # (empty rows: nothing to loop over, the sums stay zero)
            fn(*flat, *(o.reshape(-1) for o in result))
        if row_axes or row_keepdim:
            final = row_sum_shape(shape, row_dims, row_axes, row_keepdim)
            result = result[:len(outputs)] + tuple(r.sum(axis=tuple(row_axes)).reshape(final)
                                                   for r in result[len(outputs):])
    return result[0] if len(result) == 1 else result


def prepare_fused(attrs: dict) -> Callable:
    """`fused_elementwise_kernel` bound to one op's attrs, for a RunPlan that calls it step after step:
    the same answer, with the per-call work cut to what the arrays decide. Full, row and scalar inputs
    fitted once per input shapes are only flattened on later calls, and the loop is called by position
    (no 14 keyword arguments matched on every call). Other input kinds, row sums reduced within the row,
    and inputs that do not fit go the general way."""
    kinds = tuple(attrs["input_kinds"])
    if any(k not in ("a", "r", "s") for k in kinds) or attrs.get("row_axes") or attrs.get("row_keepdim"):
        return lambda *arrays: fused_elementwise_kernel(*arrays, **attrs)
    dt, name, source = np.dtype(attrs["dtype"]), attrs["kernel_name"], attrs["source"]
    n_out, n_sums, row_dims = len(attrs["outputs"]), len(attrs.get("row_sums", ())), attrs.get("row_dims", 1)
    fits: dict = {}   # input shapes -> (output shape, row-sum shape), for shapes fit_inputs accepted

    def call(*arrays):
        shapes = tuple([a.shape for a in arrays])
        fit = fits.get(shapes)
        for a in arrays:
            if a.dtype is not dt and a.dtype != dt:
                fit = None
                break
        if fit is None:
            fitted = fit_inputs(arrays, kinds, dt, _expand_host)
            if fitted is None:
                return fused_elementwise_kernel(*arrays, **attrs)
            shape = fitted[0]
            fit = fits[shapes] = (shape, shape[len(shape) - row_dims:])
        shape, row = fit
        outs = [np.empty(shape, dt) for _ in range(n_out)]
        if n_sums:
            outs += [np.zeros(row, dt) for _ in range(n_sums)]
            if not outs[-1].size:  # empty rows: nothing to loop over, the sums stay zero
                return outs[0] if len(outs) == 1 else tuple(outs)
        fn = _KERNELS.get(name) or load_kernel(name, source)
        fn(*[a.reshape(-1) for a in arrays], *[o.reshape(-1) for o in outs])
        return outs[0] if len(outs) == 1 else tuple(outs)
    return call


fused_elementwise_kernel.prepare = prepare_fused


def row_sum(a, row_dims: int, row_axes=(), keepdim: bool = False):
    """`a` summed over all but its last `row_dims` dims and over those of `row_axes` (counted within
    them): what a fused op's row sum stores."""
    return a.sum(axis=row_sum_axes(a.ndim, row_dims, row_axes), keepdims=keepdim)


def row_sum_axes(ndim: int, row_dims: int, row_axes=()) -> tuple:
    """The axes `row_sum` reduces: the leading ones, then `row_axes` within the row."""
    lead = ndim - row_dims
    return tuple(range(lead)) + tuple(lead + k for k in row_axes)


def row_sum_shape(shape: tuple, row_dims: int, row_axes=(), keepdim: bool = False) -> tuple:
    """The shape `row_sum` gives an array of `shape`."""
    lead = len(shape) - row_dims
    if keepdim:
        return (1,) * lead + tuple(1 if k in row_axes else d for k, d in enumerate(shape[lead:]))
    return tuple(d for k, d in enumerate(shape[lead:]) if k not in row_axes)


def run_unfused(arrays, steps, outputs, dtype, backend: str = "cpu", constant: Callable = np.array) -> tuple:
    """The fused op's steps run with their own registry kernels (the reference the loop must match);
    `constant(value, dtype)` makes a literal argument an array on `backend`."""
    from ...registry import get_op, run_kernel
    env = {f"x{i}": a for i, a in enumerate(arrays)}
    for step in steps:
        opdef = get_op(step["type"])
        ins = [constant(float(n[1:]), dtype) if n.startswith("=") else env[n] for n in step["args"]]
        metas = opdef.infer_meta(*ins, **step["attrs"])   # a shape error reads as the op's own
        env[step["out"]] = run_kernel(opdef, ins, step["attrs"], backend, metas)
    return tuple(env[n] for n in outputs)


def fused_source(op_or_attrs, device: str = "cpu") -> str:
    """The generated source of a fused_elementwise op (an Operator or its attrs dict): the numba loop
    (`device="cpu"`) or the numba.cuda kernel (`device="gpu"`)."""
    attrs = getattr(op_or_attrs, "attrs", op_or_attrs)
    if device not in ("cpu", "gpu"):
        raise invalid_argument("fused_source", f"device must be 'cpu' or 'gpu', got {device!r}.")
    return attrs["source"] if device == "cpu" else attrs["cuda_source"]


def fused_cuda_source(op_or_attrs) -> str:
    """The generated numba.cuda kernel source of a fused_elementwise op: `fused_source(op, device="gpu")`."""
    return fused_source(op_or_attrs, device="gpu")
