"""The Collector: the profiler's subscriber on the event bus, keeping one recording window.

It keeps plain records (no tensors, nothing that holds memory alive):

    ops            every op that ran outside a backward pass: [name, kernel, start, end, phase, layer,
                   node id, extra]; phase is forward / optimization / dataloader; node id ("n4") counts
                   forward ops from the window's start, as a trace recorder started with it would name them
    backward       every grad node that ran: [name, start, end, forward node id, inner ops, forward op index];
                   inner ops are the ops its backward rule ran (records like `ops`, phase "backward");
                   a `run_program` op (a @to_static call that trains) keeps the Executor's ops of its
                   forward Program in extra["program_ops"], and its grad node those of the backward one;
                   a GPU op keeps its time on the device (CUDA events) in extra["gpu_ns"] and the names of
                   the CUDA kernels it launched in extra["kernels"]
    phase_spans    (phase, name, start, end): backward passes, optimizer steps, batch loads
    user_events    (name, event type, start, end) from RecordEvent
    compiles       (function, signature, start, end): numba JIT compilations (numba's "numba:compile" event)
    steps          (index, start, end, num_samples) of the ProfileSteps in the window
    memory         with profile_memory: (time, live bytes) after each allocation or free

Times are perf_counter_ns() values; `t0` is the window's start.
"""
from __future__ import annotations

import time
import weakref

import numpy as np

from ..framework import device_memory, instrument, thread_modes
from ..framework.autograd.node import AccumulateGrad
from ..framework.autotune import TunedKernel
from . import record_event

# What the collector hears (optimizer steps and batch loads come through loop_phases.py).
KINDS = ("op", "backward_begin", "backward_step", "backward_end", "executor_op")
# Positions in an op record.
NAME, KERNEL, START, END, PHASE, LAYER, NODE, EXTRA = range(8)
# The window keeps at most this many records of each kind (ops, grad nodes, memory samples, spans):
# ~150 bytes each, so a default (always recording) profiler stays within ~100 MB however long it runs.
# Later records are counted, not kept (the first ones keep their indices: backward records point at ops).
MAX_RECORDS = 200_000
# Positions in a backward record.
B_NAME, B_START, B_END, B_FORWARD, B_INNER, B_FORWARD_INDEX = range(6)


