"""The fusion pass's code generator: the source of a fused op's loops, written from its steps.

A fused_elementwise op's `steps` name registry ops (RULES: which scalar primitive computes each, and
which attributes it takes). `generate_source` writes the numba loop for the CPU and
`generate_cuda_source` the numba.cuda kernel for the GPU from the same steps and primitives (copied
verbatim from ops/primitives.py and fast_math.py); fused.py compiles, caches and runs them. A skinny
product computed in the loop is written by fused_product.py.
"""
from __future__ import annotations

import hashlib
import inspect
import re
from typing import Callable

import numpy as np

from ...ops import primitives as P
from . import fused_product
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
                    row_sums: tuple = (), product=()) -> tuple[str, str]:
    """(kernel name, module source) of the loop computing `steps`.

    steps: [{"type", "attrs", "args": ["x0" | "t3" | "=0.5", ...], "out": "t4"}] in program order; inputs
    are x0, x1, ... (kind "s": one element, read once before the loop; "r": a row repeated along the
    leading dims, a bias, read in place; "p": one value per channel, (C, 1, 1), which fit_inputs expands
    to its row C x H x W, then read as a row), "=<number>" a constant written into the loop; outputs
    name the temps stored. row_sums: indices into `outputs` whose sums over the leading dims are stored
    too, after them (a bias gradient: summed in the same pass, in float64). product: [K, transpose_x,
    transpose_y] when a "matmul" step with a small K is computed in the loop (fused_product.py).
    """
    dtype = np.dtype(dtype)
    prims, body, expr = _step_lines(steps, input_kinds, dtype, product, gpu=False)
    n_in, n_out = len(input_kinds), len(outputs)
    params = [f"x{i}" for i in range(n_in)] + [f"out{j}" for j in range(n_out + len(row_sums))]
    loads = [f"    s{i} = x{i}[0]" for i, k in enumerate(input_kinds) if k == "s"]
    nested = any(k in "rp" for k in input_kinds) or bool(row_sums or product)
    if nested:  # a row input (a bias) is read in place, a row sum accumulated: i = r * row + j
        loads += _row_loop(input_kinds, n_out, row_sums, product, dtype)
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


def _step_lines(steps: list[dict], input_kinds: list[str], dtype: np.dtype, product, gpu: bool) -> tuple:
    """(the primitives used, the loop body's lines, the expression's parts) of `steps`, for the CPU
    loop or the GPU kernel."""
    prims, body, expr = [], [], []
    arg = _cuda_arg if gpu else _arg
    for step in steps:
        if step["type"] == "matmul":  # K multiply-adds in the loop (fused_product.py)
            body += (fused_product.cuda_lines(step["out"], input_kinds, product, dtype) if gpu
                     else [fused_product.cpu_element(step["out"], product)])
            expr.append(fused_product.expression(step["out"], step["args"], product))
            continue
        # (FAST_F32 math on the CPU only: a GPU has fast float32 tanh/exp/erf of its own)
        fn, values = primitive_for(step["type"], step["attrs"], None if gpu else dtype, step["args"])
        if fn not in prims:
            prims.append(fn)
        args = [arg(a, input_kinds, dtype) for a in step["args"]] + [_literal(v, dtype) for v in values]
        body.append(f"        {step['out']} = np.{dtype.name}(prim_{fn.__name__}({', '.join(args)}))")
        shown = [a[1:] if a.startswith("=") else a for a in step["args"]] + [repr(v) for v in values]
        expr.append(f"{step['out']} = {fn.__name__}({', '.join(shown)})")
    return prims, body, expr


def _row_loop(input_kinds: list[str], n_out: int, row_sums, product, dtype: np.dtype) -> list[str]:
    """The lines that open the nested loop (rows r, then elements j of the row: i = r * row + j)."""
    rows = [i for i, k in enumerate(input_kinds) if k in "rp"]   # (a plane input arrives as a row: fit_inputs)
    if product:
        lines = fused_product.cpu_loads(input_kinds, product, dtype)
    else:
        lines = [f"    row = {f'x{rows[0]}' if rows else f'out{n_out}'}.size"]
    lines += [f"    acc{k} = np.zeros(row, np.float64)" for k in range(len(row_sums))]
    lines += ["    for r in range(out0.size // row):", "        base = r * row"]
    lines += fused_product.cpu_row(input_kinds, product) if product else []
    return lines + ["        for j in range(row):", "            i = base + j"]


def generate_cuda_source(steps: list[dict], input_kinds: list[str], outputs: list[str], dtype,
                         product=()) -> tuple[str, str]:
    """(kernel name, module source) of a numba.cuda kernel computing the same `steps` as
    `generate_source`: the same primitives (as device functions), one element per thread in a
    grid-stride loop (kernels/cuda/fused.py shows one, compiles and launches it). Needs no GPU to write.
    """
    dtype = np.dtype(dtype)
    prims, body, expr = _step_lines(steps, input_kinds, dtype, product, gpu=True)
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
