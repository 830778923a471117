"""Training iterations and their health: the "iterations" and "health" sections of the trace document.

A trace of a training loop is thousands of steps; the debugger shows it as iterations that share a
structure (schema 1.2). The recorder (builder.py) notes where each iteration begins -- at the first
forward op after a backward pass or an optimizer update -- and the value backward() started from;
everything else is read here, in `build()`, from what the recording kept:

    iterations  per iteration: its first and last step, its structure id (iterations with equal
                structure ran the same sequence of steps, so the i-th step of one maps to the i-th
                step of the other), the loss, the global gradient norm the optimizer saw and the
                median update/weight ratio of its parameters
    health      per leaf layer: the mean, std and saturated fraction of its output and the std of
                the gradient flowing back into it, per iteration; per updated parameter: gradient
                norm, weight norm and update ratio, per iteration

Every per-iteration list has one entry per iteration, null where the recording does not know the
number (a layer that did not run, steps dropped by the ring buffer) or it is not finite (a loss gone
NaN: the document's nan_inf section says where that began).

    doc = rec.trace.to_dict()
    [it["loss"] for it in doc["iterations"]]           # the loss curve
    doc["health"]["layers"][1]["saturated"]            # how much of Sequential.1's tanh is flat
"""
from __future__ import annotations

import math
import statistics

from .summary import round_significant

ACTIVATIONS = {"tanh": "tanh", "sigmoid": "sigmoid", "relu": "relu"}  # last op of a layer -> activation


def iteration_sections(b, steps: list) -> dict:
    """{"iterations": [...], "health": {...}} for a TraceBuilder `b` and its retained `steps`, or {}
    when the recording saw no backward pass and no optimizer update."""
    if not b.saw_training or not steps:
        return {}
    spans = _spans(b.iterations, steps)
    objects, state_data = b.objects, b.state_data
    structures: dict[tuple, int] = {}
    iterations, per_iteration = [], []
    for index, first, last, loss, chunk in spans:
        seen = _scan(chunk, objects)
        structure = structures.setdefault(_structure(chunk, objects), len(structures))
        updates = seen["updates"]
        grad_sq = [u["grad_norm"] ** 2 for u, _ in updates if _finite(u["grad_norm"])]
        ratios = [r for r in (_update_ratio(u, s, state_data)[1] for u, s in updates) if r is not None]
        iterations.append({"index": index, "first_step": first, "last_step": last, "structure": structure,
                           "loss": loss, "grad_norm": _rounded(math.sqrt(sum(grad_sq))) if grad_sq else None,
                           "update_ratio": _rounded(statistics.median(ratios)) if ratios else None})
        per_iteration.append(seen)
    return {"iterations": iterations,
            "health": {"layers": _layer_health(b, per_iteration), "params": _param_health(b, per_iteration)}}


def _spans(starts, steps: list) -> list:
    """(index, first step, last step, loss, the steps) of each iteration with a retained step."""
    first_kept, last_kept = steps[0]["index"], steps[-1]["index"]
    starts = list(starts)
    spans = []
    position = 0
    for i, (index, first, loss) in enumerate(starts):
        end = starts[i + 1][1] - 1 if i + 1 < len(starts) else last_kept
        first = max(first, first_kept)  # the ring buffer dropped its beginning
        if end < first:
            continue
        chunk_start = position
        while position < len(steps) and steps[position]["index"] <= end:
            position += 1
        spans.append((index, first, end, loss, steps[chunk_start:position]))
    return spans


def _scan(chunk: list, objects: dict) -> dict:
    """What one iteration ran: the last op node of each layer, the backward step of each grad node,
    and its optimizer updates (update record, the parameter's state after it)."""
    last_op: dict[str, dict] = {}
    backward: dict[str, dict] = {}
    updates: list = []
    for step in chunk:
        kind = step["kind"]
        if kind == "op":
            node = objects[step["node"]]
            if node["layer"] is not None:
                last_op[node["layer"]] = node
        elif kind == "backward_step":
            backward[step["node"]] = step
        elif kind == "optimizer_update":
            updates.append((objects[step["update"]], step["states"][0] if step["states"] else None))
    return {"last_op": last_op, "backward": backward, "updates": updates}


def _structure(chunk: list, objects: dict) -> tuple:
    """What must match for two iterations to share a layout: the forward ops and the optimizer updates
    in order, and the backward steps as a multiset. Not their order: a weight's accumulate node is one
    object for the whole run, so from the second iteration on the engine runs it later than in the
    first, on the same graph (the front end pairs backward steps through their grad nodes)."""
    ordered, backward = [], []
    for step in chunk:
        sig = _signature(step, objects)
        (backward if step["kind"] in ("backward_step", "hook") else ordered).append(sig)
    return tuple(ordered), tuple(sorted(backward, key=repr))


