"""PyLayer: an op whose forward and backward the user writes in Python, as Paddle's `paddle.autograd.PyLayer`.

    class Cube(paddle.autograd.PyLayer):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, dy):
            (x,) = ctx.saved_tensor()
            return dy * 3 * x ** 2      # minipaddle ops: create_graph=True differentiates this too

    y = Cube.apply(x)

How it fits the autograd engine: `apply` runs `forward` with gradient recording off (so the ops
inside leave no graph of their own), then records ONE `GradNode` for the whole call, whose op is a
`PyLayerOp` standing for the class: its name is the class name (the node is "Cube_grad") and its
backward rule calls the user's `backward` and checks what it returned. The engine runs it like
any other node; with `create_graph=True` the user's backward runs with recording on, so double
grad works whenever that backward is written in minipaddle ops.

In the debugger: with a subscriber listening, `apply` reports "pylayer_begin" / "pylayer_end"
around the forward and then one "op" event whose `opdef` is the PyLayerOp and whose `pylayer` is
the class (framework/instrument.py lists the fields). The recorder turns that into one node, so
a learner sees the op they wrote, not the dozen small ops inside it (see visualizer/builder.py).
"""
from __future__ import annotations

import time
from typing import Any

from ..framework import instrument
from ..framework.autograd import is_grad_enabled, no_grad
from ..framework.autograd.engine import grad_edge
from ..framework.autograd.node import GradNode, VersionCounter
from ..framework.errors import invalid_argument, precondition_not_met, unimplemented
from ..framework.tensor import Tensor

__all__ = ["PyLayer", "PyLayerContext"]


class PyLayerContext:
    """The `ctx` handed to `forward` and `backward`: what forward leaves for backward.

    Any attribute may be set on it (`ctx.k = k`); tensors are best passed with
    `save_for_backward`, which is what Paddle's docs show."""

    def __init__(self) -> None:
        self._saved: tuple | None = None
        self._versions: list = []   # (tensor, its VersionCounter, the version when saved)
        self._non_differentiable: tuple = ()
        self._materialize_grads = True
        self._freed = False

    def save_for_backward(self, *tensors) -> None:
        """Keep `tensors` (or anything else: Paddle keeps None and numbers as they are) for backward.

        Each Tensor's in-place version is noted, as for an op's saved inputs: changing it in place
        before backward (`x.add_(1)`) makes `saved_tensor()` raise instead of giving a wrong gradient."""
        self._saved = tensors
        self._versions = []
        for t in tensors:
            if isinstance(t, Tensor):
                root = t if t._base is None else t._base
                if root._counter is None:
                    root._counter = VersionCounter()
                self._versions.append((t, root._counter, root._counter.value))

    def saved_tensor(self) -> tuple | None:
        """What `save_for_backward` kept, as a tuple; None when it was never called (as in Paddle)."""
        if self._freed:
            raise precondition_not_met(
                "PyLayerContext.saved_tensor", "the saved tensors were freed by an earlier backward.",
                hint="pass retain_graph=True to the first backward() to run backward twice.")
        for i, (_, counter, version) in enumerate(self._versions):
            if counter.value != version:
                raise precondition_not_met(
                    "PyLayerContext.saved_tensor", f"saved tensor {i} was modified by an in-place op after "
                    f"save_for_backward (version {version} when saved, {counter.value} now), so the gradient "
                    "would be wrong.", hint="use the out-of-place op, or clone() the tensor before changing it.")
        return self._saved

    def mark_non_differentiable(self, *tensors) -> None:
        """Outputs of forward that get no gradient: they come back with stop_gradient=True, and
        backward receives zeros for them (None with set_materialize_grads(False))."""
        for i, t in enumerate(tensors):
            if not isinstance(t, Tensor):
                raise invalid_argument("PyLayerContext.mark_non_differentiable",
                                       f"argument {i} is {type(t).__name__}, expected a Tensor returned by forward.")
        self._non_differentiable = self._non_differentiable + tensors

    def mark_not_inplace(self, *tensors) -> None:
        """Accepted for Paddle's sake: minipaddle never turns an output into one of the inputs."""

    def set_materialize_grads(self, value: bool) -> None:
        """True (the default): backward gets zeros for outputs no gradient reached; False: None."""
        if not isinstance(value, bool):
            raise invalid_argument("PyLayerContext.set_materialize_grads",
                                   f"value is {type(value).__name__}, expected a bool.")
        self._materialize_grads = value

    def set_grad_in_dtype_consistent(self, flag: bool) -> None:
        """Accepted for Paddle's sake: gradients are always cast to their input's dtype here."""


