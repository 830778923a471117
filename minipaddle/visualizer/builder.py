"""TraceBuilder: turns instrument events into the trace document, in bounded memory.

The builder keeps what the document needs and nothing live. Its parts, each in its own module:

    IdTable       (id_table.py)       the trace ids of live tensors ("t7") and grad nodes ("g9")
    StepRing      (step_ring.py)      the ordered steps, within max_bytes and max_steps; training iterations
    TensorStates  (tensor_states.py)  tensor records and their states ("s31": a summary, small values)
    describe_kernel (kernel_choice.py) which kernel an op ran, and why (autotune decisions included)

and here the handlers of the events: forward op calls become nodes ("n4"), grad nodes become
backward nodes ("g9"), and everything that happens is a *step* in one ordered list the debugger
can scrub. Links that are only "soft" (a tensor's producer, a grad node's forward node, the grad
node an edge leads to) may point at something the ring dropped; `build()` writes those as null.

A PyLayer call (paddle.autograd.PyLayer, see autograd/py_layer.py) is one node whose op is the class
name and whose attrs carry the user's forward and backward source; the ops its forward runs are
listed on that node (attrs "forward_ops"), not drawn as nodes of their own: the learner wrote one
op, and its backward step lists the ops the user's backward ran, as every backward step does.

What recording costs: benchmarks/instrument_overhead.py; tensor_states.py never summarizes a state twice.
"""
from __future__ import annotations

import datetime
import time
import weakref

import numpy as np

from ..framework import instrument
from ..framework.autograd.node import AccumulateGrad
from ..framework.thread_modes import modes
from . import program as _program
from .doc_cache import DocumentCache
from .id_table import IdTable
from .kernel_choice import backward_rule_op, decision_json, describe_kernel, on_device
from .node_info import add_node_info
from .pylayer_source import pylayer_source
from .step_ring import StepRing
from .summary import SATURATION_OPS, json_number, jsonable, saturation
from .tensor_states import TensorStates
from .trace import build_document

GRAD_NODE_BYTES = 900
MAX_INNER_OPS = 32      # ops listed per backward step (the rest are only counted)
MAX_NAN_EVENTS = 100    # NaN/Inf occurrences listed (all are counted)
MAX_AUTOTUNE = 200      # autotune decisions kept (the first ones: later calls of a class reuse them)
HOLD_SHARE = 0.7         # of max_bytes, what the recorder holds (the rest is for building the document)
HOLD_RESERVE = 512 << 10  # bytes the recorder keeps outside its estimate (id tables, caches)


