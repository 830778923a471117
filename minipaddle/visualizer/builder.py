"""TraceBuilder: turns instrument events into the trace document, in bounded memory.

The builder keeps what the document needs and nothing live: every tensor it sees gets a
trace id ("t7") and, each time its values matter, a *state* ("s31": a summary, and the values
of small tensors). Forward op calls become nodes ("n4"), grad nodes become backward nodes
("g9"), and everything that happens is a *step* in one ordered list the debugger can scrub.

Memory stays bounded: steps live in a ring buffer (`max_steps`, and `max_bytes` of estimated
document size). Each step holds references to the objects it made or used; when the oldest
step is dropped, objects no retained step refers to go with it, and `dropped_steps` says so.
Links that are only "soft" (a tensor's producer, a grad node's forward node, the grad node an
edge leads to) may point at something dropped; `build()` writes those as null.

Tensors are identified by a map from id(tensor) to (weakref, trace id): a recycled id() of a
dead tensor never aliases a new one, and the map holds no tensor alive (entries of dead tensors
are swept out whenever the map has doubled).

What recording costs (the recorder-on target of benchmarks/instrument_overhead.py): every state
is summarized when it is recorded, since tensors change in place later, but never twice: an
input whose version is unchanged reuses its state; a parameter's summary outlives the recording
(see _cached_summary), so a traced training step does not summarize its weights again on the
way in; a .grad buffer that equals the gradient just accumulated into it (it was empty or
zeroed) shares that gradient's summary after a bit-for-bit comparison. Kernel descriptions are
cached across recordings.

A PyLayer call (paddle.autograd.PyLayer, see autograd/py_layer.py) is one node whose op is the class
name and whose attrs carry the user's forward and backward source; the ops its forward runs are
listed on that node (attrs "forward_ops"), not drawn as nodes of their own: the learner wrote one
op, and its backward step lists the ops the user's backward ran, as every backward step does.
"""
from __future__ import annotations

import datetime
import itertools
import time
import weakref
from collections import deque

import numpy as np

from ..framework import instrument
from ..framework.autograd.node import AccumulateGrad
from ..framework.parameter import Parameter
from ..framework.registry import KernelKey, preferred_kernel
from ..framework.thread_modes import modes
from .summary import SATURATION_OPS, json_number, jsonable, saturation, same_values, summarize
from . import program as _program
from .doc_cache import DocumentCache
from .trace import build_document

# What the byte budget counts: the recorder's memory, measured with tracemalloc on an MLP run
# (the JSON document comes out at about a third of it, values aside).
STATE_BYTES = 1100      # one tensor state: its record, summary and histogram
VALUE_BYTES = 12        # per value kept: ~its JSON text (its copy in memory takes 4-8)
TENSOR_BYTES = 700
GRAD_NODE_BYTES = 900
STEP_BYTES = 1500       # one step with its op node or update record, on average
ITERATION_BYTES = 120   # one training iteration's start and loss (iterations.py builds the rest)
MAX_INNER_OPS = 32      # ops listed per backward step (the rest are only counted)
MAX_NAN_EVENTS = 100    # NaN/Inf occurrences listed (all are counted)
MAX_AUTOTUNE = 200      # autotune decisions kept (the first ones: later calls of a class reuse them)
SAME_CHECK_NUMEL = 1024  # from this size, comparing with a known state is cheaper than summarizing
HOLD_SHARE = 0.7         # of max_bytes, what the recorder holds (the rest is for building the document)
HOLD_RESERVE = 512 << 10  # bytes the recorder keeps outside its estimate (id tables, caches)
SWEEP_MIN = 1024         # id tables are swept of dead objects' entries from this size on


