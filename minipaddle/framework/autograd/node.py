"""Grad nodes: one per recorded op call, the edges of the backward graph.

A `GradNode` remembers which op ran, its attributes, the tensors its backward rule
needs, and one edge per input: `(node, output_index)` of the node that produced that
input, or `None` when no gradient flows there. Leaves (tensors a user created with
`stop_gradient=False`, parameters) end in an `AccumulateGrad` node that adds into
`tensor.grad`. A GradNode is the `ctx` its op's backward rule receives (the contract is
`BackwardContext`, context.py): saved tensors and attrs read as attributes of the node:

    def multiply_grad(ctx, dout):
        return dout * ctx.y, dout * ctx.x
"""
from __future__ import annotations

import itertools
import weakref
from typing import Any, Callable

from ..dtype import DIFFERENTIABLE_KINDS
from ..errors import precondition_not_met
from .context import BackwardContext

Tensor = None  # set by tensor.py once the class exists

# Every node gets the next number when it is made. An op's node is made after the nodes of its
# inputs, so running nodes from the highest number down is a topological order of any graph.
sequence = itertools.count()


class VersionCounter:
    """Counts in-place writes to one storage; a saved tensor remembers the count it saw."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 0


class SavedOutput:
    """An output saved for backward, held without a reference cycle (node -> tensor -> node)."""

    __slots__ = ("data", "index", "counter", "version")

    def __init__(self, data, index: int, counter: VersionCounter) -> None:
        self.data = data
        self.index = index
        self.counter = counter
        self.version = counter.value


class GradNode(BackwardContext):
    """The backward half of one op call; the `ctx` its backward rule receives."""

    __slots__ = ("op", "attrs", "saved", "next_edges", "input_metas", "out_metas",
                 "tensor_hooks", "freed", "seq", "__weakref__", "__dict__")  # __dict__: see unpack()
    materialize_grads = True  # False (a PyLayer's ctx.set_materialize_grads): None grads reach the rule

    def __init__(self, op, attrs: dict, next_edges: tuple, input_metas: tuple, out_metas: tuple) -> None:
        self.seq = next(sequence)       # creation order: a node's inputs' nodes always come earlier
        self.op = op                    # the OpDef; op.backward is the rule
        self.attrs = attrs
        self.saved: dict[str, Any] = {}
        self.next_edges = next_edges    # per input: (node, index) or None
        self.input_metas = input_metas  # per input: (shape, dtype), to shape the grads
        self.out_metas = out_metas      # per output: (shape, dtype), to make zero grads
        self.tensor_hooks: dict[int, list] | None = None
        self.freed = False

    @property
    def name(self) -> str:
        return f"{self.op.name}_grad"

    def __repr__(self) -> str:
        return f"<GradNode {self.name}>"

    def needs_grad(self, i: int) -> bool:
        """Whether input `i` wants a gradient: an edge leads from it to a node that takes one."""
        return self.next_edges[i] is not None

    def __getattr__(self, key: str):
        # Backward rules read `node.x`, `node.out`, `node.axis`: saved tensors, then attrs.
        if key.startswith("__"):
            raise AttributeError(key)
        saved = object.__getattribute__(self, "saved")
        if saved is None:
            raise precondition_not_met(
                self.op.name, "the saved tensors of this graph were freed by an earlier backward.",
                hint="pass retain_graph=True to the first backward() to run backward twice.")
        if key in saved:
            return self._unpack(key, saved[key])
        attrs = object.__getattribute__(self, "attrs")
        if key in attrs:
            return attrs[key]
        defaults = self.op.attr_defaults  # an attribute the caller left at its default
        if key in defaults:
            return defaults[key]
        raise AttributeError(f"{self.name} has no saved tensor or attribute {key!r}")

    def unpack(self) -> None:
        """Before the backward rule runs: check every saved tensor's version, then make saved
        tensors and attrs plain attributes (`node.x`, `node.axis`) so the rule reads them at full
        speed. `repack()` drops them again, so no tensor keeps its own node alive."""
        saved = self.saved
        if saved is None:
            raise precondition_not_met(
                self.op.name, "the saved tensors of this graph were freed by an earlier backward.",
                hint="pass retain_graph=True to the first backward() to run backward twice.")
        if not saved and not self.op.attrs:  # nothing to lay out (add, subtract): skip making the dict
            return
        values = self.__dict__
        if self.op.attrs:
            values.update(self.op.attr_defaults)
            values.update(self.attrs)
        for key, item in saved.items():
            if type(item) is tuple:  # a saved input, the common case: _unpack's check, inlined for speed
                tensor, counter, version = item
                if counter is not None and counter.value != version:
                    raise _modified_error(self.op.name, f"input '{key}'", version, counter.value)
                values[key] = tensor
            else:
                values[key] = self._unpack(key, item)

    def repack(self) -> None:
        self.__dict__.clear()

    def _unpack(self, key: str, item):
        if type(item) is SavedOutput:
            if item.counter.value != item.version:
                raise _modified_error(self.op.name, f"output '{key}'", item.version, item.counter.value)
            t = Tensor._wrap(item.data)
            if item.data.dtype.kind in DIFFERENTIABLE_KINDS:  # int outputs (indices) never carry a gradient
                t.stop_gradient = False
                t._node = self
                t._out_index = item.index
            return t
        tensor, counter, version = item
        if counter is not None and counter.value != version:
            raise _modified_error(self.op.name, f"input '{key}'", version, counter.value)
        return tensor

    def add_hook(self, index: int, hook: Callable) -> "HookHandle":
        if self.tensor_hooks is None:
            self.tensor_hooks = {}
        hooks = self.tensor_hooks.setdefault(index, [])
        hooks.append(hook)
        return HookHandle(hooks, hook)

    def release(self) -> None:
        """Drop saved tensors after a backward without retain_graph -- and the attrs, which may hold
        arrays too (a run_program call keeps its forward's scope there)."""
        self.saved = None
        self.attrs = {}
        self.freed = True
        self.__dict__.clear()


def _modified_error(op: str, which: str, saved_version: int, now: int):
    return precondition_not_met(
        op, f"its {which}, saved for backward, was modified by an in-place op "
        f"(version {saved_version} when saved, {now} now), so its gradient would be wrong.",
        hint="use the out-of-place op (e.g. add instead of add_), or clone() the tensor before "
             "changing it.")


class AccumulateGrad:
    """The end of a backward path: adds the incoming gradient into a leaf's `.grad`."""

    __slots__ = ("tensor_ref", "tensor_hooks", "seq", "__weakref__")
    freed = False
    next_edges = ()      # no inputs: nothing flows on from a leaf
    out_metas = (None,)  # one "output": the leaf's gradient

    def __init__(self, tensor) -> None:
        self.seq = next(sequence)
        self.tensor_ref = weakref.ref(tensor)   # weak: the leaf owns this node, not the reverse
        self.tensor_hooks: dict[int, list] | None = None

    @property
    def name(self) -> str:
        return "accumulate_grad"

    def __repr__(self) -> str:
        return "<AccumulateGrad>"

    add_hook = GradNode.add_hook


class HookHandle:
    """Returned by `register_hook`; `remove()` takes the hook off again."""

    def __init__(self, hooks: list, hook: Callable) -> None:
        self._hooks = hooks
        self._hook = hook

    def remove(self) -> bool:
        try:
            self._hooks.remove(self._hook)
            return True
        except ValueError:
            return False
