"""dispatch(): the one path every op call takes, in eager and static mode.

    paddle.add(x, y) -> dispatch(ADD, (x, y), {})
      1. static mode (in this thread)? hand the call to the Program builder and stop
      2. infer_meta: check arguments, compute output shapes/dtypes (errors raise here); skipped
         when the caller vouches there is nothing to check (`checked=True`: see dispatch)
      3. run_kernel: pick the kernel for (backend, dtype) -- cached per OpDef -- and run it
         (for CPU arrays its three steps are written out here: see run_kernel's docstring)
      4. wrap the arrays in Tensors
      5. some input needs grad and grad is enabled (in this thread)? record a GradNode
      6. somebody listening? emit one event

This path decides eager speed; it is measured in benchmarks/op_overhead.py.
"""
from __future__ import annotations

import time
from threading import get_ident

import numpy as np

from . import instrument, memory, thread_modes
from .autograd.engine import grad_edge
from .autograd.node import GradNode, SavedOutput, VersionCounter
from .dtype import DIFFERENTIABLE_KINDS
from .errors import ResourceExhausted, invalid_argument
from .kernel_launches import DeviceTiming
from .registry import DEVICE_ARRAY_TYPES, KernelKey, OpDef, backend_of, kernel_fn, kernel_output, run_kernel
from .thread_modes import modes, threads_building, threads_without_grad

_EMPTY: dict = {}
_new = object.__new__
# Bound once, as names of this module: each saves a lookup on every op call. They are the containers
# themselves, changed in place and never replaced, so these names always see what the modules see.
_subscribers = instrument.subscribers   # the debugger's listeners
_ndarray = np.ndarray


def dispatch(op: OpDef, inputs: tuple, attrs: dict = _EMPTY, checked: bool = False):
    """Run `op` on Tensors `inputs`; return a Tensor or a tuple of Tensors.

    `checked=True`: the caller has seen that infer_meta has nothing to reject (add, subtract, multiply
    of two Tensors of one shape and dtype; a reduction's gradient broadcast back), so step 2 is skipped.
    """
    if threads_building:  # some thread builds a Program: is it this one? (thread_modes.py)
        builder = threads_building.get(get_ident())
        if builder is not None:
            return builder(op, inputs, attrs)
    if len(inputs) == 2:  # unrolled: a list comprehension costs a frame per call
        x, y = inputs
        xd, yd = x._data, y._data
        arrays = (xd, yd)
        if type(xd) is not type(yd):
            check_same_place(op, arrays)
    elif len(inputs) == 1:
        arrays = (inputs[0]._data,)
    else:
        arrays = tuple([t._data for t in inputs])
        if DEVICE_ARRAY_TYPES:  # (empty until a GPU is first used)
            check_same_place(op, arrays)
    metas = None  # checked: made below only where needed, as `metas or op.infer_meta(...)`
    if not checked:
        metas = op.infer_meta(*arrays, **attrs) if attrs else op.infer_meta(*arrays)
    first = arrays[op.kernel_input]
    if _subscribers:  # the debugger's one check: with nobody listening the path goes on unchanged
        return _dispatch_traced(op, inputs, attrs, arrays, metas or op.infer_meta(*arrays, **attrs), backend_of(first))
    try:  # (free in CPython 3.11+ until something raises)
        if type(first) is _ndarray:
            # run_kernel(op, arrays, attrs, "cpu", metas), its three steps written out: a call less on
            # every CPU op. registry.run_kernel stays the definition; this is the same code.
            fn = op._chosen.get(("cpu", first.dtype))  # (a KernelKey is a tuple: the same dict key)
            if fn is None:
                fn = kernel_fn(op, KernelKey("cpu", first.dtype))
            result = fn(*arrays, **attrs) if attrs else fn(*arrays)
            if type(result) is not _ndarray:
                result = kernel_output(result, metas or op.infer_meta(*arrays, **attrs))
        else:
            result = run_kernel(op, arrays, attrs, backend_of(first), metas or op.infer_meta(*arrays, **attrs))
    except MemoryError as error:  # numpy's bare "Unable to allocate": say what the op's outputs need
        raise _out_of_memory(op, metas or op.infer_meta(*arrays, **attrs), error) from None

    single = type(result) is not tuple
    if single:
        out = _new(Tensor)  # Tensor._wrap, inlined: this is every op's path
        out._data = result
    else:
        outs = tuple([Tensor._wrap(r) for r in result])

    if op.backward is not None:  # the inputs first: with none needing grad, the mode is not looked at
        for t in inputs:
            if not t.stop_gradient:
                if not threads_without_grad or get_ident() not in threads_without_grad:
                    _record(op, inputs, attrs, (out,) if single else outs)  # (nobody in no_grad, or not this thread)
                break
    return out if single else outs