class TraceBuilder:
    """Consumes instrument events (`on_event`) and builds the document (`build`)."""

    def __init__(self, *, values: str = "small", max_bytes: int = 64 << 20, max_steps: int = 10_000,
                 values_max_numel: int = 64, backward: bool = True) -> None:
        self.values = values
        self.max_bytes = max_bytes
        # what the recorder itself may hold: building the document allocates about 0.85x of that again,
        # so recording and building together stay under 1.5x max_bytes (test_budget.py measures it)
        # (less a reserve for the id tables and caches the estimate does not count: small budgets feel it)
        self.hold_bytes = int(max_bytes * HOLD_SHARE) - min(HOLD_RESERVE, max_bytes // 8)
        self.max_steps = max_steps
        self.values_max_numel = values_max_numel
        self.backward = backward
        self.created_at = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
        self.t0_ns = time.perf_counter_ns()
        self.objects: dict[str, dict] = {}   # id -> record: tensors, states, nodes, grad nodes, updates
        self.state_data: dict[str, tuple] = {}  # state id -> (Summary, values array or None)
        # id -> number of retained steps holding it; counted from the first drop on (most never drop)
        self.refs: dict[str, int] | None = None
        self.steps: deque = deque()          # (step record, [ids it holds], bytes)
        self.next_step = 0
        # the next number of each kind of id ("t7", "s31", ...)
        self._counters = {prefix: itertools.count(1).__next__ for prefix in "tsngu"}
        self._next_t, self._next_s = self._counters["t"], self._counters["s"]
        self.bytes_used = 0
        self.values_bytes = 0
        self.dropped_steps = 0
        self.dropped_reasons: set[str] = set()
        self.values_omitted_budget = 0
        self.errors: list[str] = []
        self.event_counts: dict[str, int] = {}
        self.timings: dict[tuple, list] = {}  # (op, phase, kernel) -> [count, total_ns, max_ns]
        self.nan_inf = {"first": None, "count": 0, "occurrences": []}
        self.autotune: dict[str, dict] = {}       # cache key -> decision seen while recording (bounded)
        self.autotune_dropped = 0
        self._tuning: dict[tuple, dict | None] = {}  # (key, kernel name) -> the node's kernel.tuning
        self._tensor_ids: dict[int, tuple] = {}  # id(tensor) -> (weakref, tid)
        self._node_ids: dict[int, tuple] = {}    # id(grad node) -> (weakref, gid)
        self._output_of: dict[tuple, str] = {}   # (gid, output index) -> tid of that forward output
        self._params: dict[str, weakref.ref] = {}  # parameter name -> the parameter (updates name it)
        self._last_state: dict[str, tuple] = {}  # tid -> (sid, version) of its newest state
        self._backward_depth = 0
        self._backward_pass = 0
        self._inner_ops: list = []               # ops run by backward rules, until their step comes
        self._pylayer_ops: list[list] = []       # per PyLayer forward running (innermost last): its ops
        self._pylayer_done: list | None = None   # the ops of the PyLayer forward that just finished
        self._nan_pending: list = []             # (sid, tensor) of new states holding NaN/Inf, to flag
        self._version = 0                        # bumped on every change: Recorder caches its Trace
        self._sweep_at = SWEEP_MIN               # _remember sweeps its table beyond this size
        # training iterations (iterations.py): [index, first step, loss] of each iteration still retained,
        # oldest first; a forward op after a backward pass or an optimizer update starts the next one
        self.iterations: deque = deque([[0, 0, None]])
        self._iteration_done = False             # the current iteration ran backward or an update
        self.saw_training = False                # any backward pass or optimizer update at all
        self.layer_kinds: dict[str, str | None] = {}  # layer path -> its class name ("Tanh")
        self.param_layers: dict[str, str] = {}   # parameter tid -> path of the layer that holds it
        self._structured_names: dict[int, tuple] = {}  # id(outermost layer) -> (weakref, {id(param): key})
        self.cache = DocumentCache(self)         # what build() made of unchanging records (live views)

    # ---- ids ----------------------------------------------------------------------------
    def _new_id(self, prefix: str) -> str:
        return f"{prefix}{self._counters[prefix]()}"

    @property
    def version(self) -> int:
        """Bumped on every change (a Recorder rebuilds its Trace only when it moved)."""
        return self._version

    def trace_id_of(self, obj) -> str | None:
        """The trace id ("t7", "g3") this recording gave a live Tensor or GradNode, if it still keeps it
        (an op's output is found through the grad node that made it)."""
        objects = self.objects
        if hasattr(obj, "next_edges") or hasattr(obj, "tensor_ref"):  # a GradNode / AccumulateGrad
            gid = self._lookup(self._node_ids, obj)
            return gid if gid in objects else None
        if getattr(obj, "_node", None) is not None:
            gid = self._lookup(self._node_ids, obj._node)
            tid = self._output_of.get((gid, obj._out_index)) if gid else None
            if tid in objects:
                return tid
        tid = self._lookup(self._tensor_ids, obj)
        return tid if tid in objects else None

    def _lookup(self, table: dict, obj) -> str | None:
        """The trace id `table` (_tensor_ids or _node_ids) gives `obj`, or None."""
        entry = table.get(id(obj))
        if entry is not None and entry[0]() is obj:
            return entry[1]
        return None

    def _remember(self, table: dict, obj, trace_id: str) -> None:
        """Map id(obj) to `trace_id`. The weak reference tells a recycled id() of a dead object from
        it; entries of dead objects are swept out when the table doubles (no callback per object)."""
        table[id(obj)] = (weakref.ref(obj), trace_id)
        if len(table) > self._sweep_at:
            self._sweep(table)

    def _sweep(self, table: dict) -> None:
        for key in [key for key, entry in table.items() if entry[0]() is None]:
            del table[key]
        self._sweep_at = max(SWEEP_MIN, 2 * len(table))

    # ---- tensors and states -----------------------------------------------------------
    def _tensor(self, t, role: str, held: list, producer: str | None = None) -> str:
        """The trace id of tensor `t`, making its record when it is new (or was dropped)."""
        entry = self._tensor_ids.get(id(t))
        if entry is not None and entry[0]() is t:
            tid = entry[1]
            if tid in self.objects:
                held.append(tid)
                return tid
        else:
            tid = f"t{self._next_t()}"
            self._remember(self._tensor_ids, t, tid)
        self._new_tensor(tid, t, role, held, producer)
        return tid

    def _new_tensor(self, tid: str, t, role: str, held: list, producer: str | None) -> dict:
        """Make the record of tensor `t` (an op's output is always new: dispatch wraps every result)."""
        is_param = role != "gradient" and producer is None and isinstance(t, Parameter)
        if is_param:
            role = "parameter"
            if t._name is not None:
                self._params[t._name] = weakref.ref(t)
        data = t._data
        dtype = _DTYPE_NAMES.get(data.dtype) or _dtype_name(data.dtype)
        record = self.objects[tid] = {"id": tid, "name": t._name, "shape": list(data.shape), "dtype": dtype,
                                      "role": role, "stop_gradient": bool(t.stop_gradient), "producer": producer,
                                      "grad_of": None, "grad": None, "states": []}
        if is_param:
            record["structured_name"] = self._structured_name(t, tid)
        self.bytes_used += TENSOR_BYTES
        held.append(tid)
        return record

    def _structured_name(self, param, tid: str) -> str | None:
        """`param`'s state_dict key in the outermost running layer ("0.weight", "fc1.bias"), or None
        outside layers; notes the path of the layer holding it ("Sequential.0") for the health view.
        Each outermost layer's names are listed once per recording."""
        stack = modes.layer_stack  # this thread's running layers
        if not stack:
            return None
        outer = stack[0][0]
        entry = self._structured_names.get(id(outer))
        if entry is None or entry[0]() is not outer:
            try:
                names = {id(p): key for key, p in outer.state_dict().items()}
            except Exception:  # a user's state_dict that fails: no names, but the op is still recorded
                names = {}
            entry = self._structured_names[id(outer)] = (weakref.ref(outer), names)
        name = entry[1].get(id(param))
        if stack[0][1] is None:  # paths are worked out on demand
            instrument.current_layer()
        outer_path = stack[0][1]
        if name is not None and outer_path is not None:
            owner = name.rpartition(".")[0]
            self.param_layers[tid] = f"{outer_path}.{owner}" if owner else outer_path
        return name

    def _state(self, tid: str, t, held: list, step: int, like=None, read: bool = False, record=None) -> str:
        """Summarize tensor `t` now, as a new state of `tid`.

        `like`: (array, Summary) of a state this one may equal (a .grad buffer just filled with the
        incoming gradient): compared, not summarized again. `read`: `t` is only read here (an op's
        input), so a parameter's summary from an earlier recording still holds if its version says
        nothing changed since (see _cached_summary); after an update (read=False) a parameter is
        always summarized anew -- an optimizer may report before bumping the version. `record`: the
        tensor's record, when the caller has it at hand.
        """
        data = t._data
        root = t if t._base is None else t._base  # (t.inplace_version, without the property call)
        version = 0 if root._counter is None else root._counter.value
        if record is None:
            record = self.objects[tid]
        summary = None
        if like is not None and data.size >= SAME_CHECK_NUMEL and same_values(data, like[0]):
            summary = like[1]
        elif record["role"] == "parameter":
            if read:
                summary = _cached_summary(t, data, version)
            if summary is None:
                summary = summarize(data)
                _cache_summary(t, data, version, summary)
        else:
            summary = summarize(data)
        if self.values == "none":
            values, omitted, nbytes = None, "mode", 0
        else:
            values, omitted, nbytes = self.values_for(data)
            self.values_bytes += nbytes
        sid = f"s{self._next_s()}"
        self.objects[sid] = {"id": sid, "tensor": tid, "step": step, "version": version, "values_omitted": omitted}
        self.state_data[sid] = (summary, values)
        record["states"].append(sid)
        self._last_state[tid] = (sid, version)
        if summary.nan_count or summary.inf_count:  # flagged by the handler, which knows the context
            self._nan_pending.append((sid, t))
        self.bytes_used += STATE_BYTES + nbytes
        held.append(sid)
        return sid

    def values_for(self, data: np.ndarray) -> tuple:
        if self.values == "none":
            return None, "mode", 0
        if self.values == "small" and data.size > self.values_max_numel:
            return None, "size", 0
        nbytes = int(data.size) * VALUE_BYTES
        if self.values_bytes + nbytes > self.hold_bytes // 2:  # values may take half the budget
            self.values_omitted_budget += 1
            return None, "budget", 0
        return np.array(data, copy=True), None, nbytes

    def _current_state(self, tid: str, t, held: list, step: int) -> str:
        """The state of an input: its newest one, or a new one if it changed since."""
        last = self._last_state.get(tid)
        if last is not None and last[0] in self.objects:
            root = t if t._base is None else t._base
            if last[1] == (0 if root._counter is None else root._counter.value):
                held.append(last[0])
                return last[0]
        return self._state(tid, t, held, step, read=True)

    def _input(self, t, held: list, step: int) -> tuple[str, str]:
        """(tid, sid) of an op's input; a tensor that took over an in-place result's history
        (x.add_(y)) stands for that result."""
        tid = None
        node = t._node
        if node is not None:
            entry = self._node_ids.get(id(node))
            if entry is not None and entry[0]() is node:
                tid = self._output_of.get((entry[1], t._out_index))
                if tid is not None and tid not in self.objects:
                    tid = None
        if tid is None:
            role = "activation" if node is not None else ("input" if t.stop_gradient else "leaf")
            tid = self._tensor(t, role, held)
        else:
            held.append(tid)
        return tid, self._current_state(tid, t, held, step)

    # ---- events -----------------------------------------------------------------------
    def on_event(self, event: instrument.Event) -> None:
        """Handle one instrument event; a failure is noted in the document, never raised."""
        kind = event.kind
        self.event_counts[kind] = self.event_counts.get(kind, 0) + 1
        handler = _HANDLERS.get(kind)
        if handler is None:
            return
        try:
            handler(self, event)
        except Exception as exc:  # the debugger must never break the program it watches
            if len(self.errors) < 20:
                self.errors.append(f"{kind}: {type(exc).__name__}: {exc}")
        self._version += 1

    def _on_op(self, e: dict) -> None:
        start, end = e.start_ns, e.end_ns
        kernel = self._describe_kernel(e)
        phase = "backward" if self._backward_depth else "forward"
        timing = self.timings.setdefault((e.op, phase, kernel["name"]), [0, 0, 0])
        timing[0] += 1
        timing[1] += end - start
        timing[2] = max(timing[2], end - start)
        if self._pylayer_ops:  # inside a PyLayer's forward: listed on the PyLayer's node
            self._pylayer_ops[-1].append(e.op)
            return
        if e.pylayer is not None:
            kernel = dict(kernel, name=f"{e.pylayer.__qualname__}.forward")
        if phase == "backward":  # part of a backward rule: listed on its backward step
            inner = {"op": e.op, "kernel": kernel["name"], "duration_ns": end - start}
            if kernel["tuning"] is not None:  # a tuned grad kernel (conv2d_grad_filter, a transposed matmul)
                inner["tuning"] = kernel["tuning"]
            self._inner_ops.append(inner)
            return
        step = self.next_step
        if self._iteration_done:  # the forward pass of the next training iteration begins
            self._start_iteration(step)
        layer = e.layer
        if layer is not None and layer not in self.layer_kinds:
            stack = modes.layer_stack  # this thread's running layers
            self.layer_kinds[layer] = type(stack[-1][0]).__name__ if stack else None
        held: list = []
        nid = self._new_id("n")
        inputs, input_states = [], []
        for t in e.inputs:
            tid, sid = self._input(t, held, step)
            inputs.append(tid)
            input_states.append(sid)
        if self._nan_pending:  # e.g. a data batch holding NaN
            self._flush_nan(step, None, None, e.layer, "input")
        outputs, output_states = [], []
        tensor_ids = self._tensor_ids
        for o in e.outputs:
            tid = f"t{self._next_t()}"
            tensor_ids[id(o)] = (weakref.ref(o), tid)  # (see _remember; swept below)
            record = self._new_tensor(tid, o, "activation", held, nid)
            outputs.append(tid)
            output_states.append(self._state(tid, o, held, step, record=record))
        if len(tensor_ids) > self._sweep_at:
            self._sweep(tensor_ids)
        gid = None
        if e.grad_node is not None:
            gid = self._grad_node(e.grad_node, held, forward_node=nid, inputs=inputs, outputs=outputs)
        attrs = _attrs_json(e.attrs)
        if e.pylayer is not None:
            attrs = self._pylayer_attrs(e.pylayer)
        self.objects[nid] = {"id": nid, "op": e.op, "layer": e.layer, "inputs": inputs,
                             "input_states": input_states, "outputs": outputs, "output_states": output_states,
                             "attrs": attrs, "kernel": kernel, "start_ns": start - self.t0_ns,
                             "end_ns": end - self.t0_ns, "grad_node": gid, "nan_inf": None,
                             "first_nan_inf": False, "step": step}
        if e.op in SATURATION_OPS and e.outputs:  # the health view's saturated / dead fraction
            self.objects[nid]["saturation"] = saturation(e.op, e.outputs[0]._data)
        held.append(nid)
        if self._nan_pending:  # (only outputs can be pending here: the inputs' were flushed above)
            self._nan_pending.clear()  # _check_nan_inf knows more about outputs
            self._check_nan_inf(nid, e, input_states, output_states, step)
        self._push({"index": step, "kind": "op", "phase": "forward", "node": nid,
                    "states": output_states, "t_ns": start - self.t0_ns}, held)

    def _on_pylayer_begin(self, e: dict) -> None:
        self._pylayer_ops.append([])

    def _on_pylayer_end(self, e: dict) -> None:
        self._pylayer_done = self._pylayer_ops.pop() if self._pylayer_ops else None

    def _pylayer_attrs(self, cls) -> dict:
        """A PyLayer node's attrs: the class, the user's forward and backward source, where forward is
        written (file, line of its `def`, the notebook cell), and the ops its forward ran."""
        attrs = dict(_pylayer_source(cls))
        ops, self._pylayer_done = self._pylayer_done or [], None
        attrs["forward_ops"] = ops[:MAX_INNER_OPS]
        return attrs

    def _grad_node(self, node, held: list, forward_node=None, inputs=None, outputs=()) -> str:
        """The backward-graph id of `node` (a GradNode or AccumulateGrad), recorded if new.

        A node made by a recorded op (`inputs` given) lists its edges; one met only as an edge's
        end or a backward step was made before the recording began: it is marked "outside" and
        its edges are not followed (that could walk a whole earlier graph)."""
        entry = self._node_ids.get(id(node))
        if entry is not None and entry[0]() is node:
            gid = entry[1]
            if gid in self.objects:
                held.append(gid)
                return gid
        else:
            gid = self._new_id("g")
            self._remember(self._node_ids, node, gid)
        if type(node) is AccumulateGrad:
            leaf = node.tensor_ref()
            tid = self._tensor(leaf, "leaf", held) if leaf is not None else None
            record = {"id": gid, "name": "accumulate_grad", "kind": "accumulate", "op": None,
                      "forward_node": None, "tensor": tid, "next": [], "outside": False,
                      "forward_inputs": [], "forward_outputs": [tid]}
        else:
            nexts = []
            if inputs is not None:
                nexts = [None if edge is None else {"node": self._grad_node(edge[0], held), "output_index": edge[1]}
                         for edge in node.next_edges]
            record = {"id": gid, "name": f"{node.op.name}_grad", "kind": "grad", "op": node.op.name,
                      "forward_node": forward_node, "tensor": None, "next": nexts, "outside": inputs is None,
                      "forward_inputs": list(inputs or ()), "forward_outputs": list(outputs)}
            for index, tid in enumerate(outputs):
                self._output_of[(gid, index)] = tid
        self.objects[gid] = record
        self.bytes_used += GRAD_NODE_BYTES
        held.append(gid)
        return gid

    def _on_backward_begin(self, e: dict) -> None:
        if self._backward_depth == 0:
            self._backward_pass += 1
            self._inner_ops = []
            self._end_iteration()
            current = self.iterations[-1]
            outputs = e.outputs or ()
            if current[2] is None and outputs and hasattr(outputs[0], "_data"):
                current[2] = _loss_value(outputs[0]._data)
        self._backward_depth += 1

    # ---- training iterations ---------------------------------------------------------------
    def _end_iteration(self) -> None:
        """A backward pass or an optimizer update: the next forward op starts a new iteration."""
        self._iteration_done = True
        self.saw_training = True

    def _start_iteration(self, step: int) -> None:
        self.iterations.append([self.iterations[-1][0] + 1, step, None])
        self.bytes_used += ITERATION_BYTES
        self._iteration_done = False

    def _on_backward_end(self, e: dict) -> None:
        self._backward_depth = max(0, self._backward_depth - 1)

    def _on_backward_step(self, e: dict) -> None:
        ops, self._inner_ops = self._inner_ops, []
        if not self.backward:
            return
        step = self.next_step
        held: list = []
        node = e.node
        gid = self._grad_node(node, held)
        record = self.objects[gid]
        grads_in = self._grad_states(e.grads_in, record["forward_outputs"], held, step)
        grads_out = self._grad_states(e.grads_out, record["forward_inputs"], held, step)
        leaf = e.tensor
        if leaf is not None and leaf._grad is not None:  # AccumulateGrad: .grad changed in place
            tid = self._tensor(leaf, "leaf", held)
            grad_tid = self._tensor(leaf._grad, "gradient", held)
            self.objects[tid]["grad"] = grad_tid
            self.objects[grad_tid]["grad_of"] = tid
            like = None
            incoming = e.grads_in[0] if len(e.grads_in) == 1 else None
            if incoming is not None and grads_in[0] is not None:  # .grad was empty or zero: it equals this
                like = (incoming._data, self.state_data[grads_in[0]][0])
            grads_out = [self._state(grad_tid, leaf._grad, held, step, like)]
        states = [s for s in grads_in + grads_out if s is not None]
        if self._nan_pending:
            self._flush_nan(step, gid, record["name"], None, "backward")
        self._push({"index": step, "kind": "backward_step", "phase": "backward", "node": gid,
                    "pass": self._backward_pass, "grads_in": grads_in, "grads_out": grads_out,
                    "ops": ops[:MAX_INNER_OPS], "ops_count": len(ops), "states": states,
                    "start_ns": e.start_ns - self.t0_ns, "end_ns": e.end_ns - self.t0_ns}, held)

    def _grad_states(self, grads: list, of: list, held: list, step: int) -> list:
        """The states of gradients (None stays None), new or current; grads[i] is the gradient of the
        forward tensor of[i]."""
        objects, last_states, tensor_ids = self.objects, self._last_state, self._tensor_ids
        out = []
        for index, g in enumerate(grads):
            if g is None:
                out.append(None)
                continue
            entry = tensor_ids.get(id(g))
            if entry is not None and entry[0]() is g and entry[1] in objects:
                tid = entry[1]
                record = objects[tid]
                held.append(tid)
            else:
                tid = self._tensor(g, "gradient", held)
                record = objects[tid]
            if record["grad_of"] is None and index < len(of) and of[index] in objects:
                record["grad_of"] = of[index]
            last = last_states.get(tid)
            if last is not None and last[0] in objects:
                root = g if g._base is None else g._base
                if last[1] == (0 if root._counter is None else root._counter.value):
                    held.append(last[0])
                    out.append(last[0])
                    continue
            out.append(self._state(tid, g, held, step, read=True, record=record))
        return out

    def _on_hook(self, e: dict) -> None:
        step = self.next_step
        held: list = []
        gid = self._grad_node(e.node, held)
        outs = self.objects[gid]["forward_outputs"]
        index = e.index
        tensor = outs[index] if index < len(outs) else None
        if tensor in self.objects:
            held.append(tensor)
        else:
            tensor = None
        grad = self._current_state(self._tensor(e.grad, "gradient", held), e.grad, held, step)
        result = None
        if e.result is not None:
            result = self._current_state(self._tensor(e.result, "gradient", held), e.result, held, step)
        hook = e.hook
        name = getattr(hook, "__qualname__", None) or type(hook).__name__
        if self._nan_pending:
            self._flush_nan(step, gid, name, None, "backward")
        self._push({"index": step, "kind": "hook", "phase": "backward", "node": gid, "output_index": index,
                    "tensor": tensor, "hook": name, "grad": grad, "result": result,
                    "states": [s for s in (grad, result) if s is not None]}, held)

    def _on_optimizer_update(self, e: dict) -> None:
        step = self.next_step
        held: list = []
        param = e.param if e.tensor is None else e.tensor
        tid = name = None
        states: list = []
        if isinstance(param, str):  # a name: the parameter itself, if the recording has met it
            name = param
            ref = self._params.get(name)
            param = None if ref is None else ref()
        if param is not None and hasattr(param, "_data"):
            name = param._name
            tid = self._tensor(param, "parameter", held)
            states.append(self._state(tid, param, held, step))  # the value after the update
        self._end_iteration()
        uid = self._new_id("u")
        self.objects[uid] = {"id": uid, "step": step, "optimizer": str(e.optimizer), "param": tid,
                             "param_name": name, "lr": _number(e.lr), "grad_norm": _number(e.grad_norm),
                             "update_norm": _number(e.update_norm),
                             "structured_name": None if tid is None else self.objects[tid].get("structured_name")}
        held.append(uid)
        if self._nan_pending:  # a parameter gone NaN
            self._flush_nan(step, None, str(e.optimizer), None, "update")
        self._push({"index": step, "kind": "optimizer_update", "phase": "optimizer", "update": uid,
                    "states": states}, held)

    # ---- NaN / Inf ----------------------------------------------------------------------
    def _check_nan_inf(self, nid: str, e: dict, input_states: list, output_states: list, step: int) -> None:
        """Mark an op whose outputs hold NaN/Inf: "produced" from clean inputs, else "propagated"."""
        bad = [i for i, sid in enumerate(output_states) if self.state_data[sid][0].has_nan_inf]
        if not bad:
            return
        inputs_bad = any(self.state_data[sid][0].has_nan_inf for sid in input_states)
        node = self.objects[nid]
        node["nan_inf"] = "propagated" if inputs_bad else "produced"
        for i in bad:
            if self._flag_nan(output_states[i], e.outputs[i], step, nid, e.op, e.layer, node["nan_inf"]):
                node["first_nan_inf"] = True

    def _flush_nan(self, step: int, node_id: str | None, op: str | None, layer: str | None, origin: str) -> None:
        """Flag the states made since the last flush that hold NaN/Inf (inputs, gradients, updates)."""
        for sid, t in self._nan_pending:
            if sid in self.objects:
                self._flag_nan(sid, t, step, node_id, op, layer, origin)
        self._nan_pending.clear()

    def _flag_nan(self, sid: str, t, step: int, node_id, op, layer, origin: str) -> bool:
        """Record one occurrence; True when it is the first of the recording."""
        summary = self.state_data[sid][0]
        first = self.nan_inf["first"] is None
        entry = {"step": step, "node": node_id, "tensor": self.objects[sid]["tensor"], "state": sid, "op": op,
                 "layer": layer, "nan_count": summary.nan_count, "inf_count": summary.inf_count, "origin": origin}
        if first:
            self.nan_inf["first"] = entry
        self.nan_inf["count"] += 1
        if len(self.nan_inf["occurrences"]) < MAX_NAN_EVENTS:
            self.nan_inf["occurrences"].append(entry)
        # tell other subscribers (a live view, a profiler)
        instrument.emit(instrument.NanInf(t, origin, op, layer, summary.nan_count, summary.inf_count, first, self))
        return first

    # ---- autotune -----------------------------------------------------------------------
    def _on_autotune(self, e: dict) -> None:
        """Keep a tuner's decision (emitted inside the op call, before its "op" event)."""
        key = str(e.key)
        if key not in self.autotune and len(self.autotune) >= MAX_AUTOTUNE:
            self.autotune_dropped += 1
            return
        self.autotune[key] = {
            "op": str(e.op), "key": key, "dtype": e.dtype, "shape_class": e.shape_class,
            "shapes": [list(map(int, s)) for s in e.shapes or ()],
            "candidates": _candidates_json(e.candidates), "winner": str(e.winner),
            "default": e.default, "source": e.source, "step": e.step}
        self._tuning = {k: v for k, v in self._tuning.items() if k[0] != key}  # a newer decision for the class

    def _tuning_of(self, op, fn, inputs: tuple, attrs: dict | None, dtype) -> dict | None:
        """kernel.tuning of a call run by an autotune.TunedKernel: the decision for its shape class
        when the kernel that ran is its winner, else None (an untuned class runs the default)."""
        from ..framework import autotune  # (imports no numba)
        try:
            key, entry = autotune.decision_for(op.name, dtype, [t._data.shape for t in inputs], dict(attrs or {}))
        except Exception:  # an attribute the key cannot hold: no decision can be named
            return None
        memo = (key, fn.last)
        if memo in self._tuning:
            return self._tuning[memo]
        decision = self.autotune.get(key)
        if decision is None:  # decided before this recording began: the process's table knows it
            if entry is not None:
                decision = {"candidates": _candidates_json(entry.get("candidates")), "winner": entry.get("winner"),
                            "default": fn.default_name, "source": "cache", "step": None,
                            "shape_class": key.split("|")[2]}
        tuning = None
        if decision is not None and decision["winner"] == fn.last:
            tuning = {"shape_class": decision["shape_class"], "source": decision["source"],
                      "candidates": decision["candidates"], "winner": decision["winner"],
                      "default": decision["default"], "step": decision["step"]}
        self._tuning[memo] = tuning
        return tuning

    # ---- kernels ------------------------------------------------------------------------
    def _describe_kernel(self, e: dict) -> dict:
        """Which registered kernel `fn` is, and why it was chosen: the only one, the highest
        priority, or preferred (set by the autotuner or set_preferred_kernel)."""
        op, fn = e.opdef, e.kernel
        inputs = e.inputs
        dtype = inputs[op.kernel_input]._data.dtype if len(inputs) > op.kernel_input else None
        if hasattr(fn, "default_name"):  # an autotune.TunedKernel: it knows which candidate just ran
            tuning = self._tuning_of(op, fn, inputs, e.attrs, dtype) if dtype is not None else None
            return {"name": fn.last, "backend": "cpu", "dtype": str(dtype),
                    "reason": "preferred" if tuning is not None else "priority",
                    "candidates": [name for name, _ in fn.candidates], "tuning": tuning}
        wanted = preferred_kernel(op.name, KernelKey("cpu", dtype))  # usually None
        cache_key = (op.name, dtype, fn, wanted)
        cached = _kernel_info.get(cache_key)
        if cached is not None and len(cached[0]) == cached[1]:  # no kernel registered for it since
            return cached[2]
        bucket = op.kernels.get(KernelKey("cpu", dtype))
        name = next((k.name for k in bucket or () if k.fn is fn or getattr(k.fn, "_fn", None) is fn),
                    getattr(fn, "__name__", "kernel"))
        reason = "only" if bucket is None or len(bucket) <= 1 else ("preferred" if wanted == name else "priority")
        info = {"name": name, "backend": "cpu", "dtype": str(dtype), "reason": reason,
                "candidates": [k.name for k in bucket or ()], "tuning": None}
        if bucket is not None:
            _kernel_info[cache_key] = (bucket, len(bucket), info)
        return info

    # ---- the ring buffer ------------------------------------------------------------------
    def _push(self, step: dict, held: list) -> None:
        refs = self.refs
        if refs is not None:
            for obj_id in held:
                refs[obj_id] = refs.get(obj_id, 0) + 1
        self.steps.append((step, held, STEP_BYTES))
        self.bytes_used += STEP_BYTES
        self.next_step += 1
        if self.bytes_used > self.hold_bytes or len(self.steps) > self.max_steps:
            keep_from = self._keep_from()
            while len(self.steps) > 1:
                over_bytes = self.bytes_used > self.hold_bytes  # the memory bound: always enforced
                over_steps = len(self.steps) > self.max_steps and self.steps[0][0]["index"] < keep_from
                if not (over_bytes or over_steps):
                    break
                self.dropped_reasons.add("max_bytes" if over_bytes else "max_steps")
                self._drop_oldest()

    def _keep_from(self) -> int:
        """The first step `max_steps` may not drop: that of the newest complete training iteration (and so
        the one running too). A model of 5,000 ops runs more than 10,000 steps an iteration; the ring buffer
        must not eat its forward pass. Memory stays bounded by `max_bytes`, which drops whatever it must."""
        if not self.saw_training:
            return self.next_step  # no iterations: a plain ring buffer
        iterations = self.iterations
        newest_complete = iterations[-2] if len(iterations) > 1 and not self._iteration_done else iterations[-1]
        return newest_complete[1]

    def _drop_oldest(self) -> None:
        refs = self.refs
        if refs is None:  # the first drop: count what every retained step holds
            refs = self.refs = {}
            for _, step_held, _ in self.steps:
                for obj_id in step_held:
                    refs[obj_id] = refs.get(obj_id, 0) + 1
        step, held, nbytes = self.steps.popleft()
        self.dropped_steps += 1
        self.bytes_used -= nbytes
        self.cache.forget_step(step["index"])
        iterations = self.iterations
        while len(iterations) > 1 and self.steps and iterations[1][1] <= self.steps[0][0]["index"]:
            iterations.popleft()  # all its steps are gone
            self.bytes_used -= ITERATION_BYTES
        for obj_id in held:
            count = refs[obj_id] - 1
            if count:
                refs[obj_id] = count
            else:
                del refs[obj_id]
                self._forget(obj_id)

    def _forget(self, obj_id: str) -> None:
        record = self.objects.pop(obj_id, None)
        if record is None:
            return
        kind = obj_id[0]
        if kind == "s":
            summary_values = self.state_data.pop(obj_id)
            nbytes = 0 if summary_values[1] is None else int(summary_values[1].size) * VALUE_BYTES
            self.bytes_used -= STATE_BYTES + nbytes
            self.values_bytes -= nbytes
            owner = self.objects.get(record["tensor"])
            if owner is not None and owner["states"] and owner["states"][0] == obj_id:
                del owner["states"][0]  # states go oldest first
            self.cache.forget_state(obj_id)
        elif kind == "t":
            self.bytes_used -= TENSOR_BYTES
            self._last_state.pop(obj_id, None)
            self.param_layers.pop(obj_id, None)
        elif kind == "g":  # (an op node's bytes are counted with its step)
            self.bytes_used -= GRAD_NODE_BYTES
            for index in range(len(record["forward_outputs"])):
                self._output_of.pop((obj_id, index), None)

    # ---- the document -------------------------------------------------------------------
    def build(self) -> dict:
        """The trace document as a plain dict (see trace.schema.json)."""
        self.cache.builds += 1
        return build_document(self)


def _pylayer_source(cls) -> dict:
    """{"pylayer", "forward_source", "backward_source", "source"} of a PyLayer class, read once per class
    (the source of a class defined in a notebook cell is in linecache, where IPython puts every cell)."""
    cached = _pylayer_sources.get(cls)
    if cached is not None:
        return cached
    import inspect
    import textwrap

    def text_of(fn) -> tuple[str, str | None, int]:
        fn = inspect.unwrap(fn)
        code = getattr(fn, "__code__", None)
        try:
            lines, first = inspect.getsourcelines(fn)
        except (OSError, TypeError):
            return "", None if code is None else code.co_filename, 0 if code is None else code.co_firstlineno
        offset = next((i for i, line in enumerate(lines) if line.lstrip().startswith(("def ", "async def "))), 0)
        path = code.co_filename if code is not None else inspect.getsourcefile(fn)
        return textwrap.dedent("".join(lines)), path, first + offset

    forward, path, line = text_of(cls.forward)
    backward = text_of(cls.backward)[0]
    source = {"file": path, "line": int(line)}
    cell = _program.cell_of(path) if path else None
    if cell is not None:
        source["cell"] = cell
    info = {"pylayer": f"{cls.__module__}.{cls.__qualname__}", "forward_source": forward,
            "backward_source": backward, "source": source}
    _pylayer_sources[cls] = info
    return info


_pylayer_sources: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # PyLayer class -> its source attrs


def _attrs_json(attrs: dict | None) -> dict:
    """Attributes as JSON now: the caller may change a list it passed, and a record must not keep
    big objects alive."""
    if not attrs:
        return {}
    return {str(k): jsonable(v) for k, v in attrs.items()}


# Summaries of parameters, kept across recordings: id(param) -> (weakref to it, weakref to its array,
# its inplace_version, Summary). A parameter changes only through code that bumps its version (an
# optimizer step, set_value, set_state_dict, an initializer, an in-place op), so a parameter whose
# array and version are what they were when last summarized needs no new summary: with one
# recording per training step (%%paddle_trace), each step's first look at a weight is free (the
# last step summarized it after its update). Entries go when their parameter does.
_summaries: dict[int, tuple] = {}


def _candidates_json(candidates) -> list:
    """An autotune event's candidates as JSON: {name, time_ns, error}."""
    out = []
    for c in candidates or ():
        t = c.get("time_ns")
        out.append({"name": str(c.get("name")), "time_ns": None if t is None else int(t),
                    "error": None if c.get("error") is None else str(c["error"])})
    return out


def _cached_summary(t, data: np.ndarray, version: int):
    entry = _summaries.get(id(t))
    if entry is not None and entry[0]() is t and entry[1]() is data and entry[2] == version:
        return entry[3]
    return None


def _cache_summary(t, data: np.ndarray, version: int, summary) -> None:
    key = id(t)
    entry = _summaries.get(key)
    if entry is not None and entry[0]() is t:
        ref = entry[0]
    else:
        def forget(r, key=key):
            current = _summaries.get(key)
            if current is not None and current[0] is r:
                del _summaries[key]
        ref = weakref.ref(t, forget)
    _summaries[key] = (ref, weakref.ref(data), version, summary)


# (op, dtype, kernel, preferred) -> (the kernel bucket, its length then, the kernel's description), shared by
# every recording: with one recording per step, a per-recording cache would start cold each time.
# Documents share these dicts (read-only, as the whole document is).
_kernel_info: dict[tuple, tuple] = {}
_DTYPE_NAMES: dict = {}


def _dtype_name(dtype: np.dtype) -> str:
    name = _DTYPE_NAMES.get(dtype)
    if name is None:  # str(dtype) is a slow Python-level property: once per dtype
        name = _DTYPE_NAMES[dtype] = str(dtype)
    return name


def _loss_value(data: np.ndarray) -> float | None:
    """The value backward() started from (its mean when it is not a single number); None if not finite."""
    if data.size == 0 or data.dtype.kind not in "fiub":
        return None
    value = float(data.reshape(-1)[0]) if data.size == 1 else float(np.mean(data, dtype=np.float64))
    return value if value - value == 0.0 else None


def _number(v) -> float | str | None:
    """A reported number as JSON holds it: an inf grad norm is "Infinity", not lost."""
    if type(v) is float and v - v == 0.0:  # finite (inf - inf and nan - nan are nan)
        return v
    try:
        return None if v is None else json_number(float(v))
    except (TypeError, ValueError):
        return None


_HANDLERS = {
    "op": TraceBuilder._on_op,
    "backward_begin": TraceBuilder._on_backward_begin,
    "backward_end": TraceBuilder._on_backward_end,
    "backward_step": TraceBuilder._on_backward_step,
    "hook": TraceBuilder._on_hook,
    "optimizer_update": TraceBuilder._on_optimizer_update,
    "pylayer_begin": TraceBuilder._on_pylayer_begin,
    "pylayer_end": TraceBuilder._on_pylayer_end,
    "autotune": TraceBuilder._on_autotune,
}
# static programs: the Executor's and the passes' events (program.py), and eager ops run inside a
# static op kept out of the eager graph
_program.install(_HANDLERS)
