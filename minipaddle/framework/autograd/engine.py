"""The backward engine: walk the grad graph in topological order, summing gradients.

`run_backward` serves both `Tensor.backward()` (accumulate into leaves' `.grad`) and
`paddle.grad()` (return the gradients of chosen inputs, touch no `.grad`). Each node
runs once, after every node that feeds it has run, with the sum of its incoming grads.
With `create_graph=True` the rules run with grad recording on, so the gradients are
themselves differentiable: double grad needs no extra code.
"""
from __future__ import annotations

import numpy as np

from ..errors import invalid_argument, precondition_not_met
from . import mode
from .node import AccumulateGrad

Tensor = None  # set by tensor.py once the class exists (tensor.py imports this module)


def grad_edge(tensor):
    """The edge a gradient for `tensor` flows into, or None if it needs no gradient."""
    if tensor._node is not None:
        return (tensor._node, tensor._out_index)
    if tensor.stop_gradient:
        return None
    acc = tensor._accum
    if acc is None:
        acc = tensor._accum = AccumulateGrad(tensor)
    return (acc, 0)


def run_backward(outputs, grad_outputs, *, retain_graph: bool, create_graph: bool,
                 inputs=None, allow_unused: bool = False, api: str = "backward"):
    """Run backward from `outputs`; return the inputs' grads when `inputs` is given."""
    roots = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        edge = grad_edge(out)
        if edge is None:
            raise invalid_argument(
                api, f"output {i} has stop_gradient=True, so there is no graph to differentiate.",
                hint="set stop_gradient=False on the inputs you want gradients for.")
        if g is None:
            g = Tensor._wrap(np.ones(out._data.shape, out._data.dtype))
        elif g._data.shape != out._data.shape:
            raise invalid_argument(api, f"grad_outputs[{i}] has shape {list(g._data.shape)}, "
                                        f"expected the output's shape {list(out._data.shape)}.")
        roots.append((edge, g))

    targets = None
    if inputs is not None:
        targets = {}
        for i, t in enumerate(inputs):
            edge = grad_edge(t)
            if edge is None:
                raise invalid_argument(api, f"inputs[{i}] has stop_gradient=True; no gradient can reach it.")
            targets.setdefault((id(edge[0]), edge[1]), []).append(i)

    deps, order_nodes = _count_dependencies([e[0] for e, _ in roots])
    needed = _nodes_needed(order_nodes, targets) if targets is not None else None

    buffers: dict[int, list] = {}
    for (node, index), g in roots:
        _accumulate(buffers, node, index, g)

    captured = [None] * (len(inputs) if inputs is not None else 0)
    prev_mode = mode.grad_enabled
    mode.grad_enabled = create_graph
    try:
        ready = [e[0] for e, _ in roots if deps.get(id(e[0]), 0) == 0]
        ready = list({id(n): n for n in ready}.values())
        while ready:
            node = ready.pop()
            slots = buffers.pop(id(node), None)
            if slots is not None:  # None: no gradient reached this node; it only passes deps on
                grads = _run_hooks(node, slots)
                if targets is not None:
                    for index, g in enumerate(grads):
                        for pos in targets.get((id(node), index), ()):
                            captured[pos] = g
                if needed is None or id(node) in needed:
                    if type(node) is AccumulateGrad:
                        if targets is None:
                            _accumulate_leaf(node, grads[0], create_graph)
                    else:
                        _apply_node(node, grads, buffers, retain_graph, api)
            for edge in node.next_edges:
                if edge is None:
                    continue
                child = edge[0]
                key = id(child)
                deps[key] -= 1
                if deps[key] == 0:
                    ready.append(child)
    finally:
        mode.grad_enabled = prev_mode

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


def _count_dependencies(root_nodes):
    """How many edges point at each node reachable from the roots."""
    deps: dict[int, int] = {}
    seen = {id(n): n for n in root_nodes}
    stack = list(seen.values())
    while stack:
        node = stack.pop()
        for edge in node.next_edges:
            if edge is None:
                continue
            child = edge[0]
            key = id(child)
            deps[key] = deps.get(key, 0) + 1
            if key not in seen:
                seen[key] = child
                stack.append(child)
    return deps, list(seen.values())


