"""The backward engine: walk the grad graph in topological order, summing gradients.

`run_backward` serves both `Tensor.backward()` (accumulate into leaves' `.grad`) and
`paddle.grad()` (return the gradients of chosen inputs, touch no `.grad`). Each node
runs once, after every node that feeds it has run, with the sum of its incoming grads.
With `create_graph=True` the rules run with grad recording on, so the gradients are
themselves differentiable: double grad needs no extra code.
"""
from __future__ import annotations

from heapq import heappop, heappush
from time import perf_counter_ns

import numpy as np

from .. import instrument
from ..errors import invalid_argument, precondition_not_met
from ..thread_modes import grad_enabled, set_grad
from .node import AccumulateGrad

Tensor = None  # set by tensor.py once the class exists (tensor.py imports this module)


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


def run_backward(outputs, grad_outputs, *, retain_graph: bool, create_graph: bool,
                 inputs=None, allow_unused: bool = False, no_grad_vars=(), api: str = "backward"):
    """Run backward from `outputs`; return the inputs' grads when `inputs` is given.

    Nodes wait in a heap keyed by their creation number, newest first: every node that can send
    a gradient to a node was made after it, so a node runs once, with all its gradients summed.
    No gradient flows through the tensors in `no_grad_vars` (paddle.grad's argument).
    With an instrument subscriber listening, each node that runs is reported ("backward_step").
    """
    traced = bool(instrument.subscribers)
    if traced:
        instrument.emit({"kind": "backward_begin", "api": api, "outputs": list(outputs),
                         "retain_graph": retain_graph, "create_graph": create_graph})
    buffers: dict = {}  # node -> [grad per output], summed as gradients arrive
    heap: list = []     # (-node.seq, node) for every node holding gradients
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        edge = grad_edge(out)
        if edge is None:
            raise invalid_argument(
                api, f"output {i} has stop_gradient=True, so there is no graph to differentiate.",
                hint="set stop_gradient=False on the inputs you want gradients for.")
        if g is None:
            ones = np.empty(out._data.shape, out._data.dtype)  # np.ones is a Python wrapper: slower
            ones.fill(1)
            g = Tensor._wrap(ones)
        elif g._data.shape != out._data.shape:
            raise invalid_argument(api, f"grad_outputs[{i}] has shape {list(g._data.shape)}, "
                                        f"expected the output's shape {list(out._data.shape)}.")
        _accumulate(buffers, heap, edge[0], edge[1], g)

    targets = needed = None  # paddle.grad: (node, index) -> positions in `inputs`; nodes worth running
    if inputs is not None:
        targets = {}
        for i, t in enumerate(inputs):
            edge = grad_edge(t)
            if edge is None:
                raise invalid_argument(api, f"inputs[{i}] has stop_gradient=True; no gradient can reach it.")
            targets.setdefault(edge, []).append(i)
        needed = _nodes_needed(list(buffers), targets)
    blocked: dict = {}  # node -> output indices whose gradient is dropped
    for t in no_grad_vars:
        edge = grad_edge(t)
        if edge is not None:
            blocked.setdefault(edge[0], []).append(edge[1])
    captured = [None] * (len(inputs) if inputs is not None else 0)

    prev_mode = grad_enabled()
    set_grad(create_graph)
    try:
        while heap:
            node = heappop(heap)[1]
            grads = buffers.pop(node)
            if blocked and node in blocked:
                for index in blocked[node]:
                    grads[index] = None
                if all(g is None for g in grads):
                    continue
            if node.tensor_hooks:
                _run_hooks(node, grads)
            if targets is not None:
                for index, g in enumerate(grads):
                    for pos in targets.get((node, index), ()):
                        captured[pos] = g
                if node not in needed:
                    continue
            if traced:
                _traced_step(node, grads, buffers, heap, retain_graph, create_graph, api, targets)
            elif type(node) is AccumulateGrad:
                if targets is None:
                    _accumulate_leaf(node, grads[0], create_graph)
            else:
                _apply_node(node, grads, buffers, heap, retain_graph, api)
    finally:
        set_grad(prev_mode)
        if traced:
            instrument.emit({"kind": "backward_end", "api": api})

    if inputs is None:
        return None
    for i, g in enumerate(captured):
        if g is None and not allow_unused:
            raise invalid_argument(
                api, f"inputs[{i}] is not reachable from the outputs, so it has no gradient.",
                hint="pass allow_unused=True to get None for it.")
        if g is not None and not create_graph:
            captured[i] = g.detach()
    return captured


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


