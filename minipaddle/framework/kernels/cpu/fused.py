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

`fused_codegen.generate_source` writes that text (print it: `op.attrs["source"]`); `load_kernel` saves it to a
file in the cache directory (`$MINIPADDLE_FUSED_CACHE`, else `$XDG_CACHE_HOME/minipaddle/fused`,
else `~/.cache/minipaddle/fused`), imports it and keeps the function in a module-level dict keyed
by the source's hash. numba's `cache=True` needs a real file; with one, a new process loads the
compiled machine code instead of compiling again. numba is imported only when a kernel loads.
`fused_codegen.generate_cuda_source` writes the GPU's kernel from the same steps and primitives (no
GPU needed to write it; kernels/cuda/fused.py compiles and launches it). A RunPlan calls the kernel
through `prepare_fused(attrs)`: the same answer with less work per call.
"""
from __future__ import annotations

import importlib.util
import os
import sys
import tempfile
from pathlib import Path
from typing import Callable

import numpy as np

from ...errors import invalid_argument
from ..numba_cache import minipaddle_cache_dir
from . import fused_product

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


def loop_shape(arrays, input_kinds, product=()) -> tuple | None:
    """A fused op's output shape: its first full-size input's, else its product's (None: neither)."""
    if "a" in input_kinds:
        return arrays[input_kinds.index("a")].shape
    return fused_product.output_shape(arrays, input_kinds, product) if product else None


def fit_inputs(arrays, input_kinds, dtype: np.dtype, expand: Callable, product=()) -> tuple | None:
    """(output shape, the inputs as the generated loop reads them: 1-D) or None when the arrays do not fit
    `input_kinds` (another dtype, a broadcast among full inputs): then the unfused ops run instead.
    `expand(a, shape)` makes a broadcast ("b") input full size on the arrays' own device; `product`: the
    op's [K, transpose_x, transpose_y] when two inputs ('L', 'R') are a product's operands."""
    shape = loop_shape(arrays, input_kinds, product)   # (plain loops: this runs on every call of a fused op)
    if shape is None:
        return None
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
        elif kind == "L" or kind == "R":
            if not product or not fused_product.operand_fits(a, kind, shape, product):
                return None
            flat.append(a.reshape(-1))
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
                             row_dims=1, row_axes=(), row_keepdim=False, product=(), out=None):
    """Run the generated loop; inputs it cannot take as they are (another dtype, a broadcast among
    full inputs) run the original ops one by one instead, so the answer is always the unfused one.
    `out`: arrays (C-contiguous, the output shape and dtype) to store into instead of new ones; the
    row sums (of the outputs `row_sums` names, over all but the last `row_dims` dims, then over the
    row's own `row_axes`: a conv bias's H and W; `row_keepdim`: the summed dims kept as 1s) come after them."""
    dt = np.dtype(dtype)
    fitted = fit_inputs(arrays, input_kinds, dt, _expand_host, product)
    if fitted is None:
        result = run_unfused(arrays, steps, outputs, dt)
        if out is not None:
            for o, r in zip(out, result):
                o[...] = r
            result = tuple(out)
        result += tuple(row_sum(result[j], row_dims, row_axes, row_keepdim) for j in row_sums)
    else:
        shape, flat = fitted
        result = tuple(_run_loop(kernel_name, source, flat, shape, dt, len(outputs), len(row_sums), row_dims, out))
        if row_axes or row_keepdim:
            final = row_sum_shape(shape, row_dims, row_axes, row_keepdim)
            result = result[:len(outputs)] + tuple(r.sum(axis=tuple(row_axes)).reshape(final)
                                                   for r in result[len(outputs):])
    return result[0] if len(result) == 1 else result


def _run_loop(name: str, source: str, flat: list, shape: tuple, dtype: np.dtype, n_out: int, n_sums: int,
              row_dims: int, out=None) -> list:
    """The generated loop `name` run on the flattened inputs: its outputs (new, or `out`) and then its
    row sums, which start at zero."""
    result = list(out) if out is not None else [np.empty(shape, dtype) for _ in range(n_out)]
    result += [np.zeros(shape[len(shape) - row_dims:], dtype) for _ in range(n_sums)]
    if not n_sums or result[-1].size:  # (empty rows: nothing to loop over, the sums stay zero)
        fn = _KERNELS.get(name) or load_kernel(name, source)
        fn(*flat, *[o.reshape(-1) for o in result])
    return result


def prepare_fused(attrs: dict) -> Callable:
    """`fused_elementwise_kernel` bound to one op's attrs, for a RunPlan that calls it step after step:
    the same answer, with the per-call work cut to what the arrays decide. Full, row, scalar and product
    inputs fitted once per input shapes are only flattened on later calls, and the loop is called by
    position (no 15 keyword arguments matched on every call). Other input kinds, row sums reduced
    within the row, and inputs that do not fit go the general way."""
    kinds = tuple(attrs["input_kinds"])
    if any(k not in "arsLR" for k in kinds) or attrs.get("row_axes") or attrs.get("row_keepdim"):
        return lambda *arrays: fused_elementwise_kernel(*arrays, **attrs)
    dt, name, source = np.dtype(attrs["dtype"]), attrs["kernel_name"], attrs["source"]
    product = attrs.get("product", ())
    n_out, n_sums, row_dims = len(attrs["outputs"]), len(attrs.get("row_sums", ())), attrs.get("row_dims", 1)
    fits: dict = {}   # input shapes -> output shape, for shapes fit_inputs accepted

    def call(*arrays):
        shapes = tuple([a.shape for a in arrays])
        shape = fits.get(shapes)
        for a in arrays:
            if a.dtype is not dt and a.dtype != dt:
                shape = None
                break
        if shape is None:
            fitted = fit_inputs(arrays, kinds, dt, _expand_host, product)
            if fitted is None:
                return fused_elementwise_kernel(*arrays, **attrs)
            shape, flat = fitted
            fits[shapes] = shape
        else:
            flat = [a.reshape(-1) for a in arrays]
        outs = _run_loop(name, source, flat, shape, dt, n_out, n_sums, row_dims)
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