class Collector:
    """Subscribe with `start()`, unsubscribe with `stop()`; the records stay readable after."""

    def __init__(self, *, record_shapes: bool = False, profile_memory: bool = False, with_flops: bool = False) -> None:
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_flops = with_flops
        self.t0 = self.t_end = time.perf_counter_ns()
        self.ops: list = []
        self.backward: list = []
        self.phase_spans: list = []
        self.user_events: list = []
        self.compiles: list = []
        self.steps: list = []
        self.memory: list = []
        self.live_bytes = 0
        self.peak_bytes = 0
        self.freed_bytes = 0
        self.device_memory: dict = {}  # GPU id -> the memory pool's numbers over the window (profile_memory)
        self.host_memory: dict | None = None  # page faults and malloc's free bytes over the window (profile_memory)
        self._pool_start: dict = {}
        self.errors: list[str] = []
        self.max_records = MAX_RECORDS
        self.dropped: dict[str, int] = {}  # kind -> records not kept past max_records
        self._node_count = 0
        self._links: dict = {}        # id(grad node) -> (weakref, forward node id, op index)
        self._inner: list = []        # ops of backward rules, until their backward_step arrives
        self._program_ops: list = []  # the Executor's ops of a run_program forward, until its op event arrives
        self._depth = 0               # nested backward passes
        self._backward_start = 0
        self._phases: list = []       # the phases open now (optimization, dataloader), innermost last
        self._kernel_names: dict = {}
        self._buffers: dict = {}      # id(array) -> (weakref, nbytes) of op outputs still alive
        self._unsubscribe = None
        self._numba = None

    # ---- subscribing ----------------------------------------------------------------------
    def start(self) -> None:
        self.t0 = time.perf_counter_ns()
        self._unsubscribe = instrument.subscribe(self.on_event, kinds=KINDS)
        self._numba = _CompileListener.install(self)
        record_event.active = self
        if self.profile_memory:
            self._pool_start = {device: pool.stats() for device, pool in device_memory.POOLS.items()}
            self._host_start = thread_modes.host_memory_counters()

    def stop(self) -> None:
        if self._unsubscribe is None:
            return
        self._unsubscribe()
        self._unsubscribe = None
        if self._numba is not None:
            self._numba.uninstall()
            self._numba = None
        if record_event.active is self:
            record_event.active = None
        self._buffers.clear()  # their weakrefs go with them: no callbacks after the window
        if self.profile_memory:
            self.device_memory = {device: _pool_window(pool.stats(), self._pool_start.get(device))
                                  for device, pool in device_memory.POOLS.items()}
            self.host_memory = _host_window(thread_modes.host_memory_counters(), self._host_start)
        self.t_end = time.perf_counter_ns()

    @property
    def running(self) -> bool:
        return self._unsubscribe is not None

    # ---- events ---------------------------------------------------------------------------
    def on_event(self, e: instrument.Event) -> None:
        kind = e.kind
        try:
            if kind == "op":
                self._on_op(e)
            elif kind == "backward_step":
                self._on_backward_step(e)
            elif kind == "executor_op":
                self._on_executor_op(e)
            elif kind == "backward_begin":
                if self._depth == 0:
                    self._backward_start = time.perf_counter_ns()
                self._depth += 1
            elif kind == "backward_end":
                self._depth = max(0, self._depth - 1)
                if self._depth == 0:
                    if self._room("phase", self.phase_spans):
                        self.phase_spans.append(("backward", "Backward", self._backward_start, time.perf_counter_ns()))
        except Exception as exc:  # a profiler must never break the program it watches
            if len(self.errors) < 20:
                self.errors.append(f"{kind}: {type(exc).__name__}: {exc}")

    def _on_op(self, e: instrument.OpEvent) -> None:
        opdef, fn = e.opdef, e.kernel
        kernel = self._kernel_names.get((opdef.name, fn))
        if kernel is None:
            kernel = self._kernel_names[(opdef.name, fn)] = kernel_name(opdef, fn)
        if kernel is TUNED:  # the autotuner's stand-in: name the candidate it ran for these shapes
            kernel = fn.last
        extra = None
        if self.record_shapes or self.with_flops or self.profile_memory:
            extra = self._extra(e)
        if e.device_time_ns is not None:  # a GPU op: the bus timed its kernels with CUDA events
            extra = dict(extra or {}, gpu_ns=int(e.device_time_ns), kernels=[launch.kernel for launch in e.launches])
        if self._program_ops:  # the Executor ran a Program inside this op's kernel (run_program)
            program_ops, self._program_ops = self._program_ops, []
            if e.op == "run_program":
                extra = dict(extra or {}, program_ops=program_ops)
        if self._depth:
            self._inner.append([e.op, kernel, e.start_ns, e.end_ns, "backward", e.layer, None, extra])
            return
        self._node_count += 1
        nid = f"n{self._node_count}"
        phase = self._phases[-1] if self._phases else "forward"
        node = e.grad_node
        if node is not None:
            self._links[id(node)] = (weakref.ref(node), nid, len(self.ops))
        if self._room("ops", self.ops):
            self.ops.append([e.op, kernel, e.start_ns, e.end_ns, phase, e.layer, nid, extra])

    def _room(self, kind: str, records: list) -> bool:
        """Whether `records` may grow; counts the record as dropped when it may not."""
        if len(records) < self.max_records:
            return True
        self.dropped[kind] = self.dropped.get(kind, 0) + 1
        return False

    def notes(self) -> list[str]:
        """What the window did not keep, in words (empty when it kept everything)."""
        return [f"the profiler kept the first {self.max_records:,} {kind} records of this window; {n:,} later "
                "ones were not kept, so the tables and the timeline leave their time out (profile fewer steps with "
                "make_scheduler, or raise Collector.max_records)" for kind, n in sorted(self.dropped.items())]

    def _on_executor_op(self, e: instrument.ExecutorOp) -> None:
        """An op of a Program the Executor ran: inside a backward rule (run_program's) it joins the
        rule's inner ops; else it waits for the run_program op whose kernel ran the Program. (A
        Program run outside run_program is not profiled op by op: its ops are dropped at the next op.)"""
        record = [e.op.type, "executor", e.start_ns, e.end_ns, "backward" if self._depth else "forward", None, None,
                  None]
        if self._depth:
            self._inner.append(record)
        elif len(self._program_ops) < self.max_records:
            self._program_ops.append(record)

    def _on_backward_step(self, e: instrument.BackwardStep) -> None:
        node = e.node
        inner, self._inner = self._inner, []
        if type(node) is AccumulateGrad:
            name = "accumulate_grad"
        else:
            name = f"{node.op.name}_grad"
        link = self._links.get(id(node))
        forward_nid = forward_index = None
        if link is not None and link[0]() is node:
            forward_nid, forward_index = link[1], link[2]
        if self._room("backward", self.backward):
            self.backward.append([name, e.start_ns, e.end_ns, forward_nid, inner, forward_index])

    def _extra(self, e: instrument.OpEvent) -> dict:
        extra: dict = {}
        if self.record_shapes:
            extra["shapes"] = [list(t._data.shape) for t in e.inputs]
        if self.with_flops:
            flops = op_flops(e.op, e.inputs, e.outputs, e.attrs)
            if flops is not None:
                extra["flops"] = flops
        if self.profile_memory:
            extra["bytes"] = self._allocated(e.inputs, e.outputs, e.end_ns)
        return extra

    # ---- memory ---------------------------------------------------------------------------
    def _allocated(self, inputs, outputs, now: int) -> int:
        """Bytes of the new buffers among `outputs` (views of the inputs own none); each is
        watched so its free shows in the memory counter."""
        total = 0
        for t in outputs:
            data = t._data
            if id(data) in self._buffers or any(np.may_share_memory(data, t._data) for t in inputs):
                continue  # a view of an input, or the input itself
            nbytes = int(data.nbytes)
            total += nbytes
            key = id(data)
            self._buffers[key] = (weakref.ref(data, lambda ref, key=key: self._freed(key, ref)), nbytes)
        if total:
            self.live_bytes += total
            self.peak_bytes = max(self.peak_bytes, self.live_bytes)
            if self._room("memory", self.memory):
                self.memory.append((now, self.live_bytes))
        return total

    def _freed(self, key: int, ref) -> None:
        entry = self._buffers.get(key)
        if entry is None or entry[0] is not ref:
            return
        del self._buffers[key]
        self.live_bytes -= entry[1]
        self.freed_bytes += entry[1]
        if self._room("memory", self.memory):
            self.memory.append((time.perf_counter_ns(), self.live_bytes))

    # ---- spans from loop_phases.py and RecordEvent ------------------------------------------
    def enter_phase(self, phase: str) -> None:
        self._phases.append(phase)

    def leave_phase(self, phase: str, name: str | None, start: int, end: int) -> None:
        if self._phases and self._phases[-1] == phase:
            self._phases.pop()
        if name is not None and self._room("phase", self.phase_spans):
            self.phase_spans.append((phase, name, start, end))

    def add_user_event(self, name: str, event_type, start: int, end: int) -> None:
        if self._room("user event", self.user_events):
            self.user_events.append((name, event_type.name, start, end))

    def add_compile(self, function: str, signature: str, start: int, end: int) -> None:
        self.compiles.append((function, signature, start, end))


