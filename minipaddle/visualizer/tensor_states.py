"""TensorStates: the tensors of a recording and their states, as the trace document holds them.

Every tensor the recording sees gets a record ("t7": name, shape, dtype, role, producer, grad links)
and, each time its values matter, a *state* ("s31"): a summary, and the values of small tensors
(bounded by the values budget, half of what the recorder may hold). Tensors change in place later
(an optimizer step), so a state is summarized when it is recorded -- but never twice:

  * an input whose version is unchanged reuses its newest state;
  * a parameter's summary outlives the recording (see cached_summary), so a traced training step
    does not summarize its weights again on the way in;
  * a .grad buffer that equals the gradient just accumulated into it (it was empty or zeroed)
    shares that gradient's summary after a bit-for-bit comparison.
"""
from __future__ import annotations

import weakref

import numpy as np

from ..framework import instrument
from ..framework.parameter import Parameter
from ..framework.thread_modes import modes
from .id_table import IdTable
from .step_ring import StepRing
from .summary import same_values, summarize

# What the byte budget counts: the recorder's memory, measured with tracemalloc on an MLP run
# (the JSON document comes out at about a third of it, values aside).
STATE_BYTES = 1100      # one tensor state: its record, summary and histogram
VALUE_BYTES = 12        # per value kept: ~its JSON text (its copy in memory takes 4-8)
TENSOR_BYTES = 700
SAME_CHECK_NUMEL = 1024  # from this size, comparing with a known state is cheaper than summarizing