class PyLayerOp:
    """Stands in the grad graph (and the trace) for one PyLayer class, as an OpDef stands for an op.

    Only what the engine, the recorder and the profiler read of an OpDef is here: `name`, an empty
    `attrs`, `outputs`, `kernels` (none: the "kernel" is the user's forward), and `backward`."""

    kernel_input = 0
    attrs = ()
    attr_defaults: dict = {}
    kernels: dict = {}
    differentiable_inputs = None

    def __init__(self, cls: type) -> None:
        self.cls = cls
        self.name = cls.__name__
        self.outputs: tuple = ()

    def __repr__(self) -> str:
        return f"<PyLayerOp {self.name}>"

    def backward(self, node: "PyLayerNode", *grads):
        """The grad node's rule: the user's backward, then Paddle's checks of what it returned."""
        ctx = node.ctx
        returned = self.cls.backward(ctx, *grads)
        return check_backward_result(self.name, returned, node)


class PyLayerNode(GradNode):
    """A GradNode whose saved state is the PyLayer's ctx."""

    __slots__ = ()

    def __init__(self, op: PyLayerOp, ctx: PyLayerContext, next_edges, input_metas, out_metas) -> None:
        super().__init__(op, {}, next_edges, input_metas, out_metas)
        self.saved = {"ctx": ctx}

    @property
    def ctx(self) -> PyLayerContext:
        return self.saved["ctx"]

    @property
    def materialize_grads(self) -> bool:
        return self.saved is None or self.saved["ctx"]._materialize_grads

    def unpack(self) -> None:
        if self.saved is None:
            super().unpack()  # raises: freed

    def release(self) -> None:
        ctx = self.saved["ctx"] if self.saved else None
        if ctx is not None:
            ctx._saved = None
            ctx._versions = []
            ctx._freed = True
        super().release()


def check_backward_result(name: str, returned, node: PyLayerNode) -> tuple:
    """What the user's backward returned, as one gradient (or None) per Tensor input of forward.

    Paddle's rules: a Tensor, None, or a tuple/list of them; no more than one per Tensor input
    (missing trailing ones are None); None exactly where the input has stop_gradient=True. And one
    Paddle leaves out: each gradient has its input's shape."""
    where = f"{name}.backward"
    if isinstance(returned, (tuple, list)):
        grads = list(returned)
    else:
        grads = [returned]
    n = len(node.next_edges)
    if len(grads) > n:
        raise invalid_argument(where, f"returned {len(grads)} gradients, but forward took {n} Tensor input(s); "
                                      f"expected one gradient (or None) per Tensor input.")
    grads += [None] * (n - len(grads))
    for i, (g, edge) in enumerate(zip(grads, node.next_edges)):
        if g is not None and not isinstance(g, Tensor):
            raise invalid_argument(where, f"gradient {i} is {type(g).__name__}, expected a Tensor or None.")
        if edge is None and g is not None:
            raise invalid_argument(where, f"returned a gradient for Tensor input {i}, which has stop_gradient=True; "
                                          f"expected None there.")
        if edge is not None and g is None:
            raise invalid_argument(where, f"returned None for Tensor input {i}, which needs a gradient; expected a "
                                          f"Tensor of shape {list(node.input_metas[i][0])}.")
        if g is not None and tuple(g._data.shape) != tuple(node.input_metas[i][0]):
            raise invalid_argument(where, f"gradient {i} has shape {list(g._data.shape)}, expected the shape of "
                                          f"Tensor input {i}, {list(node.input_metas[i][0])}.")
    return tuple(grads)