TUNED = "<autotuned>"  # kernel_name's answer for an autotune stand-in, which runs a different kernel per shape


def _host_window(now: dict, start: dict) -> dict:
    """Host memory over the window: the bytes of fresh pages the process faulted in (what malloc did
    not serve from memory it kept), and at the end the bytes malloc holds free for reuse."""
    faults = now["page_faults"] - start["page_faults"]
    return {"page_faults": faults, "fresh_bytes": faults * now["page_bytes"],
            "heap_free_bytes": now["heap_free_bytes"], "keeps_freed_pages": now["keeps_freed_pages"]}


MEASURABLE_BYTES = 1 << 20  # below this much of op outputs, the process's other page faults swamp the share


def host_reuse(host: dict, allocated_bytes: int) -> float | None:
    """The share of the bytes ops allocated that did not need fresh pages: 1 - fresh / allocated, in
    [0, 1]; None below MEASURABLE_BYTES. A floor: every first touch in the process counts as fresh."""
    if allocated_bytes < MEASURABLE_BYTES:
        return None
    return min(1.0, max(0.0, 1.0 - host["fresh_bytes"] / allocated_bytes))


def _pool_window(now: dict, start: dict | None) -> dict:
    """A GPU pool's numbers at the end of the window, its hits and misses counted within it."""
    hits = now["hits"] - (start["hits"] if start else 0)
    misses = now["misses"] - (start["misses"] if start else 0)
    return {**now, "hits": hits, "misses": misses, "hit_rate": hits / (hits + misses) if hits + misses else 0.0}