class TensorStates:
    """Records of tensors ("t") and states ("s") in `objects`, the recording's table of every record."""

    def __init__(self, objects: dict, ids: IdTable, ring: StepRing, values: str, values_max_numel: int) -> None:
        self.objects = objects
        self.ids = ids
        self.ring = ring                     # its bytes_used is the recording's budget
        self.values = values                 # "none" / "small" / "all"
        self.values_max_numel = values_max_numel
        self.state_data: dict[str, tuple] = {}  # state id -> (Summary, values array or None)
        self.values_bytes = 0
        self.values_omitted_budget = 0
        self.last_state: dict[str, tuple] = {}  # tid -> (sid, version) of its newest state
        self.params: dict[str, weakref.ref] = {}  # parameter name -> the parameter (updates name it)
        self.param_layers: dict[str, str] = {}   # parameter tid -> path of the layer that holds it
        self.nan_pending: list = []              # (sid, tensor) of new states holding NaN/Inf, to flag
        self._structured_names: dict[int, tuple] = {}  # id(outermost layer) -> (weakref, {id(param): key})

    # ---- tensors ----------------------------------------------------------------------------
    def tensor(self, t, role: str, held: list, producer: str | None = None) -> str:
        """The trace id of tensor `t`, making its record when it is new (or was dropped)."""
        entry = self.ids.tensors.get(id(t))
        if entry is not None and entry[0]() is t:
            tid = entry[1]
            if tid in self.objects:
                held.append(tid)
                return tid
        else:
            tid = f"t{self.ids.next_t()}"
            self.ids.remember(self.ids.tensors, t, tid)
        self.new_tensor(tid, t, role, held, producer)
        return tid

    def gradient_of(self, leaf_tid: str, grad, held: list) -> str:
        """The trace id of a leaf's `.grad`: one record per leaf across steps, though after clear_grad()
        each backward gives the leaf a new grad Tensor (so time travel finds every step's gradient)."""
        known = self.objects[leaf_tid]["grad"]
        if known in self.objects:
            self.ids.remember(self.ids.tensors, grad, known)
        return self.tensor(grad, "gradient", held)

    def new_tensor(self, tid: str, t, role: str, held: list, producer: str | None) -> dict:
        """Make the record of tensor `t` (an op's output is always new: dispatch wraps every result)."""
        is_param = role != "gradient" and producer is None and isinstance(t, Parameter)
        if is_param:
            role = "parameter"
            if t._name is not None:
                self.params[t._name] = weakref.ref(t)
        data = t._data
        dtype = _DTYPE_NAMES.get(data.dtype) or _dtype_name(data.dtype)
        record = self.objects[tid] = {"id": tid, "name": t._name, "shape": list(data.shape), "dtype": dtype,
                                      "role": role, "stop_gradient": bool(t.stop_gradient), "producer": producer,
                                      "grad_of": None, "grad": None, "states": []}
        if is_param:
            record["structured_name"] = self.structured_name(t, tid)
        self.ring.bytes_used += TENSOR_BYTES
        held.append(tid)
        return record

    def structured_name(self, param, tid: str) -> str | None:
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

    def input(self, t, held: list, step: int) -> tuple[str, str]:
        """(tid, sid) of an op's input; a tensor that took over an in-place result's history
        (x.add_(y)) stands for that result."""
        tid = None
        node = t._node
        if node is not None:
            entry = self.ids.nodes.get(id(node))
            if entry is not None and entry[0]() is node:
                tid = self.ids.output_of.get((entry[1], t._out_index))
                if tid is not None and tid not in self.objects:
                    tid = None
        if tid is None:
            role = "activation" if node is not None else ("input" if t.stop_gradient else "leaf")
            tid = self.tensor(t, role, held)
        else:
            held.append(tid)
        return tid, self.current_state(tid, t, held, step)

    # ---- states -----------------------------------------------------------------------------
    def state(self, tid: str, t, held: list, step: int, like=None, read: bool = False, record=None) -> str:
        """Summarize tensor `t` now, as a new state of `tid`.

        `like`: (array, Summary) of a state this one may equal (a .grad buffer just filled with the
        incoming gradient): compared, not summarized again. `read`: `t` is only read here (an op's
        input), so a parameter's summary from an earlier recording still holds if its version says
        nothing changed since (see cached_summary); after an update (read=False) a parameter is
        always summarized anew -- an optimizer may report before bumping the version. `record`: the
        tensor's record, when the caller has it at hand.
        """
        data = t._data
        version = _version(t)
        if record is None:
            record = self.objects[tid]
        summary = None
        if like is not None and data.size >= SAME_CHECK_NUMEL and same_values(data, like[0]):
            summary = like[1]
        elif record["role"] == "parameter":
            if read:
                summary = cached_summary(t, data, version)
            if summary is None:
                summary = summarize(data)
                cache_summary(t, data, version, summary)
        else:
            summary = summarize(data)
        values, omitted, nbytes = self.values_for(data)
        self.values_bytes += nbytes
        sid = f"s{self.ids.next_s()}"
        self.objects[sid] = {"id": sid, "tensor": tid, "step": step, "version": version, "values_omitted": omitted}
        self.state_data[sid] = (summary, values)
        record["states"].append(sid)
        self.last_state[tid] = (sid, version)
        if summary.nan_count or summary.inf_count:  # flagged by the handler, which knows the context
            self.nan_pending.append((sid, t))
        self.ring.bytes_used += STATE_BYTES + nbytes
        held.append(sid)
        return sid

    def values_for(self, data: np.ndarray) -> tuple:
        """(a copy of the values to keep or None, why not kept or None, their bytes in the budget)."""
        if self.values == "none":
            return None, "mode", 0
        if self.values == "small" and data.size > self.values_max_numel:
            return None, "size", 0
        nbytes = int(data.size) * VALUE_BYTES
        if self.values_bytes + nbytes > self.ring.hold_bytes // 2:  # values may take half the budget
            self.values_omitted_budget += 1
            return None, "budget", 0
        return np.array(data, copy=True), None, nbytes

    def current_state(self, tid: str, t, held: list, step: int) -> str:
        """The state of an input: its newest one, or a new one if it changed since."""
        last = self.last_state.get(tid)
        if last is not None and last[0] in self.objects and last[1] == _version(t):
            held.append(last[0])
            return last[0]
        return self.state(tid, t, held, step, read=True)

    def grad_states(self, grads: list, of: list, held: list, step: int) -> list:
        """The states of gradients (None stays None), new or current; grads[i] is the gradient of the
        forward tensor of[i]."""
        objects, tensor_ids = self.objects, self.ids.tensors
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
                tid = self.tensor(g, "gradient", held)
                record = objects[tid]
            if record["grad_of"] is None and index < len(of) and of[index] in objects:
                record["grad_of"] = of[index]
            last = self.last_state.get(tid)
            if last is not None and last[0] in objects and last[1] == _version(g):
                held.append(last[0])
                out.append(last[0])
                continue
            out.append(self.state(tid, g, held, step, read=True, record=record))
        return out

    # ---- dropping (the step ring let go of a record) ----------------------------------------
    def forget_state(self, sid: str, record: dict) -> None:
        summary_values = self.state_data.pop(sid)
        nbytes = 0 if summary_values[1] is None else int(summary_values[1].size) * VALUE_BYTES
        self.ring.bytes_used -= STATE_BYTES + nbytes
        self.values_bytes -= nbytes
        owner = self.objects.get(record["tensor"])
        if owner is not None and owner["states"] and owner["states"][0] == sid:
            del owner["states"][0]  # states go oldest first

    def forget_tensor(self, tid: str) -> None:
        self.ring.bytes_used -= TENSOR_BYTES
        self.last_state.pop(tid, None)
        self.param_layers.pop(tid, None)


def _version(t) -> int:
    """t.inplace_version, without the property call."""
    root = t if t._base is None else t._base
    return 0 if root._counter is None else root._counter.value


# Summaries of parameters, kept across recordings: id(param) -> (weakref to it, weakref to its array,
# its inplace_version, Summary). A parameter changes only through code that bumps its version (an
# optimizer step, set_value, set_state_dict, an initializer, an in-place op), so a parameter whose
# array and version are what they were when last summarized needs no new summary: with one
# recording per training step (%%paddle_trace), each step's first look at a weight is free (the
# last step summarized it after its update). Entries go when their parameter does.
_summaries: dict[int, tuple] = {}


def cached_summary(t, data: np.ndarray, version: int):
    entry = _summaries.get(id(t))
    if entry is not None and entry[0]() is t and entry[1]() is data and entry[2] == version:
        return entry[3]
    return None


def cache_summary(t, data: np.ndarray, version: int, summary) -> None:
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


_DTYPE_NAMES: dict = {}


def _dtype_name(dtype: np.dtype) -> str:
    name = _DTYPE_NAMES.get(dtype)
    if name is None:  # str(dtype) is a slow Python-level property: once per dtype
        name = _DTYPE_NAMES[dtype] = str(dtype)
    return name