def _nodes_needed(nodes, targets) -> set[int]:
    """Nodes from which some target edge is reachable: only these must run for paddle.grad."""
    target_nodes = {key[0] for key in targets}
    memo: dict[int, bool] = {}

    def leads(node) -> bool:
        key = id(node)
        if key in memo:
            return memo[key]
        memo[key] = False  # graphs are acyclic; this guards deep recursion re-entry
        result = any(edge is not None and (id(edge[0]) in target_nodes or leads(edge[0]))
                     for edge in node.next_edges)
        memo[key] = result
        return result

    return {id(n) for n in nodes if leads(n)}


def _accumulate(buffers, node, index, g) -> None:
    slots = buffers.get(id(node))
    if slots is None:
        slots = buffers[id(node)] = [None] * _num_outputs(node)
        slots.append(node)  # keep the node alive while its grads wait
    prev = slots[index]
    if prev is None:
        slots[index] = g
    elif mode.grad_enabled:  # create_graph: the sum must be differentiable too
        slots[index] = prev + g
    else:
        slots[index] = Tensor._wrap(prev._data + g._data)


def _num_outputs(node) -> int:
    return 1 if type(node) is AccumulateGrad else len(node.out_metas)


def _run_hooks(node, slots):
    grads = slots[:-1]
    hooks = node.tensor_hooks
    if hooks:
        for index, fns in hooks.items():
            if grads[index] is None:
                continue
            for fn in list(fns):
                replaced = fn(grads[index])
                if replaced is not None:
                    grads[index] = replaced
    return grads


def _apply_node(node, grads, buffers, retain_graph, api) -> None:
    if node.freed:
        raise precondition_not_met(
            api, f"the graph through '{node.op.name}' was already freed by an earlier backward.",
            hint="pass retain_graph=True to the first backward() to run backward through it again.")
    for i, g in enumerate(grads):
        if g is None:  # an output nobody used: its gradient is zero
            shape, dtype = node.out_metas[i]
            grads[i] = Tensor._wrap(np.zeros(shape, dtype))
    input_grads = node.op.backward(node, *grads)
    if not isinstance(input_grads, tuple):
        input_grads = (input_grads,)
    for i, edge in enumerate(node.next_edges):
        if edge is None:
            continue
        g = input_grads[i]
        if g is None:
            continue
        shape, dtype = node.input_metas[i]
        if g._data.shape != shape:
            g = _sum_to_shape(node.op.name, g, shape)
        if g._data.dtype != dtype:
            g = g.astype(dtype)
        _accumulate(buffers, edge[0], edge[1], g)
    if not retain_graph:
        node.release()


def _sum_to_shape(op_name, g, shape):
    """Reduce a broadcast gradient back to its input's shape (sum over broadcast axes)."""
    from ..ops.reduction import sum as reduce_sum
    from ..ops.manipulation import reshape

    gshape = g._data.shape
    lead = len(gshape) - len(shape)
    if lead < 0:
        raise precondition_not_met(op_name, f"backward produced a gradient of shape {list(gshape)} "
                                            f"for an input of shape {list(shape)}.")
    axes = list(range(lead))
    for i, n in enumerate(shape):
        if n == 1 and gshape[lead + i] != 1:
            axes.append(lead + i)
        elif n != gshape[lead + i]:
            raise precondition_not_met(op_name, f"backward produced a gradient of shape {list(gshape)} "
                                                f"for an input of shape {list(shape)}.")
    if axes:
        g = reduce_sum(g, axis=axes)
    return reshape(g, list(shape))


def _accumulate_leaf(node: AccumulateGrad, g, create_graph: bool) -> None:
    tensor = node.tensor_ref()
    if tensor is None:  # the leaf is gone: nobody can read its grad
        return
    if create_graph:
        tensor._grad = g if tensor._grad is None else tensor._grad + g
        return
    if tensor._grad is None:
        tensor._grad = type(g)._wrap(np.array(g._data, copy=True))
    elif tensor._grad._node is not None:  # a grad kept from create_graph: stay out of place
        tensor._grad = (tensor._grad + g).detach()
    else:
        np.add(tensor._grad._data, g._data, out=tensor._grad._data)