def kernel_name(opdef, fn) -> str:
    """The registered name of kernel `fn` of `opdef` ("matmul_blas"), else the function's name."""
    if isinstance(fn, TunedKernel):
        return TUNED
    for bucket in opdef.kernels.values():
        for k in bucket:
            if k.fn is fn or getattr(k.fn, "_fn", None) is fn:
                return k.name
    return getattr(fn, "__name__", "kernel")


def op_flops(op: str, inputs: tuple, outputs: tuple, attrs: dict) -> int | None:
    """Multiply-adds x 2 of the ops that dominate a model's arithmetic; None for the others."""
    if not outputs:
        return None
    out_numel = int(outputs[0]._data.size)
    if op in ("matmul", "bmm", "mm"):
        x = inputs[0]._data
        if x.ndim == 0:
            return None
        k = x.shape[-2] if (attrs.get("transpose_x") and x.ndim >= 2) else x.shape[-1]
        return 2 * out_numel * int(k)
    if op == "linear":
        return 2 * out_numel * int(inputs[0]._data.shape[-1])
    if op.startswith("conv") and "transpose" not in op and len(inputs) >= 2:
        weight = inputs[1]._data  # [C_out, C_in / groups, k...]: every output sums over the rest
        return 2 * out_numel * int(np.prod(weight.shape[1:]))
    return None


class _CompileListener:
    """numba's "numba:compile" event: a JIT compilation starts or ends (cache loads are not compiles)."""

    def __init__(self, collector: Collector, listener) -> None:
        self.listener = listener
        self.collector = collector

    @classmethod
    def install(cls, collector: Collector):
        try:
            from numba.core import event
        except ImportError:  # numba is a dependency, but the profiler works without it
            return None
        starts: list = []

        class Listener(event.Listener):
            def on_start(self, ev) -> None:
                starts.append(time.perf_counter_ns())

            def on_end(self, ev) -> None:
                start = starts.pop() if starts else time.perf_counter_ns()
                data = ev.data or {}
                dispatcher = data.get("dispatcher")
                func = getattr(getattr(dispatcher, "py_func", None), "__qualname__", None) or str(dispatcher)
                collector.add_compile(func, str(data.get("args", "")), start, time.perf_counter_ns())

        listener = Listener()
        event.register("numba:compile", listener)
        return cls(collector, listener)

    def uninstall(self) -> None:
        from numba.core import event
        event.unregister("numba:compile", self.listener)
