"""The backward engine: walk the grad graph newest node first, summing gradients as they arrive.

Read top to bottom:

    backward()     the loop, in micrograd's shape: seed the outputs' gradients, pop the newest
                   node, run its backward rule, accumulate each input's gradient into the node its
                   edge leads to
    BackwardPass   one pass's options, and how it runs one node: a leaf adds into its `.grad`,
                   any other node runs its op's rule. Tensor.backward() is the loop with
                   `BackwardPass.run_node` as its step.
    GradPlan       paddle.grad(): run only the nodes that lead to the wanted inputs, keep the
                   inputs' gradients as they pass (no `.grad` is touched), send nothing through
                   no_grad_vars. paddle.grad() is the loop with `GradPlan.step` as its step.
    TracedPass     the debugger: the same pass, reporting itself and each node that runs.

`run_backward` puts these together for Tensor.backward() and paddle.grad(). With
`create_graph=True` the rules run with grad recording on, so the gradients are themselves
differentiable: double grad needs no extra code.
"""
from __future__ import annotations

from heapq import heappop, heappush
from sys import getrefcount
from time import perf_counter_ns

import numpy as np

from .. import arrays, instrument
from ..errors import invalid_argument, precondition_not_met
from ..thread_modes import grad_enabled, set_grad
from .node import AccumulateGrad

Tensor = None  # set by tensor.py once the class exists (tensor.py imports this module)
CLEARED_GRADS: tuple = ()  # tensor.py's ClearedGrad and ZeroedGrad, likewise


def run_backward(outputs, grad_outputs, *, retain_graph: bool, create_graph: bool, inputs=None,
                 allow_unused: bool = False, no_grad_vars=(), api: str = "backward"):
    """Tensor.backward() and paddle.grad() start here; given `inputs` (paddle.grad), return their grads.

    No gradient flows through the tensors in `no_grad_vars` (paddle.grad's argument)."""
    seeds = seed_gradients(outputs, grad_outputs, api)
    if instrument.subscribers:  # the debugger listens: the same pass, reported (TracedPass, below)
        backward_pass = TracedPass(outputs, retain_graph, create_graph, api)
    else:
        backward_pass = BackwardPass(retain_graph, create_graph, api)
    if inputs is None:  # Tensor.backward(): every node runs, and the gradients end in the leaves' .grad
        backward_pass.run(seeds, backward_pass.run_node)
        return None
    plan = GradPlan(seeds, inputs, no_grad_vars, backward_pass)
    backward_pass.run(plan.seeds, plan.step)
    return plan.gradients(allow_unused)


def grad_edge(tensor):
    """The edge a gradient for `tensor` flows into, or None if it needs no gradient.

    As in Paddle, `stop_gradient = True` on a non-leaf detaches it: nothing flows into its graph
    (its node is kept, so setting stop_gradient back to False reconnects it)."""
    if tensor.stop_gradient:
        return None
    if tensor._node is not None:
        return (tensor._node, tensor._out_index)
    acc = tensor._accum
    if acc is None:
        acc = tensor._accum = AccumulateGrad(tensor)
    return (acc, 0)


def seed_gradients(outputs, grad_outputs, api: str) -> list:
    """Where backward starts: (node, output index, gradient) per output; a missing gradient is ones."""
    seeds = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        edge = grad_edge(out)
        if edge is None:
            raise invalid_argument(
                api, f"output {i} has stop_gradient=True, so there is no graph to differentiate.",
                hint="set stop_gradient=False on the inputs you want gradients for.")
        if g is None:
            data = out._data
            if type(data) is np.ndarray:
                ones = np.empty(data.shape, data.dtype)  # np.ones is a Python wrapper: slower
                ones.fill(1)
            else:                                        # on the GPU: ones there too
                ones = arrays.full(data.shape, 1, data.dtype, like=data)
            g = Tensor._wrap(ones)
        elif g._data.shape != out._data.shape:
            raise invalid_argument(api, f"grad_outputs[{i}] has shape {list(g._data.shape)}, "
                                        f"expected the output's shape {list(out._data.shape)}.")
        seeds.append((edge[0], edge[1], g))
    return seeds


