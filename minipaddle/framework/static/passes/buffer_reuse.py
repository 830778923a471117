"""Buffer reuse (Paddle's memory_optimize / enable_inplace): which temporaries can share memory.

Liveness analysis on the global block: a temporary is live from the op that writes it to the last
op that reads it (a read inside a control-flow sub-block counts for the control-flow op). Walking
the ops in order, each new temporary takes a free buffer of the same shape and dtype if one is
free, else a new one; a buffer frees *after* its last reader ran (an op's output never shares its
own input's memory). Fetched, persistable and fed variables, and variables written more than once,
keep their own memory.

The result is a plan -- `{variable: buffer}` and the bytes saved -- in the report's details and on
the returned program as `program._buffer_plan` (the pass changes no op). The Executor follows it
(`BufferPool`) where a kernel can write into a given array: elementwise arithmetic through the numpy
ufunc's `out=`, and fused kernels, whose generated loop stores into the arrays it is given. A buffer
lives in the pool across runs, so a training step stops allocating (and page-faulting) those
temporaries. Before writing into a buffer the pool checks that nothing else holds it (no variable,
no view of it, no saved control-flow scope): otherwise the op allocates, as without the plan.
On a GPU Executor the pool holds device arrays, and the fused ops write into them (their generated
CUDA kernel takes `out=` as the CPU loop does); other GPU kernels allocate their results.
Sizes of -1 (batch) dims are counted as `batch_size`.
"""
from __future__ import annotations

import math
import sys

import numpy as np

from ..program import Program
from .common import fetch_names, op_reads, protected, readers, run_pass, writers
from .report import PassReport


def buffer_reuse(program: Program, fetch_list=None, batch_size: int = 1) -> tuple[Program, PassReport]:
    """`program` (ops unchanged) with a liveness-based buffer sharing plan; the input is unchanged."""
    return run_pass("buffer_reuse", _plan, program, fetch_names(fetch_list), batch_size=batch_size)


def _nbytes(var, batch_size: int) -> int:
    shape = [batch_size if d == -1 else d for d in var._data.shape]
    return int(math.prod(shape)) * var._data.dtype.itemsize


def _plan(program: Program, report: PassReport, fetched, batch_size: int) -> None:
    block = program.global_block()
    written, read_by = writers(block), readers(block)
    last_use = {}
    for name, ws in written.items():
        var = block.vars.get(name)
        if var is None or len(ws) != 1 or protected(block, name, fetched):
            continue
        if fetched is None and not read_by.get(name):
            continue  # without a fetch_list a leaf may be fetched
        last_use[name] = max(read_by.get(name, ws))
    free: dict[tuple, list[str]] = {}
    alias: dict[str, str] = {}
    buffer_bytes: dict[str, int] = {}
    for i, op in enumerate(block.ops):
        for name in op.output_names():
            if name not in last_use or name in alias:
                continue
            var = block.vars[name]
            key = (var._data.shape, var._data.dtype.str)
            pool = free.get(key)
            if pool:
                alias[name] = pool.pop()
            else:
                alias[name] = name
                buffer_bytes[name] = _nbytes(var, batch_size)
        for name in op_reads(program, op) | set(op.output_names()):
            if last_use.get(name) == i and name in alias:
                var = block.vars[name]
                free.setdefault((var._data.shape, var._data.dtype.str), []).append(alias[name])
    total = sum(_nbytes(block.vars[n], batch_size) for n in alias)
    kept = sum(buffer_bytes.values())
    shared = {n: b for n, b in alias.items() if n != b}
    report.details = {"alias": shared, "buffer_of": dict(alias), "buffers": len(buffer_bytes),
                      "temporaries": len(alias),
                      "bytes_without_reuse": total, "bytes_with_reuse": kept, "bytes_saved": total - kept,
                      "batch_size": batch_size, "applied_by_executor": True}
    program._buffer_plan = report.details
    report.summary = (f"{len(shared)} of {len(alias)} temporaries reuse a buffer: {len(buffer_bytes)} buffers, "
                      f"{total - kept} bytes saved at batch {batch_size} (the Executor writes elementwise and fused "
                      "ops into the shared buffers)")