def _signature(step: dict, objects: dict) -> tuple:
    """What must match for two steps to be "the same step" of two iterations."""
    kind = step["kind"]
    if kind == "op":
        node = objects[step["node"]]
        return ("op", node["op"], node["layer"], len(node["inputs"]), len(node["outputs"]))
    if kind == "backward_step":
        node = objects.get(step["node"])
        name = node["name"] if node is not None else None
        return ("backward", name, len(step["grads_in"]), len(step["grads_out"]))
    if kind == "optimizer_update":
        update = objects[step["update"]]
        return ("update", update["structured_name"] or update["param_name"])
    if kind == "hook":
        return ("hook", step["hook"], step["output_index"])
    return (kind,)


def _layer_health(b, per_iteration: list) -> list:
    """One entry per layer path that ran ops itself, in the order the layers first ran."""
    order: dict[str, None] = {}
    for seen in per_iteration:
        for path in seen["last_op"]:
            order.setdefault(path, None)
    layers = []
    for path in order:
        nodes = [seen["last_op"].get(path) for seen in per_iteration]
        last = next((n for n in reversed(nodes) if n is not None), None)
        activation = ACTIVATIONS.get(last["op"]) if last is not None else None
        entry = {"path": path, "name": path.rpartition(".")[2], "kind": b.layer_kinds.get(path),
                 "activation": activation, "node": [None if n is None else n["id"] for n in nodes],
                 "act_mean": [], "act_std": [], "saturated": [] if activation else None,
                 "grad_std": [], "grad_norm": []}
        for node, seen in zip(nodes, per_iteration):
            out = _summary(b, node["output_states"][0] if node is not None and node["output_states"] else None)
            entry["act_mean"].append(None if out is None else _rounded(out.mean))
            entry["act_std"].append(None if out is None else _rounded(out.std))
            if activation:
                fraction = node.get("saturation") if node is not None and node["op"] == last["op"] else None
                entry["saturated"].append(None if fraction is None else _rounded(fraction))
            grad = _summary(b, _grad_state(node, seen["backward"]))
            entry["grad_std"].append(None if grad is None else _rounded(grad.std))
            entry["grad_norm"].append(None if grad is None else _rounded(_norm(grad)))
        layers.append(entry)
    return layers


def _grad_state(node: dict | None, backward: dict) -> str | None:
    """The state of the gradient w.r.t. the op's first output, from its grad node's backward step."""
    if node is None or node["grad_node"] is None:
        return None
    step = backward.get(node["grad_node"])
    if step is None or not step["grads_in"]:
        return None
    return step["grads_in"][0]


def _param_health(b, per_iteration: list) -> list:
    """One entry per parameter the optimizer updated: gradient norm, weight norm, update ratio."""
    params: dict[str, dict] = {}
    for i, seen in enumerate(per_iteration):
        for update, sid in seen["updates"]:
            key = update["param"] or update["param_name"] or update["id"]
            entry = params.get(key)
            if entry is None:
                tid = update["param"]
                record = b.objects.get(tid) if tid is not None else None
                entry = params[key] = {
                    "tensor": tid, "name": update["structured_name"],
                    "paddle_name": update["param_name"] if record is None else record["name"],
                    "layer": b.param_layers.get(tid) if tid is not None else None,
                    "grad_norm": [None] * len(per_iteration), "weight_norm": [None] * len(per_iteration),
                    "update_ratio": [None] * len(per_iteration)}
            weight, ratio = _update_ratio(update, sid, b.state_data)
            entry["grad_norm"][i] = _rounded(update["grad_norm"]) if _finite(update["grad_norm"]) else None
            entry["weight_norm"][i] = None if weight is None else _rounded(weight)
            entry["update_ratio"][i] = None if ratio is None else _rounded(ratio)
    return list(params.values())


def _update_ratio(update: dict, sid: str | None, state_data: dict) -> tuple:
    """(the parameter's norm after the update, update_norm / that norm); None where unknown."""
    data = state_data.get(sid) if sid is not None else None
    if data is None:
        return None, None
    weight = _norm(data[0])
    if weight is None:
        return None, None
    ratio = update["update_norm"] / weight if _finite(update["update_norm"]) and weight > 0 else None
    return weight, ratio


def _summary(b, sid: str | None):
    data = b.state_data.get(sid) if sid is not None else None
    return None if data is None else data[0]


def _norm(summary) -> float | None:
    """The L2 norm from a summary: sum of squares = numel * (std^2 + mean^2) (population std)."""
    if summary.mean is None or summary.has_nan_inf:
        return None
    return math.sqrt(summary.numel * (summary.std * summary.std + summary.mean * summary.mean))


def _finite(v) -> bool:
    return isinstance(v, (int, float)) and math.isfinite(v)


def _rounded(v: float | None) -> float | None:
    """4 significant digits; a non-finite number is unknown here (null: nan_inf tells where it began)."""
    return None if v is None or not math.isfinite(v) else round_significant(float(v))