def backward(seeds, step, create_graph: bool) -> None:
    """Run backward from `seeds`, each (node, output index, gradient): micrograd's loop.

    `step(node, grads)` runs one node, given the summed gradient of each of its outputs, and returns
    the gradient of each of its inputs (None: none): `BackwardPass.run_node` for Tensor.backward(),
    `GradPlan.step` for paddle.grad().
    """
    buffers: dict = {}  # node -> [gradient per output], summed as gradients arrive
    heap: list = []     # (-node.seq, node) for every node holding gradients: the newest on top
    for node, index, g in seeds:
        _accumulate(buffers, heap, node, index, g)
    prev_mode = grad_enabled()
    set_grad(create_graph)  # create_graph: the rules' own ops are recorded, so the grads are differentiable
    try:
        # The invariant: creation order is a topological order. Every node takes the next
        # GradNode.seq when it is made, and an op's node is made after the nodes of its inputs, so
        # any node that can send a gradient to `node` has a higher seq. Popping the highest seq
        # first, a node runs once, after all of its gradients have arrived and been summed.
        while heap:
            node = heappop(heap)[1]
            grads = buffers.pop(node)
            if node.tensor_hooks:  # a tensor's hooks see its summed gradient, and may replace it
                _run_hooks(node, grads)
            input_grads = step(node, grads)  # the backward rule: a gradient per input
            i = 0  # (a counter, not enumerate() or zip(): this is the engine's hot loop)
            for edge in node.next_edges:  # each input's gradient flows along its edge
                g = input_grads[i] if edge is not None else None  # edge None: no gradient wanted
                if g is not None:
                    shape, dtype = node.input_metas[i]
                    if g._data.shape != shape or g._data.dtype != dtype:
                        g = _fit_to_input(node, g, shape, dtype)
                    # _accumulate(buffers, heap, *edge, g), written out: this runs once per edge of the graph
                    target, index = edge
                    target_grads = buffers.get(target)
                    if target_grads is None:  # the first gradient to reach `target`: it joins the heap
                        target_grads = buffers[target] = [None] * len(target.out_metas)
                        heappush(heap, (-target.seq, target))
                    if target_grads[index] is None:
                        target_grads[index] = g
                    else:
                        target_grads[index] = _sum_gradients(target_grads[index], g, create_graph)
                i += 1
            g = input_grads = None  # held here, a gradient would look shared to the next leaf's _sole_owner
    finally:
        set_grad(prev_mode)


class BackwardPass:
    """One backward pass's options, and how it runs one node."""

    __slots__ = ("retain_graph", "create_graph", "api")

    def __init__(self, retain_graph: bool, create_graph: bool, api: str) -> None:
        self.retain_graph = retain_graph  # False: a node drops its saved tensors once it has run
        self.create_graph = create_graph
        self.api = api                    # "backward" or "grad", named in errors

    def run(self, seeds, step) -> None:
        """The loop, from `seeds`, with `step` running each node."""
        backward(seeds, step, self.create_graph)

    def run_node(self, node, grads) -> tuple | list:
        """Run `node`'s backward rule on the summed gradients of its outputs; return the gradient
        of each of its inputs. A leaf's gradient ends in its `.grad`: nothing flows on from it."""
        if type(node) is AccumulateGrad:
            _accumulate_leaf(node, grads[0], self.create_graph)
            return ()
        if node.freed:
            raise precondition_not_met(
                self.api, f"the graph through '{node.op.name}' was already freed by an earlier backward.",
                hint="pass retain_graph=True to the first backward() to run backward through it again.")
        if len(grads) > 1:  # several outputs: some may have got no gradient (one output always has one)
            given = [g for g in grads if g is not None][0]._data  # (its place is where zeros go)
            for i, g in enumerate(grads):  # (not `None in grads`: that would call Tensor.__eq__)
                if g is None and node.materialize_grads:  # an output nobody used: its gradient is zero
                    shape, dtype = node.out_metas[i]
                    grads[i] = Tensor._wrap(arrays.full(shape, 0, dtype, like=given))
        if node.saved or node.op.attrs:  # (unpack has nothing to lay out for add, subtract, ...)
            node.unpack()
        try:
            input_grads = node.op.backward(node, *grads)  # the rule; the node is its ctx (context.py)
        except BaseException:
            node.repack()
            raise
        if self.retain_graph:
            node.repack()
        else:
            node.release()  # (which drops what unpack laid out, as repack does)
        return input_grads if type(input_grads) is tuple else (input_grads,)