class TraceBuilder:
    """Consumes instrument events (`on_event`) and builds the document (`build`)."""

    # What a recording hears: all but the training loop's kinds (a step shows as its ops and updates).
    KINDS = tuple(kind for kind in instrument.EVENT_TYPES if kind not in instrument.LOOP_KINDS)

    def __init__(self, *, values: str = "small", max_bytes: int = 64 << 20, max_steps: int = 10_000,
                 values_max_numel: int = 64, backward: bool = True) -> None:
        self.values = values
        self.max_bytes = max_bytes
        self.values_max_numel = values_max_numel
        self.backward = backward
        self.created_at = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
        self.t0_ns = time.perf_counter_ns()
        self.objects: dict[str, dict] = {}   # id -> record: tensors, states, nodes, grad nodes, updates
        self.cache = DocumentCache(self)     # what build() made of unchanging records (live views)
        # what the recorder itself may hold: building the document allocates about 0.85x of that again,
        # so recording and building together stay under 1.5x max_bytes (test_budget.py measures it)
        # (less a reserve for the id tables and caches the estimate does not count: small budgets feel it)
        hold_bytes = int(max_bytes * HOLD_SHARE) - min(HOLD_RESERVE, max_bytes // 8)
        self.ring = StepRing(hold_bytes, max_steps, forget=self._forget, forget_step=self.cache.forget_step)
        self.ids = IdTable()
        self.states = TensorStates(self.objects, self.ids, self.ring, values, values_max_numel)
        self.steps = self.ring.steps                    # (the same deque: the steps retained)
        self.iterations = self.ring.iterations          # [index, first step, loss] of each retained iteration
        self.dropped_reasons = self.ring.dropped_reasons
        self.state_data = self.states.state_data        # state id -> (Summary, values array or None)
        self.param_layers = self.states.param_layers    # parameter tid -> path of the layer that holds it
        self.errors: list[str] = []
        self.event_counts: dict[str, int] = {}
        self.timings: dict[tuple, list] = {}  # (op, phase, kernel) -> [count, total_ns, max_ns]
        self.nan_inf = {"first": None, "count": 0, "occurrences": []}
        self.autotune: dict[str, dict] = {}       # cache key -> decision seen while recording (bounded)
        self.autotune_dropped = 0
        self._tuning: dict[tuple, dict | None] = {}  # (key, kernel name) -> the node's kernel.tuning
        self._backward_depth = 0
        self._backward_pass = 0
        self._inner_ops: list = []               # ops run by backward rules, until their step comes
        self._pylayer_ops: list[list] = []       # per PyLayer forward running (innermost last): its ops
        self._pylayer_done: list | None = None   # the ops of the PyLayer forward that just finished
        self._version = 0                        # bumped on every change: Recorder caches its Trace
        self.layer_kinds: dict[str, str | None] = {}  # layer path -> its class name ("Tanh")

    # ---- what the document, the program recording and the caches read ------------------------
    @property
    def version(self) -> int:
        """Bumped on every change (a Recorder rebuilds its Trace only when it moved)."""
        return self._version

    @property
    def bytes_used(self) -> int:
        """The estimated bytes the recording holds (the step ring's budget)."""
        return self.ring.bytes_used

    @bytes_used.setter
    def bytes_used(self, value: int) -> None:
        self.ring.bytes_used = value

    @property
    def values_bytes(self) -> int:
        return self.states.values_bytes

    @values_bytes.setter
    def values_bytes(self, value: int) -> None:
        self.states.values_bytes = value

    @property
    def hold_bytes(self) -> int:
        return self.ring.hold_bytes

    @property
    def max_steps(self) -> int:
        return self.ring.max_steps

    @property
    def next_step(self) -> int:
        return self.ring.next_step

    @property
    def dropped_steps(self) -> int:
        return self.ring.dropped_steps

    @property
    def saw_training(self) -> bool:
        return self.ring.saw_training

    @property
    def values_omitted_budget(self) -> int:
        return self.states.values_omitted_budget

    def values_for(self, data: np.ndarray) -> tuple:
        """(a copy of the values to keep or None, why not kept or None, their bytes in the budget)."""
        return self.states.values_for(data)

    def trace_id_of(self, obj) -> str | None:
        """The trace id ("t7", "g3") this recording gave a live Tensor or GradNode, if it still keeps it
        (an op's output is found through the grad node that made it)."""
        return self.ids.trace_id_of(obj, self.objects)

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

    def _on_op(self, e: instrument.OpEvent) -> None:
        kernel = describe_kernel(e.opdef, e.kernel, e.inputs, e.attrs, self.autotune, self._tuning)
        kernel = on_device(kernel, e.device_time_ns, e.launches)  # a GPU op: its CUDA launches and device time
        phase = "backward" if self._backward_depth else "forward"
        duration = e.end_ns - e.start_ns
        timing = self.timings.setdefault((e.op, phase, kernel["name"]), [0, 0, 0])
        timing[0] += 1
        timing[1] += duration
        timing[2] = max(timing[2], duration)
        if self._pylayer_ops:  # inside a PyLayer's forward: listed on the PyLayer's node
            self._pylayer_ops[-1].append(e.op)
            return
        if e.pylayer is not None:
            kernel = dict(kernel, name=f"{e.pylayer.__qualname__}.forward")
        if phase == "backward":  # part of a backward rule: listed on its backward step
            self._inner_ops.append(backward_rule_op(e.op, kernel, duration))
            return
        self._forward_op(e, kernel)

    def _forward_op(self, e: instrument.OpEvent, kernel: dict) -> None:
        """A forward op call: its node, its inputs' current states and its outputs' new ones, one step."""
        ring = self.ring
        step = ring.next_step
        if ring.iteration_done:  # the forward pass of the next training iteration begins
            ring.start_iteration(step)
        layer = e.layer
        if layer is not None and layer not in self.layer_kinds:
            stack = modes.layer_stack  # this thread's running layers
            self.layer_kinds[layer] = type(stack[-1][0]).__name__ if stack else None
        held: list = []
        nid = self.ids.new_id("n")
        inputs, input_states = self._op_inputs(e, held, step)
        outputs, output_states = self._op_outputs(e, held, step, nid)
        gid = None
        if e.grad_node is not None:
            gid = self._grad_node(e.grad_node, held, forward_node=nid, inputs=inputs, outputs=outputs)
        attrs = self._pylayer_attrs(e.pylayer) if e.pylayer is not None else _attrs_json(e.attrs)
        node = self.objects[nid] = {
            "id": nid, "op": e.op, "layer": layer, "inputs": inputs, "input_states": input_states,
            "outputs": outputs, "output_states": output_states, "attrs": attrs, "kernel": kernel,
            "start_ns": e.start_ns - self.t0_ns, "end_ns": e.end_ns - self.t0_ns, "grad_node": gid,
            "nan_inf": None, "first_nan_inf": False, "step": step}
        if e.op in SATURATION_OPS and e.outputs:  # the health view's saturated / dead fraction
            node["saturation"] = saturation(e.op, e.outputs[0]._data)
        if getattr(e.opdef, "node_info", None) is not None:  # the op's own picture (a sparse matrix's pattern)
            add_node_info(node, e.opdef, e.inputs, e.attrs, self.errors)
        held.append(nid)
        if self.states.nan_pending:  # (only outputs can be pending here: the inputs' were flushed)
            self.states.nan_pending.clear()  # _check_nan_inf knows more about outputs
            self._check_nan_inf(nid, e, input_states, output_states, step)
        ring.push({"index": step, "kind": "op", "phase": "forward", "node": nid,
                   "states": output_states, "t_ns": e.start_ns - self.t0_ns}, held)

    def _op_inputs(self, e: instrument.OpEvent, held: list, step: int) -> tuple[list, list]:
        """The inputs' trace ids and current states; NaN/Inf already in an input is flagged here."""
        inputs, input_states = [], []
        for t in e.inputs:
            tid, sid = self.states.input(t, held, step)
            inputs.append(tid)
            input_states.append(sid)
        if self.states.nan_pending:  # e.g. a data batch holding NaN
            self._flush_nan(step, None, None, e.layer, "input")
        return inputs, input_states

    def _op_outputs(self, e: instrument.OpEvent, held: list, step: int, nid: str) -> tuple[list, list]:
        """New records and states for the outputs (dispatch wraps every result in a new Tensor)."""
        ids, states = self.ids, self.states
        tensor_ids = ids.tensors
        outputs, output_states = [], []
        for o in e.outputs:
            tid = f"t{ids.next_t()}"
            tensor_ids[id(o)] = (weakref.ref(o), tid)  # (IdTable.remember, inlined; swept below)
            record = states.new_tensor(tid, o, "activation", held, nid)
            outputs.append(tid)
            output_states.append(states.state(tid, o, held, step, record=record))
        if len(tensor_ids) > ids.sweep_at:
            ids.sweep(tensor_ids)
        return outputs, output_states

    def _on_pylayer_begin(self, e: instrument.PyLayerBegin) -> None:
        self._pylayer_ops.append([])

    def _on_pylayer_end(self, e: instrument.PyLayerEnd) -> None:
        self._pylayer_done = self._pylayer_ops.pop() if self._pylayer_ops else None

    def _pylayer_attrs(self, cls) -> dict:
        """A PyLayer node's attrs: the class, the user's forward and backward source, where forward is
        written (file, line of its `def`, the notebook cell), and the ops its forward ran."""
        attrs = dict(pylayer_source(cls))
        ops, self._pylayer_done = self._pylayer_done or [], None
        attrs["forward_ops"] = ops[:MAX_INNER_OPS]
        return attrs

    def _grad_node(self, node, held: list, forward_node=None, inputs=None, outputs=()) -> str:
        """The backward-graph id of `node` (a GradNode or AccumulateGrad), recorded if new.

        A node made by a recorded op (`inputs` given) lists its edges; one met only as an edge's
        end or a backward step was made before the recording began: it is marked "outside" and
        its edges are not followed (that could walk a whole earlier graph)."""
        ids = self.ids
        entry = ids.nodes.get(id(node))
        if entry is not None and entry[0]() is node:
            gid = entry[1]
            if gid in self.objects:
                held.append(gid)
                return gid
        else:
            gid = ids.new_id("g")
            ids.remember(ids.nodes, node, gid)
        if type(node) is AccumulateGrad:
            leaf = node.tensor_ref()
            tid = self.states.tensor(leaf, "leaf", held) if leaf is not None else None
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
                ids.output_of[(gid, index)] = tid
        self.objects[gid] = record
        self.ring.bytes_used += GRAD_NODE_BYTES
        held.append(gid)
        return gid

    def _on_backward_begin(self, e: instrument.BackwardBegin) -> None:
        if self._backward_depth == 0:
            self._backward_pass += 1
            self._inner_ops = []
            self.ring.end_iteration()
            current = self.iterations[-1]
            outputs = e.outputs or ()
            if current[2] is None and outputs and hasattr(outputs[0], "_data"):
                current[2] = _loss_value(outputs[0]._data)
        self._backward_depth += 1

    def _on_backward_end(self, e: instrument.BackwardEnd) -> None:
        self._backward_depth = max(0, self._backward_depth - 1)

    def _on_backward_step(self, e: instrument.BackwardStep) -> None:
        ops, self._inner_ops = self._inner_ops, []
        if not self.backward:
            return
        step = self.ring.next_step
        held: list = []
        states = self.states
        gid = self._grad_node(e.node, held)
        record = self.objects[gid]
        grads_in = states.grad_states(e.grads_in, record["forward_outputs"], held, step)
        grads_out = states.grad_states(e.grads_out, record["forward_inputs"], held, step)
        leaf = e.tensor
        if leaf is not None and leaf._grad is not None:  # AccumulateGrad: .grad changed
            tid = states.tensor(leaf, "leaf", held)
            grad_tid = states.gradient_of(tid, leaf._grad, held)
            self.objects[tid]["grad"] = grad_tid
            self.objects[grad_tid]["grad_of"] = tid
            like = None
            incoming = e.grads_in[0] if len(e.grads_in) == 1 else None
            if incoming is not None and grads_in[0] is not None:  # .grad was empty or zero: it equals this
                like = (incoming._data, self.state_data[grads_in[0]][0])
            grads_out = [states.state(grad_tid, leaf._grad, held, step, like)]
        if states.nan_pending:
            self._flush_nan(step, gid, record["name"], None, "backward")
        self.ring.push({"index": step, "kind": "backward_step", "phase": "backward", "node": gid,
                        "pass": self._backward_pass, "grads_in": grads_in, "grads_out": grads_out,
                        "ops": ops[:MAX_INNER_OPS], "ops_count": len(ops),
                        "states": [s for s in grads_in + grads_out if s is not None],
                        "start_ns": e.start_ns - self.t0_ns, "end_ns": e.end_ns - self.t0_ns}, held)

    def _on_hook(self, e: instrument.HookEvent) -> None:
        step = self.ring.next_step
        held: list = []
        states = self.states
        gid = self._grad_node(e.node, held)
        outs = self.objects[gid]["forward_outputs"]
        index = e.index
        tensor = outs[index] if index < len(outs) else None
        if tensor in self.objects:
            held.append(tensor)
        else:
            tensor = None
        grad = states.current_state(states.tensor(e.grad, "gradient", held), e.grad, held, step)
        result = None
        if e.result is not None:
            result = states.current_state(states.tensor(e.result, "gradient", held), e.result, held, step)
        name = getattr(e.hook, "__qualname__", None) or type(e.hook).__name__
        if states.nan_pending:
            self._flush_nan(step, gid, name, None, "backward")
        self.ring.push({"index": step, "kind": "hook", "phase": "backward", "node": gid, "output_index": index,
                        "tensor": tensor, "hook": name, "grad": grad, "result": result,
                        "states": [s for s in (grad, result) if s is not None]}, held)

    def _on_optimizer_update(self, e: instrument.OptimizerUpdate) -> None:
        step = self.ring.next_step
        held: list = []
        states = self.states
        param = e.param if e.tensor is None else e.tensor
        tid = name = None
        kept: list = []
        if isinstance(param, str):  # a name: the parameter itself, if the recording has met it
            name = param
            ref = states.params.get(name)
            param = None if ref is None else ref()
        if param is not None and hasattr(param, "_data"):
            name = param._name
            tid = states.tensor(param, "parameter", held)
            kept.append(states.state(tid, param, held, step))  # the value after the update
        self.ring.end_iteration()
        uid = self.ids.new_id("u")
        self.objects[uid] = {"id": uid, "step": step, "optimizer": str(e.optimizer), "param": tid,
                             "param_name": name, "lr": _number(e.lr), "grad_norm": _number(e.grad_norm),
                             "update_norm": _number(e.update_norm),
                             "structured_name": None if tid is None else self.objects[tid].get("structured_name")}
        held.append(uid)
        if states.nan_pending:  # a parameter gone NaN
            self._flush_nan(step, None, str(e.optimizer), None, "update")
        self.ring.push({"index": step, "kind": "optimizer_update", "phase": "optimizer", "update": uid,
                        "states": kept}, held)

    # ---- NaN / Inf ----------------------------------------------------------------------
    def _check_nan_inf(self, nid: str, e: instrument.OpEvent, input_states: list, output_states: list,
                       step: int) -> None:
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
        pending = self.states.nan_pending
        for sid, t in pending:
            if sid in self.objects:
                self._flag_nan(sid, t, step, node_id, op, layer, origin)
        pending.clear()

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
    def _on_autotune(self, e: instrument.AutotuneEvent) -> None:
        """Keep a tuner's decision (emitted inside the op call, before its "op" event)."""
        key = str(e.key)
        if key not in self.autotune and len(self.autotune) >= MAX_AUTOTUNE:
            self.autotune_dropped += 1
            return
        self.autotune[key] = decision_json(e)
        self._tuning = {k: v for k, v in self._tuning.items() if k[0] != key}  # a newer decision for the class

    # ---- dropping (the step ring let go of a record) ----------------------------------------
    def _forget(self, obj_id: str) -> None:
        record = self.objects.pop(obj_id, None)
        if record is None:
            return
        kind = obj_id[0]
        if kind == "s":
            self.states.forget_state(obj_id, record)
            self.cache.forget_state(obj_id)
        elif kind == "t":
            self.states.forget_tensor(obj_id)
        elif kind == "g":  # (an op node's bytes are counted with its step)
            self.ring.bytes_used -= GRAD_NODE_BYTES
            for index in range(len(record["forward_outputs"])):
                self.ids.output_of.pop((obj_id, index), None)

    # ---- the document -------------------------------------------------------------------
    def build(self) -> dict:
        """The trace document as a plain dict (see trace.schema.json)."""
        self.cache.builds += 1
        return build_document(self)


def _attrs_json(attrs: dict | None) -> dict:
    """Attributes as JSON now: the caller may change a list it passed, and a record must not keep
    big objects alive."""
    if not attrs:
        return {}
    return {str(k): jsonable(v) for k, v in attrs.items()}


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