def _dispatch_traced(op: OpDef, inputs: tuple, attrs: dict, arrays: tuple, metas, backend: str):
    """Steps 4-6 with a subscriber listening: time the kernel, then report the grad node and the op.

    The same work as dispatch's own tail (which stays inlined there, for speed) plus the events
    documented in instrument.py. A GPU op is also timed on the device, with CUDA events, and its
    kernel launches (grid, block) are noted; the host waits for its kernels, so its end_ns is when
    the results were ready, not when the launches were queued.
    """
    fn = kernel_fn(op, KernelKey(backend, arrays[op.kernel_input].dtype))  # named in the op event
    timing = DeviceTiming() if backend == "gpu" else None
    start = time.perf_counter_ns()
    try:
        result = run_kernel(op, arrays, attrs, backend, metas)
    except BaseException as error:
        if timing is not None:
            timing.abandon()
        if isinstance(error, MemoryError):
            raise _out_of_memory(op, metas, error) from None
        raise
    device_time_ns = timing.stop() if timing is not None else None
    end = time.perf_counter_ns()
    outs = (Tensor._wrap(result),) if type(result) is not tuple else tuple([Tensor._wrap(r) for r in result])
    node = None
    if thread_modes.grad_enabled() and op.backward is not None:
        for t in inputs:
            if not t.stop_gradient:
                _record(op, inputs, attrs, outs)
                for o in outs:  # (integer outputs are not attached to the node)
                    if o._node is not None:
                        node = o._node
                        instrument.emit(instrument.GradNodeEvent(node, op.name))
                        break
                break
    launches = tuple(timing.launch_records()) if timing is not None else ()
    instrument.emit(instrument.OpEvent(op.name, op, instrument.current_layer(), inputs, outs, attrs, fn, node,
                                       start, end, device_time_ns=device_time_ns, launches=launches))
    return outs[0] if type(result) is not tuple else outs


def _out_of_memory(op: OpDef, metas, error: MemoryError) -> MemoryError:
    if isinstance(error, ResourceExhausted):  # an inner op already said what it needs
        return error
    return memory.out_of_memory(op.name, metas)


def check_same_place(op: OpDef, arrays: tuple) -> None:
    """Every input of one op must live on one device (Paddle: "Expected all tensors on the same place")."""
    backends = [backend_of(a) for a in arrays]
    if backends.count(backends[0]) != len(backends):
        places = ["Place(cpu)" if b == "cpu" else "Place(gpu:0)" for b in backends]
        raise invalid_argument(
            op.name, f"the inputs live on different places ({', '.join(places)}); an op runs on one device.",
            hint="move them to one place first: x.cuda() or x.cpu() (or x.to('gpu'), x.to('cpu')).")


def _record(op: OpDef, inputs: tuple, attrs: dict, outs: tuple) -> None:
    """Create the GradNode for this call and attach the outputs to it.

    Per input: the edge its gradient flows into (None: it wants none) and its (shape, dtype), to
    shape that gradient. One- and two-input calls are written out: they are most calls, and a
    loop building lists costs them a third of this function's time."""
    diff = op.differentiable_inputs
    if len(inputs) == 2:
        x, y = inputs
        # grad_edge: None for stop_gradient=True (that cuts a non-leaf from its graph too)
        edges = (grad_edge(x) if 0 in diff else None, grad_edge(y) if 1 in diff else None)
        if edges[0] is None and edges[1] is None:  # only non-differentiable inputs need grad: nothing to record
            return
        xd, yd = x._data, y._data
        metas = ((xd.shape, xd.dtype), (yd.shape, yd.dtype))
    elif len(inputs) == 1:
        x = inputs[0]
        edges = (grad_edge(x) if 0 in diff else None,)
        if edges[0] is None:
            return
        xd = x._data
        metas = ((xd.shape, xd.dtype),)
    else:
        edges = tuple([grad_edge(t) if i in diff else None for i, t in enumerate(inputs)])
        if edges.count(None) == len(edges):
            return
        metas = tuple([(t._data.shape, t._data.dtype) for t in inputs])
    single = len(outs) == 1
    if single:
        data = outs[0]._data
        out_metas = ((data.shape, data.dtype),)
    else:
        out_metas = tuple([(o._data.shape, o._data.dtype) for o in outs])
    node = GradNode(op, attrs, edges, metas, out_metas)
    if op.save:
        _save_for_backward(op, node.saved, inputs, outs)
    if single:  # (fresh Tensors: _out_index 0 is the class default, so output 0 needs no write)
        if data.dtype.kind in DIFFERENTIABLE_KINDS:  # float, complex, bfloat16; integer and bool never
            out = outs[0]
            out.stop_gradient = False
            out._node = node
        return
    index = 0
    for o in outs:
        if o._data.dtype.kind in DIFFERENTIABLE_KINDS:
            o.stop_gradient = False
            o._node = node
            o._out_index = index
        index += 1


def _save_for_backward(op: OpDef, saved: dict, inputs: tuple, outs: tuple) -> None:
    """Keep what the op's backward rule reads (`register_op(save=...)`), each with its storage's version."""
    for name, (kind, index) in op._save_index.items():
        if kind == "input":  # keep the tensor and the version of its storage now
            t = inputs[index]
            root = t if t._base is None else t._base
            counter = root._counter
            if counter is None:
                counter = root._counter = VersionCounter()
            saved[name] = (t, counter, counter.value)
        else:                # an output: keep its array, not the tensor (that would be a cycle)
            o = outs[index]
            counter = o._counter = VersionCounter()
            saved[name] = SavedOutput(o._data, index, counter)


def __getattr__(name: str):
    """`dispatch.static_builder` (read by older code) is this thread's builder; see thread_modes.py."""
    if name == "static_builder":
        return modes.static_builder
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


from .tensor import Tensor  # noqa: E402 - here by history only: tensor.py no longer imports this module