class GradPlan:
    """paddle.grad()'s plan: run only the nodes that lead to `inputs`, keep the inputs' gradients
    as they pass (no `.grad` is touched), and send no gradient into a tensor of `no_grad_vars`."""

    def __init__(self, seeds, inputs, no_grad_vars, backward_pass: BackwardPass) -> None:
        self.backward_pass = backward_pass
        self.targets: dict = {}  # (node, output index) -> positions in `inputs` whose gradient arrives there
        for i, t in enumerate(inputs):
            edge = grad_edge(t)
            if edge is None:
                raise invalid_argument(backward_pass.api,
                                       f"inputs[{i}] has stop_gradient=True; no gradient can reach it.")
            self.targets.setdefault(edge, []).append(i)
        self.blocked = set()  # the edges of no_grad_vars: a gradient sent along one is dropped
        for t in no_grad_vars:
            edge = grad_edge(t)
            if edge is not None:
                self.blocked.add(edge)
        self.seeds = [(node, index, g) for node, index, g in seeds if (node, index) not in self.blocked]
        self.needed = _nodes_needed([node for node, _, _ in seeds], self.targets)
        self.captured = [None] * len(inputs)

    def step(self, node, grads) -> tuple | list:
        """The loop's step for paddle.grad(): keep the gradients of wanted inputs; run `node` only
        when a wanted input lies behind it; drop what it sends into a no_grad_var."""
        for index, g in enumerate(grads):
            for pos in self.targets.get((node, index), ()):
                self.captured[pos] = g
        if node not in self.needed:  # no wanted input lies behind it: it sends nothing on
            return (None,) * len(node.next_edges)
        input_grads = self.backward_pass.run_node(node, grads)
        if self.blocked:
            input_grads = [None if edge in self.blocked else g for edge, g in zip(node.next_edges, input_grads)]
        return input_grads

    def gradients(self, allow_unused: bool) -> list:
        """The gradient of each input (detached unless create_graph), None for an unused one if allowed."""
        grads = self.captured
        for i, g in enumerate(grads):
            if g is None and not allow_unused:
                raise invalid_argument(
                    self.backward_pass.api, f"inputs[{i}] is not reachable from the outputs, so it has no gradient.",
                    hint="pass allow_unused=True to get None for it.")
            if g is not None and not self.backward_pass.create_graph:
                grads[i] = g.detach()
        return grads


class TracedPass(BackwardPass):
    """A backward pass with the debugger listening: the same loop, reported as "backward_begin", one
    "backward_step" per node that runs (its gradients in and out, its time), and "backward_end"
    (instrument.py describes the events)."""

    __slots__ = ("outputs",)

    def __init__(self, outputs, retain_graph: bool, create_graph: bool, api: str) -> None:
        super().__init__(retain_graph, create_graph, api)
        self.outputs = list(outputs)

    def run(self, seeds, step) -> None:
        instrument.emit(instrument.BackwardBegin(self.api, self.outputs, self.retain_graph, self.create_graph))
        try:
            super().run(seeds, step)
        finally:
            instrument.emit(instrument.BackwardEnd(self.api))

    def run_node(self, node, grads) -> list:
        grads_in = list(grads)
        start = perf_counter_ns()
        input_grads = super().run_node(node, grads)
        sent = []  # per input edge: the gradient sent on (fitted here, so the report shows it), or None
        for i, edge in enumerate(node.next_edges):
            g = input_grads[i] if edge is not None else None
            if g is not None:
                g = _fit_to_input(node, g, *node.input_metas[i])
            sent.append(g)
        leaf = node.tensor_ref() if type(node) is AccumulateGrad else None  # its .grad was just updated
        instrument.emit(instrument.BackwardStep(node, grads_in, sent, leaf, start, perf_counter_ns()))
        return sent


# ---- helpers of the loop and the plan ----------------------------------------------------------

def _accumulate(buffers, heap, node, index, g) -> None:
    """Add gradient `g` for output `index` of `node`; a node's first gradient puts it on the heap."""
    grads = buffers.get(node)
    if grads is None:
        grads = buffers[node] = [None] * len(node.out_metas)
        heappush(heap, (-node.seq, node))
    prev = grads[index]
    grads[index] = g if prev is None else _sum_gradients(prev, g, grad_enabled())


def _sum_gradients(prev, g, create_graph: bool):
    """Two gradients of one tensor, summed."""
    if create_graph:  # the sum must be differentiable too
        return prev + g
    a = prev._data
    if type(a) is np.ndarray:  # arrays.add's CPU case, without its call
        return Tensor._wrap(a + g._data)
    return Tensor._wrap(arrays.add(a, g._data))


def _run_hooks(node, grads) -> None:
    """Tensor hooks see the summed gradient once; a returned tensor replaces it."""
    for index, fns in node.tensor_hooks.items():
        if grads[index] is None:
            continue
        for fn in list(fns):
            seen = grads[index]
            replaced = fn(seen)
            if replaced is not None:
                grads[index] = replaced
            if instrument.subscribers:
                instrument.emit(instrument.HookEvent(node, index, fn, seen, replaced))


def _nodes_needed(roots, targets) -> set:
    """Nodes from which some target edge is reachable: only these must run for paddle.grad."""
    target_nodes = {node for node, _ in targets}
    memo: dict = {}

    def leads(node) -> bool:
        if node in memo:
            return memo[node]
        memo[node] = False  # graphs are acyclic; this only guards re-entry
        result = any(edge is not None and (edge[0] in target_nodes or leads(edge[0]))
                     for edge in node.next_edges)
        memo[node] = result
        return result

    return {n for n in _reachable(roots) if leads(n)}