def _accumulate(buffers, heap, node, index, g) -> None:
    grads = buffers.get(node)
    if grads is None:
        grads = buffers[node] = [None] * len(node.out_metas)
        heappush(heap, (-node.seq, node))
    prev = grads[index]
    if prev is None:
        grads[index] = g
    elif grad_enabled():  # create_graph: the sum must be differentiable too
        grads[index] = prev + g
    else:
        grads[index] = Tensor._wrap(prev._data + g._data)


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
                instrument.emit({"kind": "hook", "node": node, "index": index, "hook": fn,
                                 "grad": seen, "result": replaced})


def _traced_step(node, grads, buffers, heap, retain_graph, create_graph, api, targets) -> None:
    """Run one node as the loop in run_backward does, and report it as a "backward_step" event."""
    grads_in = list(grads)
    start = perf_counter_ns()
    if type(node) is AccumulateGrad:
        if targets is None:
            _accumulate_leaf(node, grads[0], create_graph)
        event = {"kind": "backward_step", "node": node, "grads_in": grads_in, "grads_out": [],
                 "tensor": node.tensor_ref() if targets is None else None}  # paddle.grad leaves .grad alone
    else:
        sent: list = []
        _apply_node(node, grads, buffers, heap, retain_graph, api, sent)
        event = {"kind": "backward_step", "node": node, "grads_in": grads_in, "grads_out": sent, "tensor": None}
    event["start_ns"] = start
    event["end_ns"] = perf_counter_ns()
    instrument.emit(event)


def _apply_node(node, grads, buffers, heap, retain_graph, api, sent: list | None = None) -> None:
    """Run a node's backward rule and pass each input's gradient on; `sent` (when tracing) gets
    the gradient sent per input, None where none flows."""
    if node.freed:
        raise precondition_not_met(
            api, f"the graph through '{node.op.name}' was already freed by an earlier backward.",
            hint="pass retain_graph=True to the first backward() to run backward through it again.")
    for i, g in enumerate(grads):  # (not `None in grads`: that would call Tensor.__eq__)
        if g is None and node.materialize_grads:  # an output nobody used: its gradient is zero
            shape, dtype = node.out_metas[i]
            grads[i] = Tensor._wrap(np.zeros(shape, dtype))
    node.unpack()
    try:
        input_grads = node.op.backward(node, *grads)
    finally:
        node.repack()
    if type(input_grads) is not tuple:
        input_grads = (input_grads,)
    metas = node.input_metas
    i = 0
    for edge in node.next_edges:
        g = None
        if edge is not None:
            g = input_grads[i]
            if g is not None:
                shape, dtype = metas[i]
                data = g._data
                if data.shape != shape:
                    g = _sum_to_shape(node.op.name, g, shape)
                if data.dtype != dtype:
                    g = g.astype(dtype)
                _accumulate(buffers, heap, edge[0], edge[1], g)
        if sent is not None:
            sent.append(g)
        i += 1
    if not retain_graph:
        node.release()


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
    if tensor._grad is None:
        tensor._grad = type(g)._wrap(np.array(g._data, copy=True))
        tensor._grad.stop_gradient = False   # Paddle: x.grad is a leaf that does not stop gradient
    elif tensor._grad._node is not None:  # a grad kept from create_graph: stay out of place
        tensor._grad = (tensor._grad + g).detach()
        tensor._grad.stop_gradient = False
    else:
        np.add(tensor._grad._data, g._data, out=tensor._grad._data)