# ---- acting on the plan --------------------------------------------------------------------------
# Ops whose registry kernel is this numpy ufunc (exactly rounded arithmetic: any kernel gives the same bits)
OUT_UFUNCS = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.divide,
              "maximum": np.maximum, "minimum": np.minimum, "neg": np.negative, "abs": np.absolute,
              "square": np.square, "sqrt": np.sqrt}
_FREE_REFS = 3  # the pool's dict, the local name and getrefcount's own argument: nobody else holds it


class BufferPool:
    """The Executor's side of a buffer_reuse plan for one program: buffer name -> array, kept across runs."""

    def __init__(self, program: Program, steps: list, backend: str = "cpu") -> None:
        buffer_of = program._buffer_plan["buffer_of"]
        self.backend = backend
        self.buffers: dict[str, np.ndarray] = {}
        self._holder_refs: dict[str, int] = {}  # GPU: the references its memory had when pooled (no views)
        self.reused = 0       # outputs written into a pooled buffer (a test reads these)
        self.allocated = 0
        self.steps: dict[int, list[str]] = {}  # step index -> the buffer of each output
        for i, step in enumerate(steps):
            names = step.op.output_names()
            writes_out = (step.op.type == "fused_elementwise" and not step.op.attrs.get("row_sums")) or \
                (backend == "cpu" and step.op.type in OUT_UFUNCS)  # (a row sum has its own shape: not pooled)
            if step.handler is None and writes_out and names and all(n in buffer_of for n in names):
                self.steps[i] = [buffer_of[n] for n in names]

    def _free(self, key: str, shape: tuple, dtype) -> np.ndarray | None:
        buf = self.buffers.get(key)
        if buf is None or buf.shape != shape or buf.dtype != dtype or sys.getrefcount(buf) > _FREE_REFS:
            return None
        if self.backend == "gpu" and sys.getrefcount(_memory_of(buf)) > self._holder_refs[key]:
            return None  # a view (a reshape) of the device array still reads its memory
        return buf

    def run(self, i: int, step, env: dict, run_kernel) -> None:
        """Run step i writing into its planned buffers when they are free; else as the Executor would."""
        keys = self.steps[i]
        arrays = [env[n] for n in step.ins]
        shape, dtype = _out_meta(step, arrays)
        outs = [self._free(k, shape, dtype) for k in keys] if shape is not None else [None]
        if shape is not None and all(o is not None for o in outs):
            if step.op.type == "fused_elementwise" and self.backend == "gpu":
                from ...registry import KernelKey, kernel_fn
                kernel_fn(step.opdef, KernelKey("gpu", dtype))(*arrays, out=tuple(outs), **step.attrs)
            elif step.op.type == "fused_elementwise":
                from ...kernels.cpu.fused import fused_elementwise_kernel
                fused_elementwise_kernel(*arrays, out=tuple(outs), **step.attrs)
            else:
                OUT_UFUNCS[step.op.type](*arrays, out=outs[0])
            for name, o in zip(step.outs, outs):
                env[name] = o
            self.reused += len(outs)
            return
        run_kernel(step, env)
        for key, name in zip(keys, step.outs):
            value = env[name]
            if type(value) is np.ndarray and value.base is None and value.flags.c_contiguous:
                self.buffers[key] = value  # owned memory: later planned outputs may write into it
                self.allocated += 1
            elif self.backend == "gpu" and type(value) is not np.ndarray:  # a fused kernel's new device array
                self.buffers[key] = value
                self._holder_refs[key] = sys.getrefcount(_memory_of(value))
                self.allocated += 1


def _memory_of(array):
    """The object that owns a device array's memory, shared by its views: the simulator's numpy array,
    else numba's memory pointer."""
    return getattr(array, "_ary", None) if hasattr(array, "_ary") else array.gpu_data


def _out_meta(step, arrays: list) -> tuple:
    """(shape, dtype) every output of the step has, when it can write into given arrays, else (None, None)."""
    if step.op.type == "fused_elementwise":
        dtype = np.dtype(step.attrs["dtype"])
        shape = next((a.shape for a, k in zip(arrays, step.attrs["input_kinds"]) if k == "a"), None)
        return shape, dtype
    dtype = arrays[0].dtype
    if any(a.dtype != dtype for a in arrays):
        return None, None
    try:
        return np.broadcast_shapes(*(a.shape for a in arrays)), dtype
    except ValueError:
        return None, None  # the kernel raises the op's own error