def _reachable(roots) -> list:
    seen = dict.fromkeys(roots)
    stack = list(roots)
    while stack:
        for edge in stack.pop().next_edges:
            if edge is not None and edge[0] not in seen:
                seen[edge[0]] = None
                stack.append(edge[0])
    return list(seen)


def _fit_to_input(node, g, shape, dtype):
    """A rule's gradient for an input, made to match it: summed back to its shape (the input was
    broadcast) and cast to its dtype."""
    if g._data.shape != shape:
        g = _sum_to_shape(node.op.name, g, shape)
    if g._data.dtype != dtype:
        g = g.astype(dtype)
    return g


def _sum_to_shape(op_name, g, shape):
    """Reduce a broadcast gradient back to its input's shape (sum over broadcast axes)."""
    from ..ops.reduction import sum as reduce_sum

    gshape = g._data.shape
    lead = len(gshape) - len(shape)
    if lead < 0:
        raise precondition_not_met(op_name, f"backward produced a gradient of shape {list(gshape)} "
                                            f"for an input of shape {list(shape)}.")
    kept = []   # the input's size-1 dims that were broadcast
    for i, n in enumerate(shape):
        if n == 1 and gshape[lead + i] != 1:
            kept.append(i)
        elif n != gshape[lead + i]:
            raise precondition_not_met(op_name, f"backward produced a gradient of shape {list(gshape)} "
                                                f"for an input of shape {list(shape)}.")
    if lead:
        g = reduce_sum(g, axis=list(range(lead)))
    if kept:  # keepdim, not a reshape afterwards: reshape reads a 0 in [1, 0] as Paddle's "copy this dim"
        g = reduce_sum(g, axis=kept, keepdim=True)
    return g


def _accumulate_leaf(node: AccumulateGrad, g, create_graph: bool) -> None:
    tensor = node.tensor_ref()
    if tensor is None:  # the leaf is gone: nobody can read its grad
        return
    if create_graph:
        tensor._grad = g if tensor._grad is None else tensor._grad + g
        return
    grad = tensor._grad
    if grad is None or type(grad) in CLEARED_GRADS:  # none yet, or cleared since: a new grad Tensor, as
        # in Paddle (a grad held from before the clear keeps its zeros); g's own array when nothing
        # else holds g, so no copy
        tensor._grad = type(g)._wrap(g._data if _sole_owner(g) else arrays.copy(g._data))
        tensor._grad.stop_gradient = False   # Paddle: x.grad is a leaf that does not stop gradient
    elif grad._node is not None:  # a grad kept from create_graph: stay out of place
        tensor._grad = (grad + g).detach()
        tensor._grad.stop_gradient = False
    else:
        arrays.add_into(grad._data, g._data)


def _refs_of_a_loop_held_gradient() -> tuple[int, int, int]:
    """What getrefcount reports in _sole_owner for a gradient only the backward loop holds -- the
    Tensor (in the node's gradient list, passed down two calls), its array (also in a local), and a
    base its view alone holds -- measured by the same calls, so the interpreter's own counting of
    arguments and locals is part of the baseline."""
    class Probe:
        pass

    def inner(g):
        data = g._data
        base = data.base
        return getrefcount(g), getrefcount(data), getrefcount(base)

    def middle(node, g):
        return inner(g)

    def outer(grads):
        return middle(None, grads[0])

    def gradient():
        probe = Probe()
        probe._data = np.empty(4).reshape(2, 2)
        return probe
    return outer([gradient()])


_TENSOR_REFS, _ARRAY_REFS, _BASE_REFS = _refs_of_a_loop_held_gradient()


def _sole_owner(g) -> bool:
    """True when no one but the backward loop can reach g's storage, so a leaf's .grad may take the
    array itself instead of a copy: a host array that owns its memory (or views all of a base nobody
    else holds), C-contiguous and writeable, whose Tensor no hook, other edge or user holds."""
    data = g._data
    if type(data) is not np.ndarray or getrefcount(g) != _TENSOR_REFS or getrefcount(data) != _ARRAY_REFS:
        return False
    if not (data.flags.c_contiguous and data.flags.writeable and data.flags.aligned):
        return False
    base = data.base
    while base is not None:  # a reshaped kernel output: its base must be whole and otherwise unheld
        if type(base) is not np.ndarray or base.nbytes != data.nbytes or getrefcount(base) != _BASE_REFS:
            return False
        base = base.base
    return True