class PyLayer:
    """Subclass it, write `forward(ctx, *args, **kwargs)` and `backward(ctx, *grads)` as static
    methods, and call `YourLayer.apply(*args, **kwargs)`.

    backward gets one gradient per Tensor output of forward and returns one per Tensor input
    (positional and keyword, in order), None for those with stop_gradient=True."""

    @staticmethod
    def forward(ctx: PyLayerContext, *args, **kwargs):
        raise unimplemented("PyLayer.forward", "You must implement the forward function for PyLayer.")

    @staticmethod
    def backward(ctx: PyLayerContext, *grads):
        raise unimplemented("PyLayer.backward", "You must implement the backward function for PyLayer.")

    @classmethod
    def apply(cls, *args, **kwargs) -> Any:
        """Run forward on the arguments and record one grad node for the call."""
        return apply_pylayer(cls, args, kwargs)


_ops: dict = {}  # PyLayer class -> its PyLayerOp (one per class, as one OpDef per op)


def _op_for(cls: type) -> PyLayerOp:
    op = _ops.get(cls)
    if op is None:
        op = _ops[cls] = PyLayerOp(cls)
    return op


def apply_pylayer(cls: type, args: tuple, kwargs: dict):
    """PyLayer.apply: forward without recording, then one node for the whole call."""
    from ..framework.static.builder import in_static_mode
    if in_static_mode():
        raise unimplemented(f"{cls.__name__}.apply", "PyLayer runs in dynamic mode only in minipaddle.",
                            hint="call paddle.disable_static() first.")
    inputs = [a for a in args if isinstance(a, Tensor)] + [v for v in kwargs.values() if isinstance(v, Tensor)]
    ctx = PyLayerContext()
    traced = bool(instrument.subscribers)
    if traced:
        instrument.emit(instrument.PyLayerBegin(cls))
    recording = is_grad_enabled()
    start = time.perf_counter_ns()
    try:
        with no_grad():  # as in Paddle: the ops inside forward record no graph
            result = cls.forward(ctx, *args, **kwargs)
    finally:
        end = time.perf_counter_ns()
        if traced:
            instrument.emit(instrument.PyLayerEnd(cls))
    items = [result] if isinstance(result, Tensor) else (list(result) if isinstance(result, (tuple, list)) else None)
    if items is None or not any(isinstance(o, Tensor) for o in items):
        raise invalid_argument(f"{cls.__name__}.forward", f"returned {type(result).__name__}; expected a Tensor "
                                                          "or a tuple/list holding at least one Tensor.")
    input_ids = {id(t) for t in inputs}
    for i, o in enumerate(items):  # an input (or any tensor with a history) returned as is gets a new handle
        if isinstance(o, Tensor) and (id(o) in input_ids or o._node is not None or not o.stop_gradient):
            items[i] = Tensor._wrap(o._data)
            if any(m is o for m in ctx._non_differentiable):
                ctx._non_differentiable += (items[i],)
    outs = [o for o in items if isinstance(o, Tensor)]
    node = None
    if recording and any(not t.stop_gradient for t in inputs):
        node = _record(cls, ctx, inputs, outs)
    if traced:
        op = _op_for(cls)
        instrument.emit(instrument.OpEvent(op.name, op, instrument.current_layer(), tuple(inputs), tuple(outs), {},
                                           cls.forward, node, start, end, pylayer=cls))
    if isinstance(result, Tensor):
        return items[0]
    return type(result)(items) if isinstance(result, tuple) else items


def _record(cls: type, ctx: PyLayerContext, inputs: list, outs: list) -> PyLayerNode | None:
    edges = [grad_edge(t) for t in inputs]
    if all(e is None for e in edges):
        return None
    input_metas = tuple((t._data.shape, t._data.dtype) for t in inputs)
    out_metas = tuple((o._data.shape, o._data.dtype) for o in outs)
    node = PyLayerNode(_op_for(cls), ctx, tuple(edges), input_metas, out_metas)
    marked = {id(t) for t in ctx._non_differentiable}
    for index, o in enumerate(outs):
        if id(o) in marked:  # (Paddle gives even an int output a gradient slot)
            o.stop_gradient = True
            continue
        o.stop_gradient = False
        o._node = node
        o._out_index = index
    return node
